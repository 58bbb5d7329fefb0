"""Portable numerics: the same floating-point results on any x86-64 CPU with AVX2 and FMA.

torch, MKL, oneDNN, OpenBLAS and numpy each pick their kernels by the CPU they find, and kernels
of different instruction sets round differently, so a training run on an AVX-512 CPU and the same
run on an AVX2-only CPU drift apart from the first update. Portable numerics caps every one of
those choices at the AVX2 level, which every such CPU has:

=========================  ===========================  ==========================================
library                    environment variable          portable value
=========================  ===========================  ==========================================
torch (ATen's kernels)     ``ATEN_CPU_CAPABILITY``       ``avx2``
MKL (torch's matmuls)      ``MKL_CBWR``                  ``AVX2`` (MKL's conditional bitwise
                                                         reproducibility, AVX2 code path)
oneDNN                     ``ONEDNN_MAX_CPU_ISA``        ``AVX2``
OpenBLAS (numpy's matmul)  ``OPENBLAS_CORETYPE``         ``Haswell``
OpenBLAS threads           ``OPENBLAS_NUM_THREADS``      ``1``
numpy's SIMD loops         ``NPY_DISABLE_CPU_FEATURES``  this numpy's AVX-512 targets
=========================  ===========================  ==========================================

The libraries read these once, when they load, so they cannot be set from inside a process that
has imported numpy: :func:`run_pinned` starts the command again with them set (``os.execve`` for
a command-line process; a child process for a call from Python), and worker processes inherit
them. Thread counts come from the run's config (``torch_threads``), never from the core count.
The torch and MKL values make an AVX-512 CPU compute the same kernel results as an AVX2 machine does by
default (checked by digests of each library's kernels on both kinds), so pinned runs on either kind agree.

Where the CPU lacks AVX2 or FMA (or is not x86-64), there is no AVX2 path to pin to: the run uses
the native kernels and :func:`portable_problem` says why.

numpy's BLAS thread count is set here too, through the loaded library itself (ctypes; Linux, OpenBLAS or
MKL). Small matrix products (a network pass over a handful of positions) run fastest on one thread; on a
busy machine a multi-threaded BLAS can take milliseconds for them, its threads waiting for each other.
``OPENBLAS_NUM_THREADS`` only works before numpy loads, so the count is set through the library: for the
whole process (:func:`one_blas_thread`, in worker processes) or for a block (:func:`blas_threads`, around
a search in any process).
"""
from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PORTABLE, NATIVE = "portable", "native"
MODES = (PORTABLE, NATIVE)
#: set in a pinned process, so that it is not started again
MARKER = "FIVE_TOWERS_NUMERICS"
#: what every pinned process sets, besides NPY_DISABLE_CPU_FEATURES (which depends on numpy's build)
FIXED = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "OPENBLAS_NUM_THREADS": "1",
}
NUMPY_FEATURES = "NPY_DISABLE_CPU_FEATURES"


def cpu_flags() -> set[str]:
    """The CPU's feature flags as Linux lists them (empty where /proc/cpuinfo cannot be read)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def portable_problem() -> str | None:
    """Why this machine cannot run portable numerics, or ``None`` when it can."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return f"portable numerics pins x86-64 kernels, and this CPU is {platform.machine()}"
    flags = cpu_flags()
    if not flags:
        return "the CPU's features cannot be read (/proc/cpuinfo), so the AVX2 kernels cannot be pinned safely"
    missing = [f for f in ("avx2", "fma") if f not in flags]
    if missing:
        return f"the CPU lacks {' and '.join(missing)}, which the pinned AVX2 kernels need"
    return None


def numpy_targets_above_avx2() -> list[str]:
    """This numpy's dispatch targets beyond AVX2 (AVX-512 and later), which portable numerics disables."""
    import importlib

    dispatch: list[str] = []
    found: dict[str, bool] = {}
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2, numpy 1
        try:
            umath = importlib.import_module(module)
        except ImportError:  # numpy 1 has no numpy._core; a numpy without runtime dispatch has nothing to disable
            continue
        dispatch, found = list(getattr(umath, "__cpu_dispatch__", [])), dict(getattr(umath, "__cpu_features__", {}))
        break
    # only targets this CPU has (numpy warns about the others), counting those a pinned process already
    # disabled, so that the pinned process computes the same list as the one that started it
    disabled = set(os.environ.get(NUMPY_FEATURES, "").split())
    return [name for name in dispatch if (name == "X86_V4" or name.startswith(("AVX512", "AVX10", "AMX")))
            and (found.get(name, False) or name in disabled)]


def portable_environment() -> dict[str, str]:
    """The environment variables of a pinned process (:data:`FIXED`, numpy's targets and :data:`MARKER`)."""
    env = dict(FIXED)
    env[NUMPY_FEATURES] = " ".join(numpy_targets_above_avx2())
    env[MARKER] = PORTABLE
    return env


def active() -> bool:
    """Whether this process was started with the portable settings (libraries loaded under them)."""
    return all(os.environ.get(key) == value for key, value in portable_environment().items())


def run_pinned(argv: Sequence[str] | None, module: str = "five_towers_env.cli") -> int:
    """Run this command again with portable numerics and return its exit status.

    ``argv is None`` (a command-line process): replace this process (``os.execve``, same process id,
    so signals and exit status are the command's own). Otherwise (a call from Python): run
    ``python -m module *argv`` as a child process with the pinned environment and wait for it."""
    env = {**os.environ, **portable_environment()}
    if argv is None:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    child = subprocess.Popen([sys.executable, "-m", module, *argv], env=env)
    try:
        return child.wait()
    except KeyboardInterrupt:  # Ctrl-C reached the child too: let it save its checkpoint
        return child.wait()


def description() -> dict[str, str]:
    """The settings that decide this process's floating-point kernels (for a run's provenance)."""
    keys = [*FIXED, NUMPY_FEATURES, MARKER]
    return {key: os.environ.get(key, "") for key in keys}


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
