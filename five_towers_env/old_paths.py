"""The import paths from before the game contract, kept working: each old module is the new one.

``import five_towers_env.engine.state`` (or ``.environment``, ``.campanile``, ``.gameui``, ...)
gives the module that now lives under :mod:`five_towers_env.core` or ``five_towers_env.games.<game>``,
the same object (so classes and ``isinstance`` agree), with a ``DeprecationWarning`` naming the new
path. :data:`MOVED` is the whole map; :func:`install` (run by ``import five_towers_env``) puts the
finder in place.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

#: old module -> new module; a prefix maps its submodules too (the longest prefix wins)
MOVED = {
    "five_towers_env.engine": "five_towers_env.games.five_towers",
    "five_towers_env.environment.aec": "five_towers_env.games.five_towers.aec",
    "five_towers_env.environment": "five_towers_env.games.five_towers",
    "five_towers_env.agents.greedy": "five_towers_env.games.five_towers.agents.greedy",
    "five_towers_env.agents.heuristic": "five_towers_env.games.five_towers.agents.heuristic",
    "five_towers_env.agents.mcts": "five_towers_env.games.five_towers.agents.mcts",
    "five_towers_env.agents.typed_layout": "five_towers_env.games.five_towers.typed_layout",
    "five_towers_env.campanile.aec": "five_towers_env.games.campanile.aec",
    "five_towers_env.campanile": "five_towers_env.games.campanile",
    "five_towers_env.gameui": "five_towers_env.core.gameui",
    "five_towers_env.aec_common": "five_towers_env.core.env",
    "five_towers_env.codec": "five_towers_env.core.codec",
    "five_towers_env.layout": "five_towers_env.core.layout",
    "five_towers_env.position_checks": "five_towers_env.core.position_checks",
}


def new_name(old: str) -> str | None:
    """Where module ``old`` lives now, or None if it did not move."""
    for prefix in sorted(MOVED, key=len, reverse=True):
        if old == prefix or old.startswith(prefix + "."):
            return MOVED[prefix] + old[len(prefix):]
    return None


class _Alias(importlib.abc.Loader):
    """Loads an old name as the new module object itself."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module is already loaded."""


class _OldPaths(importlib.abc.MetaPathFinder):
    """Finds the old module names of :data:`MOVED`."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = new_name(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}; the old path will go in a later release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        spec = importlib.machinery.ModuleSpec(fullname, _Alias(module), is_package=hasattr(module, "__path__"))
        return spec


def install() -> None:
    """Put the old-path finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())


__all__ = ["MOVED", "install", "new_name"]
