"""Campanile's fixed numbers and its scoring (docs/campanile.md, "SPEC Cn" = section Cn there).

Towers and cards are small ints: tower ``t`` in ``0..4`` is named ``"ABCDE"[t]``, and a card is
the index of the tower it can be played on (cards of one style are interchangeable, SPEC C1).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

TOWERS = "ABCDE"
NUM_TOWERS = 5
CARDS_PER_STYLE = 14                       # SPEC C1: 70 cards, 14 per style
NUM_PILES = 3                              # SPEC C1: piles 1, 2, 3
HAND_SIZE = 3                              # SPEC C2.2
MIN_PLAYERS, MAX_PLAYERS = 2, 5
CHIP_VALUES = (1, 2, 3)
CHIPS = (5, 3, 1)                          # SPEC C1: five 1-chips, three 2-chips, one 3-chip
STOREYS = (1, 2, 3)                        # SPEC C3.1: a play raises its tower by 1, 2 or 3
#: SPEC C2.1: cards removed from each style, by player count
REMOVED_PER_STYLE = {2: 5, 3: 3, 4: 1, 5: 0}
#: SPEC C4: the flags in the order the towers earn them (tallest first); the fifth tower gets none
FLAGS = ((8, 4), (6, 3), (4, 2), (2, 1))
VARIANTS = ("pile", "played")              # SPEC C3.2: which towers may be bet on
BET_CHIPS = ("at_least", "exact")          # SPEC C3.2: chip value >= or == the storeys played
#: the largest height the observation scales by: 14 cards of a style raised 3 storeys each
MAX_HEIGHT = CARDS_PER_STYLE * max(STOREYS)


def cards_per_style(num_players: int) -> int:
    """SPEC C2.1: how many cards of each style are in play with ``num_players`` players."""
    return CARDS_PER_STYLE - REMOVED_PER_STYLE[num_players]


def pile_size(num_players: int) -> int:
    """SPEC C2.3: cards in each draw pile after the deal (13, 15, 17 or 18)."""
    rest = NUM_TOWERS * cards_per_style(num_players) - HAND_SIZE * num_players
    return rest // NUM_PILES


def leftover_count(num_players: int) -> int:
    """SPEC C2.3: cards set aside unseen after dealing the piles (0, 1, 2 or 1)."""
    rest = NUM_TOWERS * cards_per_style(num_players) - HAND_SIZE * num_players
    return rest % NUM_PILES


def tower_index(name: object) -> int:
    """The index of a tower or card name ``A``..``E``; ``ValueError`` for anything else."""
    if isinstance(name, str) and len(name) == 1 and name in TOWERS:
        return TOWERS.index(name)
    raise ValueError(f"unknown tower or card {name!r} (names are A, B, C, D, E)")


def flag_order(heights: Sequence[int]) -> list[int]:
    """SPEC C4: the towers tallest first; between equal heights the one further left (A first)."""
    # a reversed sort is still stable: equal heights keep the order A..E
    return sorted(range(NUM_TOWERS), key=heights.__getitem__, reverse=True)


def backers(bets: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """SPEC C4: ``(seat, stake)`` of every seat with chips under one tower, best first.

    ``bets`` is the tower's ``(seat, value)`` list in the order placed. A larger stake ranks
    higher; between equal stakes the seat whose first chip went under the tower earlier does.
    """
    return list(ranked_backers(tuple(bets)))


@lru_cache(maxsize=1 << 16)
def ranked_backers(bets: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """:func:`backers` of a tuple of bets, as a tuple (memoised: scoring asks for the same towers'
    backers at every turn, and the search for the same few chip lists over and over)."""
    stake = stakes_by_first_chip(bets)
    # the stakes are in first-chip order and a reversed sort is stable: equal stakes keep it
    return tuple(sorted(stake.items(), key=_stake_of, reverse=True))


def _stake_of(seat_stake: tuple[int, int]) -> int:
    return seat_stake[1]


def stakes_by_first_chip(bets: Sequence[tuple[int, int]]) -> dict[int, int]:
    """SPEC C4: ``{seat: stake}`` under one tower, in the order of each seat's first chip there."""
    stake: dict[int, int] = {}
    for seat, value in bets:  # dict insertion order is the order of each seat's first chip
        stake[seat] = stake.get(seat, 0) + value
    return stake


def score_towers(heights: Sequence[int], bets: Sequence[Sequence[tuple[int, int]]], num_players: int) -> list[int]:
    """SPEC C4: each seat's score if the game ended now."""
    return score_in_order(flag_order(heights), bets, num_players)


def score_in_order(order: Sequence[int], bets: Sequence[Sequence[tuple[int, int]]], num_players: int) -> list[int]:
    """SPEC C4: each seat's score, the towers' ``flag_order`` given (scores depend on heights only
    through it, which lets the engine skip rescoring plays that do not reorder the towers)."""
    return score_backed(order, [ranked_backers(b) for b in bets], num_players)


def score_backed(order: Sequence[int], backed: Sequence[Sequence[tuple[int, int]]], num_players: int) -> list[int]:
    """SPEC C4: each seat's score, given the flag ``order`` and each tower's ``backers`` (a search
    that changes one tower's chips at a time recomputes only that tower's)."""
    scores = [0] * num_players
    for (high, low), t in zip(FLAGS, order):  # zip stops at four: the fifth tower scores nothing
        ranked = backed[t]
        if ranked:
            scores[ranked[0][0]] += high
        if len(ranked) > 1:  # a lone backer scores only the higher number
            scores[ranked[1][0]] += low
    return scores


__all__ = [
    "TOWERS", "NUM_TOWERS", "CARDS_PER_STYLE", "NUM_PILES", "HAND_SIZE", "MIN_PLAYERS", "MAX_PLAYERS",
    "CHIP_VALUES", "CHIPS", "STOREYS", "REMOVED_PER_STYLE", "FLAGS", "VARIANTS", "BET_CHIPS", "MAX_HEIGHT",
    "cards_per_style", "pile_size", "leftover_count", "tower_index", "flag_order", "backers", "ranked_backers",
    "score_towers",
    "score_in_order", "score_backed", "stakes_by_first_chip",
]
