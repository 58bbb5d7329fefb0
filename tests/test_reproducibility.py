"""A training run repeats exactly on one machine: same seed, same evaluation log, same exported policy.

The README's quick-start table is what ``five-towers train`` prints; a reader can reproduce it only
if a run with the same config and seed gives the same numbers. This runs the smoke config twice
with worker-process environments, as the quick start does.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.training.ppo.config import load_config

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def _train(out: Path):
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {"out_dir": str(out), "subproc": True})
    policy = PPOTrainer(cfg, progress=False).run().network
    with open(cfg.run_dir / "eval_log.csv") as f:
        log = [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(f)]
    return log, dict(np.load(policy))


def test_same_seed_same_run(tmp_path):
    pytest.importorskip("sb3_contrib")
    log_a, weights_a = _train(tmp_path / "a")
    log_b, weights_b = _train(tmp_path / "b")
    assert len(log_a) >= 2 and log_a == log_b
    assert weights_a.keys() == weights_b.keys()
    for name in weights_a:
        np.testing.assert_array_equal(weights_a[name], weights_b[name], err_msg=name)
