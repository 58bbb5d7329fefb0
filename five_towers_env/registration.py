"""Registration of the environment ids with PettingZoo and Gymnasium, without importing either.

``import five_towers_env`` must stay light enough that ``five_towers_env.games.five_towers`` loads with no
gymnasium, pettingzoo or torch in ``sys.modules``. So the ids are registered the moment each
framework is (or already was) imported: a finder on ``sys.meta_path`` watches for the module and
runs the registration right after the module's own code has run.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

PETTINGZOO_ID = "five_towers_env/FiveTowers-v0"
CAMPANILE_PETTINGZOO_ID = "five_towers_env/Campanile-v0"
GYMNASIUM_ID = "five_towers_env/FiveTowers-v0"
#: the single-agent Campanile env; the same name as the PettingZoo id, in Gymnasium's separate registry
CAMPANILE_GYMNASIUM_ID = "five_towers_env/Campanile-v0"
SINGLE_AGENT_ENTRY_POINT = "five_towers_env.wrappers.single_agent:SingleAgentGymEnv"


def _pettingzoo_ids(spec: Any) -> None:
    """Register ``spec``'s wrapped AEC env as ``pettingzoo.make("aec", spec.pettingzoo_id)`` (idempotent)."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is None or registry is None or not spec.pettingzoo_id:  # PettingZoo before its registry
        return
    if spec.pettingzoo_id not in registry:
        register("aec", spec.pettingzoo_id, entry_point=spec.env)


def _gymnasium_ids(spec: Any) -> None:
    """Register ``spec``'s single-agent env as ``gymnasium.make(spec.gymnasium_id)`` (idempotent)."""
    import gymnasium

    if spec.gymnasium_id and spec.gymnasium_id not in gymnasium.registry:
        gymnasium.register(id=spec.gymnasium_id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"game": spec.name})


def register_pettingzoo() -> None:
    """Register every game's PettingZoo id (5 Towers: :data:`PETTINGZOO_ID`) (idempotent)."""
    from five_towers_env.core.game import GAMES

    for spec in GAMES.values():
        _pettingzoo_ids(spec)


def register_gymnasium() -> None:
    """Register every game's Gymnasium id (5 Towers: :data:`GYMNASIUM_ID`) (idempotent)."""
    from five_towers_env.core.game import GAMES

    for spec in GAMES.values():
        _gymnasium_ids(spec)


def register_ids(spec: Any) -> None:
    """Register one game's ids with the frameworks already imported (a game registered late)."""
    if sys.modules.get("pettingzoo") is not None:
        _pettingzoo_ids(spec)
    if sys.modules.get("gymnasium") is not None:
        _gymnasium_ids(spec)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``callback`` once, right after the top-level module ``name`` finishes importing."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the other finders, this one removed
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module, callback = spec.loader.exec_module, self.callback

        def exec_then_register(module: ModuleType) -> None:
            exec_module(module)
            callback()

        spec.loader.exec_module = exec_then_register  # type: ignore[method-assign]  # this spec's loader only
        return spec


def when_imported(name: str, callback: Callable[[], None]) -> None:
    """Call ``callback`` now if module ``name`` is loaded, else right after it first loads."""
    if sys.modules.get(name) is not None:  # None marks a module blocked from import
        callback()
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, callback))


def install() -> None:
    """Arrange both registrations (called by ``import five_towers_env``)."""
    when_imported("pettingzoo", register_pettingzoo)
    when_imported("gymnasium", register_gymnasium)
