#!/usr/bin/env python
"""The speed tables, written from a ``bench.py --json`` file (default ``results/benchmark/benchmark.json``).

    python benchmarks/speed_table.py                      # the full table of the committed results
    python benchmarks/speed_table.py --headline           # the short table (the rows bench.py marks headline)
    python benchmarks/speed_table.py runs/bench.json      # or of another run

Rates are medians over the file's rounds (``runs``), each row's sample taken in a fresh process.
A ratio divides a row's agent-steps/s by its reference row's in the same round
(``connect_four_v3``, or its ``raw_env`` for the unwrapped rows); the table gives the median of the
per-round ratios and their range.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "results" / "benchmark" / "benchmark.json"
REFERENCE = "connect_four_v3"


def run_ratios(rows: list[dict]) -> dict[str, float]:
    """Each row's agent-steps/s over its reference row's in the same round (rows whose reference ran);
    ``rows`` as ``bench.py --json`` writes one round of them."""
    by_name = {r["name"]: r for r in rows}
    out = {}
    for r in rows:
        ref = r.get("ref") or REFERENCE
        if ref in by_name and r["name"] != ref:
            out[r["name"]] = r["steps_per_s"] / by_name[ref]["steps_per_s"]
    return out


def _span(values: list[float], fmt: str) -> str:
    """``lowest-highest`` of the values, or ``-`` if there are none."""
    return f"{min(values):{fmt}}-{max(values):{fmt}}" if values else "-"


def speed_table(data: dict, headline: bool = False) -> str:
    """Markdown rows: row, median agent-steps/s (engine rows: decisions/s) and its range over the
    rounds, games/s, steps per game, the median ratio to the row's reference within a round and its
    range, and the reference. ``headline``: only the rows the file marks ``headline``."""
    runs = data.get("runs") or [data["results"]]
    per_run = [run_ratios(rows) for rows in runs]
    lines = ["| row | agent-steps/s | range | games/s | steps/game | ratio | range | compared with |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in data["results"]:
        if headline and not r.get("headline"):
            continue
        name = r["name"]
        rates = [s["steps_per_s"] for run in runs for s in run if s["name"] == name]
        ratios = [q[name] for q in per_run if name in q]
        ratio = f"{statistics.median(ratios):.2f}x" if ratios else "-"
        spread = _span(ratios, ".2f") + ("x" if ratios else "")
        ref_name = (r.get("ref") or REFERENCE) if ratios else ""
        lines.append(f"| {name} | {r['steps_per_s']:,.0f} | {_span(rates, ',.0f')} | {r['games_per_s']:,.1f} | "
                     f"{r['steps_per_game']:.1f} | {ratio} | {spread} | {ref_name} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table of the JSON file named on the command line (default: the committed one)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", nargs="?", type=Path, default=DEFAULT, help="a bench.py --json file")
    p.add_argument("--headline", action="store_true", help="only the headline rows")
    args = p.parse_args(argv)
    print(speed_table(json.loads(args.path.read_text()), headline=args.headline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
