"""A learning curve from a run's saved checkpoints, each evaluated over many seeded games.

    python training/checkpoint_curve.py runs/ppo_selfplay_2p                      # 1,000 games per point
    python training/checkpoint_curve.py runs/ppo_selfplay_2p --opponents heuristic --games 300 --workers 2
    python training/checkpoint_curve.py runs/ppo_2p_v2 --opponents heuristic --seed 20261129 --until 0.55 \
        --out results/time_to_strength          # time to strength: stop at the first checkpoint that reaches it

The curve drawn during training (``eval_log.csv``) spends ``eval_games`` games per point (100 by
default), so its points move by about ±0.1 from noise alone. This evaluates every checkpoint in
``<run>/checkpoints/`` with the protocol of the final evaluation table (the same seeded paired
games, seats rotated; win rate with a shared win counting 1/k, strict win rate, 95% intervals
clustered by deal) and writes ``checkpoint_curve.csv`` and ``checkpoint_curve.png`` into the run
folder (or ``--out``, with ``provenance.json``). Each row has the wall time of its checkpoint (``wall_s``:
seconds from the start of the run, the imitation warm start included, as its ``eval_log.csv`` counts them).

``--until RATE`` measures the time to strength: checkpoints are evaluated in training order and the
scan stops at the first one whose win rate is at least ``RATE`` with a strict win rate above one half
against every opponent; that checkpoint's policy is written as ``policy_at_goal.npz`` beside the CSV.
Scanning several checkpoints on one seed favours a lucky one: confirm the one found on another seed
(``five-towers evaluate --agents ppo:path=<out>/policy_at_goal.npz heuristic ...``).
Needs the ``rl`` extra (the checkpoints are MaskablePPO ``.zip`` files).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from five_towers_env.agents.network_file import export_policy
from five_towers_env.atomic import write_bytes
from five_towers_env.training.ppo.checkpoints import checkpoint_state, resume_config
from five_towers_env.training.ppo.eval_games import evaluation_table
from five_towers_env.training.run_folder import plot_curve, write_csv

CURVE_CSV = "checkpoint_curve.csv"
CURVE_PNG = "checkpoint_curve.png"
GOAL_POLICY = "policy_at_goal.npz"


def run_checkpoints(run_dir: str | Path) -> list[tuple[int, Path]]:
    """``(timesteps, path)`` of every ``step_N.zip`` checkpoint of a run, in training order."""
    found = [(int(p.stem[len("step_"):]), p) for p in Path(run_dir).glob("checkpoints/step_*.zip")]
    if not found:
        raise FileNotFoundError(f"no checkpoints/step_*.zip under {run_dir}")
    return sorted(found)


def _curve_row(timesteps: int, table: list[dict[str, Any]], wall_s: float | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"timesteps": timesteps, "wall_s": wall_s}
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


def _reached(row: dict[str, Any], opponents: Sequence[str], rate: float) -> bool:
    return all(row[f"win_rate_vs_{o}"] >= rate and row[f"strict_win_rate_vs_{o}"] > 0.5 for o in opponents)


def checkpoint_curve(run_dir: str | Path, opponents: list[str], games: int = 1000, seed: int = 0,
                     workers: int | None = 1, progress: bool = False, out: str | Path | None = None,
                     until: float | None = None) -> list[dict[str, Any]]:
    """Evaluate each checkpoint of ``run_dir`` against ``opponents`` (agents of the run's game) over ``games``
    seeded games (see :func:`~five_towers_env.training.ppo.eval_games.evaluation_table`); write the CSV and PNG into
    ``out`` (default: the run folder) and return the rows (one per checkpoint). With ``until``, stop at the
    first checkpoint that reaches that win rate with a strict rate above one half against every opponent,
    and write its policy as ``policy_at_goal.npz``."""
    from sb3_contrib import MaskablePPO

    run_dir = Path(run_dir)
    out_dir = Path(out) if out is not None else run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for timesteps, ckpt in run_checkpoints(run_dir):
            cfg = resume_config(ckpt)
            logged = checkpoint_state(ckpt).get("eval_rows") or [{}]
            npz = export_policy(MaskablePPO.load(ckpt, device="cpu"), Path(tmp) / f"step_{timesteps}.npz",
                                game=cfg.game, num_players=cfg.num_players, variant=cfg.variant,
                                timesteps=timesteps, seed=cfg.seed, name=cfg.name)
            table = evaluation_table(npz, cfg.num_players, cfg.variant, opponents, games, seed=seed,
                                     workers=workers, progress=progress, game=cfg.game)
            rows.append(_curve_row(timesteps, table, logged[-1].get("wall_s")))
            if until is not None and _reached(rows[-1], opponents, until):
                write_bytes(out_dir / GOAL_POLICY, npz.read_bytes())
                break
    write_csv(out_dir / CURVE_CSV, rows)
    plot_curve(out_dir / CURVE_CSV, out_dir / CURVE_PNG,
               title=f"{run_dir.name}: win rate at each checkpoint ({games} games per point)")
    return rows


def curve_markdown(rows: list[dict[str, Any]], opponents: Sequence[str]) -> str:
    """Curve rows as a Markdown table: per opponent, the win rate [95% CI] and the strict win rate [95% CI]."""
    lines = ["| timesteps | wall time | " + " | ".join(f"vs {o} | vs {o} (strict)" for o in opponents) + " |",
             "|---:|---:|" + "---:|---:|" * len(opponents)]
    for r in rows:
        cells = [f"{r[f'{p}win_rate_vs_{o}']:.3f} [{r[f'{p}ci_low_vs_{o}']:.3f}, {r[f'{p}ci_high_vs_{o}']:.3f}]"
                 for o in opponents for p in ("", "strict_")]
        wall = f"{r['wall_s'] / 60:.1f} min" if r.get("wall_s") is not None else "-"
        lines.append(f"| {r['timesteps']:,} | {wall} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: evaluate a run's checkpoints, print the curve as Markdown, write the CSV and PNG."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder (holding checkpoints/step_N.zip)")
    parser.add_argument("--opponents", nargs="+",
                        help="baselines to evaluate against (default: the run's game's rule-based opponents but "
                             "random; 5 Towers and Campanile: greedy heuristic)")
    parser.add_argument("--games", type=int, default=1000, help="seeded games per point and opponent (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes (default 1)")
    parser.add_argument("--out", help="folder of the CSV and PNG (default: the run folder)")
    parser.add_argument("--until", type=float, metavar="RATE",
                        help="stop at the first checkpoint with this win rate and a strict rate above 0.5 "
                             f"against every opponent; write its policy as {GOAL_POLICY}")
    args = parser.parse_args(argv)
    if args.opponents is None:
        from five_towers_env.agents.registry import RANDOM_AGENT
        from five_towers_env.core.game import get_game

        game = get_game(resume_config(args.run).game)
        args.opponents = [name for name in game.opponents if name not in RANDOM_AGENT]
    rows = checkpoint_curve(args.run, args.opponents, args.games, args.seed, args.workers, out=args.out,
                            until=args.until)
    print(curve_markdown(rows, args.opponents))
    out = Path(args.out or args.run)
    print(f"wrote {out / CURVE_CSV} and the PNG beside it")
    if args.out:  # its own folder; a run folder's provenance.json stays the training run's
        from five_towers_env.provenance import write_provenance

        write_provenance(args.out)
    if args.until is not None:
        last = rows[-1]
        if not _reached(last, args.opponents, args.until):
            print(f"no checkpoint reached {args.until}")
        else:
            wall = f" after {last['wall_s'] / 60:.1f} min" if last["wall_s"] is not None else ""
            print(f"first checkpoint reaching {args.until}: step {last['timesteps']:,}{wall} ({out / GOAL_POLICY})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
