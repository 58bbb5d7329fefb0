#!/usr/bin/env python
"""Does running every row in one process, as the earlier bench.py did, change a row's rate?

Each round measures the compared rows in up to five ways, every one in fresh processes, the ways
in an order that is reversed every other round:

- ``old interleaved``: the earlier bench.py (``--old``): every row in one process, warmed up,
  then time slices round-robin, with its batched random draw (its wall-clock rates are divided
  by its CPU/wall share here, so that every way counts per CPU second);
- ``old alone``: the same script with ``--only <row>``: the row alone in its process, same loop;
- ``interleaved``: every bench.py row in one process, warmed up, then round-robin slices of
  bench.py's plain loop, rates per CPU second;
- ``fresh``: bench.py's own sample, the row alone in a fresh process;
- ``fresh, cold``: the same without the warm-up (what a quick outside measurement sees).

    mkdir -p /tmp/bench_old/benchmarks
    git show 173ce4e:benchmarks/bench.py > /tmp/bench_old/benchmarks/bench.py
    git show 173ce4e:benchmarks/speed_table.py > /tmp/bench_old/benchmarks/speed_table.py
    python benchmarks/archive/interleaving.py --old /tmp/bench_old/benchmarks/bench.py --json runs/interleaving.json
    python benchmarks/archive/interleaving.py --report runs/interleaving.json    # the tables again, from the file
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # benchmarks/
import bench

import speed_table

COMPARED = (bench.C4, bench.C4_RAW, "5T 2p base", "5T 2p base raw_env", "5T 2p great_powers", "engine 5T 2p base")
WAYS = ("old interleaved", "old alone", "interleaved", "fresh", "fresh, cold")


def interleaved(seconds: float, warmup: float, slices: int, seed: int) -> dict[str, dict]:
    """Every bench.py row in this process: all built and warmed up, then ``slices`` round-robin
    slices of ``seconds / slices`` CPU seconds each; per row, its totals over the slices."""
    rows = list(bench.ROWS)
    made = [bench.build(r) for r in rows]
    # one generator per row, its warm-up's too: rows that play the same game (wrapped, raw) drift apart
    # during the warm-up, where the earlier runner had them replay each other's games
    rngs = [np.random.default_rng(seed) for _ in rows]
    for row, m, rng in zip(rows, made, rngs):
        bench.play(row, m, rng, seed + 1_000_003, warmup)
    totals = {r.name: {"steps": 0, "games": 0, "seconds": 0.0, "wall_seconds": 0.0, "gc_collections": [0, 0, 0]}
              for r in rows}
    for k in range(slices):
        for row, m, rng in zip(rows, made, rngs):
            gc0, cpu0, t0 = bench.gc_collections(), time.thread_time(), time.perf_counter()
            steps, games = bench.play(row, m, rng, seed if k == 0 else None, seconds / slices)
            t = totals[row.name]
            t["steps"] += steps
            t["games"] += games
            t["seconds"] += time.thread_time() - cpu0
            t["wall_seconds"] += time.perf_counter() - t0
            t["gc_collections"] = [a + b - c for a, b, c in zip(t["gc_collections"], bench.gc_collections(), gc0)]
    return {name: t | {"name": name, "ref": bench.select([name])[0].ref, "steps_per_s": t["steps"] / t["seconds"],
                       "cpu_share": t["seconds"] / t["wall_seconds"]}
            for name, t in totals.items()}


def _child(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.splitlines()[-1])


def old_bench(old: str, only: str | None, seconds: float, warmup: float) -> dict[str, dict]:
    """The earlier bench.py's rows, one run of it (every row, or ``only``), as ``{name: sample}``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "old.json")
        cmd = [sys.executable, old, "--seconds", repr(seconds), "--warmup", repr(warmup), "--json", path]
        done = subprocess.run(cmd + (["--only", only] if only else []), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        with open(path) as f:
            return {r["name"]: r for r in json.load(f)["results"]}


def one_round(compared: list[str], args: argparse.Namespace, reverse: bool) -> dict[str, dict[str, dict]]:
    """Every way of measuring, in order (reversed if ``reverse``): ``{way: {row: sample}}``."""
    me = os.path.abspath(__file__)
    fresh = [bench.select([name])[0] for name in compared]
    ways: dict[str, Callable[[], dict[str, dict]]] = {
        "interleaved": lambda: _child([me, "--child", "--seconds", repr(args.seconds), "--warmup",
                                       repr(args.warmup), "--slices", str(args.slices)]),
        "fresh": lambda: {r.name: bench.in_fresh_process(r, args.seconds, args.warmup, 0) for r in fresh},
        "fresh, cold": lambda: {r.name: bench.in_fresh_process(r, args.seconds, 0.0, 0) for r in fresh},
    }
    if args.old:
        ways["old interleaved"] = lambda: old_bench(args.old, None, args.seconds, args.warmup)
        ways["old alone"] = lambda: {n: old_bench(args.old, n, args.seconds, args.warmup)[n] for n in compared}
    order = [w for w in WAYS if w in ways]
    out = {}
    for way in order[::-1] if reverse else order:
        print(f"  {way}", file=sys.stderr, flush=True)
        out[way] = {n: s for n, s in ways[way]().items() if n in compared}
    return out


def _median_span(values: list[float], fmt: str) -> str:
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-{max(values):{fmt}})" if values else "-"


def table(rounds: list[dict], compared: list[str], value: Callable[[dict, str, str], float | None], fmt: str) -> str:
    """Markdown: a row per compared row, a column per way, each cell the median over the rounds of
    ``value(round, way, row)`` and its range."""
    ways = [w for w in WAYS if w in rounds[0]]
    lines = ["| row | " + " | ".join(ways) + " |", "|---|" + "---:|" * len(ways)]
    for name in compared:
        cells = []
        for way in ways:
            values = [v for rnd in rounds if (v := value(rnd, way, name)) is not None]
            cells.append(_median_span(values, fmt))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_cpu_second(sample: dict, way: str) -> float:
    """A sample's agent-steps per CPU second; the earlier bench.py counted per wall second."""
    return sample["steps_per_s"] / sample["cpu_share"] if way.startswith("old") else sample["steps_per_s"]


def rate(rnd: dict, way: str, name: str) -> float | None:
    """The row's agent-steps/s in that way and round."""
    return per_cpu_second(rnd[way][name], way) if name in rnd[way] else None


def ratio(rnd: dict, way: str, name: str) -> float | None:
    """The row's agent-steps/s over its reference row's, in that way and round."""
    samples = [s | {"steps_per_s": per_cpu_second(s, way)} for s in rnd[way].values()]
    return speed_table.run_ratios(samples).get(name)


def full_gcs(rnd: dict, way: str, name: str) -> float | None:
    """Full (generation 2) garbage collections while the row was measured, in that way and round."""
    s = rnd[way].get(name, {})
    return s["gc_collections"][2] if "gc_collections" in s else None


def to_alone(rnd: dict, way: str, name: str) -> float | None:
    """The interleaved rate over the alone rate of the same loop, in one round (``way``: old or new loop)."""
    pair = {"old interleaved": "old alone", "interleaved": "fresh"}.get(way)
    if pair is None or pair not in rnd or name not in rnd[way] or name not in rnd[pair]:
        return None
    return per_cpu_second(rnd[way][name], way) / per_cpu_second(rnd[pair][name], pair)


def report(data: dict) -> None:
    """Print the rates, the ratios, the interleaved-over-alone rates and the full collections."""
    rounds, compared, args = data["rounds"], data["compared"], data["args"]
    print(f"{len(rounds)} rounds; {args['seconds']:g} s per row and way after {args['warmup']:g} s warm-up "
          f"(none in 'fresh, cold'); interleaved ways in {args['slices']} slices\n")
    print("Agent-steps per CPU second, median (range) over the rounds:\n")
    print(table(rounds, compared, rate, ",.0f"))
    print("\nRatio to the reference row (connect_four_v3, or its raw_env) within the round:\n")
    print(table(rounds, compared, ratio, ".3f"))
    print("\nA row's rate interleaved over its rate alone with the same loop, within the round "
          "(old interleaved / old alone; interleaved / fresh):\n")
    print(table(rounds, compared, to_alone, ".3f"))
    print("\nFull (generation 2) garbage collections while the row was measured:\n")
    print(table(rounds, compared, full_gcs, "g"))


def main(argv: list[str] | None = None) -> int:
    """Run the rounds and print the comparison (``--report``: from a file; ``--child``: one interleaved process)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", metavar="PATH", help="the earlier bench.py (adds the two 'old' ways)")
    p.add_argument("--seconds", type=float, default=1.0, help="measured time per row and way (default 1)")
    p.add_argument("--warmup", type=float, default=0.5, help="warm-up per row, as the earlier bench.py (default 0.5)")
    p.add_argument("--slices", type=int, default=5, help="round-robin slices of the interleaved ways (default 5)")
    p.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    p.add_argument("--only", action="append", metavar="NAME", help="compare these rows (default: six of them)")
    p.add_argument("--json", metavar="PATH", help="also write every round as JSON to PATH")
    p.add_argument("--report", metavar="PATH", help="print the tables of a file this script wrote, and stop")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(interleaved(args.seconds, args.warmup, args.slices, 0)))
        return 0
    if args.report:
        report(json.loads(Path(args.report).read_text()))
        return 0
    compared = [r.name for r in bench.select(args.only)] if args.only else list(COMPARED)
    rounds = []
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
        rounds.append(one_round(compared, args, reverse=r % 2 == 1))
    data = {"info": bench.env_info(), "args": {k: v for k, v in vars(args).items() if k not in ("child", "report")},
            "compared": compared, "rounds": rounds}
    report(data)
    if args.json:
        bench.save_json(data, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
