"""The games, one package each behind the game contract (:mod:`five_towers_env.core.game`).

``from five_towers_env.games import five_towers, campanile`` gives each game's package: its rules
engine, ``env()`` / ``raw_env()`` (PettingZoo AEC), ``SPEC`` (its :class:`~five_towers_env.core.game.GameSpec`)
and its agents. Importing this package imports no game.

Before the game contract this module was the games registry; its names (``GAMES``, ``Game``,
``get_game``, ``DEFAULT_GAME``, ``load``) still work here, with a ``DeprecationWarning``: they live
in :mod:`five_towers_env.core.game`.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any

_MOVED = ("GAMES", "Game", "get_game", "DEFAULT_GAME", "load")


def __getattr__(name: str) -> Any:
    # a game as an attribute (five_towers_env.games.campanile), imported on first use
    if name in ("five_towers", "campanile"):
        return importlib.import_module(f"{__name__}.{name}")
    if name in _MOVED:
        warnings.warn(f"five_towers_env.games.{name} moved to five_towers_env.core.game.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("five_towers_env.core.game"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
