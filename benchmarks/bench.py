#!/usr/bin/env python
"""Throughput benchmark: five_towers_env against PettingZoo classic environments.

Every environment is driven identically through the standard PettingZoo AEC loop with
uniform random masked play (one shared ``numpy.random.Generator`` per environment):

    env.reset(seed=seed)                      # first game; later games: env.reset()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else <uniform random legal action from obs["action_mask"]>
        env.step(action)

Each environment runs for a fixed wall time (``--seconds``, split into ``--rounds`` slices run
round-robin over the environments, games continuing across slices) after a short warm-up. Reported:
agent-steps/s (only steps with a real action, i.e. decisions), completed games/s and mean
decisions per completed game, then the ratio of every five_towers row to connect_four_v3 and
leduc_holdem_v4. See benchmarks/README.md.

    python benchmarks/bench.py                       # all rows, ~5 s each
    python benchmarks/bench.py --seconds 2 --json out.json
    python benchmarks/bench.py --only "5T 2p base"   # a single row (e.g. under cProfile)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pettingzoo  # noqa: E402
from pettingzoo.classic import connect_four_v3, leduc_holdem_v4  # noqa: E402

import five_towers_env  # noqa: E402

C4 = "connect_four_v3"
LEDUC = "leduc_holdem_v4"


@dataclass
class Case:
    name: str
    make: Callable[[], object]
    five_towers: bool
    extra: bool = False  # informational row, not part of the goal


def cases() -> list[Case]:
    ft = five_towers_env.env
    return [
        Case("5T 2p base", lambda: ft(num_players=2, variant="base"), True),
        Case("5T 4p base", lambda: ft(num_players=4, variant="base"), True),
        Case("5T 2p great_powers", lambda: ft(num_players=2, variant="great_powers"), True),
        Case("5T 4p great_powers", lambda: ft(num_players=4, variant="great_powers"), True),
        Case("5T 2p base explicit", lambda: ft(num_players=2, variant="base", explicit=True), True, extra=True),
        Case(C4, connect_four_v3.env, False),
        Case(LEDUC, leduc_holdem_v4.env, False),
    ]


@dataclass
class Result:
    name: str
    seconds: float          # measured wall time
    steps: int              # decisions (env.step with a non-None action), partial last game included
    games: int              # completed games
    game_steps: int         # decisions inside completed games
    steps_per_s: float
    games_per_s: float
    steps_per_game: float
    cpu_share: float        # process CPU time / wall time; well below 1 means the machine was contended


class Runner:
    """Plays random masked games on one environment; ``run(seconds)`` resumes where the last call stopped,
    so a game may span several time slices and none is lost at a slice boundary."""

    def __init__(self, env, seed: int) -> None:
        self.env = env
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.it = None           # agent_iter of the game in progress
        self.first = True
        self.n = 0               # decisions in the game in progress
        self.steps = self.games = self.game_steps = 0
        self.elapsed = 0.0
        self.cpu = 0.0           # process CPU time over the same slices (contention check)

    def run(self, seconds: float) -> None:
        env = self.env
        perf = time.perf_counter
        flatnonzero = np.flatnonzero
        integers = self.rng.integers
        cpu0 = time.process_time()
        start = perf()
        deadline = start + seconds
        while True:
            if self.it is None:
                if self.first:
                    env.reset(seed=self.seed)
                    self.first = False
                else:
                    env.reset()
                self.it = iter(env.agent_iter())
                self.n = 0
            for _agent in self.it:
                obs, _rew, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = flatnonzero(obs["action_mask"])
                    action = int(legal[integers(legal.size)])
                    self.n += 1
                    self.steps += 1
                env.step(action)
                if perf() >= deadline:
                    self.elapsed += perf() - start
                    self.cpu += time.process_time() - cpu0
                    return
            # agent_iter is exhausted: every agent is done, the game is complete
            self.games += 1
            self.game_steps += self.n
            self.it = None


def bench(selected: list[Case], seconds: float, warmup: float, seed: int, rounds: int) -> list[Result]:
    """Warm every environment up, then give each ``seconds`` in ``rounds`` interleaved slices
    (round-robin), so that slow drifts of the machine's speed hit every row alike."""
    runners = []
    for c in selected:
        env = c.make()
        if warmup > 0:
            Runner(env, seed + 1_000_003).run(warmup)  # fills caches; its unfinished game is dropped by reset
        runners.append(Runner(env, seed))
    for r in range(rounds):
        print(f"  round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        for run in runners:
            run.run(seconds / rounds)
    out = []
    for c, run in zip(selected, runners):
        run.env.close()
        t = run.elapsed
        out.append(Result(c.name, t, run.steps, run.games, run.game_steps, run.steps / t, run.games / t,
                          run.game_steps / run.games if run.games else float("nan"), run.cpu / t))
    return out


def env_info() -> dict:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "five_towers_env": getattr(five_towers_env, "__version__", "?"),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }


def markdown(results: list[Result], extras: set[str]) -> str:
    rows = ["| environment | agent-steps/s | games/s | steps/game | games played | CPU/wall |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        name = r.name + (" *(extra)*" if r.name in extras else "")
        rows.append(f"| {name} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | {r.steps_per_game:,.1f} | {r.games:,} | {r.cpu_share:.2f} |")
    return "\n".join(rows)


def ratio_table(results: list[Result], ft_names: list[str]) -> str | None:
    by = {r.name: r for r in results}
    refs = [n for n in (C4, LEDUC) if n in by]
    fts = [by[n] for n in ft_names if n in by]
    if not refs or not fts:
        return None
    head = "| five_towers row | " + " | ".join(f"steps/s ÷ {n}" for n in refs) + " | " + \
        " | ".join(f"games/s ÷ {n}" for n in refs) + " |"
    rows = [head, "|---|" + "---:|" * (2 * len(refs))]
    for r in fts:
        s = [f"{r.steps_per_s / by[n].steps_per_s:.2f}×" for n in refs]
        g = [f"{r.games_per_s / by[n].games_per_s:.3f}×" for n in refs]
        rows.append(f"| {r.name} | " + " | ".join(s + g) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="measured wall time per environment (default 5)")
    p.add_argument("--warmup", type=float, default=0.5, help="warm-up wall time per environment (default 0.5)")
    p.add_argument("--rounds", type=int, default=5,
                   help="split each environment's time into this many slices, run round-robin (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first reset and of the action generator")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only the row named NAME, or else rows whose name contains NAME (repeatable)")
    args = p.parse_args(argv)

    all_cases = cases()
    wanted: set[str] = set()
    for o in args.only or []:  # an exact name picks that row only, otherwise a substring
        exact = [c.name for c in all_cases if c.name == o]
        wanted.update(exact or [c.name for c in all_cases if o in c.name])
    selected = [c for c in all_cases if not args.only or c.name in wanted]
    if not selected:
        p.error(f"--only matched none of: {', '.join(c.name for c in all_cases)}")

    info = env_info()
    print(f"Python {info['python']} ({info['implementation']}), numpy {info['numpy']}, "
          f"pettingzoo {info['pettingzoo']}, five_towers_env {info['five_towers_env']}")
    print(f"{info['platform']}, {info['processor']}, CPUs: {info['cpu_count']} "
          f"(usable: {info['affinity_cpus']}); single process, single thread")
    print(f"{args.seconds:g} s per environment ({args.rounds} interleaved slices) after {args.warmup:g} s "
          f"warm-up, seed {args.seed}\n")

    results = bench(selected, args.seconds, args.warmup, args.seed, max(1, args.rounds))

    extras = {c.name for c in selected if c.extra}
    print("\n" + markdown(results, extras))
    low = min(r.cpu_share for r in results)
    if low < 0.9:
        print(f"\nWarning: CPU/wall down to {low:.2f}: other processes competed for the CPU, absolute rates are "
              "low and noisy; the ratios (interleaved slices) are the more trustworthy numbers.")
    ratios = ratio_table(results, [c.name for c in selected if c.five_towers])
    if ratios:
        print("\nRatios (> 1 means five_towers is faster):\n")
        print(ratios)
        by = {r.name: r for r in results}
        if "5T 2p base" in by and C4 in by:
            q = by["5T 2p base"].steps_per_s / by[C4].steps_per_s
            print(f"\nGoal (5T 2p base agent-steps/s >= {C4}): {'MET' if q >= 1 else 'NOT MET'} ({q:.2f}×)")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "args": vars(args), "results": [asdict(r) for r in results]}, f, indent=2)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
