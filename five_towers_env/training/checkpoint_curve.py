"""A learning curve from a run's saved checkpoints, each evaluated over many seeded games.

    python training/checkpoint_curve.py runs/ppo_selfplay_2p                      # 1,000 games per point
    python training/checkpoint_curve.py runs/ppo_selfplay_2p --opponents heuristic --games 300 --workers 2

The curve drawn during training (``eval_log.csv``) spends ``eval_games`` games per point (100 by
default), so its points move by about ±0.1 from noise alone. This evaluates every checkpoint in
``<run>/checkpoints/`` with the protocol of the final evaluation table (the same seeded paired
games, seats rotated; win rate with a shared win counting 1/k, strict win rate, 95% intervals
clustered by deal) and writes ``checkpoint_curve.csv`` and ``checkpoint_curve.png`` into the run
folder. Needs the ``rl`` extra (the checkpoints are MaskablePPO ``.zip`` files).
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from five_towers_env.agents.policy import export_policy
from five_towers_env.training.selfplay import evaluation_table, plot_learning_curve, resume_config

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
        row[f"strict_win_rate_vs_{name}"] = r["strict_win_rate"]
        row[f"strict_ci_low_vs_{name}"] = round(r["strict_ci_low"], 4)
        row[f"strict_ci_high_vs_{name}"] = round(r["strict_ci_high"], 4)
        row[f"margin_vs_{name}"] = r["mean_margin"]
    return row


def checkpoint_curve(run_dir: str | Path, opponents: list[str], games: int = 1000, seed: int = 0,
                     workers: int | None = 1, progress: bool = False) -> list[dict[str, Any]]:
    """Evaluate each checkpoint of ``run_dir`` against ``opponents`` (agents of the run's game) over ``games``
    seeded games (see :func:`~five_towers_env.training.selfplay.evaluation_table`); write the CSV and PNG into
    the run folder and return the rows (one per checkpoint)."""
    from sb3_contrib import MaskablePPO

    run_dir = Path(run_dir)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for timesteps, ckpt in run_checkpoints(run_dir):
            cfg = resume_config(ckpt)
            npz = export_policy(MaskablePPO.load(ckpt, device="cpu"), Path(tmp) / f"step_{timesteps}.npz",
                                game=cfg.game)
            table = evaluation_table(npz, cfg.num_players, cfg.variant, opponents, games, seed=seed,
                                     workers=workers, progress=progress, game=cfg.game)
            rows.append(_curve_row(timesteps, table))
    with open(run_dir / CURVE_CSV, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot_learning_curve(run_dir / CURVE_CSV, run_dir / CURVE_PNG,
                        title=f"{run_dir.name}: win rate at each checkpoint ({games} games per point)")
    return rows


def curve_markdown(rows: list[dict[str, Any]], opponents: Sequence[str]) -> str:
    """Curve rows as a Markdown table: per opponent, the win rate [95% CI] and the strict win rate [95% CI]."""
    lines = ["| timesteps | " + " | ".join(f"vs {o} | vs {o} (strict)" for o in opponents) + " |",
             "|---:|" + "---:|---:|" * len(opponents)]
    for r in rows:
        cells = [f"{r[f'{p}win_rate_vs_{o}']:.3f} [{r[f'{p}ci_low_vs_{o}']:.3f}, {r[f'{p}ci_high_vs_{o}']:.3f}]"
                 for o in opponents for p in ("", "strict_")]
        lines.append(f"| {r['timesteps']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: evaluate a run's checkpoints, print the curve as Markdown, write the CSV and PNG."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder (holding checkpoints/step_N.zip)")
    parser.add_argument("--opponents", nargs="+", default=["greedy", "heuristic"],
                        help="baselines to evaluate against (default: greedy heuristic)")
    parser.add_argument("--games", type=int, default=1000, help="seeded games per point and opponent (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes (default 1)")
    args = parser.parse_args(argv)
    rows = checkpoint_curve(args.run, args.opponents, args.games, args.seed, args.workers)
    print(curve_markdown(rows, args.opponents))
    print(f"wrote {Path(args.run) / CURVE_CSV} and the PNG beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
