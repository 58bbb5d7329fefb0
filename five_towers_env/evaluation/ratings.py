"""Bradley-Terry ratings on the Elo scale, anchored, with intervals from a bootstrap over deals.

The model: agent ``i`` has a rating ``r_i``, and in any game it finishes ahead of agent ``j`` with probability
``1 / (1 + 10 ** (-(r_i - r_j) / 400))``; a tie counts as half a win each way. With two players a comparison
is a game; with three to five, every pair of seats of a game is one comparison (the pairwise finishing order,
a composite likelihood: the comparisons of one game are not independent, and the intervals account for that
by resampling whole deals). Half a virtual win each way is added to every pair that met, so an unbeaten
record gives a finite rating. One agent, the anchor, is held at 0. The fit is the package's one Bradley-Terry
fit, :func:`~five_towers_env.evaluation.stats.bradley_terry`; the comparisons come from
:func:`~five_towers_env.evaluation.outcomes.comparisons`.

Intervals: the deals of each group of agents (the clusters: every seating of a deal, every pair of seats of
its games) are resampled with replacement, the ratings refitted, and the 2.5th and 97.5th percentiles of the
refits taken (a percentile bootstrap, seeded, so the same data and seed give the same intervals).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.evaluation.stats import bradley_terry

#: Elo points per natural-log unit of odds
ELO = 400.0 / math.log(10.0)
PRIOR = 0.5


def fit(wins: np.ndarray, anchor: int, prior: float = PRIOR) -> np.ndarray:
    """Ratings (Elo points, ``anchor`` at 0) maximising the Bradley-Terry likelihood of the win matrix
    ``wins[a, b]``: the one fit, :func:`~five_towers_env.evaluation.stats.bradley_terry` (which a tournament's Elo
    comes from too), on the Elo scale; an agent with no comparisons gets NaN."""
    wins = np.asarray(wins, dtype=float)
    strengths = bradley_terry(wins.tolist(), prior=prior)
    out = np.array([400.0 * math.log10(g) for g in strengths])
    out -= out[anchor]
    out[~(wins + wins.T > 0).any(axis=1)] = np.nan
    out[anchor] = 0.0
    return out


def bootstrap(wins: np.ndarray, groups: Sequence[Any], anchor: int, replicates: int,
              rng: np.random.Generator) -> np.ndarray:
    """``replicates`` refits (rows) of the ratings, each on the clusters of every group resampled with
    replacement (each group keeps its number of clusters)."""
    by_group: dict[Any, list[int]] = {}
    for c, g in enumerate(groups):
        by_group.setdefault(g, []).append(c)
    out = np.empty((replicates, wins.shape[1]))
    for b in range(replicates):
        counts = np.zeros(len(groups))
        for members in by_group.values():
            picks = rng.integers(len(members), size=len(members))
            np.add.at(counts, np.asarray(members)[picks], 1.0)
        out[b] = fit(np.tensordot(counts, wins, axes=1), anchor)
    return out


def interval(draws: np.ndarray) -> tuple[float, float]:
    """The 95% percentile interval of bootstrap ``draws``."""
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def expected_score(gap: float) -> float:
    """How often an agent ``gap`` Elo points above another finishes ahead of it, under the model."""
    return 1.0 / (1.0 + 10.0 ** (-gap / 400.0))


__all__ = ["ELO", "PRIOR", "bootstrap", "expected_score", "fit", "interval"]
