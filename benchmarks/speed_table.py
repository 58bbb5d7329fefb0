#!/usr/bin/env python
"""The README's speed table, written from a ``bench.py --json`` file (default ``results/benchmark.json``).

    python benchmarks/speed_table.py                      # print the table of the committed results
    python benchmarks/speed_table.py runs/bench.json      # or of another run

Ratios are to ``connect_four_v3`` in agent-steps/s within the same run (the environments are
interleaved in time slices, so the ratio is steadier than either absolute rate). For a file of
repeated runs (``bench.py --repeats``), rates are medians over the runs and the ratio is the median
of the per-run ratios, with their range beside it.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "results" / "benchmark.json"
REFERENCE = "connect_four_v3"


def run_ratios(rows: list[dict]) -> dict[str, float]:
    """Each row's agent-steps/s over its reference row's in the same run (rows whose reference ran);
    ``rows`` as ``bench.py --json`` writes them. ``bench.py`` uses it too."""
    by_name = {r["name"]: r for r in rows}
    out = {}
    for r in rows:
        ref = r.get("ref") or REFERENCE
        if ref in by_name and r["name"] != ref:
            out[r["name"]] = r["steps_per_s"] / by_name[ref]["steps_per_s"]
    return out


def speed_table(data: dict) -> str:
    """Markdown rows: row, agent-steps/s (engine rows: decisions/s), games/s, steps per game, and the
    ratio to the row's reference in the same run (``connect_four_v3``'s wrapped env, or its
    ``raw_env`` for the unwrapped rows). A file of repeated runs (``bench.py --repeats``) gives each
    rate's median, the median of the per-run ratios and their range."""
    runs = data.get("runs") or [data["results"]]
    per_run = [run_ratios(rows) for rows in runs]
    wide = len(runs) > 1
    lines = ["| row | agent-steps/s | games/s | steps/game | ratio |" + (" range |" if wide else "")
             + " compared with |",
             "|---|---:|---:|---:|---:|" + ("---:|" if wide else "") + "---|"]
    for r in data["results"]:
        values = [q[r["name"]] for q in per_run if r["name"] in q]
        ratio = f"{statistics.median(values):.2f}x" if values else "-"
        spread = (f" {min(values):.2f}-{max(values):.2f}x |" if values else " - |") if wide else ""
        ref_name = (r.get("ref") or REFERENCE) if values else ""
        lines.append(f"| {r['name']} | {r['steps_per_s']:,.0f} | {r['games_per_s']:,.1f} | "
                     f"{r['steps_per_game']:.1f} | {ratio} |{spread} {ref_name} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table of the JSON file named on the command line (default: the committed one)."""
    argv = sys.argv[1:] if argv is None else argv
    path = Path(argv[0]) if argv else DEFAULT
    print(speed_table(json.loads(path.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
