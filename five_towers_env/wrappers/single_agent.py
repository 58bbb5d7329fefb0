"""A single-agent ``gymnasium.Env``: one learner seat against opponent agents, for any game.

:class:`SingleAgentGymEnv` is game-neutral: it takes the game's registry name (see
:mod:`five_towers_env.core.game`) and builds the game's PettingZoo ``raw_env``, its opponents
(``make_agent_from_text(spec, seed=..., game=game)``) and their information (the game's
``agent_info``) from the games registry. Every game's Gymnasium id (its spec's ``gymnasium_id``)
makes one with ``game=`` filled in. The game's own settings (keyword arguments this class does not
take) go to its ``raw_env``, which rejects those it does not have; the game's other observations
(``observation=``) are the wrappers its spec names (``GameSpec.observations``).

The opponents (any :class:`~five_towers_env.core.agent.Agent`) move inside ``step()``, so the
learner only ever sees its own decisions. The reward is the learner's own PettingZoo reward
(``"win_loss"``, or another that the game's own ``reward=`` setting offers), given at game end and 0
before. ``action_masks()`` makes the environment usable with sb3-contrib's ``MaskablePPO`` (through
``gymnasium.make``'s wrappers use ``env.get_wrapper_attr("action_masks")()``, or read ``info["action_mask"]``).

The ``info`` of ``reset()`` and ``step()`` holds the same keys at every step, each of one shape
and dtype for a given player count (Tianshou's buffers need that; see :data:`INFO_KEYS` and
docs/environment.md): ``phase`` (str), ``learner_seat`` (int), ``score`` (int: the learner's
final score, 0 before the end), ``scores`` (int64, ``num_players``: final scores, zeros before
the end), ``winners`` (bool, ``num_players``: the seats sharing the top score, all False before
the end: ``np.flatnonzero(info["winners"])`` lists them), ``illegal_action`` (bool) and
``action_mask`` (int8, the game's action count: the learner's legal actions now, all 0 once over).

Determinism: ``reset(seed=s)`` seeds ``self.np_random``, and everything random in an episode is
drawn from it in a fixed order: the learner seat (if not fixed), the opponents (a pool sampler
gets this generator), a seed for each opponent, and the game seed (deal and reshuffle).
Opponents are re-seeded each reset: registry names are rebuilt with
``make_agent_from_text(spec, seed=..., game=game)``; an :class:`Agent` object is re-seeded through its ``seed(s)``
method if it has one, else its ``rng`` attribute is replaced by ``numpy.random.default_rng(s)``
if it is a numpy ``Generator`` (agents with other hidden randomness are not reproducible).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from five_towers_env.agents.registry import make_agent_from_text, parse_agent_text
from five_towers_env.core.agent import Agent
from five_towers_env.core.env import action_id
from five_towers_env.core.errors import IllegalActionError  # the one illegal-action error of every game
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, load

OpponentSpec = str | Agent
#: a turn generator (:meth:`SingleAgentGymEnv.reset_turns`, :meth:`~SingleAgentGymEnv.step_turns`): it yields
#: ``(opponent, seat)`` for each opponent decision, takes the action back, and returns the call's result
Turns = Generator[tuple[Agent, int], int, Any]
OpponentSampler = Callable[[np.random.Generator], Sequence[OpponentSpec]]
#: the observation every game has: its environment's own float32 vector (a game's spec may name others)
FLAT = "flat"
ILLEGAL_ACTIONS = ("raise", "penalize")
#: the keys of every ``info`` the environment returns, from ``reset()`` on
INFO_KEYS = ("phase", "learner_seat", "score", "scores", "winners", "illegal_action", "action_mask")


class SingleAgentGymEnv(gymnasium.Env):
    """One learner plays a game of the registry (:mod:`five_towers_env.core.game`) against opponent agents.

    Args:
        game: the game's registry name (default :data:`~five_towers_env.core.game.DEFAULT_GAME`) or spec.
        num_players: within the game's player range (the learner plus ``num_players - 1`` opponents).
        variant: one of the game's variants; default: the game's first.
        opponents: ``num_players - 1`` opponents in seat order after the learner (the opponent
            ``i`` sits ``i + 1`` seats to the learner's left): registry names of the game
            (``"random"``, ``"greedy"``, ...), optionally with settings (``"mcts:simulations=50"``), or
            :class:`Agent` objects; one name or agent alone
            is repeated. Default: ``"random"``.
        opponent_sampler: instead of ``opponents``, a callable ``sampler(rng) -> list`` of names
            or agents, called at every reset with the environment's generator (self-play pools).
        learner_seat: the learner's seat, or ``None`` for a random seat each reset.
        observation: ``"flat"`` (the game's float32 observation vector) or another observation the
            game's spec names (``GameSpec.observations``; 5 Towers: ``"dict"``, a ``gymnasium.spaces.Dict``).
        illegal_action: ``"penalize"`` (default, as Gymnasium environments expect: reward
            ``illegal_penalty``, the episode terminates, ``info["illegal_action"]`` is True) or
            ``"raise"`` (an illegal learner action raises :class:`IllegalActionError` and changes nothing).
            Either way an action that is no integer id (a float, a string, a bool, NaN) raises
            :class:`~five_towers_env.core.env.ActionTypeError` (an ``IllegalActionError``), the game unchanged.
        illegal_penalty: the reward of an illegal action under ``"penalize"``.
        render_mode: ``None`` or one of the game environment's modes: ``"ansi"``, ``"human"`` or
            ``"rgb_array"`` (an ``(H, W, 3)`` uint8 picture of the table).
        **env_kwargs: the game's own settings, passed to its ``raw_env``, which rejects those it does not
            have (5 Towers: ``reward`` ``"win_loss"`` or ``"margin"``, ``explicit``; Campanile: ``bet_chip``).
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, game: str | GameSpec = DEFAULT_GAME, num_players: int = 2, variant: str | None = None,
                 opponents: OpponentSpec | Sequence[OpponentSpec] | None = None,
                 opponent_sampler: OpponentSampler | None = None, learner_seat: int | None = None,
                 observation: str = FLAT, illegal_action: str = "penalize", illegal_penalty: float = -1.0,
                 render_mode: str | None = None, **env_kwargs: Any) -> None:
        super().__init__()
        spec = get_game(game)
        self.game_name = spec.name
        variant = spec.default_variant if variant is None else variant
        # the game's own observation wrapper (ValueError naming the game's observations if it has no such one)
        view = None if observation == FLAT else spec.observation_wrapper(observation)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        make_raw = load(spec.raw_env)
        modes = list(getattr(make_raw, "metadata", {}).get("render_modes", self.metadata["render_modes"]))
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be None, {', '.join(map(repr, modes[:-1]))} or {modes[-1]!r}, "
                             f"got {render_mode!r}")
        # the game's env renders for us, in "ansi" in place of "human" so that it does not print at
        # every opponent move: this wrapper prints once per learner step
        self._aec = make_raw(num_players=num_players, variant=variant,
                             render_mode="ansi" if render_mode == "human" else render_mode, **env_kwargs)
        self._view = None if view is None else view(self._aec)  # reads the game as it is stepped here
        self.metadata = {**type(self).metadata, "render_modes": modes}
        self._agent_info = spec.agent_info  # (state, seat) -> the information an agent on move gets
        self.num_players = self._aec.num_players
        self.variant = variant
        if learner_seat is not None and not (isinstance(learner_seat, (int, np.integer))
                                             and 0 <= learner_seat < self.num_players):
            raise ValueError(f"learner_seat must be None or a seat 0..{self.num_players - 1}, got {learner_seat!r}")
        self.fixed_learner_seat = None if learner_seat is None else int(learner_seat)
        self.observation_mode = observation
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        first = self._aec.possible_agents[0]
        self.num_actions = int(self._aec.action_space(first).n)
        self.action_space = spaces.Discrete(self.num_actions)
        if self._view is not None:
            self.observation_space = self._view.observation_space(first)
        else:
            self.observation_space = self._aec.observation_space(first)["observation"]
        self._opponent_specs: list[OpponentSpec] | None = None
        self._opponent_sampler: OpponentSampler | None = None
        self.set_opponents(opponents if opponents is not None or opponent_sampler is not None else "random",
                           sampler=opponent_sampler)
        self.learner_seat = -1
        self.opponents: list[Agent] = []  # the agents of this episode, seat order after the learner
        self._done = True

    # -- opponents ------------------------------------------------------------------------

    def set_opponents(self, opponents: OpponentSpec | Sequence[OpponentSpec] | None = None,
                      sampler: OpponentSampler | None = None) -> None:
        """Replace the opponents (names / agents) or the pool ``sampler``; from the next ``reset()`` on."""
        if (opponents is None) == (sampler is None):
            raise ValueError("pass exactly one of opponents and sampler")
        if sampler is not None:
            self._opponent_specs, self._opponent_sampler = None, fitted_sampler(sampler, self.num_players)
        else:
            self._opponent_specs, self._opponent_sampler = self._check_specs(opponents), None

    def _check_specs(self, opponents: Any) -> list[OpponentSpec]:
        return check_opponents(opponents, self.num_players, self.game_name)

    def _build(self, spec: OpponentSpec, seed: int) -> Agent:
        return build_opponent(spec, seed, self.game_name)

    # -- gymnasium API --------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Start a game and let the opponents move until the learner's first decision.

        ``options`` go to the game's PettingZoo environment (``{"position": ...}``, and for 5 Towers
        ``{"start_player": p}``); a position must keep the constructor's player count and variant."""
        return self._play(self.reset_turns(seed=seed, options=options))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Play the learner's action, then the opponents until the learner's turn or the game end."""
        return self._play(self.step_turns(action))

    # The opponents' turns as generators: ``reset()`` and ``step()`` play them one at a time, and a
    # vector of environments (:class:`~five_towers_env.training.ppo.vec_env.SelfPlayVecEnv`) drives many
    # at once, so that it can ask one policy network for the decisions of all its games in one batch.

    def reset_turns(self, *, seed: int | None = None, options: dict | None = None) -> Turns:
        """:meth:`reset` as a generator: it yields ``(agent, seat)`` for every opponent decision (send
        the action back) and returns what ``reset()`` returns."""
        super().reset(seed=seed)
        rng = self.np_random
        n = self.num_players
        self.learner_seat = self.fixed_learner_seat if self.fixed_learner_seat is not None else int(rng.integers(n))
        specs = self._check_specs(self._opponent_sampler(rng)) if self._opponent_sampler else self._opponent_specs
        assert specs is not None  # __init__ sets the opponents or their sampler
        seeds = rng.integers(2**63, size=n).tolist()
        self.opponents = [self._build(spec, s) for spec, s in zip(specs, seeds)]
        # each opponent's own draws for this game, also when one agent object plays in several games at once
        self._opponent_rngs = [np.random.default_rng(s) for s in seeds[:len(self.opponents)]]
        self._aec.reset(seed=seeds[-1], options=options)  # rejects a position of another setup
        self._done = False
        yield from self._opponent_turns()
        if self._aec.game.is_terminal():
            raise RuntimeError("the game ended before the learner's first decision")
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step_turns(self, action: Any) -> Turns:
        """:meth:`step` as a generator, as :meth:`reset_turns` is :meth:`reset`'s."""
        if self._done:
            raise RuntimeError("the episode is over (or was never started): call reset()")
        game = self._aec.game
        # an action that is no integer (a float, a string, a bool, NaN) is the caller's bug, not a move to
        # penalize: ActionTypeError (an IllegalActionError) in either mode, and the game unchanged
        a = action_id(action, self._aec.unwrapped._actions)
        if a not in game.legal_actions():
            if self.illegal_action == "penalize":
                self._done = True
                return self._observe(), self.illegal_penalty, True, False, self._info(illegal=True)
            name = self._aec.action_name(a) if 0 <= a < self.num_actions else "out of range"
            legal = ", ".join(self._aec.action_name(x) for x in game.legal_actions())
            shown = a if 0 <= a < 2**63 else f"of {a.bit_length()} bits" if a > 0 else repr(action)
            raise IllegalActionError(
                f"illegal action {shown} ({name}) for the learner (seat {self.learner_seat}) "
                f"in phase {game.phase_name}; legal: {legal}. Use action_masks() or info['action_mask'] "
                "(or illegal_action='penalize').")
        self._aec.step(a)
        yield from self._opponent_turns()
        terminated = game.is_terminal()
        reward = 0.0
        if terminated:
            self._done = True
            reward = float(self._aec.rewards[self._agent_name])
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, False, self._info()

    def _play(self, turns: Turns) -> Any:
        """Run a turn generator to its end, each opponent deciding on its own; return its result."""
        try:
            agent, seat = next(turns)
            while True:
                agent, seat = turns.send(agent.act(*self.opponent_input(seat)))
        except StopIteration as end:
            return end.value

    def _opponent_turns(self) -> Generator[tuple[Agent, int], int, None]:
        aec, game = self._aec, self._aec.game
        while not game.is_terminal() and game.current_player != self.learner_seat:
            seat = game.current_player
            agent = self.opponents[(seat - self.learner_seat) % self.num_players - 1]
            action = yield agent, seat
            try:
                aec.step(int(action))
            except IllegalActionError as e:
                raise IllegalActionError(f"opponent {getattr(agent, 'name', agent)!r} in seat {seat}: {e}") from e

    def opponent_input(self, seat: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the opponent in ``seat`` (on move) decides from: its observation and its agent information."""
        aec = self._aec
        return aec.observe(aec.possible_agents[seat]), self._agent_info(aec.game, seat)

    def opponent_observation(self, seat: int) -> dict[str, np.ndarray]:
        """The observation alone of the opponent in ``seat`` (a policy network needs no more)."""
        return self._aec.observe(self._aec.possible_agents[seat])

    def opponent_rng(self, seat: int) -> np.random.Generator:
        """The generator of this game's opponent in ``seat``, seeded at reset as that agent is: a batch of
        games sharing one stochastic agent draws each game's moves from that game's own generator."""
        return self._opponent_rngs[(seat - self.learner_seat) % self.num_players - 1]

    @property
    def _agent_name(self) -> str:
        return self._aec.possible_agents[self.learner_seat]

    def learner_info(self) -> dict[str, Any]:
        """The game's agent information (``agent_info(state, seat)``) for the learner's seat: what an
        :class:`Agent` playing the learner's side gets with its observation (public information only)."""
        return self._agent_info(self._aec.game, self.learner_seat)

    def _observe(self) -> Any:
        if self._view is not None:
            return self._view.observe(self._agent_name)
        return self._aec.observe(self._agent_name)["observation"]

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        """The step's info: the same keys (:data:`INFO_KEYS`), shapes and dtypes at every step."""
        game = self._aec.game
        n = self.num_players
        scores = np.zeros(n, dtype=np.int64)
        winners = np.zeros(n, dtype=bool)
        score = 0
        if game.is_terminal():
            scores[:] = game.scores()
            winners[game.winners()] = True
            score = int(scores[self.learner_seat])
        return {"phase": game.phase_name, "learner_seat": int(self.learner_seat), "score": score,
                "scores": scores, "winners": winners, "illegal_action": bool(illegal),
                "action_mask": self.action_masks().astype(np.int8)}

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        game = self._aec.game
        if not self._done and game is not None and game.current_player == self.learner_seat:
            mask[game.legal_actions()] = True
        return mask

    def legal_action_names(self) -> list[str]:
        """The game's names (5 Towers SPEC §7, Campanile SPEC C6) of the learner's legal actions."""
        return [self._aec.action_name(int(a)) for a in np.flatnonzero(self.action_masks())]

    @property
    def game(self) -> Any:
        """The engine state (``GameState`` / ``CampanileState``; it holds the hidden cards: for
        debugging, not for the learner)."""
        return self._aec.game

    def render(self) -> str | np.ndarray | None:
        """The table: text returned for ``"ansi"``, printed for ``"human"``; for 5 Towers an
        ``(H, W, 3)`` uint8 image for ``"rgb_array"`` (public information only, one size per player count)."""
        if self.render_mode != "human":
            return self._aec.render()  # the game env's own render in this mode (None warns)
        if self._aec.game is not None:
            print(self._aec.render() + "\n")  # the env renders "ansi" for us (see __init__)
        return None

    def close(self) -> None:
        """Nothing to release."""


def build_opponent(spec: OpponentSpec, seed: int, game: str) -> Agent:
    """The opponent ``spec`` seeded with ``seed`` for a new game of ``game``: a registry name (``"name"`` or
    ``"name:key=value,..."``) built anew, an :class:`Agent` object re-seeded through its ``seed()`` method, else
    its ``rng`` attribute if that is a numpy ``Generator`` (an agent with other hidden randomness is not
    reproducible)."""
    if isinstance(spec, str):
        return make_agent_from_text(spec, seed=seed, game=game)
    agent: Any = spec
    if callable(getattr(agent, "seed", None)):
        agent.seed(seed)
    elif isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = np.random.default_rng(seed)
    return spec


def check_opponents(opponents: Any, num_players: int, game: str) -> list[OpponentSpec]:
    """``num_players - 1`` opponents (one name or agent alone is repeated), each a registry name of ``game``
    (its settings checked now, not when a game starts) or an :class:`Agent`; ``ValueError`` / ``TypeError``
    saying what is wrong."""
    if isinstance(opponents, str) or isinstance(opponents, Agent):
        opponents = [opponents] * (num_players - 1)
    opponents = list(opponents)
    if len(opponents) != num_players - 1:
        raise ValueError(f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}")
    for o in opponents:
        if isinstance(o, str):
            parse_agent_text(o, game=game)  # a bad name or setting fails now, not at reset()
        elif not isinstance(o, Agent):
            raise TypeError(f"an opponent must be an agent name or an Agent (with name and act), got {o!r}")
    return opponents


def fitted_sampler(sampler: Any, num_players: int) -> OpponentSampler:
    """``sampler`` (a callable ``rng -> opponents``) for games of ``num_players``: a pool sampler shared by games
    of several sizes fits itself (its ``for_players``); ``TypeError`` for one that is not callable."""
    if not callable(sampler):
        raise TypeError(f"opponent_sampler must be callable, got {sampler!r}")
    fit = getattr(sampler, "for_players", None)
    return fit(num_players) if callable(fit) else sampler


def _make(rank: int, seed: int | None, kwargs: dict[str, Any]) -> gymnasium.Env:
    env = SingleAgentGymEnv(**kwargs)
    if seed is not None:
        env.reset(seed=seed + rank)
    return env


def make_env(rank: int = 0, seed: int | None = None, **kwargs: Any) -> Callable[[], gymnasium.Env]:
    """A picklable factory (for SB3's ``DummyVecEnv`` / ``SubprocVecEnv``) of ``SingleAgentGymEnv(**kwargs)``
    (the default game unless ``kwargs`` name a ``game``), seeded with ``seed + rank`` if ``seed`` is given."""
    return functools.partial(_make, rank, seed, dict(kwargs))
