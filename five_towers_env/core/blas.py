"""numpy's BLAS thread count, set through the loaded library itself (ctypes; Linux, OpenBLAS or MKL).

Small matrix products (a network pass over a handful of positions) run fastest on one thread;
on a busy machine a multi-threaded BLAS can take milliseconds for them, its threads waiting for
each other. ``OPENBLAS_NUM_THREADS`` only works before numpy loads, so the count is set through
the library: for the whole process (:func:`one_blas_thread`, in worker processes) or for a block
(:func:`blas_threads`, around a search in any process).
"""
from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: (setter, getter) names of the BLAS libraries numpy may load (OpenBLAS under its names, MKL)
_BLAS_FUNCTIONS = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
                   ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
                   ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
                   ("openblas_set_num_threads", "openblas_get_num_threads"),
                   ("MKL_Set_Num_Threads", "MKL_Get_Max_Threads"))

_controls: list[tuple[Any, Any]] | None = None  # (setter, getter) of every loaded BLAS library


def _blas_controls() -> list[tuple[Any, Any]]:
    """The thread setters and getters of the BLAS libraries loaded in this process (found once)."""
    global _controls
    if _controls is None:
        _controls = []
        try:
            with open("/proc/self/maps") as maps:
                paths = {line.split()[-1] for line in maps if "blas" in line.lower() or "mkl" in line.lower()}
        except OSError:  # not Linux: leave the library as it is
            paths = set()
        for path in sorted(paths):
            try:
                library = ctypes.CDLL(path)
            except OSError:
                continue
            for set_name, get_name in _BLAS_FUNCTIONS:
                setter, getter = getattr(library, set_name, None), getattr(library, get_name, None)
                if setter is not None and getter is not None:
                    _controls.append((setter, getter))
                    break
    return _controls


def one_blas_thread() -> bool:
    """Make numpy's BLAS use one thread in this process; True if a loaded BLAS library took it."""
    controls = _blas_controls()
    for setter, _ in controls:
        setter(1)
    return bool(controls)


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Run the block with numpy's BLAS on ``n`` threads, then restore the counts it had."""
    controls = _blas_controls()
    before = [getter() for _, getter in controls]
    for setter, _ in controls:
        setter(n)
    try:
        yield
    finally:
        for (setter, _), count in zip(controls, before):
            setter(count)


__all__ = ["one_blas_thread", "blas_threads"]
