"""five_towers_env: the card games 5 Towers (with its Great Powers expansion) and Campanile for
reinforcement learning.

Each game is a package behind one contract (:mod:`five_towers_env.core.game`)::

    from five_towers_env.games import five_towers, campanile
    env = five_towers.env(num_players=2, variant="base")     # PettingZoo AEC environment
    state = campanile.CampanileState.new_game(3, "pile", rng)  # the pure rules engine

Importing the package loads neither PettingZoo nor Gymnasium nor any game: the ids
(``five_towers_env/FiveTowers-v0``, ``five_towers_env/Campanile-v0``) are registered with each
framework as soon as it is imported.
"""
from __future__ import annotations

import importlib
from typing import Any

from five_towers_env import registration
from five_towers_env.core.builtin_games import BUILTIN_GAMES, DEFAULT_GAME

__version__ = "1.0.0"
#: the PettingZoo id of the default game (each game's package has its own ``ENV_ID``)
ENV_ID = BUILTIN_GAMES[DEFAULT_GAME].pettingzoo_id

registration.install()

#: subpackages reachable as attributes after ``import five_towers_env`` (imported on first use)
_SUBPACKAGES = ("agents", "core", "evaluation", "games", "integrations", "training", "wrappers")


def engine_backend() -> str:
    """``"native"`` or ``"python"``: the engine the games run on now (``FIVE_TOWERS_ENGINE`` forces one;
    unset, the native core wherever it was built; :mod:`five_towers_env.core.backend`)."""
    from five_towers_env.core.backend import engine_backend as active

    return active()


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ENV_ID", "__version__", "engine_backend"]
