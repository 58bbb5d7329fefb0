"""The base of every game's PettingZoo AEC environment: what they share, written once.

A game's ``raw_env`` subclasses :class:`GameEnv` and keeps its engine state in ``self.game``. The
base holds the agents and spaces, the reset bookkeeping, ``step``, the infos and rewards at each
turn and at the end, and the extras (move names both ways, the legal moves and their names, the
position, the scores and winners, the phase). What a game must supply, it cannot forget: the
class attributes of :data:`REQUIRED_ATTRIBUTES` are checked when the subclass is defined, and
``reset``, ``observe``, ``render`` and ``_advance`` are abstract, so an environment missing one
cannot be built. :func:`action_id` checks an action's type and :func:`wrap_env` puts a raw
environment in PettingZoo's standard wrappers. Importing this module loads no game's rules.
"""
from __future__ import annotations

import abc
import difflib
import operator
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.game import GameSpec

#: the keys of every ``infos[agent]``, present from ``reset()`` on
INFO_KEYS = ("phase", "score", "scores", "winners")


class ActionTypeError(IllegalActionError, TypeError):
    """An action that is not an integer id (a name, a float, a bool); both an ``IllegalActionError``
    and a ``TypeError``."""


def action_id(action: Any, codec: Any) -> int:
    """``action`` as an int id: Python and numpy integers (and 0-d integer arrays, as SB3's
    ``predict`` returns) pass; names, floats and bools raise :class:`ActionTypeError` (``codec``:
    the game's actions module, for ``NUM_ACTIONS`` and the hint naming a move's id)."""
    if type(action) is int:  # the common case, first
        return action
    last = codec.NUM_ACTIONS - 1
    if isinstance(action, (bool, np.bool_)):
        raise ActionTypeError(f"actions are integer ids 0..{last}, got the bool {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        pass
    if isinstance(action, str):
        try:
            hint = f" (here: {codec.action_from_name(action)})"
        except ValueError:
            hint = ""
        raise ActionTypeError(f"actions are integer ids 0..{last}, got the string {action!r}; "
                              f"use env.action_from_name({action!r}) to get its id{hint}") from None
    raise ActionTypeError(f"actions are integer ids 0..{last}, got {type(action).__name__} "
                          f"{action!r}; pass int(...) of an id (env.action_from_name(name) gives one)") from None


#: what a game's ``raw_env`` class must set: its ``game_spec`` (the action codec, the position format
#: and the name come from it), the reset options it takes, and ``metadata`` (PettingZoo's ``render_modes``;
#: its ``name`` is the spec's name with ``_v0``)
REQUIRED_ATTRIBUTES = ("game_spec", "_reset_options", "metadata")


class UnknownAgentError(KeyError):
    """An agent name the environment does not have; its message names the ones it has."""

    def __str__(self) -> str:  # KeyError's own would quote the whole message
        return str(self.args[0]) if self.args else ""


class AgentDict(dict):
    """A mapping keyed by the environment's agents: an unknown name is an :class:`UnknownAgentError`
    naming the known ones, not a bare ``KeyError``."""

    def __missing__(self, agent: Any) -> Any:
        raise UnknownAgentError(f"unknown agent {agent!r}; this environment's agents are {', '.join(self)}")


class GameEnv(AECEnv, abc.ABC):
    """The shared part of a game's AEC environment.

    A subclass sets the :data:`REQUIRED_ATTRIBUTES` (and optionally ``_position_keys``, a
    position's own keys, for the reset option check) and implements ``reset``, ``observe``,
    ``render`` and ``_advance()``: publish the turn after a move (``_publish_live`` /
    ``_publish_end``). The state is ``self.game``, which has ``apply_action``, ``is_terminal``,
    ``illegal_message``, ``scores``, ``winners``, ``legal_actions`` and ``phase_name``.
    """

    game_spec: ClassVar[GameSpec]
    _actions: ClassVar[Any]
    _reset_options: ClassVar[tuple[str, ...]]
    _position_keys: ClassVar[Sequence[str]] = ()
    game: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [name for name in REQUIRED_ATTRIBUTES if name not in _own_and_inherited(cls)]
        if missing:
            raise TypeError(f"{cls.__module__}.{cls.__qualname__} must set {', '.join(missing)} (see GameEnv)")
        cls._actions = cls.game_spec.actions
        cls.metadata = {"name": f"{cls.game_spec.name}_v0", **cls.metadata}

    @abc.abstractmethod
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (or load ``options["position"]``) and publish its first turn (``_start``)."""

    @abc.abstractmethod
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8}`` for ``agent`` (mask zero off turn)."""

    @abc.abstractmethod
    def render(self) -> Any:
        """The table in the env's ``render_mode`` (public information only)."""

    def close(self) -> None:
        """Nothing to release (PettingZoo's ``api_test`` wants ``close`` beside ``render``; override to release)."""

    # -- construction and reset -------------------------------------------------------------

    def _init_agents(self, num_players: int, observation: spaces.Space) -> None:
        """Agents ``player_k``, one shared observation space (``observation`` and an int8 mask)
        and ``Discrete(NUM_ACTIONS)``, the generator, and the read-only infos arrays of a game in progress."""
        self.num_players = int(num_players)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = AgentDict((a, i) for i, a in enumerate(self.possible_agents))
        obs_space = spaces.Dict({
            "observation": observation,
            "action_mask": spaces.Box(low=0, high=1, shape=(self._actions.NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = AgentDict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = AgentDict((a, spaces.Discrete(self._actions.NUM_ACTIONS)) for a in self.possible_agents)
        self._rng = np.random.default_rng()
        self._no_scores = np.zeros(self.num_players, dtype=np.int64)
        self._no_winners = np.zeros(self.num_players, dtype=bool)
        self._no_scores.flags.writeable = self._no_winners.flags.writeable = False
        self.game = None

    def observation_space(self, agent: str) -> spaces.Space:
        """The (shared) observation space: the observation and the int8 action mask."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(NUM_ACTIONS)``, the same in every phase and variant."""
        return self.action_spaces[agent]

    def _reset_options_of(self, options: dict | None) -> dict:
        """``options`` checked: a dict; a misspelt option (``"postion"``) or a position's own keys
        passed as options raise ``ValueError`` listing the known options; any other unknown key
        only warns, because PettingZoo's ``api_test`` resets with an arbitrary option and requires
        it to pass."""
        options = {} if options is None else options
        known_keys = self._reset_options
        known = ", ".join(known_keys)
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict (keys: {known}), got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - set(known_keys)))
        if not unknown:
            return options
        near = {k: difflib.get_close_matches(k.lower(), known_keys, n=1, cutoff=0.75) for k in unknown}
        if any(near.values()):
            meant = "; ".join(f"{k!r}: did you mean {m[0]!r}?" for k, m in near.items() if m)
            raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))} ({meant}); known: {known}")
        if set(unknown) & set(self._position_keys):
            raise ValueError(f"unknown reset option(s) {', '.join(map(repr, unknown))}; known: {known} "
                             "(a position goes in as options={'position': {...}})")
        warnings.warn(f"reset() ignores unknown option(s) {', '.join(map(repr, unknown))}; known: {known}",
                      stacklevel=3)
        return options

    def _start(self, game: Any, rng: np.random.Generator) -> None:
        """Take ``game`` (made with ``rng``, kept for the next unseeded reset) and publish its first turn."""
        self._rng = rng
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()

    # -- stepping ---------------------------------------------------------------------------

    @abc.abstractmethod
    def _advance(self) -> None:
        """Publish the turn after a move: ``_publish_live(phase, seat)`` or ``_publish_end(returns)``."""

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; an illegal one raises ``IllegalActionError`` and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None and self.game.is_terminal():
                # PettingZoo refuses it too (a ValueError); this one names the action
                raise IllegalActionError(self.game.illegal_message(action) + " (a finished game takes only None)")
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(self.game.illegal_message(-1) + " (got None for a live agent)")
        self.game.apply_action(action_id(action, self._actions))
        self._cumulative_rewards[agent] = 0.0
        self._advance()
        if self.game.is_terminal():  # before the end every reward is 0.0: nothing to add
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _publish_live(self, phase: str, seat: int) -> None:
        """A game in progress: every agent's infos, and ``seat``'s agent selected (rewards stay 0.0
        until the game ends; reset starts them at 0.0)."""
        infos, no_scores, no_winners = self.infos, self._no_scores, self._no_winners
        for a in self.agents:
            infos[a] = {"phase": phase, "score": 0, "scores": no_scores, "winners": no_winners}
        self.agent_selection = self.possible_agents[seat]

    def _publish_end(self, returns: Sequence[float]) -> None:
        """The game is over: every agent's reward (``returns`` by seat), termination and final infos."""
        scores, winners = self.game.scores(), self.game.winners()
        score_array = np.array(scores, dtype=np.int64)
        winner_array = np.zeros(self.num_players, dtype=bool)
        winner_array[winners] = True
        for i, a in enumerate(self.agents):
            self.rewards[a] = returns[i]
            self.terminations[a] = True
            self.infos[a] = {"phase": "game_over", "score": int(scores[i]), "scores": score_array.copy(),
                             "winners": winner_array.copy()}

    # -- extras -------------------------------------------------------------------------------

    def action_name(self, action: int) -> str:
        """The name of an action id (the game's rules name every action)."""
        return self._actions.action_name(action)

    def action_from_name(self, name: str) -> int:
        """The action id of a move's name."""
        return self._actions.action_from_name(name)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent on move (empty once the game is over)."""
        return list(self.game.legal_actions())

    def legal_action_names(self) -> list[str]:
        """Names of the legal actions of the agent on move."""
        return [self._actions.action_name(a) for a in self.game.legal_actions()]

    def position(self) -> dict[str, Any]:
        """The current position in the game's JSON position format. It names hidden cards (the
        deck or pile order, hands): for saving and bug reports, never for an agent's observation."""
        return self.game_spec.position_of(self.game)

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        return self.game.scores()

    def winners(self) -> list[int]:
        """Seats sharing the highest score now (the victory, once the game is over)."""
        return self.game.winners()

    @property
    def phase(self) -> str:
        """Name of the current phase (``game_over`` at the end)."""
        return self.game.phase_name


def _own_and_inherited(cls: type) -> set[str]:
    """Attribute names set by ``cls`` or a base below :class:`GameEnv` (``AECEnv``'s own do not count)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass in (GameEnv, AECEnv, abc.ABC, object):
            continue
        names.update(vars(klass))
    return names


#: what the AEC loop reads at every step (``last()``, ``agent_iter()``, the wrappers' own checks)
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _forward(name: str) -> property:
    own = f"_own_{name}"

    def get(self: Any) -> Any:
        d = self.__dict__
        return d[own] if own in d else getattr(d["_raw"], name)

    def set_(self: Any, value: Any) -> None:
        self.__dict__[own] = value
    return property(get, set_, doc=f"the raw environment's ``{name}`` (or the wrapper's own copy, once it sets one)")


class _Direct:
    """Reads the AEC loop's attributes straight from the raw environment. PettingZoo's wrappers forward
    them through ``__getattr__``, one failed lookup per layer: with the rules in C++, that forwarding was
    a third of a wrapped step. Recent wrappers never set these on themselves, so reading through is the
    same; older ones (PettingZoo before 1.24) copy them after every call, and then their copy is read."""

    def _remember_raw(self, env: AECEnv) -> None:
        self.__dict__["_raw"] = env.unwrapped


for _name in _HOT:
    setattr(_Direct, _name, _forward(_name))


class _TerminateIllegal(_Direct, wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._remember_raw(env)


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An integer action outside the action space (an ``IllegalActionError``, and the ``AssertionError``
    PettingZoo's ``AssertOutOfBoundsWrapper`` raises for it)."""


class _AssertOutOfBounds(_Direct, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's check that an action is in the space, made without ``assert``: under ``python -O`` an
    action outside it would otherwise reach the illegal-move wrapper, which indexes the mask with it."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._remember_raw(env)
        self._n = int(env.unwrapped.action_space(env.unwrapped.possible_agents[0]).n)

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._n:  # in the space: what Discrete.contains says, cheaply
            wrappers.BaseWrapper.step(self, action)
            return
        agent = self.agent_selection
        if action is None or self.terminations[agent] or self.truncations[agent]:
            super().step(action)  # a dead agent's step: PettingZoo's own rules
            return
        a = action_id(action, self.unwrapped._actions)  # ActionTypeError for a float, a string, a bool
        if not 0 <= a < self._n:
            shown = str(a) if a.bit_length() <= 64 else f"of {a.bit_length()} bits"
            raise ActionOutOfBoundsError(f"action {shown} is not in the action space (integer ids 0..{self._n - 1})")
        wrappers.BaseWrapper.step(self, a)


class _OrderEnforcing(_Direct, wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._remember_raw(env)


def _before_reset(name: str) -> property:
    plain = _forward(name)

    def get(self: Any) -> Any:
        if not self._has_reset:  # OrderEnforcingWrapper's rule, kept
            raise AttributeError(f"{name} cannot be accessed before reset")
        return plain.fget(self)  # type: ignore[misc]  # fget is set
    return property(get, plain.fset, doc=plain.__doc__)


for _name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
    setattr(_OrderEnforcing, _name, _before_reset(_name))


def wrap_env(raw: AECEnv) -> AECEnv:
    """``raw`` wrapped as PettingZoo classic environments are: an illegal move ends the game with
    -1 for the offender, out-of-bounds actions are caught, and the agent order is enforced (PettingZoo's
    three wrappers, which here read the AEC loop's attributes straight from ``raw``)."""
    e: AECEnv = _TerminateIllegal(raw, illegal_reward=-1)
    e = _AssertOutOfBounds(e)
    e = _OrderEnforcing(e)
    return e


__all__ = ["AgentDict", "GameEnv", "REQUIRED_ATTRIBUTES", "UnknownAgentError", "wrap_env", "action_id",
           "ActionTypeError", "INFO_KEYS"]
