"""Flat observation layouts built from named pieces, for any game (pure numpy).

A layout is a list of pieces ``(name, size, meaning)`` in vector order. Each game's observation
module lists its pieces; these helpers give their offsets, the rows of the documentation table
and the debug string of a vector, so that every game reads and documents its vector the same way.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Piece = tuple[str, int, str]


def offsets_of(pieces: Sequence[Piece]) -> dict[str, tuple[int, int]]:
    """``{piece name: (start, size)}`` over the flat vector."""
    out, at = {}, 0
    for name, size, _ in pieces:
        out[name] = (at, size)
        at += size
    return out


def table_rows(offsets: dict[str, tuple[int, int]], pieces: Sequence[Piece], prefix: str = "",
               shown: str | None = None) -> list[str]:
    """Markdown rows ``| offset | size | piece | meaning |`` for ``pieces`` stored under ``prefix``
    (``shown``: the prefix as printed, default ``prefix``)."""
    shown = prefix if shown is None else shown
    return [f"| {offsets[prefix + n][0]} | {k} | `{shown}{n}` | {d} |" for n, k, d in pieces]


def describe_vector(vector: np.ndarray, offsets: dict[str, tuple[int, int]], nonzero_only: bool = True) -> str:
    """A debug string of a vector, one line per piece, named as in the layout table."""
    lines = []
    for name, (start, size) in offsets.items():
        part = vector[start:start + size]
        if nonzero_only and not part.any():
            continue
        if size == 1:
            lines.append(f"{name}: {part[0]:.3g}")
        else:
            nz = {int(i): round(float(part[i]), 3) for i in np.flatnonzero(part)}
            lines.append(f"{name}: {nz}")
    return "\n".join(lines)


__all__ = ["Piece", "offsets_of", "table_rows", "describe_vector"]
