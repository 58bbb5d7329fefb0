#!/usr/bin/env python
"""CPU time per MCTS decision, two source trees side by side (an A/B test of a change), any game.

Runs the same workload on two checkouts of the package, ``--old`` and ``--new``, in alternating
subprocesses (``PYTHONPATH`` set to the tree), ``--repeats`` times each, and keeps each tree's
fastest run: on a shared machine the minimum is the figure least disturbed by other processes.
The workload is fixed: the decisions with more than one legal action (at most ``--per-game`` a
game) of ``--games`` 2-player games of heuristic self-play of ``--game`` (deal seeds ``--seed``,
``--seed`` + 1, ...), put in turn to one ``mcts`` agent (seed 0, ``--simulations`` and the
``--settings`` given). Both trees must choose the same actions for the comparison to be about speed
alone; the script reports whether they did. Only the game-neutral API is used (registry, game
spec, raw environment), so any two trees since the game contract compare.

    git worktree add /tmp/five_towers_old 26eefa2      # the tree to compare with
    python benchmarks/mcts_ab.py --old /tmp/five_towers_old --new . --game five_towers \\
        --variant base --json results/mcts_ab_base/mcts_ab_base.json
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time

from report import machine, write_json  # benchmarks/report.py, beside this script


def decisions(game: str, variant: str | None, games: int, per_game: int, seed: int) -> list[tuple]:
    """(observation, info) of the real choices of heuristic self-play games, from the tree on ``sys.path``."""
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.core.game import get_game

    g = get_game(game)
    points = []
    for k in range(games):
        env = g.make_raw_env(num_players=2, variant=variant or g.default_variant)
        env.reset(seed=seed + k)
        state = env.game
        teacher = make_agent("heuristic", seed=k, game=game)
        taken = 0
        while not state.is_terminal():
            seat = state.current_player
            obs, info = env.observe(env.possible_agents[seat]), g.agent_info(state, seat)
            if len(info["legal_actions"]) > 1 and taken < per_game:
                points.append((obs, info))
                taken += 1
            env.step(teacher.act(obs, info))
    return points


def worker(args: argparse.Namespace) -> dict:
    """Time MCTS over the fixed decisions with the package found on ``sys.path``."""
    from five_towers_env.agents.registry import make_agent

    points = decisions(args.game, args.variant, args.games, args.per_game, args.seed)
    mcts = make_agent("mcts", seed=0, game=args.game, simulations=args.simulations, **parse_settings(args.settings))
    start = time.process_time()
    chosen = [int(mcts.act(obs, info)) for obs, info in points]
    cpu = time.process_time() - start
    return {"decisions": len(points), "cpu_s": cpu, "ms_per_decision": 1000 * cpu / len(points), "chosen": chosen}


def parse_settings(text: str) -> dict:
    """``key=value,key=value`` (values as Python literals) -> keyword settings."""
    out = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = item.partition("=")
        out[key.strip()] = ast.literal_eval(value.strip())
    return out


def run_tree(tree: str, argv: list[str]) -> dict:
    """One worker run on ``tree``, in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", *argv], env=env,
                          capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        raise SystemExit(f"worker failed on {tree}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", help="source tree A (a checkout holding five_towers_env/)")
    p.add_argument("--new", default=".", help="source tree B (default: this one)")
    p.add_argument("--game", default="five_towers", help="five_towers or campanile (default five_towers)")
    p.add_argument("--variant", default=None, help="the rule variant (default: the game's default)")
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--per-game", type=int, default=40, help="decisions timed per game")
    p.add_argument("--seed", type=int, default=100, help="deal seed of the first game (default 100)")
    p.add_argument("--simulations", type=int, default=400)
    p.add_argument("--settings", default="", help="more mcts settings, key=value,key=value")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        print(json.dumps(worker(args)))
        return
    if not args.old:
        p.error("--old is required")
    argv = ["--game", args.game, "--games", str(args.games), "--per-game", str(args.per_game), "--seed",
            str(args.seed), "--simulations", str(args.simulations), "--settings", args.settings]
    if args.variant:
        argv += ["--variant", args.variant]
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(args.repeats):  # alternate, so that a slow patch of the machine hits both
        for name in ("old", "new"):
            r = run_tree(getattr(args, name), argv)
            runs[name].append(r)
            print(f"repeat {i + 1}: {name} {r['ms_per_decision']:.2f} ms/decision", flush=True)
    best = {name: min(r["ms_per_decision"] for r in rs) for name, rs in runs.items()}
    same = runs["old"][0]["chosen"] == runs["new"][0]["chosen"]
    out = {"game": args.game, "variant": args.variant, "simulations": args.simulations, "settings": args.settings,
           "seed": args.seed, "games": args.games, "per_game": args.per_game,
           "decisions": runs["new"][0]["decisions"], "repeats": args.repeats, "old": os.path.abspath(args.old),
           "new": os.path.abspath(args.new), "machine": machine(),
           "ms_per_decision": {name: [round(r["ms_per_decision"], 3) for r in rs] for name, rs in runs.items()},
           "best_ms_per_decision": {k: round(v, 3) for k, v in best.items()},
           "new_over_old": round(best["new"] / best["old"], 3), "same_choices": same}
    print(json.dumps({k: v for k, v in out.items() if k != "ms_per_decision"}, indent=2))
    write_json(args.json, out)


if __name__ == "__main__":
    main()
