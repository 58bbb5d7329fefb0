"""The games, one package each behind the game contract (:mod:`five_towers_env.core.game`).

``from five_towers_env.games import five_towers, campanile`` gives each game's package: its rules
engine, ``env()`` / ``raw_env()`` (PettingZoo AEC), ``SPEC`` (its :class:`~five_towers_env.core.game.GameSpec`)
and its agents. Importing this package imports no game; the games registry is
:mod:`five_towers_env.core.game`.
"""
from __future__ import annotations

import importlib
from typing import Any

from five_towers_env.core.game import BUILTIN_GAMES


def __getattr__(name: str) -> Any:
    # a built-in game as an attribute (five_towers_env.games.campanile), imported on first use
    if name in BUILTIN_GAMES and BUILTIN_GAMES[name].module == f"{__name__}.{name}":
        return importlib.import_module(BUILTIN_GAMES[name].module)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
