"""Registration of the environment ids with PettingZoo and Gymnasium, without importing either, or any game.

``import five_towers_env`` must stay light enough that ``five_towers_env.games.five_towers`` loads with no
gymnasium, pettingzoo or torch in ``sys.modules``. So the ids are registered the moment each
framework is (or already was) imported: a finder on ``sys.meta_path`` watches for the module and
runs the registration right after the module's own code has run.

The ids come from the built-in games' table (:data:`five_towers_env.core.game.BUILTIN_GAMES`) and the
specs registered so far, with ``"module:attribute"`` entry points that both frameworks import only
when an id is made: registering imports no game's rules. A game registered later (a plugin imported
after the frameworks) has its ids registered by :func:`register_ids`, which :func:`install` subscribes
to the registry (:func:`~five_towers_env.core.game.on_register`); this module imports the registry,
never the other way round.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable, Iterator, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, NamedTuple

from five_towers_env.core import game as registry

SINGLE_AGENT_ENTRY_POINT = "five_towers_env.wrappers.single_agent:SingleAgentGymEnv"
#: ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``: the batched native one
#: (a game without a native core says so when it is made)
VECTOR_ENTRY_POINT = "five_towers_env.wrappers.gym_vector:make_vector"


class Ids(NamedTuple):
    """One game's ids and the PettingZoo entry point of its wrapped AEC env."""

    name: str
    env: str
    pettingzoo_id: str
    gymnasium_id: str


def _ids_of(spec: Any) -> Ids:
    return Ids(spec.name, spec.env, spec.pettingzoo_id, spec.gymnasium_id)


def known_ids() -> Iterator[Ids]:
    """The ids of the built-in games (from their table: no game imported) and of every other game registered."""
    for name, builtin in registry.BUILTIN_GAMES.items():
        yield Ids(name, builtin.env, builtin.pettingzoo_id, builtin.gymnasium_id)
    for name, spec in list(registry._REGISTRY.items()):
        if name not in registry.BUILTIN_GAMES:
            yield _ids_of(spec)


def _pettingzoo_ids(ids: Ids) -> None:
    """Register the wrapped AEC env as ``pettingzoo.make("aec", ids.pettingzoo_id)`` (idempotent)."""
    import pettingzoo

    register = getattr(pettingzoo, "register", None)
    aec_registry = getattr(pettingzoo, "aec_registry", None)
    if register is None or aec_registry is None or not ids.pettingzoo_id:  # PettingZoo before its registry
        return
    if ids.pettingzoo_id not in aec_registry:
        register("aec", ids.pettingzoo_id, entry_point=ids.env)


def _gymnasium_ids(ids: Ids) -> None:
    """Register the single-agent env as ``gymnasium.make(ids.gymnasium_id)`` (idempotent)."""
    import gymnasium

    if ids.gymnasium_id and ids.gymnasium_id not in gymnasium.registry:
        if _takes_vector_entry_point(gymnasium):
            gymnasium.register(id=ids.gymnasium_id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"game": ids.name},
                               vector_entry_point=VECTOR_ENTRY_POINT)
        else:  # Gymnasium before 1.0: no vector entry points
            gymnasium.register(id=ids.gymnasium_id, entry_point=SINGLE_AGENT_ENTRY_POINT, kwargs={"game": ids.name})


def _takes_vector_entry_point(gymnasium: Any) -> bool:
    """Whether this Gymnasium has ``make_vec`` with vector entry points (1.0 and newer)."""
    return hasattr(gymnasium, "make_vec") and hasattr(getattr(gymnasium, "vector", None), "AutoresetMode")


def register_pettingzoo() -> None:
    """Register every known game's PettingZoo id (idempotent)."""
    for ids in known_ids():
        _pettingzoo_ids(ids)


def register_gymnasium() -> None:
    """Register every known game's Gymnasium id (idempotent)."""
    for ids in known_ids():
        _gymnasium_ids(ids)


def register_ids(spec: Any) -> None:
    """Register one game's ids with the frameworks already imported (a game registered late)."""
    if sys.modules.get("pettingzoo") is not None:
        _pettingzoo_ids(_ids_of(spec))
    if sys.modules.get("gymnasium") is not None:
        _gymnasium_ids(_ids_of(spec))


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
    """Arrange both registrations, and those of games registered later (called by ``import five_towers_env``)."""
    registry.on_register(register_ids)
    when_imported("pettingzoo", register_pettingzoo)
    when_imported("gymnasium", register_gymnasium)
