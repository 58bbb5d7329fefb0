"""Learning per step, two training pipelines side by side: the same config trained with each, on fresh seeds,
each run's checkpoints evaluated over many seeded games, and the curves drawn together.

    python benchmarks/learning_ab.py --config configs/ppo_selfplay_2p.yaml --seeds 20261201 20261202 \\
        --arm sb3_python ppo.loop=sb3 vector_env=python --arm lean_native ppo.loop=lean vector_env=native \\
        --steps 600000 --every 100000 --games 500 --eval-seed 20261203 --out results/learning_ab

For every arm and seed it trains ``five-towers train --config CONFIG --set name=<arm>_<seed> seed=<seed>
total_timesteps=STEPS checkpoint_every=EVERY eval_every=EVERY final_eval_games=0 <the arm's settings>`` into ``--runs``
(a run whose last checkpoint exists is not trained again; a stopped one resumes from its newest checkpoint),
then evaluates each checkpoint against ``--opponent`` over ``--games`` seeded games (``--eval-seed``: the same
deals for every run; :func:`~five_towers_env.analysis.checkpoint_curve.checkpoint_curve`), and writes into
``--out``: each run's curve (``<arm>_<seed>/checkpoint_curve.csv``), ``learning_ab.json`` (every point, the
arms' means per step count, each run's training wall time) and ``learning_ab.png`` (every run thin, each arm's
mean thick).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def train(config: str, runs: Path, name: str, seed: int, steps: int, every: int, settings: list[str]) -> float:
    """Train (or resume, or skip) one run; return the wall seconds its log recorded."""
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    run = runs / name
    done = [t for t, _ in run_checkpoints(run)] if (run / "checkpoints").is_dir() else []
    if steps not in done:
        command = [sys.executable, "-m", "five_towers_env.cli", "train", "--no-progress"]
        command += ["--resume", str(run)] if done else ["--config", config]
        command += ["--set", f"total_timesteps={steps}"]
        if not done:
            command += [f"name={name}", f"out_dir={runs}", f"seed={seed}", f"checkpoint_every={every}",
                        f"eval_every={every}", "final_eval_games=0", *settings]
        print(" ".join(command), flush=True)
        subprocess.run(command, check=True, cwd=HERE)
    rows = (run / "eval_log.csv").read_text().splitlines()
    header = rows[0].split(",")
    return float(rows[-1].split(",")[header.index("wall_s")])


def draw(result: dict[str, Any], path: Path, opponent: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from five_towers_env.atomic import save_figure

    fig, ax = plt.subplots(figsize=(7, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (arm, runs) in enumerate(result["arms"].items()):
        colour = colours[k % len(colours)]
        for run in runs:
            ax.plot([p["timesteps"] for p in run["curve"]], [p["win_rate"] for p in run["curve"]], color=colour,
                    alpha=0.35, linewidth=1)
        mean = result["means"][arm]
        ax.plot([p["timesteps"] for p in mean], [p["win_rate"] for p in mean], color=colour, linewidth=2.5,
                label=f"{arm} (mean of {len(runs)})")
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"win rate vs {opponent}")
    ax.set_title(f"{result['config']}: {result['games']} games per point, deals of seed {result['eval_seed']}")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True)
    parser.add_argument("--arm", nargs="+", action="append", required=True, metavar="NAME_OR_SETTING",
                        help="a pipeline: its name, then the settings it trains with")
    parser.add_argument("--seeds", nargs="+", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--every", type=int, required=True, help="steps between checkpoints (the curve's points)")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--eval-seed", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", default="runs/learning_ab")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)

    from five_towers_env.analysis.checkpoint_curve import checkpoint_curve
    from five_towers_env.atomic import write_json
    from five_towers_env.provenance import write_provenance

    runs, out = (HERE / args.runs).resolve(), (HERE / args.out).resolve()
    result: dict[str, Any] = {"command": "python benchmarks/learning_ab.py " + " ".join(argv or sys.argv[1:]),
                              "config": args.config, "steps": args.steps, "every": args.every, "games": args.games,
                              "opponent": args.opponent, "eval_seed": args.eval_seed, "seeds": args.seeds,
                              "arms": {}, "means": {}}
    for name, *settings in args.arm:
        result["arms"][name] = []
        for seed in args.seeds:
            run = f"{name}_{seed}"
            wall = train(args.config, runs, run, seed, args.steps, args.every, settings)
            rows = checkpoint_curve(runs / run, [args.opponent], games=args.games, seed=args.eval_seed,
                                    workers=args.workers, out=out / run)
            curve = [{"timesteps": r["timesteps"], "win_rate": r[f"win_rate_vs_{args.opponent}"],
                      "ci_low": r[f"ci_low_vs_{args.opponent}"], "ci_high": r[f"ci_high_vs_{args.opponent}"],
                      "strict_win_rate": r[f"strict_win_rate_vs_{args.opponent}"]} for r in rows]
            result["arms"][name].append({"run": run, "seed": seed, "settings": settings, "train_wall_s": wall,
                                         "curve": curve})
            print(f"{run}: trained in {wall / 60:.1f} min; " + ", ".join(
                f"{p['timesteps']:,} {p['win_rate']:.3f}" for p in curve), flush=True)
        steps = sorted({p["timesteps"] for r in result["arms"][name] for p in r["curve"]})
        result["means"][name] = [
            {"timesteps": t, "win_rate": round(sum(p["win_rate"] for r in result["arms"][name] for p in r["curve"]
                                                   if p["timesteps"] == t)
                                               / sum(1 for r in result["arms"][name] for p in r["curve"]
                                                     if p["timesteps"] == t), 4)} for t in steps]
    write_json(out / "learning_ab.json", result, indent=1)
    draw(result, out / "learning_ab.png", args.opponent)
    write_provenance(out)
    for name, mean in result["means"].items():
        print(f"{name}: " + ", ".join(f"{p['timesteps']:,} {p['win_rate']:.3f}" for p in mean))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
