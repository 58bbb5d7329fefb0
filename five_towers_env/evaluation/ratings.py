"""Bradley-Terry ratings on the Elo scale, anchored, with intervals from a bootstrap over deals.

The model: agent ``i`` has a rating ``r_i``, and in any game it finishes ahead of agent ``j`` with probability
``1 / (1 + 10 ** (-(r_i - r_j) / 400))``; a tie counts as half a win each way. With two players a comparison
is a game; with three to five, every pair of seats of a game is one comparison (the pairwise finishing order,
a composite likelihood: the comparisons of one game are not independent, and the intervals account for that
by resampling whole deals). Half a virtual win each way is added to every pair that met, so an unbeaten
record gives a finite rating. One agent, the anchor, is held at 0.

Intervals: the deals of each group of agents (the clusters: every seating of a deal, every pair of seats of
its games) are resampled with replacement, the ratings refitted, and the 2.5th and 97.5th percentiles of the
refits taken (a percentile bootstrap, seeded, so the same data and seed give the same intervals).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Elo points per natural-log unit of odds
ELO = 400.0 / math.log(10.0)
PRIOR = 0.5


def comparisons(records: Sequence[dict[str, Any]], num_agents: int) -> tuple[np.ndarray, list[Any]]:
    """Per cluster (a group's deal): ``wins[c, a, b]``, how often agent ``a`` finished ahead of ``b`` (ties
    1/2; see :func:`~five_towers_env.evaluation.tournament.finish_ahead`); and each cluster's group."""
    from five_towers_env.evaluation.tournament import finish_ahead

    index: dict[tuple[Any, Any], int] = {}
    groups: list[Any] = []
    rows: list[np.ndarray] = []
    for r in records:
        key = (r.get("group", 0), r.get("deal", r.get("game")))
        c = index.get(key)
        if c is None:
            c = index[key] = len(rows)
            rows.append(np.zeros((num_agents, num_agents)))
            groups.append(key[0])
        lineup = r["lineup"]
        for s in range(len(lineup)):
            for t in range(len(lineup)):
                if s != t and lineup[s] != lineup[t]:
                    rows[c][lineup[s], lineup[t]] += finish_ahead(r, s, t)
    wins = np.stack(rows) if rows else np.zeros((0, num_agents, num_agents))
    return wins, groups


def fit(wins: np.ndarray, anchor: int, prior: float = PRIOR, tol: float = 1e-10) -> np.ndarray:
    """Ratings (Elo points, ``anchor`` at 0) maximising the Bradley-Terry likelihood of the win matrix
    ``wins[a, b]``, by Newton's method; an agent with no comparisons gets NaN."""
    k = wins.shape[0]
    n = wins + wins.T
    met = n > 0
    w = wins + prior * met
    n = w + w.T
    connected = met.any(axis=1)
    free = np.flatnonzero(connected & (np.arange(k) != anchor))
    theta = np.zeros(k)
    for _ in range(200):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = w.sum(axis=1) - (n * p).sum(axis=1)
        info = n * p * (1.0 - p)
        hess = np.diag(info.sum(axis=1)) - info
        step = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        # damped: far-apart agents (a near-certain result) make the first full steps overshoot
        step = np.clip(step, -2.0, 2.0)
        theta[free] += step
        if np.max(np.abs(step), initial=0.0) < tol:
            break
    out = theta * ELO
    out[~connected] = np.nan
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


__all__ = ["ELO", "PRIOR", "bootstrap", "comparisons", "expected_score", "fit", "interval"]
