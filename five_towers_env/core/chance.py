"""Explicit chance: a game whose random events are states of their own (for OpenSpiel-style frameworks).

Our engines take their randomness from a generator handed in (the shuffle at setup, a reshuffle).
Frameworks built on game trees (OpenSpiel) want each random event as a *chance node* instead: a
state whose next "action" is an outcome drawn from listed probabilities, so that search samples it
and tree algorithms enumerate it. A game offers this with a ``chance.py`` holding a subclass of
:class:`ChanceState`, named by its spec (``GameSpec.chance``). The subclass drives the game's own
engine and decides only *which* random events become chance nodes and what each seat sees of them;
the rules stay in the engine.

Every step (a chance outcome or a player's action) is logged with the card each seat saw by it,
which gives the perfect-recall information state of each seat as text and, for games with hidden
information, as a tensor. A state built from an engine position (:meth:`ChanceState.from_engine`,
for bots that search from an agent's public view) logs from that position on.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.game import GameSpec

#: ``current_player()`` of a chance node and of a finished game (OpenSpiel's ``PlayerId`` values)
CHANCE = -1
TERMINAL = -4
#: ``seen`` entry of a seat that saw no card at a step
UNSEEN = -1


class ChanceState(ABC):
    """A game in progress with its random events as chance nodes, over the game's own engine.

    Subclasses set the class facts and implement the hooks (``_new``, ``_from_engine``, ``is_chance``,
    ``chance_outcomes``, ``_deal``, ``_act``, ``observation``, ``observation_text``, ``outcome_text``).

    Attributes:
        engine: the game's engine state (``None`` while a game's opening deal is under way).
        num_players, variant, settings: the setup (``settings``: the game's ``options``).
        steps: ``(player, action, seen)`` per step since the start (or since the engine position it was
            built from): ``player`` is a seat or :data:`CHANCE`, ``seen[s]`` the card seat ``s`` saw by
            that step (a chance outcome id) or :data:`UNSEEN`.
    """

    #: the game's spec: its action space, observation size and whether it has perfect information
    game_spec: ClassVar[GameSpec]
    #: the number of distinct chance outcomes (ids ``0 .. max_chance_outcomes - 1``)
    max_chance_outcomes: ClassVar[int]
    #: from the spec: whether every seat sees everything (only what chance draws next is hidden)
    perfect_information: ClassVar[bool]
    #: from the spec: the number of distinct player actions (the game's flat action space)
    num_actions: ClassVar[int]
    #: from the spec: the length of the game's flat observation vector
    observation_size: ClassVar[int]
    #: whether every seat sees each player's action as it is made (False: only the player itself does,
    #: as a bid made face down; what the table learns of it later is in the observations)
    public_actions: ClassVar[bool] = True
    #: the game's settings beyond players and variant: name -> allowed values, the default first
    options: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.game_spec
        cls.perfect_information, cls.num_actions, cls.observation_size = (
            spec.perfect_information, spec.num_actions, spec.observation_size)

    def __init__(self, engine: Any, num_players: int, variant: str, settings: Mapping[str, Any]) -> None:
        self.engine = engine
        self.num_players = int(num_players)
        self.variant = variant
        self.settings = dict(settings)
        self.steps: list[tuple[int, int, tuple[int, ...]]] = []
        self.origin: tuple[str, ...] | None = None  # each seat's observation text where a from_engine log starts

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def new(cls, num_players: int, variant: str, **options: Any) -> ChanceState:
        """A new game, before its first chance event."""
        return cls._new(int(num_players), variant, cls.check_options(options))

    @classmethod
    def from_engine(cls, engine: Any) -> ChanceState:
        """A state at ``engine``'s position (a copy is taken); its log starts there."""
        state = cls._from_engine(engine.clone())
        state.origin = tuple(state.observation_text(s) for s in range(state.num_players))
        return state

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` with the defaults filled in; ``ValueError`` for an unknown name or value."""
        unknown = sorted(set(options) - set(cls.options))
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(cls.options) or 'none'}")
        out = {name: options.get(name, values[0]) for name, values in cls.options.items()}
        for name, value in out.items():
            if value not in cls.options[name]:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, cls.options[name]))}, got {value!r}")
        return out

    @classmethod
    @abstractmethod
    def _new(cls, num_players: int, variant: str, options: dict[str, Any]) -> ChanceState:
        """The game's new state (options checked)."""

    @classmethod
    @abstractmethod
    def _from_engine(cls, engine: Any) -> ChanceState:
        """The game's state around ``engine`` (already a private copy)."""

    @classmethod
    @abstractmethod
    def max_game_length(cls, num_players: int, variant: str, **options: Any) -> int:
        """An upper bound on the player decisions in one game."""

    @classmethod
    @abstractmethod
    def max_chance_nodes(cls, num_players: int, variant: str, **options: Any) -> int:
        """An upper bound on the chance nodes in one game."""

    # -- the game's hooks --------------------------------------------------------------------

    @abstractmethod
    def is_chance(self) -> bool:
        """Whether the next step is a chance outcome."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the chance node, outcomes ascending."""

    @abstractmethod
    def _deal(self, outcome: int) -> tuple[int, ...]:
        """Apply a chance outcome (checked); return the card each seat saw."""

    @abstractmethod
    def _act(self, action: int) -> tuple[int, ...]:
        """Apply a player's action through the engine (which raises on an illegal one); return the
        card each seat saw by it."""

    @abstractmethod
    def observation(self, seat: int) -> np.ndarray:
        """The game's flat float32 observation of ``seat``."""

    @abstractmethod
    def observation_text(self, seat: int) -> str:
        """What ``seat`` sees now, as text."""

    @abstractmethod
    def outcome_text(self, outcome: int) -> str:
        """A chance outcome's name."""

    @abstractmethod
    def action_text(self, action: int) -> str:
        """A player action's name."""

    # -- the game loop -----------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, :data:`CHANCE` or :data:`TERMINAL`."""
        if self.is_chance():
            return CHANCE
        if self.engine.is_terminal():
            return TERMINAL
        return int(self.engine.current_player)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return not self.is_chance() and self.engine.is_terminal()

    def legal_actions(self) -> list[int]:
        """The chance outcomes at a chance node, else the engine's legal actions (none once over)."""
        if self.is_chance():
            return [o for o, _ in self.chance_outcomes()]
        return list(self.engine.legal_actions())

    def apply(self, action: int) -> None:
        """Apply a chance outcome or the player's action; ``IllegalActionError`` (nothing changed) if not legal."""
        a = int(action)
        if self.is_chance():
            if a not in dict(self.chance_outcomes()):
                raise IllegalActionError(f"chance outcome {a} is not possible here")
            self.steps.append((CHANCE, a, self._deal(a)))
        else:
            player = self.current_player()
            if player == TERMINAL:
                raise IllegalActionError(f"illegal action {a}: the game is over")
            self.steps.append((player, a, self._act(a)))

    def returns(self) -> list[float]:
        """Each seat's return: +1 for a winner, -1 for the others at the end; zeros before."""
        return list(self.engine.returns()) if self.is_terminal() else [0.0] * self.num_players

    def clone(self) -> ChanceState:
        """An independent copy (the engine's own ``clone``; faster than a deep copy)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.engine = None if self.engine is None else self.engine.clone()
        new.steps = list(self.steps)
        new.settings = dict(self.settings)
        self._copy_extra(new)
        return new

    def _copy_extra(self, new: ChanceState) -> None:
        """Copy the subclass's own mutable attributes into ``new`` (a shallow copy of ``self``)."""
        return None  # nothing beyond the base's by default

    def __deepcopy__(self, memo: dict) -> ChanceState:
        return self.clone()

    # -- what each seat knows ----------------------------------------------------------------

    def step_text(self, step: tuple[int, int, tuple[int, ...]], seat: int) -> str:
        """One logged step as ``seat`` saw it."""
        player, action, seen = step
        card = seen[seat]
        if player == CHANCE:
            return self.outcome_text(action) if card != UNSEEN else "?"
        shown = f" ({self.outcome_text(card)})" if card != UNSEEN else ""
        what = self.action_text(action) if self.public_actions or player == seat else "?"
        return f"{player}:{what}{shown}"

    def text(self) -> str:
        """The whole state as text, hidden cards included (for debugging; OpenSpiel's ``str(state)``)."""
        return self.observation_text(0)

    def information_text(self, seat: int) -> str:
        """``seat``'s perfect-recall information state: its seat, where the log starts and every step as it saw it."""
        head = f"seat {seat}"
        if self.origin is not None:
            head += " from position\n" + self.origin[seat]
        return head + "\n" + " ".join(self.step_text(step, seat) for step in self.steps)

    def information_size(self) -> int:
        """The length of :meth:`information_tensor` (the observation, then one row per step for a game with
        hidden information)."""
        if self.perfect_information:
            return self.observation_size
        rows = self.max_game_length(self.num_players, self.variant, **self.settings) + \
            self.max_chance_nodes(self.num_players, self.variant, **self.settings)
        return self.observation_size + rows * self.row_size()

    @classmethod
    def row_size(cls) -> int:
        """One step's row: the action (one-hot), the card seen (one-hot) and a chance-step flag."""
        return cls.num_actions + cls.max_chance_outcomes + 1

    def information_tensor(self, seat: int) -> np.ndarray:
        """``seat``'s information state as a flat float32 vector.

        With perfect information it is the observation: every seat sees the whole position, and the
        history adds nothing a policy needs. With hidden information it is the observation followed
        by one row per logged step (see :meth:`row_size`), zeros after the last, so the steps as the
        seat saw them are all there (perfect recall)."""
        out = np.zeros(self.information_size(), dtype=np.float32)
        out[:self.observation_size] = self.observation(seat)
        if self.perfect_information:
            return out
        width, a = self.row_size(), self.num_actions
        for i, (player, action, seen) in enumerate(self.steps):
            row = self.observation_size + i * width
            if player == CHANCE:
                out[row + width - 1] = 1.0
            elif self.public_actions or player == seat:
                out[row + action] = 1.0
            if seen[seat] != UNSEEN:
                out[row + a + seen[seat]] = 1.0
        return out

    def resample(self, seat: int, rng: np.random.Generator) -> tuple[Any, list[int]]:
        """A recipe for a state drawn uniformly among those ``seat`` cannot tell from this one:
        ``(engine position or None, steps)``; the state is :meth:`from_engine` of the position (``None``:
        :meth:`new`) after the steps. Only games with hidden information implement it."""
        raise NotImplementedError(f"{type(self).__name__} has no hidden information to resample")


__all__ = ["CHANCE", "TERMINAL", "UNSEEN", "ChanceState"]
