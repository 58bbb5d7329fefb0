#!/usr/bin/env python
"""CPU time per MCTS decision, two source trees side by side (an A/B test of a change).

Runs the same workload on two checkouts of the package, ``--old`` and ``--new``, in alternating
subprocesses (``PYTHONPATH`` set to the tree), ``--repeats`` times each, and keeps each tree's
fastest run: on a shared machine the minimum is the figure least disturbed by other processes.
The workload is fixed: the decisions with more than one legal action of ``--games`` games of
heuristic self-play (deal seeds 100, 101, ...), each put to a fresh ``mcts`` agent (seed 0).
Both trees must choose the same actions for the comparison to be about speed alone; the
script reports whether they did.

    git worktree add /tmp/five_towers_old 597f026      # the tree to compare with
    python benchmarks/mcts_ab.py --old /tmp/five_towers_old --new . --variant base \\
        --json results/mcts_ab_base.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from report import machine, write_json  # benchmarks/report.py, beside this script


def worker(variant: str, games: int, per_game: int, simulations: int) -> dict:
    """Time MCTS over the fixed decisions with the package found on ``sys.path``."""
    from five_towers_env.agents import make_agent
    from five_towers_env.agents.base import agent_info
    from five_towers_env.environment.aec import raw_env

    env = raw_env(num_players=2, variant=variant)
    points = []
    for g in range(games):
        env.reset(seed=100 + g)
        teacher = make_agent("heuristic", seed=g)
        taken = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            info = agent_info(env.game, env.agents.index(agent))
            if obs["action_mask"].sum() > 1 and taken < per_game:
                points.append((obs, info))
                taken += 1
            env.step(teacher.act(obs, info))
    mcts = make_agent("mcts", seed=0, simulations=simulations)
    start = time.process_time()
    chosen = [int(mcts.act(obs, info)) for obs, info in points]
    cpu = time.process_time() - start
    return {"decisions": len(points), "cpu_s": cpu, "ms_per_decision": 1000 * cpu / len(points), "chosen": chosen}


def run_tree(tree: str, args: argparse.Namespace) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--variant", args.variant, "--games",
           str(args.games), "--per-game", str(args.per_game), "--simulations", str(args.simulations)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        raise SystemExit(f"worker failed on {tree}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", help="source tree A (a checkout holding five_towers_env/)")
    p.add_argument("--new", default=".", help="source tree B (default: this one)")
    p.add_argument("--variant", default="base", choices=["base", "great_powers"])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--per-game", type=int, default=40, help="decisions timed per game")
    p.add_argument("--simulations", type=int, default=400)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args.variant, args.games, args.per_game, args.simulations)))
        return
    if not args.old:
        p.error("--old is required")
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(args.repeats):  # alternate, so that a slow patch of the machine hits both
        for name in ("old", "new"):
            r = run_tree(getattr(args, name), args)
            runs[name].append(r)
            print(f"repeat {i + 1}: {name} {r['ms_per_decision']:.2f} ms/decision", flush=True)
    best = {name: min(r["ms_per_decision"] for r in rs) for name, rs in runs.items()}
    same = runs["old"][0]["chosen"] == runs["new"][0]["chosen"]
    out = {"variant": args.variant, "simulations": args.simulations, "decisions": runs["new"][0]["decisions"],
           "repeats": args.repeats, "old": os.path.abspath(args.old), "new": os.path.abspath(args.new),
           "machine": machine(),
           "ms_per_decision": {name: [round(r["ms_per_decision"], 3) for r in rs] for name, rs in runs.items()},
           "best_ms_per_decision": {k: round(v, 3) for k, v in best.items()},
           "new_over_old": round(best["new"] / best["old"], 3), "same_choices": same}
    print(json.dumps({k: v for k, v in out.items() if k != "ms_per_decision"}, indent=2))
    write_json(args.json, out)


if __name__ == "__main__":
    main()
