"""A learning curve from a run's saved checkpoints, each evaluated over many seeded games.

The curve drawn during training (``eval_log.csv``) spends ``eval_games`` games per point (100 by
default), so its points move by about ±0.1 from noise alone. This evaluates every checkpoint in
``<run>/checkpoints/`` with the protocol of the final evaluation table (the same seeded games,
seats rotated) and writes ``checkpoint_curve.csv`` and ``checkpoint_curve.png`` into the run folder.
"""
from __future__ import annotations

import csv
import tempfile
from pathlib import Path
from typing import Any

from ..agents.policy import export_policy
from .selfplay import evaluation_table, plot_learning_curve, resume_config

CURVE_CSV = "checkpoint_curve.csv"
CURVE_PNG = "checkpoint_curve.png"


def run_checkpoints(run_dir: str | Path) -> list[tuple[int, Path]]:
    """``(timesteps, path)`` of every ``step_N.zip`` checkpoint of a run, in training order."""
    found = [(int(p.stem[len("step_"):]), p) for p in Path(run_dir).glob("checkpoints/step_*.zip")]
    if not found:
        raise FileNotFoundError(f"no checkpoints/step_*.zip under {run_dir}")
    return sorted(found)


def _curve_row(timesteps: int, table: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"timesteps": timesteps}
    for r in table:
        name = r["opponent"]
        row[f"win_rate_vs_{name}"] = r["win_rate"]
        row[f"ci_low_vs_{name}"] = round(r["ci_low"], 4)
        row[f"ci_high_vs_{name}"] = round(r["ci_high"], 4)
        row[f"margin_vs_{name}"] = r["mean_margin"]
    return row


def checkpoint_curve(run_dir: str | Path, opponents: list[str], games: int = 1000, seed: int = 0,
                     workers: int | None = 1, progress: bool = False) -> list[dict[str, Any]]:
    """Evaluate each checkpoint of ``run_dir`` against ``opponents`` over ``games`` seeded games
    (see :func:`~five_towers_env.training.selfplay.evaluation_table`); write the CSV and PNG into
    the run folder and return the rows (one per checkpoint)."""
    from sb3_contrib import MaskablePPO

    run_dir = Path(run_dir)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for timesteps, ckpt in run_checkpoints(run_dir):
            cfg = resume_config(ckpt)
            npz = export_policy(MaskablePPO.load(ckpt, device="cpu"), Path(tmp) / f"step_{timesteps}.npz")
            table = evaluation_table(npz, cfg.num_players, cfg.variant, opponents, games, seed=seed,
                                     workers=workers, progress=progress)
            rows.append(_curve_row(timesteps, table))
    with open(run_dir / CURVE_CSV, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot_learning_curve(run_dir / CURVE_CSV, run_dir / CURVE_PNG,
                        title=f"{run_dir.name}: win rate at each checkpoint ({games} games per point)")
    return rows
