"""Writing evaluation results: aligned terminal tables, CSV, JSON and Markdown (each file written
whole or not at all, by :mod:`five_towers_env.atomic`)."""
from __future__ import annotations

import csv
import gzip
import io
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from five_towers_env import atomic


def fmt_ci(lo: float | None, hi: float | None, digits: int = 3) -> str:
    """``[lo, hi]`` or ``-``."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "-"
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def text_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain aligned table (first column left-aligned, the rest right-aligned)."""
    rows = [list(map(str, r)) for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    def esc(s: Any) -> str:
        return str(s).replace("|", "\\|")
    out = ["| " + " | ".join(map(esc, headers)) + " |",
           "|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|"]
    out += ["| " + " | ".join(map(esc, r)) + " |" for r in rows]
    return "\n".join(out)


def jsonable(obj: Any) -> Any:
    """``obj`` with NaN / inf turned into None and tuples into lists, so ``json`` writes valid JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return jsonable(obj.item())
    return obj


def write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as indented JSON (NaN written as null); create parent folders."""
    return atomic.write_json(path, jsonable(obj), indent=2)


def write_csv(path: str | Path, rows: Sequence[dict[str, Any]], fieldnames: Sequence[str] | None = None) -> Path:
    """Write dict rows as CSV (lists joined with ``;``, NaN left empty); create parent folders.

    A path ending in ``.gz`` is gzip-compressed, with no timestamp in the header, so the same rows
    always give the same bytes (committed result files do not change on a rerun).
    """
    path = Path(path)
    if fieldnames is None:
        fieldnames = list(rows[0].keys()) if rows else []

    def cell(v: Any) -> Any:
        if isinstance(v, (list, tuple)):
            return ";".join(map(str, v))
        if isinstance(v, float) and not math.isfinite(v):
            return ""
        return v

    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(fieldnames), extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: cell(v) for k, v in r.items()})
    data = buffer.getvalue().encode()
    # compressed in memory, then published whole: a cut-off .gz is never left under its name
    return atomic.write_bytes(path, gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)


def write_text(path: str | Path, text: str) -> Path:
    """Write text (with a final newline); create parent folders."""
    return atomic.write_text(path, text.rstrip("\n") + "\n")
