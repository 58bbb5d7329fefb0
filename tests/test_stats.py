"""The cluster-adjusted Wilson interval (five_towers_env.evaluation.stats.cluster_rate)."""
from __future__ import annotations

import math
import random

import pytest

from five_towers_env.evaluation.stats import Z95, cluster_rate, cluster_wilson_interval, wilson_interval


def _outcomes(n: int, p: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [float(rng.random() < p) for _ in range(n)]


@pytest.mark.parametrize("n,p,seed", [(10, 0.5, 0), (57, 0.3, 1), (400, 0.8, 2)])
def test_singleton_clusters_give_exactly_wilson(n, p, seed):
    y = _outcomes(n, p, seed)
    r = cluster_rate(y, list(range(n)))
    assert r.design_effect == pytest.approx(1.0, abs=1e-12) and r.n_eff == pytest.approx(n, abs=1e-9)
    assert r.clusters == n and r.rate == sum(y) / n
    lo, hi = wilson_interval(sum(y), n)
    assert (r.ci_low, r.ci_high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))


def test_identical_pairs_give_wilson_of_half_the_games():
    games = _outcomes(200, 0.3, 3)
    y = [v for v in games for _ in range(2)]            # both games of each deal identical
    deals = [i // 2 for i in range(len(y))]
    r = cluster_rate(y, deals)
    n = len(y)
    # CR1 over binomial-with-the-same-factor: m (n - 1) / (n - m) for m identical games per cluster
    assert r.design_effect == pytest.approx(2 * (n - 1) / (n - 2), rel=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx(wilson_interval(r.rate * r.n_eff, r.n_eff), abs=1e-12)
    # ... which is the Wilson interval of the 200 deals, to within the small-sample factor
    half = wilson_interval(sum(games), 200)
    assert r.ci_low == pytest.approx(half[0], abs=2e-4) and r.ci_high == pytest.approx(half[1], abs=2e-4)
    naive = wilson_interval(sum(y), n)
    assert r.ci_high - r.ci_low > 1.35 * (naive[1] - naive[0])   # ~sqrt(2) wider than treating games as independent


def test_hand_computed_example():
    # clusters A = (1, 1, 1), B = (0, 0, 0), C = (1, 0): n = 8, G = 3, p = 1/2
    # residual totals e = (1.5, -1.5, 0): V_cr = 3/2 * 4.5 / 64 = 0.10546875
    # V_bin = p (1 - p) / (n - 1) = 0.25 / 7;  deff = V_cr / V_bin = 189 / 64;  n_eff = 512 / 189
    r = cluster_rate([1, 1, 1, 0, 0, 0, 1, 0], list("AAABBBCC"))
    assert (r.n, r.clusters, r.rate) == (8, 3, 0.5)
    assert r.design_effect == pytest.approx(189 / 64, rel=1e-12)
    assert r.n_eff == pytest.approx(512 / 189, rel=1e-12)
    n_eff, z = 512 / 189, Z95
    half = z * math.sqrt(0.25 / n_eff + z * z / (4 * n_eff * n_eff)) / (1 + z * z / n_eff)
    assert r.ci_low == pytest.approx(0.5 - half, abs=1e-12) and r.ci_high == pytest.approx(0.5 + half, abs=1e-12)
    assert r.ci_low == pytest.approx(0.117103, abs=1e-6) and r.ci_high == pytest.approx(0.882897, abs=1e-6)
    # cluster labels may be any hashables, in any order
    assert cluster_wilson_interval([1, 0, 1, 0, 1, 0, 1, 0], [("a",), "b", ("a",), "b", ("a",), "b", 7, 7]) == \
        pytest.approx((r.ci_low, r.ci_high), abs=1e-12)


def test_unequal_clusters_and_fractional_outcomes():
    # a 3-way shared win (1/3) and a 2-way one (1/2) beside sole wins and losses, clusters of sizes 1..4
    y = [1, 1 / 3, 1, 1, 0, 0.5, 0, 0, 0, 1]
    g = [0, 0, 0, 0, 1, 1, 2, 2, 2, 3]
    r = cluster_rate(y, g)
    p = sum(y) / 10
    totals = {}
    for v, c in zip(y, g):
        totals[c] = totals.get(c, 0.0) + v - p
    v_cr = 4 / 3 * sum(e * e for e in totals.values()) / 100
    assert r.rate == pytest.approx(p) and r.design_effect == pytest.approx(v_cr / (p * (1 - p) / 9))
    assert r.design_effect > 1 and r.ci_low < p < r.ci_high
    plain = wilson_interval(sum(y), 10)
    assert r.ci_low < plain[0] and r.ci_high > plain[1]


def test_design_effect_floored_at_one():
    # anti-correlated seatings (each deal: one win, one loss) would narrow the interval: not allowed
    y = [1.0, 0.0] * 20
    r = cluster_rate(y, [i // 2 for i in range(40)])
    assert r.design_effect == 1.0 and (r.ci_low, r.ci_high) == wilson_interval(20, 40)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_degenerate_rates(value):
    """An unbroken record over 4 deals of 3 games is worth 4 observations, not 12 (worst case)."""
    y = [value] * 12
    r = cluster_rate(y, [i // 3 for i in range(12)])
    assert r.design_effect == 3.0 and r.n_eff == 4.0 and r.rate == value
    assert (r.ci_low, r.ci_high) == wilson_interval(4 * value, 4)
    if value == 1.0:
        assert r.ci_high == 1.0 and r.ci_low == pytest.approx(0.510109, abs=1e-6)
    else:
        assert r.ci_low == 0.0 and r.ci_high == pytest.approx(0.489891, abs=1e-6)
    singles = cluster_rate(y, list(range(12)))  # independent games: plain Wilson
    assert singles.design_effect == 1.0 and (singles.ci_low, singles.ci_high) == wilson_interval(12 * value, 12)


def test_one_cluster_empty_and_mismatched():
    r = cluster_rate([1, 0, 1], ["d", "d", "d"])
    assert r.design_effect == 1.0 and (r.ci_low, r.ci_high) == wilson_interval(2, 3)
    empty = cluster_rate([], [])
    assert empty.n == 0 and math.isnan(empty.rate) and math.isnan(empty.ci_low) and math.isnan(empty.ci_high)
    with pytest.raises(ValueError, match="cluster labels"):
        cluster_rate([1, 0], [0])


def test_interval_widens_with_correlation():
    """The same 60 outcomes, grouped into deals ever more alike: the interval widens."""
    y = [1.0] * 30 + [0.0] * 30
    widths = []
    for m in (1, 2, 3, 6):  # clusters of m consecutive (identical) outcomes
        r = cluster_rate(y, [i // m for i in range(60)])
        assert r.design_effect == pytest.approx(m * 59 / (60 - m))
        widths.append(r.ci_high - r.ci_low)
    assert widths == sorted(widths) and widths[-1] > 2 * widths[0]
