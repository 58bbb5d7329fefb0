"""five_towers_env: the card games 5 Towers (with its Great Powers expansion) and Campanile for
reinforcement learning.

Each game is a package behind one contract (:mod:`five_towers_env.core.game`)::

    from five_towers_env.games import five_towers, campanile
    env = five_towers.env(num_players=2, variant="base")     # PettingZoo AEC environment
    state = campanile.CampanileState.new_game(3, "pile", rng)  # the pure rules engine

Importing the package loads neither PettingZoo nor Gymnasium nor any game: the ids
(``five_towers_env/FiveTowers-v0``, ``five_towers_env/Campanile-v0``) are registered with each
framework as soon as it is imported. The paths from before the game contract
(``five_towers_env.env()``, ``five_towers_env.engine``, ``.environment``, ``.campanile``) still
work, with a ``DeprecationWarning`` (:mod:`five_towers_env.old_paths`).
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any

from five_towers_env import old_paths, registration

__version__ = "0.1.0"
ENV_ID = registration.PETTINGZOO_ID

old_paths.install()
registration.install()

#: subpackages reachable as attributes after ``import five_towers_env`` (imported on first use)
_SUBPACKAGES = ("agents", "core", "evaluation", "games", "integrations", "training", "wrappers")
#: names from before the game contract, now 5 Towers' (``five_towers_env.games.five_towers``)
_FIVE_TOWERS_NAMES = ("env", "raw_env", "action_name", "action_from_name")


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FIVE_TOWERS_NAMES:
        warnings.warn(f"five_towers_env.{name} is 5 Towers': use five_towers_env.games.five_towers.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("five_towers_env.games.five_towers"), name)
    if old_paths.new_name(f"{__name__}.{name}") is not None:  # engine, environment, campanile, ...
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ENV_ID", "__version__"]
