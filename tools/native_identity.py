#!/usr/bin/env python
"""The identity soak: N seeded random games per setup on the native core and the Python engine in lockstep.

Every setup of both games (2-5 players, every variant, Campanile's two chip rules) plays seeds 0..N-1
(:func:`five_towers_env.core.native.identity.play_lockstep`): every seat's observation at every step in
the first ``--all-seats`` games of a setup, the mover's after that, and at every step the legal actions,
the mask, the scores, the seat on move and the phase. The first difference stops the run with exit 1 and
names it. ``--json`` writes the counts per setup (and ``provenance.json`` beside them).

    python tools/native_identity.py --games 20000 --workers 2 --json results/native_identity/identity.json
    python tools/native_identity.py --games 1000 --workers 2          # CI's size (.ci/identity.sh)
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

#: the games' own settings beyond players and variant, each with every value
OPTIONS = {"five_towers": [{}], "campanile": [{"bet_chip": "at_least"}, {"bet_chip": "exact"}]}
CHUNK = 250


def setups() -> list[tuple[str, int, str, dict]]:
    from five_towers_env.core.game import get_game

    out = []
    for name, options in OPTIONS.items():
        spec = get_game(name)
        seats = range(spec.min_players, spec.max_players + 1)
        out += [(name, n, v, o) for n, v, o in itertools.product(seats, spec.variants, options)]
    return out


def label(setup: tuple[str, int, str, dict]) -> str:
    name, n, variant, opts = setup
    return f"{name} {n}p {variant}" + "".join(f" {v}" for v in opts.values())


def run_chunk(task: tuple[tuple[str, int, str, dict], int, int, int]) -> tuple[str, int, int, int, float]:
    """Seeds ``first..last-1`` of one setup: (label, games, decisions, observations, CPU seconds)."""
    from five_towers_env.core.native.identity import play_lockstep

    setup, first, last, all_seats = task
    start = time.process_time()
    decisions = observations = 0
    for seed in range(first, last):
        done = play_lockstep(*setup, seed, all_seats=seed < all_seats)
        decisions += done.decisions
        observations += done.observations
    return label(setup), last - first, decisions, observations, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=20000, help="seeded games per setup (default 20000)")
    parser.add_argument("--all-seats", type=int, default=1000,
                        help="the first games of each setup compare every seat's observation (default 1000)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--json", help="write the counts here (and provenance.json beside them)")
    args = parser.parse_args()
    cpus = os.cpu_count() or 1
    if not 1 <= args.games <= 10**6 or not 0 <= args.all_seats <= 10**6 or not 1 <= args.workers <= cpus:
        parser.error(f"--games 1..1000000, --all-seats 0..1000000, --workers 1..{os.cpu_count()}")
    os.environ["FIVE_TOWERS_ENGINE"] = "native"  # the native side must be there: an error if it was not built
    from five_towers_env import engine_backend

    engine_backend()
    tasks = [(s, lo, min(lo + CHUNK, args.games), args.all_seats)
             for s in setups() for lo in range(0, args.games, CHUNK)]
    totals: dict[str, list[float]] = {label(s): [0, 0, 0, 0.0] for s in setups()}
    start = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        try:
            for name, games, decisions, observations, cpu in pool.map(run_chunk, tasks):
                for i, v in enumerate((games, decisions, observations, cpu)):
                    totals[name][i] += v
        except AssertionError as exc:  # a Mismatch: the first difference, named
            print(f"native_identity: MISMATCH: {exc}", file=sys.stderr)
            return 1
    wall = time.time() - start
    print("| setup | games | decisions | observations compared |\n|---|---:|---:|---:|")
    for name, (games, decisions, observations, _) in totals.items():
        print(f"| {name} | {int(games):,} | {int(decisions):,} | {int(observations):,} |")
    games_all = sum(int(t[0]) for t in totals.values())
    decisions_all = sum(int(t[1]) for t in totals.values())
    print(f"\n{games_all:,} games, {decisions_all:,} decisions, no difference; "
          f"{wall:.0f} s with {args.workers} workers")
    if args.json:
        from five_towers_env.atomic import write_json
        from five_towers_env.provenance import write_provenance

        write_json(args.json, {"games_per_setup": args.games, "all_seats_games": args.all_seats,
                               "mismatches": 0, "wall_s": round(wall, 1),
                               "setups": {n: {"games": int(g), "decisions": int(d), "observations": int(o),
                                              "cpu_s": round(c, 1)} for n, (g, d, o, c) in totals.items()}})
        write_provenance(os.path.dirname(args.json) or ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
