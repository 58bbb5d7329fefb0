#!/usr/bin/env python
"""Seconds per decision of the MCTS agent of any game, split into real choices and forced ones.

Plays 2-player games of ``--game``'s ``mcts`` against each opponent (seats rotated, seeds from
``five_towers_env.evaluation.jobs.make_jobs``); 5 Towers in **explicit** mode, so that the agent is also
asked the forced decisions (a single legal action) that the default mode applies without asking,
and times every MCTS decision by wall clock and by process CPU time (CPU time is the better
figure on a shared, loaded machine). Reports the mean per decision with more than one legal
action (what ``five-towers evaluate`` reports as s/move, since in the default mode only those
reach the agent) and per decision of any kind.

    python benchmarks/mcts_decision_time.py --simulations 400 --games 6 --json runs/mcts_decision_time.json
    python benchmarks/mcts_decision_time.py --game campanile --games 6
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from five_towers_env.core.game import get_game
from five_towers_env.evaluation.jobs import make_jobs
from five_towers_env.evaluation.specs import parse_agent_spec

from report import machine, write_json  # benchmarks/report.py, beside this script


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="five_towers", help="five_towers or campanile (default five_towers)")
    p.add_argument("--simulations", type=int, default=400)
    p.add_argument("--opponents", nargs="+", default=["random", "greedy", "heuristic"])
    p.add_argument("--games", type=int, default=6, help="games per opponent (even: seats balanced)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="PATH")
    args = p.parse_args()

    g = get_game(args.game)
    explicit = {"explicit": True} if g.explicit else {}  # a game without forced moves asks every decision
    mcts = parse_agent_spec(f"mcts:simulations={args.simulations}", game=g.name)
    rows = []  # (opponent, legal actions, wall s, cpu s)
    for opp in args.opponents:
        specs = [mcts, parse_agent_spec(opp, game=g.name)]
        for job in make_jobs([0, 1], args.games, 2, args.seed):
            agents = [specs[a].build(job.agent_seeds[s]) for s, a in enumerate(job.lineup)]
            env = g.make_raw_env(num_players=2, **explicit)
            env.reset(seed=job.deal_seed)
            game = env.game
            while not game.is_terminal():
                seat = game.current_player
                info = g.agent_info(game, seat)
                obs = env.observe(env.possible_agents[seat])
                w, c = time.perf_counter(), time.process_time()
                action = agents[seat].act(obs, info)
                w, c = time.perf_counter() - w, time.process_time() - c
                if job.lineup[seat] == 0:
                    rows.append((opp, len(info["legal_actions"]), w, c))
                env.step(action)

    def stats(sel: list[tuple]) -> dict[str, float]:
        wall = np.array([r[2] for r in sel])
        cpu = np.array([r[3] for r in sel])
        return {"decisions": len(sel), "wall_mean_s": float(wall.mean()), "cpu_mean_s": float(cpu.mean()),
                "wall_median_s": float(np.median(wall)), "cpu_p90_s": float(np.quantile(cpu, 0.9)),
                "cpu_max_s": float(cpu.max())}

    out = {"game": g.name, "simulations": args.simulations, "games_per_opponent": args.games, "seed": args.seed,
           "machine": machine(),
           "choices": stats([r for r in rows if r[1] > 1]), "all_decisions": stats(rows),
           "per_opponent": {o: {"choices": stats([r for r in rows if r[0] == o and r[1] > 1]),
                                "all_decisions": stats([r for r in rows if r[0] == o])}
                            for o in args.opponents}}
    print(json.dumps(out, indent=2))
    write_json(args.json, out)


if __name__ == "__main__":
    main()
