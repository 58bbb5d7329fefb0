"""Scoring at game end (SPEC §4, Great Powers pairs §5)."""
from __future__ import annotations

from collections.abc import Sequence

from five_towers_env.games.five_towers.cards import CANDY, NUM_VALUES, SCARY

PAIR_VP = 3


def pair_bonus(towers: tuple) -> int:
    """Great Powers: 3 VP per scary/candy pair of equal value, each card in at most one pair."""
    scary, candy = towers[SCARY], towers[CANDY]
    if not scary or not candy:
        return 0
    common = set(scary).intersection(candy)
    return PAIR_VP * sum(min(scary.count(v), candy.count(v)) for v in common) if common else 0


def pair_gain(same: Sequence[int], other: Sequence[int], value: int) -> int:
    """Great Powers: how much :func:`pair_bonus` grows when a card of ``value`` joins the candy (or
    scary) tower holding the values ``same``, the other of the two holding ``other``: it makes a
    new pair exactly when the other tower has more cards of that value."""
    return PAIR_VP if other.count(value) > same.count(value) else 0


def teardown_penalty(pile_size: int) -> int:
    """1 + 2 + ... + m for m torn-down cards."""
    return pile_size * (pile_size + 1) // 2


def score_player(towers: tuple, pile: tuple, gp: bool) -> int:
    """One player's score: tower cards (x2 with a tower top), main tower bonus, teardown penalty, pairs."""
    total = 0
    main = 0
    for tw in towers:
        n = len(tw)
        total += 2 * n if (n and tw[-1] == 0) else n
        main = max(main, n)
    total += main - teardown_penalty(len(pile))
    if gp:
        total += pair_bonus(towers)
    return total


__all__ = ["PAIR_VP", "pair_bonus", "pair_gain", "teardown_penalty", "score_player", "NUM_VALUES"]
