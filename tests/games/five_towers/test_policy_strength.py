"""Strength regression of the shipped policy (``ppo``) in 2-player base games.

The shipped policy (version 2) is known to score 1.000 against ``random``, 0.966 against ``greedy``
and 0.763 against ``heuristic`` (README, 1,000 games each); the thresholds below leave margins. So
that the test is seen to discriminate, a policy of the same architecture with random weights plays
the same seeded games against ``greedy``, and the first shipped policy (``ppo:version=1``) against
``heuristic``: both must score below the shipped policy's thresholds. Every game is seeded, so the
rates are the same on every run (no timing enters them).
"""
from __future__ import annotations

import numpy as np
import pytest

from five_towers_env.core.game import get_game
from five_towers_env.evaluation import evaluate

EVAL_SEED = 2024  # the run seed of every evaluation below (deals and agent seeds derive from it)
RANDOM_WEIGHTS_SEED = 4  # the generator of the random-weight policy's arrays
GAMES = 200  # per opponent: 100 deals, each played from both seats (paired)
#: opponent -> the shipped policy's minimum win rate
THRESHOLDS = {"random": 0.9, "greedy": 0.8, "heuristic": 0.65}
RANDOM_WEIGHTS_MAX_VS_GREEDY = 0.5


def _win_rate(policy_spec: str, opponent: str) -> float:
    result = evaluate([policy_spec, opponent], num_games=GAMES, num_players=2, variant="base", seed=EVAL_SEED,
                      workers=1, progress=False)
    summary = result.agents[0]
    assert summary["games"] == GAMES and result.config["balanced"]
    return summary["win_rate"]


@pytest.mark.parametrize("opponent", sorted(THRESHOLDS))
def test_shipped_policy_beats_the_baselines(opponent):
    # measured with these seeds: 1.000 against random, 0.980 against greedy, 0.788 against heuristic
    rate = _win_rate("ppo", opponent)
    assert rate >= THRESHOLDS[opponent], f"shipped policy: {rate:.3f} against {opponent}"


def test_random_weight_policy_scores_clearly_below(tmp_path):
    # the shipped file with every weight array replaced by seeded standard normals of its shape:
    # the same architecture and loader, no training
    rng = np.random.default_rng(RANDOM_WEIGHTS_SEED)
    with np.load(get_game("five_towers").policy_path(2, "base"), allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    weights = [k for k, v in arrays.items() if v.dtype.kind == "f" and v.ndim > 0]
    assert len(weights) >= 4, f"no weight arrays found in {sorted(arrays)}"
    for k in weights:
        arrays[k] = rng.standard_normal(arrays[k].shape).astype(arrays[k].dtype)
    path = tmp_path / "random_weights.npz"
    np.savez(path, **arrays)
    rate = _win_rate(f"ppo:path={path}", "greedy")
    # measured with these seeds: 0.150 (the first shipped policy: 0.910 on the same games). Against random
    # this random-weight net scores 0.84 (seeds 0-4: 0.33-0.90), too close to 0.9 to tell the two
    # apart: greedy is the opponent that separates them.
    assert rate < RANDOM_WEIGHTS_MAX_VS_GREEDY < THRESHOLDS["greedy"], \
        f"random-weight policy: {rate:.3f} against greedy"


def test_first_version_scores_below_the_heuristic_threshold():
    # measured with these seeds: 0.580 (version 2: 0.788 on the same games)
    rate = _win_rate("ppo:version=1", "heuristic")
    assert 0.5 < rate < THRESHOLDS["heuristic"], f"ppo:version=1: {rate:.3f} against heuristic"
