"""The checks every game's JSON position loader makes of its plain fields, written once.

Each game's ``position`` module (:mod:`five_towers_env.games.five_towers.position`,
:mod:`five_towers_env.games.campanile.position`) checks its own rules; the fields every position has
(a choice among names, a player count, a seat, a true/false flag) are checked here, with the same
messages. Errors are :class:`PositionError`, a ``ValueError``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

import numpy as np

from five_towers_env.core.errors import PositionError


def is_int(x: object) -> TypeGuard[int | np.integer]:
    """An integer (Python or numpy) that is not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def one_of(pos: dict, key: str, default: Any, allowed: Sequence[Any]) -> Any:
    """``pos[key]`` (``default`` when absent), which must be one of ``allowed``."""
    value = pos.get(key, default)
    if value not in allowed:
        raise PositionError(f"'{key}' must be one of {', '.join(map(str, allowed))}, got {value!r}")
    return value


def player_count(pos: dict, low: int, high: int) -> int:
    """``pos["num_players"]``, an integer ``low..high``."""
    n = pos.get("num_players")
    if not is_int(n) or not low <= n <= high:
        raise PositionError(f"'num_players' must be an integer {low}..{high}, got {n!r}")
    return int(n)


def seat(pos: dict, key: str, n: int) -> int:
    """``pos[key]`` (0 when absent), a seat ``0..n-1``."""
    value = pos.get(key, 0)
    if not is_int(value) or not 0 <= value < n:
        raise PositionError(f"'{key}' must be a seat 0..{n - 1}, got {value!r}")
    return int(value)


def flag(pos: dict, key: str) -> bool:
    """``pos[key]`` (false when absent), true or false."""
    value = pos.get(key, False)
    if not isinstance(value, bool):
        raise PositionError(f"'{key}' must be true or false, got {value!r}")
    return value


__all__ = ["PositionError", "is_int", "one_of", "player_count", "seat", "flag"]
