"""Small, dependency-free statistics for evaluation: Wilson intervals and Bradley-Terry / Elo ratings."""
from __future__ import annotations

import math
from typing import Sequence

#: two-sided 95% normal quantile
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n``.

    ``successes`` may be fractional (shared wins count as 1/k of a win); the formula is then
    applied to the fractional proportion. Returns ``(nan, nan)`` when ``n == 0``.
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p) / n + z2 / (4.0 * n * n), 0.0)) / denom
    lo = 0.0 if p <= 0.0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return (lo, hi)


def bradley_terry(wins: Sequence[Sequence[float]], prior: float = 0.5, iterations: int = 10_000,
                  tol: float = 1e-12) -> list[float]:
    """Bradley-Terry strengths by the MM algorithm (Hunter 2004); deterministic.

    ``wins[i][j]`` is the (possibly fractional) number of times ``i`` beat ``j``. ``prior`` virtual
    wins are added in both directions for every pair that met, so an unbeaten agent gets a finite
    rating. Agents that never met anyone get strength 1. Strengths are normalised to geometric mean 1.
    """
    k = len(wins)
    met = [[i != j and (wins[i][j] + wins[j][i]) > 0 for j in range(k)] for i in range(k)]
    w = [[float(wins[i][j]) + (prior if met[i][j] else 0.0) for j in range(k)] for i in range(k)]
    n = [[w[i][j] + w[j][i] if met[i][j] else 0.0 for j in range(k)] for i in range(k)]
    gamma = [1.0] * k
    total = [sum(w[i]) for i in range(k)]
    for _ in range(iterations):
        new = []
        for i in range(k):
            d = sum(n[i][j] / (gamma[i] + gamma[j]) for j in range(k) if j != i and n[i][j] > 0)
            new.append(total[i] / d if d > 0 and total[i] > 0 else gamma[i])
        active = [g for i, g in enumerate(new) if any(n[i])]
        if active:
            mean_log = sum(math.log(g) for g in active) / len(active)
            new = [g / math.exp(mean_log) if any(n[i]) else 1.0 for i, g in enumerate(new)]
        delta = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma))
        gamma = new
        if delta < tol:
            break
    return gamma


def elo_ratings(wins: Sequence[Sequence[float]], base: float = 1500.0, prior: float = 0.5) -> list[float]:
    """Elo ratings from a pairwise win-count matrix: Bradley-Terry MLE mapped to the Elo scale
    (``400 * log10(strength)``), centred so the mean rating is ``base``. A rating gap ``d``
    predicts a win probability ``1 / (1 + 10 ** (-d / 400))``."""
    gamma = bradley_terry(wins, prior=prior)
    elo = [400.0 * math.log10(g) for g in gamma]
    shift = base - (sum(elo) / len(elo) if elo else 0.0)
    return [e + shift for e in elo]
