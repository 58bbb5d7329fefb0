"""Campanile on the native core: the state type the active backend hands out (``SPEC.native_engine``).

The rules run in C++ (``native/``, built into ``_native``); this module binds them to the package's
``State`` protocol (:class:`~five_towers_env.core.native.wrapper.NativeState`) with this game's codec and
conversions (:mod:`~five_towers_env.games.campanile.native_state`). Importing it raises ``ImportError``
when the native core was not built.
"""
from __future__ import annotations

import importlib
import operator
from typing import Any, ClassVar

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.native import set_generator_words, words_of_generator
from five_towers_env.core.native.wrapper import NativeState
from five_towers_env.games.campanile import actions, native_state
from five_towers_env.games.campanile.state import check_setup

#: the compiled core (ImportError here when it was not built)
core_module = importlib.import_module(f"{__package__}._native")


class CampanileNative(NativeState):
    """A Campanile game on the native core (the reference engine's ``CampanileState``, in C++)."""

    def coerce_action(self, action: Any) -> int:
        """An int id, as ``CampanileState.apply_action`` takes it (``IllegalActionError`` for other types)."""
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            return operator.index(action)
        except TypeError:
            raise IllegalActionError(f"illegal action {action!r}: actions are integer ids "
                                     f"0..{actions.NUM_ACTIONS - 1}") from None

    codec: ClassVar[Any] = actions
    @staticmethod
    def core_to_python(core: Any) -> Any:
        """The reference state equal to a compiled one."""
        return native_state.to_python(core)

    @staticmethod
    def core_from_python(state: Any) -> Any:
        """The compiled state equal to a reference one (``ValueError`` if it cannot be one)."""
        return native_state.from_python(state)


def new_core(num_players: int = 2, variant: str = "pile", rng: np.random.Generator | None = None,
             bet_chip: str = "at_least") -> Any:
    """The compiled state of a new game dealt with ``rng`` (advanced as ``CampanileState.new_game`` advances it)."""
    check_setup(num_players, variant, bet_chip)
    rng = rng if rng is not None else np.random.default_rng()
    core = core_module.new_game(int(num_players), variant, bet_chip, words_of_generator(rng))
    set_generator_words(rng, core.rng_words())  # the deal drew from the caller's generator
    return core


def new_game(num_players: int = 2, variant: str = "pile", rng: np.random.Generator | None = None,
             bet_chip: str = "at_least") -> CampanileNative:
    """``CampanileState.new_game`` on the native core: the same deal from the same generator, which the state keeps."""
    rng = rng if rng is not None else np.random.default_rng()
    return CampanileNative(new_core(num_players, variant, rng, bet_chip), rng)


def wrap_core(core: Any) -> CampanileNative:
    """A compiled state behind the State protocol."""
    return CampanileNative(core)


def from_python(state: Any) -> CampanileNative:
    """The native state equal to a reference ``CampanileState`` (sharing its generator)."""
    return CampanileNative.from_python(state)


__all__ = ["CampanileNative", "core_module", "new_core", "new_game", "wrap_core", "from_python"]
