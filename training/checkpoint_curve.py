"""Evaluate every checkpoint of a training run over many seeded games: a learning curve without
the noise of the 100-game points drawn during training.

    python training/checkpoint_curve.py runs/ppo_selfplay_2p                      # 1,000 games per point
    python training/checkpoint_curve.py runs/ppo_selfplay_2p --opponents heuristic --games 300 --workers 2

Writes ``checkpoint_curve.csv`` and ``checkpoint_curve.png`` into the run folder; see
:mod:`five_towers_env.training.checkpoint_curve`. Needs the ``rl`` extra (the checkpoints are
MaskablePPO ``.zip`` files).
"""
import argparse
import sys

from five_towers_env.training.checkpoint_curve import CURVE_CSV, checkpoint_curve


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run folder (holding checkpoints/step_N.zip)")
    parser.add_argument("--opponents", nargs="+", default=["greedy", "heuristic"],
                        help="baselines to evaluate against (default: greedy heuristic)")
    parser.add_argument("--games", type=int, default=1000, help="seeded games per point and opponent (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1, help="evaluation processes (default 1)")
    args = parser.parse_args(argv)
    rows = checkpoint_curve(args.run, args.opponents, args.games, args.seed, args.workers)
    print("| timesteps | " + " | ".join(f"vs {o}" for o in args.opponents) + " |")
    print("|---:|" + "---:|" * len(args.opponents))
    for r in rows:
        cells = [f"{r[f'win_rate_vs_{o}']:.3f} [{r[f'ci_low_vs_{o}']:.3f}, {r[f'ci_high_vs_{o}']:.3f}]"
                 for o in args.opponents]
        print(f"| {r['timesteps']:,} | " + " | ".join(cells) + " |")
    print(f"wrote {args.run}/{CURVE_CSV} and the PNG beside it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
