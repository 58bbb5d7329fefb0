"""Campanile's one flat action space, ``Discrete(31)`` (SPEC C6).

Ids are grouped in blocks at named offsets; ``action_name`` and ``action_from_name`` convert
both ways and round-trip over every id. Within a block, ids run tower by tower (``A`` first)
and, for each tower, by storeys or chip value 1, 2, 3.
"""
from __future__ import annotations

from five_towers_env.core.codec import ActionNames
from five_towers_env.games.campanile.rules import NUM_TOWERS, TOWERS

PLAY = 0                                  # play T K: PLAY + 3 * tower + (K - 1)
NO_BET = PLAY + 3 * NUM_TOWERS            # no bet
BET = NO_BET + 1                          # bet V on T: BET + 3 * tower + (V - 1)
NUM_ACTIONS = BET + 3 * NUM_TOWERS        # 31

#: (first id, block size, name) of every block, in id order
BLOCKS: tuple[tuple[int, int, str], ...] = (
    (PLAY, 3 * NUM_TOWERS, "play"),
    (NO_BET, 1, "no bet"),
    (BET, 3 * NUM_TOWERS, "bet"),
)


def play_action(tower: int, storeys: int) -> int:
    """Action id of ``play T K`` for tower index ``tower`` and ``storeys`` in 1..3."""
    return PLAY + 3 * tower + storeys - 1


def bet_action(value: int, tower: int) -> int:
    """Action id of ``bet V on T`` for chip ``value`` in 1..3 and tower index ``tower``."""
    return BET + 3 * tower + value - 1


def _make_names() -> tuple[str, ...]:
    names = [f"play {t} {k}" for t in TOWERS for k in (1, 2, 3)]
    names.append("no bet")
    names += [f"bet {v} on {t}" for t in TOWERS for v in (1, 2, 3)]
    assert len(names) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES: tuple[str, ...] = _make_names()
_NAMES = ActionNames(ACTION_NAMES, " (e.g. 'play C 2', 'no bet', 'bet 2 on C')")


def action_name(action: int) -> str:
    """Return the SPEC C6 name of an action id; raise ``ValueError`` for an id out of range."""
    return _NAMES.name(action)


def action_from_name(name: str) -> int:
    """Return the action id of a SPEC C6 name such as ``"bet 2 on C"``; raise ``ValueError`` if unknown."""
    return _NAMES.id(name)


def decode(action: int) -> tuple[str, int, int]:
    """``("play", tower, storeys)``, ``("no bet", -1, 0)`` or ``("bet", tower, value)`` for an id."""
    a = int(action)
    if PLAY <= a < NO_BET:
        t, k = divmod(a - PLAY, 3)
        return "play", t, k + 1
    if a == NO_BET:
        return "no bet", -1, 0
    if BET <= a < NUM_ACTIONS:
        t, v = divmod(a - BET, 3)
        return "bet", t, v + 1
    raise ValueError(f"action id {a} is out of range 0..{NUM_ACTIONS - 1}")


__all__ = ["PLAY", "NO_BET", "BET", "NUM_ACTIONS", "BLOCKS", "ACTION_NAMES", "play_action", "bet_action",
           "action_name", "action_from_name", "decode"]
