"""Small, dependency-free statistics for evaluation: Wilson intervals (plain, and cluster-adjusted for
correlated games such as the seatings of one paired deal) and Bradley-Terry / Elo ratings."""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class ClusteredRate:
    """A proportion estimated from clustered observations (see :func:`cluster_rate`)."""

    n: int                # observations (e.g. seat-games)
    clusters: int         # clusters (e.g. deals)
    rate: float           # mean outcome, NaN when n == 0
    design_effect: float  # variance inflation from the clustering, >= 1
    n_eff: float          # n / design_effect
    ci_low: float
    ci_high: float


def cluster_rate(values: Sequence[float], clusters: Sequence[Hashable], z: float = Z95) -> ClusteredRate:
    """Mean of outcomes ``values`` (each in [0, 1]; fractional for shared wins) with a Wilson interval at
    the cluster-adjusted effective sample size; ``clusters[i]`` labels the cluster of observation ``i``
    (any hashable; clusters may have any sizes).

    Method, with ``n`` observations ``y_i`` in ``G`` clusters and ``p = mean(y)``:

    1. cluster-robust (CR1) variance of ``p`` from the cluster totals of the residuals,
       ``e_g = sum_{i in g} (y_i - p)``: ``V_cr = G / (G - 1) * sum_g e_g**2 / n**2``;
    2. the binomial variance of ``p`` with the same small-sample factor that ``V_cr`` has when every
       observation is its own cluster (``G = n``): ``V_bin = n / (n - 1) * p (1 - p) / n = p (1 - p) / (n - 1)``;
    3. design effect ``deff = max(1, V_cr / V_bin)`` (floored at 1: never narrower than the
       independent-games interval); ``deff = 1`` when ``n < 2`` or ``G < 2``. When ``p`` is 0 or 1
       the data cannot show how correlated a cluster is, so the interval assumes the worst:
       ``deff = n / G``, one effective observation per cluster;
    4. effective sample size ``n_eff = n / deff``, and the Wilson score interval of the rate ``p``
       over ``n_eff`` trials (:func:`wilson_interval` ``(p * n_eff, n_eff)``).

    So singleton clusters of 0/1 outcomes give exactly the plain Wilson interval, and clusters of
    ``m`` identical outcomes give ``deff = m (n - 1) / (n - m)``, the Wilson interval of about
    ``n / m`` games. With fractional outcomes ``V_bin`` overstates the variance of independent games,
    so the floor at 1 makes the interval conservative. Returns NaN fields when ``n == 0``.
    """
    n = len(values)
    if n != len(clusters):
        raise ValueError(f"{n} values but {len(clusters)} cluster labels")
    if n == 0:
        return ClusteredRate(0, 0, math.nan, 1.0, 0.0, math.nan, math.nan)
    p = math.fsum(values) / n
    totals: dict[Hashable, float] = {}
    for y, g in zip(values, clusters):
        totals[g] = totals.get(g, 0.0) + (y - p)
    num_clusters = len(totals)
    deff = 1.0
    if 0.0 < p < 1.0 and n > 1 and num_clusters > 1:
        v_cr = num_clusters / (num_clusters - 1) * math.fsum(e * e for e in totals.values()) / (n * n)
        v_bin = p * (1.0 - p) / (n - 1)
        deff = max(1.0, v_cr / v_bin)
    elif num_clusters > 1:  # an unbroken record: no spread to measure the clustering from
        deff = n / num_clusters
    n_eff = n / deff
    lo, hi = wilson_interval(p * n_eff, n_eff, z)
    return ClusteredRate(n, num_clusters, p, deff, n_eff, lo, hi)


def cluster_wilson_interval(values: Sequence[float], clusters: Sequence[Hashable],
                            z: float = Z95) -> tuple[float, float]:
    """``(low, high)`` of :func:`cluster_rate`: the Wilson interval at the cluster-adjusted effective
    sample size (the method is described there)."""
    r = cluster_rate(values, clusters, z)
    return (r.ci_low, r.ci_high)


def bradley_terry(wins: Sequence[Sequence[float]], prior: float = 0.5, iterations: int = 10_000,
                  tol: float = 1e-12) -> list[float]:
    """Bradley-Terry strengths by the MM algorithm (Hunter 2004); deterministic.

    ``wins[i][j]`` is the (possibly fractional) number of times ``i`` beat ``j``. ``prior`` virtual
    wins are added in both directions for every pair that met, so an unbeaten agent gets a finite
    rating. Agents that never met anyone get strength 1. Strengths are normalised to geometric mean 1.

    The package's one Bradley-Terry fit: a tournament's Elo (:func:`elo_ratings`, mean 1500) and the
    ladder's ratings (:func:`~five_towers_env.evaluation.ratings.fit`, one agent held at 0) are both
    this fit, on the Elo scale.
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
