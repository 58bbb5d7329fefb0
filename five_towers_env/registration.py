"""Registration of the environment ids with PettingZoo and Gymnasium, without importing either.

``import five_towers_env`` must stay light enough that ``five_towers_env.engine`` loads with no
gymnasium, pettingzoo or torch in ``sys.modules``. So the ids are registered the moment each
framework is (or already was) imported: a finder on ``sys.meta_path`` watches for the module and
runs the registration right after the module's own code has run.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from typing import Callable

PETTINGZOO_ID = "five_towers_env/FiveTowers-v0"
CAMPANILE_PETTINGZOO_ID = "five_towers_env/Campanile-v0"
GYMNASIUM_ID = "five_towers_env/FiveTowers-v0"
#: the single-agent Campanile env; the same name as the PettingZoo id, in Gymnasium's separate registry
CAMPANILE_GYMNASIUM_ID = "five_towers_env/Campanile-v0"


def register_pettingzoo() -> None:
    """Register ``raw_env``'s wrapped form as ``pettingzoo.make("aec", PETTINGZOO_ID)``, and Campanile's
    as ``pettingzoo.make("aec", CAMPANILE_PETTINGZOO_ID)`` (idempotent)."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    registry = getattr(pettingzoo, "aec_registry", None)
    if register is None or registry is None:  # PettingZoo releases before its registry
        return
    if PETTINGZOO_ID not in registry:
        register("aec", PETTINGZOO_ID, entry_point="five_towers_env.environment.aec:env")
    if CAMPANILE_PETTINGZOO_ID not in registry:  # the second game (five_towers_env.campanile)
        register("aec", CAMPANILE_PETTINGZOO_ID, entry_point="five_towers_env.campanile.aec:env")


def register_gymnasium() -> None:
    """Register the single-agent envs as ``gymnasium.make(GYMNASIUM_ID)`` (5 Towers) and
    ``gymnasium.make(CAMPANILE_GYMNASIUM_ID)`` (Campanile) (idempotent)."""
    import gymnasium

    if GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=GYMNASIUM_ID, entry_point="five_towers_env.wrappers.single_agent:FiveTowersGymEnv")
    if CAMPANILE_GYMNASIUM_ID not in gymnasium.registry:
        gymnasium.register(id=CAMPANILE_GYMNASIUM_ID,
                           entry_point="five_towers_env.wrappers.single_agent:CampanileGymEnv")


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``callback`` once, right after the top-level module ``name`` finishes importing."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path, target=None):  # noqa: D102 - importlib protocol
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the other finders, this one removed
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module, callback = spec.loader.exec_module, self.callback

        def exec_then_register(module):
            exec_module(module)
            callback()

        spec.loader.exec_module = exec_then_register
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
