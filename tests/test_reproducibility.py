"""A training run repeats exactly on one machine: same seed, same evaluation log, same exported policy.

The README's quick-start table is what ``five-towers train`` prints; a reader can reproduce it only
if a run with the same config and seed gives the same numbers. This runs the smoke config twice with worker
processes, as the quick start does, on each kind of training games (``vector_env``): the native core's (the
quick start's, where it is built: the workers play the evaluation and teacher games) and the Python ones (the
workers step the games).
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.training.ppo.config import load_config

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def _train(out: Path, games: str):
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {"out_dir": str(out), "subproc": True, "vector_env": games})
    policy = PPOTrainer(cfg, progress=False).run().network
    with open(cfg.run_dir / "eval_log.csv") as f:
        log = [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(f)]
    return log, dict(np.load(policy))


@pytest.mark.parametrize("games", ["native", "python"])
def test_same_seed_same_run(tmp_path, games):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.core.game import get_game

    if games == "native" and get_game("five_towers").backend() != "native":
        pytest.skip("the native core is not built")
    log_a, weights_a = _train(tmp_path / "a", games)
    log_b, weights_b = _train(tmp_path / "b", games)
    assert len(log_a) >= 2 and log_a == log_b
    assert weights_a.keys() == weights_b.keys()
    for name in weights_a:
        np.testing.assert_array_equal(weights_a[name], weights_b[name], err_msg=name)
