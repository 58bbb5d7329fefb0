"""Where a result came from: ``provenance.json`` beside every command's result files.

Every command that writes result files (``five-towers evaluate / tournament / zoo --out``, ``train``
and ``expert`` into their run folder, ``replay --html / --svg``, the scripts in ``benchmarks/`` and
``training/checkpoint_curve.py``) writes ``provenance.json`` into the folder it wrote, through
:func:`write_provenance`:

    {"command": "five-towers evaluate --agents mcts heuristic --games 200 --out runs/eval",
     "version": "1.0.0", "commit": "bd8405a...", "dirty": false,
     "started": "2026-11-26T09:14:03+00:00", "wall_s": 81.4, "written": "2026-11-26T09:15:24+00:00",
     "machine": {"platform": ..., "cpu": ..., "simd": ["avx2", "avx512f", "fma", ...], "cores": 16, ...},
     "libraries": {"python": "3.11.7", "numpy": "2.4.6", "torch": "2.13.0+cpu", ...},
     "environment": {"ATEN_CPU_CAPABILITY": null, "MKL_CBWR": null, ...}}

``command`` is the command line as a user types it (``five-towers ...`` for the console script and
``python -m five_towers_env.cli``, ``python benchmarks/bench.py ...`` for a script); ``commit`` the
git commit of the package's checkout and ``dirty`` whether it had uncommitted changes outside the
folder written (both ``null`` when the package is not a git checkout or git is missing);
``environment`` the variables that decide the floating-point kernels (:mod:`five_towers_env.numerics`),
``null`` where unset. A training run folder written by several invocations (``train --resume``,
``expert --resume``) keeps the earlier ones under ``earlier``. ``reconstructed: true`` marks a file
written afterwards, from git history, for a result older than provenance files
(``tools/archive/reconstruct_provenance.py``).
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from five_towers_env.atomic import write_json

FILENAME = "provenance.json"
#: the package's source folder: its git checkout is the code a result came from
PACKAGE_DIR = Path(__file__).resolve().parent
#: the environment variables that decide the floating-point kernels (and thread counts) of a run
NUMERICS_ENV = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "ONEDNN_MAX_CPU_ISA", "OPENBLAS_CORETYPE",
                "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "FIVE_TOWERS_NUMERICS")
#: the distributions whose versions are recorded when installed (Python's own is always)
LIBRARIES = ("numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib")
#: the SIMD flags of /proc/cpuinfo worth knowing (kernels choose their code path by them)
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512dq", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "asimd", "sve")
#: what an earlier invocation of a run keeps under ``earlier``
EARLIER_KEYS = ("command", "started", "wall_s", "version", "commit", "dirty")
GIT_TIMEOUT_S = 10


# -- the command line --------------------------------------------------------------------------

def _program(arg0: str) -> list[str]:
    """How a user types the program ``sys.argv[0]`` names."""
    name = os.path.basename(arg0)
    if name in ("five-towers", "five-towers.exe", "five-towers-script.py"):
        return ["five-towers"]
    if arg0 in ("", "-c"):
        return ["python", arg0] if arg0 else ["python"]
    path = Path(arg0)
    if path.suffix != ".py":
        return [arg0]
    resolved = path.resolve()
    if resolved in (PACKAGE_DIR / "cli" / "__main__.py", PACKAGE_DIR / "__main__.py"):  # python -m five_towers_env.cli
        return ["five-towers"]
    if resolved.is_relative_to(PACKAGE_DIR):  # python -m five_towers_env.<module>
        parts = resolved.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        return ["python", "-m", ".".join(parts[:-1] if parts[-1] == "__main__" else parts)]
    if path.is_absolute() and resolved.is_relative_to(Path.cwd().resolve()):
        arg0 = str(resolved.relative_to(Path.cwd().resolve()))
    return ["python", arg0]


def command_line(argv: list[str] | None = None) -> str:
    """The command line of ``argv`` (default ``sys.argv``) as a user types it, quoted for a POSIX shell:
    ``five-towers evaluate --agents ...`` for the console script or ``python -m five_towers_env.cli``,
    ``python benchmarks/bench.py ...`` for a script."""
    argv = list(sys.argv if argv is None else argv)
    if not argv:
        return ""
    return shlex.join([*_program(argv[0]), *argv[1:]])


# -- the code, the machine and the libraries ------------------------------------------------------

def _git(args: list[str], cwd: Path) -> str | None:
    """``git -C cwd *args``'s output, or None when git is missing, fails or hangs."""
    try:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(source: Path | None = None, exclude: Path | None = None) -> tuple[str | None, bool | None]:
    """The commit of the git checkout holding ``source`` (default: this package) and whether it has
    uncommitted changes (anything ``git status`` lists, outside ``exclude`` and other runs'
    ``provenance.json`` records, which describe runs rather than make them); ``(None, None)`` when
    ``source`` is not tracked in a git checkout or git is missing."""
    source = Path(source or PACKAGE_DIR)
    if not source.is_dir():
        return None, None
    # the package must be tracked there: an installed copy inside some other checkout is not its code
    top = _git(["rev-parse", "--show-toplevel"], source)
    if top is None or _git(["ls-files", "--error-unmatch", "--", "."], source) is None:
        return None, None
    commit = _git(["rev-parse", "HEAD"], source)
    if commit is None:
        return None, None
    spec = ["--", ".", f":(exclude,glob)**/{FILENAME}"]
    if exclude is not None:
        try:
            inside = Path(exclude).resolve().relative_to(Path(top.strip()).resolve())
        except ValueError:
            inside = None
        if inside is not None and inside.parts:  # the folder written (not the whole checkout) is left out
            spec.append(f":(exclude){inside.as_posix()}")
    status = _git(["status", "--porcelain", *spec], Path(top.strip()))
    return commit.strip(), (None if status is None else bool(status.strip()))


def _cpuinfo() -> dict[str, str]:
    """The first processor's entries of /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return {}
    info: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if info:
                break
            continue
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    return info


def machine() -> dict[str, Any]:
    """The platform, the CPU (model and SIMD flags) and its cores."""
    info = _cpuinfo()
    flags = set((info.get("flags") or info.get("Features") or "").split())
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = None
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": info.get("model name") or info.get("Model") or platform.processor() or None,
        "simd": [f for f in SIMD_FLAGS if f in flags] if flags else None,
        "cores": os.cpu_count(),
        "usable_cores": usable,
    }


def libraries() -> dict[str, str | None]:
    """Python's version and each of :data:`LIBRARIES`' (None where not installed); torch's with the
    CPU capability its kernels use when torch is already imported (nothing is imported here)."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            found["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
        except Exception:  # an older torch
            pass
    return found


def numerics_environment() -> dict[str, str | None]:
    """The variables of :data:`NUMERICS_ENV` as found in ``os.environ`` (None where unset)."""
    return {key: os.environ.get(key) for key in NUMERICS_ENV}


def package_version() -> str | None:
    try:
        from five_towers_env import __version__

        return str(__version__)
    except ImportError:  # pragma: no cover - the package is always importable here
        try:
            return importlib.metadata.version("five_towers_env")
        except importlib.metadata.PackageNotFoundError:
            return None


# -- the file ------------------------------------------------------------------------------------

def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def process_start() -> float | None:
    """When this process started (a ``time.time()`` value), where Linux's /proc says; else None."""
    try:
        stat = Path("/proc/self/stat").read_text()
        ticks = int(stat.rpartition(")")[2].split()[19])  # field 22, counted after the command name
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def read_provenance(folder: str | Path) -> dict[str, Any] | None:
    """``folder/provenance.json``, or None where there is none (or it cannot be read)."""
    try:
        data = json.loads((Path(folder) / FILENAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_provenance(folder: str | Path, command: str | None = None, started: float | None = None,
                     extra: dict[str, Any] | None = None, keep_earlier: bool = False) -> Path:
    """Write ``folder/provenance.json`` (atomically) and return its path.

    ``command``: the command line (default :func:`command_line`); ``started``: when the command started,
    a ``time.time()`` value (default: this process's start), for ``started`` and ``wall_s``; ``extra``:
    anything more, under ``extra``. Writing again in the same invocation (same ``started``) updates the
    wall time and keeps the code state first recorded. ``keep_earlier`` (a training run folder, which
    later invocations continue): the file of an earlier invocation moves into ``earlier``, a list in
    invocation order; without it, an earlier invocation's file is replaced."""
    folder = Path(folder)
    now = time.time()
    if started is None:
        started = process_start()
    data: dict[str, Any] = {
        "command": command_line() if command is None else command,
        "started": None if started is None else _iso(started),
        "wall_s": None if started is None else round(now - started, 1),
        "written": _iso(now),
    }
    previous = read_provenance(folder)
    same = previous is not None and data["started"] is not None and previous.get("started") == data["started"] \
        and previous.get("command") == data["command"]
    if same and previous is not None:  # this invocation wrote it before: the code it started with
        data.update({k: previous.get(k) for k in ("version", "commit", "dirty")})
    else:
        commit, dirty = git_state(exclude=folder)
        data.update(version=package_version(), commit=commit, dirty=dirty)
    data.update(machine=machine(), libraries=libraries(), environment=numerics_environment())
    if extra:
        data["extra"] = extra
    if keep_earlier and previous is not None:
        earlier = list(previous.get("earlier") or [])
        if not same:
            earlier.append({k: previous.get(k) for k in EARLIER_KEYS})
        if earlier:
            data["earlier"] = earlier
    return write_json(folder / FILENAME, dict(sorted(data.items())), indent=2)
