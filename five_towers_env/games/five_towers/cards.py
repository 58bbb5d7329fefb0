"""Cards, card names and the two card sets (SPEC §1).

A card is identified by an integer id ``type_index * 16 + value`` (0..79). Two physical
copies of the same card share one id: no rule tells them apart, so the engine stores
multisets of ids.
"""
from __future__ import annotations

from collections.abc import Iterable

TYPES: tuple[str, ...] = ("candy", "scary", "tree", "scrap", "sand")
CANDY, SCARY, TREE, SCRAP, SAND = range(5)
NUM_TYPES = len(TYPES)
NUM_VALUES = 16
NUM_CARD_IDS = NUM_TYPES * NUM_VALUES
#: values that have a second copy of every type in 4- and 5-player games
DOUBLED_VALUES: tuple[int, ...] = (0, 2, 5, 7, 10, 12)

_TYPE_INDEX = {name: i for i, name in enumerate(TYPES)}
CARD_NAMES: tuple[str, ...] = tuple(f"{TYPES[c // NUM_VALUES]}-{c % NUM_VALUES}" for c in range(NUM_CARD_IDS))
_NAME_TO_ID = {name: c for c, name in enumerate(CARD_NAMES)}


def card_id(type_index: int, value: int) -> int:
    """Return the id of the card of tower type ``type_index`` and ``value``."""
    return type_index * NUM_VALUES + value


def card_name(card: int) -> str:
    """Return the SPEC name of a card id, e.g. ``candy-11``."""
    return CARD_NAMES[card]


def parse_card(name: object) -> int:
    """Parse a SPEC card name such as ``sand-0`` into a card id; raise ``ValueError`` if malformed."""
    if not isinstance(name, str) or name not in _NAME_TO_ID:
        raise ValueError(f"malformed card name {name!r}: expected TYPE-VALUE with TYPE in {', '.join(TYPES)} "
                         "and VALUE 0..15")
    return _NAME_TO_ID[name]


def parse_type(name: object) -> int:
    """Parse a tower type name into its index; raise ``ValueError`` if unknown."""
    if not isinstance(name, str) or name not in _TYPE_INDEX:
        raise ValueError(f"unknown tower type {name!r}: expected one of {', '.join(TYPES)}")
    return _TYPE_INDEX[name]


def card_set_counts(num_players: int) -> tuple[int, ...]:
    """Copies of each card id in the game's card set: 80 cards for 2-3 players, 110 for 4-5."""
    doubled = num_players >= 4
    return tuple(2 if doubled and (c % NUM_VALUES) in DOUBLED_VALUES else 1 for c in range(NUM_CARD_IDS))


def card_set(num_players: int) -> list[int]:
    """The full card set as a sorted list of ids (with repeats for second copies)."""
    return [c for c, n in enumerate(card_set_counts(num_players)) for _ in range(n)]


def counts_of(cards: Iterable[int]) -> list[int]:
    """Count each card id in ``cards``: a list of length 80."""
    counts = [0] * NUM_CARD_IDS
    for c in cards:
        counts[c] += 1
    return counts


def can_place(below: int, card: int) -> bool:
    """SPEC §2: may a card of value ``card`` lie directly on a card of value ``below``."""
    if below == 0:
        return False
    return below == 8 or card == 9 or card < below
