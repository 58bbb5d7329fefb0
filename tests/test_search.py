"""The game-neutral determinised search (:mod:`five_towers_env.core.search`) on a toy game."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.core import search as core_search
from five_towers_env.core.search import Budget, Halving, Race, flat_search


class Toy:
    """Candidate ``c`` is worth ``means[c]`` plus the determinisation's luck, shared by every candidate
    (``paired``) or drawn again per candidate."""

    def __init__(self, means: list[float], paired: bool = True, seed: int = 0) -> None:
        self.means, self.paired = means, paired
        self.rng = np.random.default_rng(seed)
        self.dealt: list[int] = []
        self.played: list[int] = []

    def sample(self, i: int) -> float:
        self.dealt.append(i)
        return float(self.rng.normal())

    def play(self, c: int, luck: float) -> tuple[int, float]:
        self.played.append(c)
        return c, luck if self.paired else float(self.rng.normal())

    def rollout(self, state: tuple[int, float], luck: float) -> tuple[int, float]:
        return state

    def evaluate(self, state: tuple[int, float]) -> float:
        c, luck = state
        return self.means[c] + luck


def test_common_random_numbers_let_the_race_drop_worse_candidates_at_once():
    toy = Toy([0.5, 0.6, 0.4])
    result = flat_search(toy, [0, 1, 2], Budget(1000), Race(z=2.0, min_samples=4))
    # shared luck cancels out of the paired differences: after min_samples only the best is left
    assert result.best == 1 and result.simulations == 12 and toy.dealt == [0, 1, 2, 3]
    assert result.means[1] - result.means[0] == pytest.approx(0.1)


def test_without_pairing_the_same_race_needs_more_samples():
    toy = Toy([0.5, 0.6, 0.4], paired=False)
    result = flat_search(toy, [0, 1, 2], Budget(1000), Race(z=2.0, min_samples=4))
    assert result.simulations > 12


def test_race_without_z_samples_every_candidate_until_the_budget():
    toy = Toy([0.5, 0.6, 0.4])
    result = flat_search(toy, [0, 1, 2], Budget(30), Race(z=None))
    assert result.simulations == 30 and [toy.played.count(c) for c in range(3)] == [10, 10, 10]
    assert result.best == 1


def test_exact_candidates_are_never_sampled():
    toy = Toy([0.5, 0.6, 0.4])
    result = flat_search(toy, [0, 1, 2], Budget(30), Race(z=None), exact=[0.9, None, None])
    assert 0 not in toy.played and result.means[0] == 0.9 and result.best == 0
    toy = Toy([0.5, 0.6])
    result = flat_search(toy, [0, 1], Budget(30), exact=[0.2, 0.3])
    assert toy.dealt == [] and result.simulations == 0 and result.best == 1


def test_halving_splits_the_budget_and_keeps_the_better_half():
    toy = Toy([0.1, 0.2, 0.3, 0.4, 0.5])
    result = flat_search(toy, list(range(5)), Budget(100), Halving())
    # 3 rounds: 6 determinisations for all 5, 11 for the best 3, 18 for the best 2
    assert [toy.played.count(c) for c in range(5)] == [6, 6, 17, 35, 35]
    assert result.simulations == 99 and result.best == 4


def test_equal_scores_go_to_the_first_candidate_unless_the_prior_says_otherwise():
    for schedule in (Race(), Halving()):
        assert flat_search(Toy([0.5, 0.5, 0.5]), [0, 1, 2], Budget(30), schedule).best == 0
        assert flat_search(Toy([0.5, 0.5, 0.5]), [0, 1, 2], Budget(30), schedule, prior=[0, 0.1, 0]).best == 1


def test_a_single_candidate_is_not_sampled():
    toy = Toy([0.5])
    result = flat_search(toy, ["only"], Budget(30))
    assert result.choice(["only"]) == "only" and result.simulations == 0 and result.means == [None]
    with pytest.raises(ValueError):
        flat_search(toy, [], Budget(30))


def test_a_time_budget_still_runs_min_simulations():
    toy = Toy([0.5, 0.5])
    result = flat_search(toy, [0, 1], Budget(1, time_limit=0.0, min_simulations=5), Race(z=None))
    assert result.simulations == 6  # whole determinisations until at least 5 rollouts


def test_the_core_search_imports_no_game():
    tree = ast.parse(Path(core_search.__file__).read_text())
    modules = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in modules if m and m.startswith("five_towers_env")]
