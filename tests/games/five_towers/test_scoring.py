"""SPEC §4 scoring helpers: the Great Powers pair bonus and its one-card change."""
from __future__ import annotations

import numpy as np

from five_towers_env.games.five_towers.cards import CANDY, SCARY
from five_towers_env.games.five_towers.scoring import pair_bonus, pair_gain


def _towers(candy: list[int], scary: list[int]) -> dict:
    return {CANDY: candy, SCARY: scary}


def test_pair_bonus_counts_each_card_once():
    assert pair_bonus(_towers([3, 3, 5], [3, 5, 5, 7])) == 6   # one pair of 3s, one of 5s
    assert pair_bonus(_towers([], [4])) == 0
    assert pair_bonus(_towers([9, 9], [9, 9])) == 6


def test_pair_gain_is_the_change_of_pair_bonus():
    rng = np.random.default_rng(0)
    for _ in range(2000):
        candy = [int(v) for v in rng.integers(0, 6, size=rng.integers(0, 6))]
        scary = [int(v) for v in rng.integers(0, 6, size=rng.integers(0, 6))]
        v = int(rng.integers(0, 6))
        before = pair_bonus(_towers(candy, scary))
        assert pair_gain(candy, scary, v) == pair_bonus(_towers(candy + [v], scary)) - before
        assert pair_gain(scary, candy, v) == pair_bonus(_towers(candy, scary + [v])) - before
