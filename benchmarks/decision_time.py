#!/usr/bin/env python
"""CPU time per decision of several agents, on the same decisions, and each one's ratio to the first.

Collects the decisions with more than one legal action from ``--games`` seeded 2-player games of
``--players-from`` against itself (each a public ``info`` and observation, as an agent receives
them), then asks every agent of ``--agents`` to decide each of them, agents alternating in
``--rounds`` rounds, and times each call by process CPU time (the better figure on a shared,
loaded machine; the wall time is reported beside it). The mean per decision is taken over all
rounds; the ratios are per round, so their range shows the noise. With ``--engines python native`` every
agent is timed on both engines (``FIVE_TOWERS_ENGINE`` switched between the calls: the agents that decide in
C++ where the native core is active do so on ``native``), on the same decisions, collected on the Python
engine (so a native agent converts each public view first, as it does for a user's Python game).

    python benchmarks/decision_time.py --agents mcts:simulations=400 guided net --games 4 --rounds 3 \\
        --json runs/decision_time.json
    python benchmarks/decision_time.py --game campanile --agents mcts guided:simulations=256 --games 6
    python benchmarks/decision_time.py --agents mcts:simulations=400 --engines python native \\
        --json results/decision_time/five_towers_2p/five_towers_2p.json
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from five_towers_env.core.backend import ENV_VAR
from five_towers_env.core.game import get_game
from five_towers_env.evaluation.specs import parse_agent_spec
from five_towers_env.play import play_game

from report import machine, write_json  # benchmarks/report.py, beside this script


class _Collector:
    """An agent that plays through another and keeps every real decision it was asked."""

    def __init__(self, inner: Any, out: list) -> None:
        self.inner, self.out, self.name = inner, out, inner.name

    def act(self, observation: dict, info: dict) -> int:
        if len(info["legal_actions"]) > 1:
            self.out.append((observation, info))
        return self.inner.act(observation, info)


def decisions(game: str, players_from: str, games: int, seed: int) -> list[tuple[dict, dict]]:
    """The real decisions of ``games`` seeded games of ``players_from`` against itself."""
    spec = parse_agent_spec(players_from, game=game)
    out: list[tuple[dict, dict]] = []
    for g in range(games):
        play_game([_Collector(spec.build(seed * 100 + 2 * g + s), out) for s in range(2)], seed=seed + g, game=game)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="five_towers", help="five_towers or campanile (default five_towers)")
    p.add_argument("--agents", nargs="+", required=True, help="agent specs; ratios are to the first")
    p.add_argument("--players-from", default="heuristic", help="the agent whose games give the decisions")
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--engines", nargs="+", choices=("python", "native"), metavar="ENGINE",
                   help="time every agent on each of these engines (python, native); default: the current one")
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args()

    g = get_game(args.game)
    engines: list[str | None] = list(args.engines or [None])
    if args.engines:
        os.environ[ENV_VAR] = "python"  # the decisions: Python games' public views
    positions = decisions(g.name, args.players_from, args.games, args.seed)
    runs = [(parse_agent_spec(a, game=g.name), e) for a in args.agents for e in engines]
    cpu = np.zeros((args.rounds, len(runs)))
    wall = np.zeros((args.rounds, len(runs)))
    for r in range(args.rounds):
        for i, (spec, engine) in enumerate(runs):
            if engine is not None:
                os.environ[ENV_VAR] = engine
            agent = spec.build(args.seed + r)
            w, c = time.perf_counter(), time.process_time()
            for observation, info in positions:
                agent.act(observation, info)
            cpu[r, i] = (time.process_time() - c) / len(positions)
            wall[r, i] = (time.perf_counter() - w) / len(positions)
    ratios = cpu / cpu[:, :1]
    out = {"game": g.name, "decisions": len(positions), "players_from": args.players_from, "games": args.games,
           "rounds": args.rounds, "seed": args.seed, "machine": machine(),
           "agents": [{"agent": s.label, "engine": e or os.environ.get(ENV_VAR, "default"),
                       "cpu_ms": float(cpu[:, i].mean() * 1e3), "wall_ms": float(wall[:, i].mean() * 1e3),
                       "cpu_ratio_to_first": float(ratios[:, i].mean()),
                       "ratio_range": [float(ratios[:, i].min()), float(ratios[:, i].max())]}
                      for i, (s, e) in enumerate(runs)]}
    print(f"{g.title}: {len(positions)} decisions, {args.rounds} rounds")
    for row in out["agents"]:
        low, high = row["ratio_range"]
        label = f"{row['agent']} [{row['engine']}]" if args.engines else row["agent"]
        print(f"  {label:<45} CPU {row['cpu_ms']:8.2f} ms/decision  wall {row['wall_ms']:8.2f}  "
              f"x{row['cpu_ratio_to_first']:.3f} of the first ({low:.3f}-{high:.3f})")
    write_json(args.json, out)


if __name__ == "__main__":
    main()
