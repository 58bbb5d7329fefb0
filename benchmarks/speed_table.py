#!/usr/bin/env python
"""The README's speed table, written from a ``bench.py --json`` file (default ``results/benchmark.json``).

    python benchmarks/speed_table.py                      # print the table of the committed results
    python benchmarks/speed_table.py runs/bench.json      # or of another run

Ratios are to ``connect_four_v3`` in agent-steps/s within the same run (the environments are
interleaved in time slices, so the ratio is steadier than either absolute rate).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "results" / "benchmark.json"
REFERENCE = "connect_four_v3"


def speed_table(data: dict) -> str:
    """Markdown rows: row, agent-steps/s (engine rows: decisions/s), games/s, steps per game, and the
    ratio to the row's reference in the same run (``connect_four_v3``'s wrapped env, or its
    ``raw_env`` for the unwrapped rows)."""
    by_name = {r["name"]: r for r in data["results"]}
    lines = ["| row | agent-steps/s | games/s | steps/game | ratio | compared with |",
             "|---|---:|---:|---:|---:|---|"]
    for r in data["results"]:
        ref_name = r.get("ref") or REFERENCE
        ref = by_name.get(ref_name, {}).get("steps_per_s")
        ratio = f"{r['steps_per_s'] / ref:.2f}x" if ref and r["name"] != ref_name else "-"
        lines.append(f"| {r['name']} | {r['steps_per_s']:,.0f} | {r['games_per_s']:,.1f} | "
                     f"{r['steps_per_game']:.1f} | {ratio} | {ref_name if ratio != '-' else ''} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table of the JSON file named on the command line (default: the committed one)."""
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else DEFAULT
    print(speed_table(json.loads(path.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
