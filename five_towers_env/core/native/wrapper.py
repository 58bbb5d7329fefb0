"""A native engine state behind the :class:`~five_towers_env.core.state.State` protocol.

:class:`NativeState` wraps one game's compiled state (its ``_native.State``): the hot calls
(``legal_actions``, ``apply_action``, ``is_terminal``, ``scores``, ``observe``, ``mask``) go straight to C++.
Everything else a caller may read of the reference engine's state (``towers``, ``display``, ``heights``,
``bettable_towers()``, ...) is read from a Python copy made on first use after each move
(:meth:`NativeState.to_python`), so renderers, positions and agents written against the Python engine
keep working unchanged. ``public_view`` and ``determinize`` hand agents Python states of the reference
engine, equal to what the Python backend hands them (the identity tests check the C++ versions too).

A game subclasses it with its codec, its conversions and how it coerces an action (each game's Python
engine has its own rule for a non-integer action, and the native one raises the same errors).
"""
from __future__ import annotations

from typing import Any, ClassVar, TypeVar

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.native import generator_from_words, set_generator_words, words_of_generator
from five_towers_env.core.state import ScoredState

#: methods of a reference state that change it in place: a native state refuses them (they would change
#: only the Python copy); everything else public is read from the copy
_MUTATORS = frozenset({"apply_unchecked"})
_S = TypeVar("_S", bound="NativeState")


class NativeState(ScoredState):
    """A game state whose rules run in C++ (see the module docstring).

    Attributes:
        core: the compiled state (``legal_actions``, ``apply_action`` -> bool, ``observe``, ``fields``, ...).
    """

    #: the game's action codec (``NUM_ACTIONS``, ``action_name``)
    codec: ClassVar[Any]
    backend = "native"

    @staticmethod
    def core_to_python(core: Any) -> Any:
        """The reference state equal to a compiled one (the game's ``native_state.to_python``)."""
        raise NotImplementedError

    @staticmethod
    def core_from_python(state: Any) -> Any:
        """The compiled state equal to a reference one (the game's ``native_state.from_python``)."""
        raise NotImplementedError

    def __init__(self, core: Any, rng: np.random.Generator | None = None) -> None:
        self.core = core
        self.num_players = core.num_players
        self._rng = rng  # the Python generator linked to this state, kept in step with the core's
        self._draws = core.rng_draws()
        self._mirror: Any = None

    # -- the hot path: straight to C++ ----------------------------------------------------

    @property
    def current_player(self) -> int:
        """The seat on move (the reference engine's value, also after the end)."""
        return self.core.current_player

    @property
    def phase(self) -> int:
        """The reference engine's phase number."""
        return self.core.phase

    @property
    def phase_name(self) -> str:
        """Name of the decision the game waits for (``game_over`` at the end)."""
        return self.core.phase_name

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the seat on move (empty once the game is over)."""
        return self.core.legal_actions()

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.core.is_terminal()

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        return self.core.scores()

    def coerce_action(self, action: Any) -> int:
        """``action`` as an int, as the game's reference engine converts it (its errors for other types)."""
        return int(action)

    def apply_action(self, action: Any) -> None:
        """Apply one legal action; ``IllegalActionError`` (nothing changed) for any other, as the reference engine."""
        a = self.coerce_action(action)
        if not 0 <= a < self.codec.NUM_ACTIONS or not self.core.apply_action(a):
            raise IllegalActionError(self.illegal_message(a))
        self._mirror = None
        if self._rng is not None:
            draws = self.core.rng_draws()
            if draws != self._draws:  # the core drew (a reshuffle): the linked generator moves with it
                self._draws = draws
                set_generator_words(self._rng, self.core.rng_words())

    def observe(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s flat float32 observation (written into ``out`` if given)."""
        return self.core.observe(seat, out)

    def mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """The int8 mask of the legal actions (zeros once the game is over)."""
        return self.core.mask(out)

    # -- the rest: the reference engine's answers ------------------------------------------

    @property
    def rng(self) -> np.random.Generator:
        """The generator this state draws from (a numpy generator kept equal to the core's)."""
        if self._rng is None:
            self._rng = generator_from_words(self.core.rng_words())
            self._draws = self.core.rng_draws()
        return self._rng

    def to_python(self) -> Any:
        """An independent state of the reference (Python) engine, equal to this one."""
        return type(self).core_to_python(self.core)

    def _reference(self) -> Any:
        if self._mirror is None:
            self._mirror = type(self).core_to_python(self.core)
        return self._mirror

    def __getattr__(self, name: str) -> Any:
        # only for names this class does not define: the reference engine's public attributes
        if name.startswith("_") or name in ("core", "num_players"):
            raise AttributeError(name)
        if name in _MUTATORS:
            raise AttributeError(f"{name} changes a state in place, which a native state does not allow: "
                                 "use apply_action, or to_python() for a reference state")
        return getattr(self._reference(), name)

    def illegal_message(self, action: int) -> str:
        """The reference engine's message naming an illegal action and the legal ones."""
        return self._reference().illegal_message(action)

    def clone(self, rng: np.random.Generator | None = None) -> NativeState:
        """An independent copy (its own generator, equal to this one's, unless ``rng`` is given)."""
        core = self.core.clone()
        if rng is not None:
            core.set_rng_words(words_of_generator(rng))
        return type(self)(core, rng)

    def public_view(self, seat: int, rng: np.random.Generator | None = None) -> Any:
        """The reference engine's public view for ``seat`` (what agents are shown)."""
        return self._reference().public_view(seat, rng) if rng is not None else self._reference().public_view(seat)

    def determinize(self, observer: int, rng: np.random.Generator) -> Any:
        """The reference engine's determinisation for ``observer`` drawn with ``rng``."""
        return self._reference().determinize(observer, rng)

    @classmethod
    def from_python(cls: type[_S], state: Any) -> _S:
        """The native state equal to a reference state (sharing its generator, which stays in step)."""
        return cls(cls.core_from_python(state), getattr(state, "rng", None))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # pickled as the reference state it equals, turned native again on load
        return (type(self).from_python, (self.to_python(),))

    def __repr__(self) -> str:
        return f"native {self._reference()!r}"


__all__ = ["NativeState"]
