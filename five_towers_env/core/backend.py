"""Which engine runs the rules: the native (C++) core where it was built, else the Python reference.

One switch for the whole package: ``FIVE_TOWERS_ENGINE=python`` or ``FIVE_TOWERS_ENGINE=native`` forces
one; unset, the native core is used wherever it was built. :func:`engine_backend` says which is active.
Asking for ``native`` where it was not built is an error that says why; falling back to Python without
being asked prints one line, once per process, saying the native core is missing and how to get it.
A game without a native core (``GameSpec.native_engine`` empty) runs on Python whatever the switch says.
"""
from __future__ import annotations

import os
import sys

from five_towers_env.core.builtin_games import BUILTIN_GAMES
from five_towers_env.core.native import import_error, load_extension

ENV_VAR = "FIVE_TOWERS_ENGINE"
BACKENDS = ("native", "python")
HOW_TO_BUILD = ("reinstall with a C++17 compiler on the PATH (pip install -e . builds it; "
                "docs/architecture.md, 'The native core')")

_warned = False


class NativeUnavailableError(RuntimeError):
    """``FIVE_TOWERS_ENGINE=native`` where the native core was not built."""


def requested_backend() -> str | None:
    """The backend ``FIVE_TOWERS_ENGINE`` forces (None when unset); ``ValueError`` for another value."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    if not value:
        return None
    if value not in BACKENDS:
        raise ValueError(f"{ENV_VAR} must be 'native' or 'python', got {os.environ[ENV_VAR]!r}")
    return value


def native_modules() -> tuple[str, ...]:
    """The compiled modules of the built-in games' native cores (:data:`BUILTIN_GAMES`)."""
    return tuple(game.native_module for game in BUILTIN_GAMES.values() if game.native_module)


def native_built(modules: tuple[str, ...] | None = None) -> tuple[bool, str]:
    """Whether every built-in game's native module (or each of ``modules``) imports, and if not, why."""
    for module in native_modules() if modules is None else modules:
        if load_extension(module) is None:
            return False, f"{module} did not import ({import_error(module)})"
    return True, ""


def engine_backend(module: str | None = None) -> str:
    """``"native"`` or ``"python"``: the engine new states are made with now (of the game whose native module
    is ``module``, which alone is imported; default: every built-in game's)."""
    global _warned
    wanted = requested_backend()
    if wanted == "python":
        return "python"
    built, why = native_built(None if module is None else (module,))
    if built:
        return "native"
    if wanted == "native":
        raise NativeUnavailableError(f"{ENV_VAR}=native, but the native core is not built: {why}; {HOW_TO_BUILD}")
    if not _warned:
        _warned = True
        print(f"five_towers_env: the native core is missing, running the Python engines ({why}); to get it, "
              f"{HOW_TO_BUILD}; set {ENV_VAR}=python to silence this", file=sys.stderr)
    return "python"


__all__ = ["ENV_VAR", "BACKENDS", "native_modules", "NativeUnavailableError", "engine_backend", "native_built",
           "requested_backend"]
