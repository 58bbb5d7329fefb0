"""5 Towers on the native core: the state type the active backend hands out (``SPEC.native_engine``).

The rules run in C++ (``native/``, built into ``_native``); this module binds them to the package's
``State`` protocol (:class:`~five_towers_env.core.native.wrapper.NativeState`) with this game's codec and
conversions (:mod:`~five_towers_env.games.five_towers.native_state`). Importing it raises ``ImportError``
when the native core was not built.
"""
from __future__ import annotations

import importlib
from typing import Any, ClassVar

import numpy as np

from five_towers_env.core.native import set_generator_words, words_of_generator
from five_towers_env.core.native.wrapper import NativeState
from five_towers_env.games.five_towers import actions, native_state
from five_towers_env.games.five_towers.state import check_setup

#: the compiled core (ImportError here when it was not built)
core_module = importlib.import_module(f"{__package__}._native")


class FiveTowersNative(NativeState):
    """A 5 Towers game on the native core (the reference engine's ``GameState``, in C++)."""

    codec: ClassVar[Any] = actions
    @staticmethod
    def core_to_python(core: Any) -> Any:
        """The reference state equal to a compiled one."""
        return native_state.to_python(core)

    @staticmethod
    def core_from_python(state: Any) -> Any:
        """The compiled state equal to a reference one (``ValueError`` if it cannot be one)."""
        return native_state.from_python(state)


def new_core(num_players: int = 2, variant: str = "base", rng: np.random.Generator | None = None,
             start_player: int = 0) -> Any:
    """The compiled state of a new game dealt with ``rng`` (advanced as ``GameState.new_game`` advances it)."""
    check_setup(num_players, variant)
    if isinstance(start_player, bool) or not isinstance(start_player, (int, np.integer)) \
            or not 0 <= start_player < num_players:
        raise ValueError(f"start_player must be a seat 0..{num_players - 1}, got {start_player!r}")
    rng = rng if rng is not None else np.random.default_rng()
    core = core_module.new_game(int(num_players), variant, words_of_generator(rng), int(start_player))
    set_generator_words(rng, core.rng_words())  # the deal drew from the caller's generator
    return core


def new_game(num_players: int = 2, variant: str = "base", rng: np.random.Generator | None = None,
             start_player: int = 0) -> FiveTowersNative:
    """``GameState.new_game`` on the native core: the same deal from the same generator, which the state keeps."""
    rng = rng if rng is not None else np.random.default_rng()
    return FiveTowersNative(new_core(num_players, variant, rng, start_player), rng)


def wrap_core(core: Any) -> FiveTowersNative:
    """A compiled state behind the State protocol."""
    return FiveTowersNative(core)


def from_python(state: Any) -> FiveTowersNative:
    """The native state equal to a reference ``GameState`` (sharing its generator)."""
    return FiveTowersNative.from_python(state)


__all__ = ["FiveTowersNative", "core_module", "new_core", "new_game", "wrap_core", "from_python"]
