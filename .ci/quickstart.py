#!/usr/bin/env python
"""CI check that the README's quick start stays true: run its main-job command exactly as written and
compare the evaluation table it prints with the README's table, character for character.

    python .ci/quickstart.py                  # run the command (a few minutes), then compare
    python .ci/quickstart.py --output FILE    # compare a saved stdout of the command instead
    python .ci/quickstart.py --machine        # describe this machine and its kernel settings

The README marks the command with ``<!-- command: main-job -->`` and the table with
``<!-- table: main-job -->``, each followed by a fenced block. Exit status: 0 when the tables are
equal, 1 with a diff when they differ, 2 when the README or the output has no table.

The run trains with portable numerics (``five_towers_env/numerics.py``: every floating-point kernel
pinned to the AVX2 level, thread counts from the config), so it prints the same table on every x86-64
CPU with AVX2, Intel or AMD, AVX2 or AVX-512: a difference is a bug to find, not a machine to blame.
On a difference the check prints this machine's description beside the one the committed run
recorded (``results/ppo_quick_2p/provenance.json``).
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = "against "  # the first cell of the table's header line
COMMITTED_RUN = ROOT / "results" / "ppo_quick_2p" / "provenance.json"


def machine() -> str:
    """What could decide training's floating-point results here: CPU, libraries, kernel settings."""
    import platform

    from five_towers_env import numerics

    flags = numerics.cpu_flags()
    simd = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
    lines = [f"cpu: {platform.processor() or platform.machine()} (flags: "
             f"{' '.join(f for f in simd if f in flags) or 'none of ' + ' '.join(simd)})",
             f"python: {platform.python_version()}",
             f"portable numerics: {numerics.portable_problem() or 'available'}"]
    try:
        import numpy
        import torch

        lines += [f"torch: {torch.__version__}", f"numpy: {numpy.__version__}"]
    except ImportError as exc:
        lines.append(f"torch or numpy missing: {exc}")
    return "\n".join(lines)


def fenced_block(text: str, marker: str) -> str:
    """The body of the fenced block right after ``<!-- marker -->`` in ``text``."""
    found = re.search(rf"<!-- {re.escape(marker)} -->\n```[a-z]*\n(.*?)```", text, flags=re.S)
    if found is None:
        raise LookupError(f"README has no fenced block after <!-- {marker} -->")
    return found.group(1).rstrip("\n")


def printed_table(output: str) -> str:
    """The evaluation table in a run's stdout: the header line and the rows under it."""
    lines = output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(HEADER)]
    if not starts:
        raise LookupError("the command printed no evaluation table (no line starting with 'against ')")
    table = []
    for line in lines[starts[-1]:]:
        if not line.strip() or line.startswith("("):  # the win convention follows the table
            break
        table.append(line)
    return "\n".join(table)


def run(command: str) -> str:
    """Run ``command`` with bash in the repository root, echoing and returning its stdout."""
    print(f"quickstart: running {command}", flush=True)
    proc = subprocess.Popen(["bash", "-c", command], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    out = []
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        out.append(line)
    if proc.wait():
        raise SystemExit(f"quickstart: the README's main-job command failed (exit {proc.returncode})")
    return "".join(out)


def compare(expected: str, got: str) -> int:
    """0 if the tables are equal, else 1 after printing a diff."""
    if expected == got:
        print("quickstart: the printed table is the README's, exactly")
        return 0
    diff = difflib.unified_diff(expected.splitlines(), got.splitlines(), "README.md", "printed", lineterm="")
    print("quickstart: the printed table differs from the README's:\n" + "\n".join(diff), file=sys.stderr)
    try:
        made_on = json.dumps(json.loads(COMMITTED_RUN.read_text()).get("machine"), indent=1)
    except (OSError, ValueError, AttributeError):
        made_on = "(unknown)"
    print(f"quickstart: this machine:\n{machine()}\nthe committed run's machine:\n{made_on}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, help="a saved stdout of the command to compare instead of running it")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--machine", action="store_true", help="print this machine's description and stop")
    args = parser.parse_args(argv)
    if args.machine:
        print(machine())
        return 0
    readme = args.readme.read_text()
    try:
        expected = fenced_block(readme, "table: main-job")
        output = args.output.read_text() if args.output else run(fenced_block(readme, "command: main-job"))
        got = printed_table(output)
    except LookupError as exc:
        print(f"quickstart: {exc}", file=sys.stderr)
        return 2
    return compare(expected, got)


if __name__ == "__main__":
    sys.exit(main())
