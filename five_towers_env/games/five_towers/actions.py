"""The one flat action space shared by every phase and both variants (SPEC §7).

Ids are grouped in blocks at named offsets; ``action_name`` and ``action_from_name`` convert
both ways and round-trip over every id.
"""
from __future__ import annotations

from five_towers_env.core.codec import ActionNames
from five_towers_env.games.five_towers.cards import (
    CARD_NAMES,
    NUM_CARD_IDS,
    NUM_VALUES,
    SAND,
    TYPES,
    card_id,
    parse_card,
    parse_type,
)

#: Highest bid any position can reach: a Great Powers ceiling is N + H with N <= 5 display
#: cards and H <= 20 untopped tree cards (22 tree cards in 4-5 player games, minus two 0s).
MAX_BID = 25

BID = 0                                   # bid N: BID + N, N = 0..MAX_BID
PASS = BID + MAX_BID + 1                  # pass
TAKE = PASS + 1                           # take TYPE-V: TAKE + card id
STOP = TAKE + NUM_CARD_IDS                # stop (Great Powers: pay the rest with tree cards)
TEARDOWN = STOP + 1                       # teardown TYPE: TEARDOWN + type index
NO_TEARDOWN = TEARDOWN + len(TYPES)       # no teardown
BUILD = NO_TEARDOWN + 1                   # build TYPE-V (top, or a new tower): BUILD + card id
BUILD_BOTTOM = BUILD + NUM_CARD_IDS       # build sand-V bottom: BUILD_BOTTOM + V
RECOVER = BUILD_BOTTOM + NUM_VALUES       # recover TYPE-V: RECOVER + card id
RECOVER_BOTTOM = RECOVER + NUM_CARD_IDS   # recover sand-V bottom: RECOVER_BOTTOM + V
NO_RECOVER = RECOVER_BOTTOM + NUM_VALUES  # no recover
NUM_ACTIONS = NO_RECOVER + 1

#: (first id, block size, name) of every block, in id order
BLOCKS: tuple[tuple[int, int, str], ...] = (
    (BID, MAX_BID + 1, "bid"),
    (PASS, 1, "pass"),
    (TAKE, NUM_CARD_IDS, "take"),
    (STOP, 1, "stop"),
    (TEARDOWN, len(TYPES), "teardown"),
    (NO_TEARDOWN, 1, "no teardown"),
    (BUILD, NUM_CARD_IDS, "build"),
    (BUILD_BOTTOM, NUM_VALUES, "build bottom"),
    (RECOVER, NUM_CARD_IDS, "recover"),
    (RECOVER_BOTTOM, NUM_VALUES, "recover bottom"),
    (NO_RECOVER, 1, "no recover"),
)


def _make_names() -> tuple[str, ...]:
    names = [f"bid {n}" for n in range(MAX_BID + 1)]
    names.append("pass")
    names += [f"take {n}" for n in CARD_NAMES]
    names.append("stop")
    names += [f"teardown {t}" for t in TYPES]
    names.append("no teardown")
    names += [f"build {n}" for n in CARD_NAMES]
    names += [f"build sand-{v} bottom" for v in range(NUM_VALUES)]
    names += [f"recover {n}" for n in CARD_NAMES]
    names += [f"recover sand-{v} bottom" for v in range(NUM_VALUES)]
    names.append("no recover")
    assert len(names) == NUM_ACTIONS
    return tuple(names)


ACTION_NAMES: tuple[str, ...] = _make_names()
_NAMES = ActionNames(ACTION_NAMES)


def action_name(action: int) -> str:
    """Return the SPEC §7 name of an action id; raise ``ValueError`` for an id out of range."""
    return _NAMES.name(action)


def action_from_name(name: str) -> int:
    """Return the action id of a SPEC §7 name such as ``build sand-4 bottom``; raise ``ValueError`` if unknown."""
    return _NAMES.id(name)


def bid_action(n: int) -> int:
    """Action id of ``bid n``."""
    return BID + n


def take_action(card: int) -> int:
    """Action id of ``take`` for a card id."""
    return TAKE + card


def build_action(card: int, bottom: bool = False) -> int:
    """Action id of ``build`` for a card id (``bottom`` only for sand cards)."""
    return BUILD_BOTTOM + card - card_id(SAND, 0) if bottom else BUILD + card


def recover_action(card: int, bottom: bool = False) -> int:
    """Action id of ``recover`` for a card id (``bottom`` only for sand cards)."""
    return RECOVER_BOTTOM + card - card_id(SAND, 0) if bottom else RECOVER + card


__all__ = [
    "MAX_BID", "BID", "PASS", "TAKE", "STOP", "TEARDOWN", "NO_TEARDOWN", "BUILD", "BUILD_BOTTOM",
    "RECOVER", "RECOVER_BOTTOM", "NO_RECOVER", "NUM_ACTIONS", "BLOCKS", "ACTION_NAMES",
    "action_name", "action_from_name", "bid_action", "take_action", "build_action", "recover_action",
    "parse_card", "parse_type",
]
