"""What the MCTS timing scripts share: the machine line of their reports and writing them as JSON."""
from __future__ import annotations

import importlib.util
import platform
import sys
from pathlib import Path
from types import ModuleType


def machine() -> str:
    """The processor and Python version, as the reports name the machine."""
    return f"{platform.processor() or platform.machine()}, python {platform.python_version()}"


def write_json(path: str | None, out: dict) -> None:
    """Write ``out`` to ``path`` as indented JSON with a final newline (nothing if ``path`` is None),
    whole or not at all."""
    if path:
        atomic().write_json(path, out, indent=2)
        write_provenance(path)


def write_provenance(path: str | None) -> None:
    """``provenance.json`` beside the result file ``path`` (``five_towers_env/provenance.py``: this command
    line, the commit, the machine); none where the package this script runs has no provenance module
    (another, older checkout on ``PYTHONPATH``)."""
    if not path:
        return
    try:
        from five_towers_env.provenance import write_provenance as write
    except ImportError:
        return
    write(Path(path).parent)


def atomic() -> ModuleType:
    """This checkout's ``five_towers_env/atomic.py`` (every file written whole or not at all), loaded
    by its path: a script may run with another checkout's package on ``PYTHONPATH``, one from before it."""
    name = "_benchmarks_atomic"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "five_towers_env"
                                                      / "atomic.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]
