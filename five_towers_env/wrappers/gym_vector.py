"""A Gymnasium ``VectorEnv`` on the native core: one learner seat per game, the opponents inside ``step()``.

:class:`GymVectorEnv` is what ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``
returns for every game with a native core (each Gymnasium id's ``vector_entry_point``): the batched
counterpart of the single-agent :class:`~five_towers_env.wrappers.single_agent.SingleAgentGymEnv`. Its
games step in C++ (:class:`~five_towers_env.core.vector_env.VectorGameEnv`); the learner sees only its own
decisions, its masks are in ``infos["action_mask"]`` (int8 ``(N, num_actions)``), and its reward is +1 or
-1 when a game ends (a shared top score counts as a win), 0 before.

- **Seats.** Game ``i``'s learner sits at ``learner_seat``, or by default at seat ``i % num_players``, so
  that one batch learns every seat.
- **Opponents.** ``"random"`` (the default) moves natively, without Python in the loop. Any other agent
  name of the game (``"heuristic"``, ``"ppo"``, ``"mcts:simulations=50"``, ...) or :class:`Agent` object is
  an agent of each game. Every round of opponent moves, the games waiting on an opponent are grouped by the
  class of the agent on move, and each class decides for its whole group in one call of its
  :meth:`~five_towers_env.core.agent.AgentBase.act_group` (:func:`~five_towers_env.core.agent.group_actions`):
  a policy network in one batched call, Campanile's ``greedy`` and ``heuristic`` in one compiled call on the
  games' native states, any other agent through its ``act`` on each game's public view, as in the single-agent
  environment. ``batch_opponents=False`` asks every agent's ``act`` one game at a time instead: the same moves
  (the hook's contract), slower.
- **Opponents drawn per game.** ``opponent_sampler`` instead of ``opponents``: a callable ``rng -> opponents``
  (as :class:`~five_towers_env.wrappers.single_agent.SingleAgentGymEnv` takes; training's pool sampler is one)
  draws the opponents of every new game, game ``i``'s ``e``-th since the reset from
  ``default_rng([s, i, e])``, which then seeds them (``s``: the reset's seed).
- **Autoreset.** Same-step (``metadata["autoreset_mode"]``): a game that ends is dealt again at once, the
  observation returned is the new game's first, and the learner's last observation of the finished game is
  in ``infos["final_obs"]`` (rows of the games with ``infos["_final_obs"]`` set), and every seat's final score in
  ``infos["final_scores"]`` (``(N, num_players)`` int32; not on the native random path, which reports the
  learner's reward only).
- **Seeds.** ``reset(seed=s)`` deals game ``i`` from ``default_rng(s + i)`` and seeds the opponents from ``s``:
  an agent named is built for each game with its own seed, an :class:`Agent` object is re-seeded (its
  ``seed()``, else its ``rng``) as the single-agent environment does. Two resets with one seed and the same
  learner actions give the same games.

- **Actions** are ints, each a legal id of its game (an integer array, or a sequence of Python or numpy ints):
  a float, a string, a bool, NaN or a negative id raises ``ValueError`` as an illegal action does, and no game
  moves.
- **Threads.** Several threads may share one environment: ``reset``, ``step``, ``action_masks``,
  ``set_opponents`` and ``close`` hold its re-entrant ``lock`` throughout, so their calls run one after another
  (a step returns copies, which no other call changes). ``close()`` frees the native games: a later ``step``
  or ``reset`` raises ``RuntimeError`` ("closed").
- **Size.** ``num_envs`` up to :data:`~five_towers_env.core.vector_env.MAX_ENVS`, and what the available memory
  holds: about 75 KB a game for 5 Towers at the peak of a step, 11 KB for Campanile (the observations are kept
  several times: the games', the batch returned, the final ones, the observation space's bounds).

It needs Gymnasium 1.0 or newer (its ``VectorEnv`` API and ``make_vec``); on older releases the ids have no
vector entry point and making a :class:`GymVectorEnv` says so.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

try:
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # Gymnasium before 1.0: another VectorEnv API (GymVectorEnv says so when made)
    _SAME_STEP = None

from five_towers_env.agents.registry import agent_class, parse_agent_text
from five_towers_env.core.agent import Agent, RandomAgent, act_each, group_actions
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.vector_env import (
    SKIP,
    VectorGameEnv,
    action_ids,
    check_memory,
    check_num_envs,
    game_bytes,
    native_module,
)
from five_towers_env.wrappers.single_agent import (
    OpponentSampler,
    OpponentSpec,
    build_opponent,
    check_opponents,
    fitted_sampler,
)


class GymVectorEnv(VectorEnv):
    """``num_envs`` games, one learner seat each, the opponents inside ``step()`` (see the module docstring).

    Args:
        num_envs: how many games.
        game: the game's registry name or spec (it must have a native core).
        num_players: the setup's player count.
        variant: the setup's variant (default: the game's first).
        opponents: one agent name or object for every opponent seat, or ``num_players - 1`` of them in
            seat order after the learner; default ``"random"`` (native).
        opponent_sampler: instead of ``opponents``, a callable ``sampler(rng) -> list`` of names or agents,
            called for every new game (see the module docstring); a pool sampler's ``for_players`` fits it.
        learner_seat: the learner's seat in every game; default: game ``i``'s is ``i % num_players``.
        batch_opponents: decide for the games waiting on opponents class by class, in one call each (default),
            or one game at a time through each agent's ``act`` (the reference the batched path is tested against).
        **options: the game's own settings (Campanile ``bet_chip``; ``explicit``).
    """

    metadata = {"autoreset_mode": _SAME_STEP}

    def __init__(self, num_envs: int = 1, game: str | GameSpec = DEFAULT_GAME, num_players: int = 2,
                 variant: str | None = None, opponents: OpponentSpec | Sequence[OpponentSpec] | None = None,
                 opponent_sampler: OpponentSampler | None = None, learner_seat: int | None = None,
                 batch_opponents: bool = True, **options: Any) -> None:
        if _SAME_STEP is None:
            raise RuntimeError(f"the Gymnasium vector environment needs gymnasium>=1.0, found {gymnasium.__version__}")
        spec = get_game(game)
        self.game_spec = spec
        num_envs = check_num_envs(num_envs)
        module = native_module(spec)
        # besides the games: the observations kept, returned and bounded (the spaces' low and high), measured
        check_memory(num_envs, game_bytes(module) + 32 * int(module.OBS_SIZE) + 4 * int(module.NUM_ACTIONS),
                     type(self).__name__)
        self.lock = threading.RLock()
        self.env = VectorGameEnv(spec, num_envs, num_players, variant, **options)
        self.num_envs = self.env.num_envs
        n, k = self.num_envs, self.env.num_players
        if learner_seat is not None and (isinstance(learner_seat, bool)
                                         or not isinstance(learner_seat, (int, np.integer))
                                         or not 0 <= learner_seat < k):
            raise ValueError(f"learner_seat must be None or a seat 0..{k - 1}, got {learner_seat!r}")
        self.learner_seats = (np.full(n, learner_seat, dtype=np.int32) if learner_seat is not None
                              else (np.arange(n) % k).astype(np.int32))
        if opponents is not None and opponent_sampler is not None:
            raise ValueError("pass opponents or opponent_sampler, not both")
        self._sampler = None if opponent_sampler is None else fitted_sampler(opponent_sampler, k)
        self._opponent_specs = None if self._sampler is not None else check_opponents(
            "random" if opponents is None else opponents, k, spec.name)
        # natively only when every opponent of every game is known now to be the uniform random agent
        self._native_opponents = self._opponent_specs is not None and all(
            self._uniform_random(o) for o in self._opponent_specs)
        self.batch_opponents = bool(batch_opponents)
        self._agents: list[list[Agent]] = []  # game i's opponents, in seat order after its learner
        self._games = _Waiting(self.env, spec)
        self._seed = 0  # the last reset's seed: the samplers' generators derive from it
        self._episodes = np.zeros(n, dtype=np.int64)  # games dealt to each row since the reset
        self.single_observation_space = spaces.Box(low=-1.0, high=2.0, shape=(self.env.observation_size,),
                                                   dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._final_obs = np.zeros_like(self.env.obs)
        self._final_scores = np.zeros((n, self.env.num_players), dtype=np.int32)  # of the games that just ended
        self._obs = np.zeros_like(self.env.obs)
        self._reward = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=bool)
        self._done_bytes = np.zeros(n, dtype=np.uint8)
        self._started = False

    def _uniform_random(self, opponent: OpponentSpec) -> bool:
        """Whether ``opponent`` names the uniform random agent without settings: the native core draws its moves."""
        if not isinstance(opponent, str):
            return False
        name, settings = parse_agent_text(opponent, game=self.game_spec.name)
        return not settings and agent_class(name, game=self.game_spec.name) is RandomAgent

    # -- gymnasium API --------------------------------------------------------------------

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal every game again (game ``i`` from ``default_rng(seed + i)``), seat its opponents, and play them
        up to each learner's first decision."""
        if isinstance(seed, (list, tuple)):
            seed = seed[0] if seed else None
        if options:
            raise ValueError("GymVectorEnv.reset takes no options")
        with self.lock:
            return self._reset(seed)

    def _reset(self, seed: int | None) -> tuple[np.ndarray, dict]:
        self.env.reset(seed)
        base = int(seed) if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        self._seed = base
        self._episodes[:] = 0
        if self._sampler is not None:
            self._agents = [self._draw(i) for i in range(self.num_envs)]
        elif not self._native_opponents:
            assert self._opponent_specs is not None  # __init__ sets the opponents or the sampler
            name = self.game_spec.name
            self._agents = [[build_opponent(o, (base * 7919 + i * 11 + j) % 2**63, name)
                             for j, o in enumerate(self._opponent_specs)] for i in range(self.num_envs)]
        self._reward[:] = 0.0
        self._terminated[:] = False
        if self._native_opponents:  # to every learner's first decision in one C++ call
            self._learner_step(None)
        else:
            self._play_opponents()
        self._started = True
        return self._observation(), self._infos(final=False)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """The learners' actions, then the opponents until every game is back at its learner's decision."""
        if isinstance(actions, np.ndarray) and actions.ndim > 1 and actions.size == self.num_envs:
            actions = actions.reshape(self.num_envs)  # (N, 1): one action per game all the same
        acts = action_ids(actions, self.num_envs)
        if acts.min() < 0:  # (the vector env's RANDOM and SKIP are no learner's actions)
            i = int(np.argmax(acts < 0))
            raise ValueError(f"illegal action {int(acts[i])} in game {i} (no game was stepped)")
        with self.lock:
            if not self._started:
                raise RuntimeError("call reset() before step()")
            return self._step_all(acts)

    def _step_all(self, acts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        if self._native_opponents:  # the learners' moves and the opponents' in one C++ call
            self._learner_step(acts)
        else:
            self._reward[:] = 0.0
            self._terminated[:] = False
            self._step(acts)
            self._play_opponents()
        return (self._observation(), self._reward.copy(), self._terminated.copy(), np.zeros(self.num_envs, dtype=bool),
                self._infos(final=True))

    # -- the games ------------------------------------------------------------------------

    def _draw(self, i: int) -> list[Agent]:
        """Game ``i``'s opponents for its next game, from the sampler (see the module docstring)."""
        assert self._sampler is not None
        rng = np.random.default_rng([self._seed, i, int(self._episodes[i])])
        k = self.env.num_players
        specs = check_opponents(self._sampler(rng), k, self.game_spec.name)
        seeds = rng.integers(2**63, size=k - 1).tolist()
        return [build_opponent(o, s, self.game_spec.name) for o, s in zip(specs, seeds)]

    def _learner_step(self, actions: np.ndarray | None) -> None:
        self.env.learner_step(actions, self.learner_seats, self._reward, self._done_bytes, self._final_obs)
        np.copyto(self._terminated, self._done_bytes.view(bool))

    def _step(self, actions: np.ndarray) -> None:
        env = self.env
        env.step(actions, self.learner_seats, self._final_obs)
        done = env.done
        if done.any():
            rows = np.flatnonzero(done)
            self._reward[rows] = env.rewards[rows, self.learner_seats[rows]]
            self._terminated[rows] = True
            self._final_scores[rows] = env.scores[rows, :env.num_players]
            if self._sampler is not None:  # the games dealt again meet newly drawn opponents
                for i in rows.tolist():
                    self._episodes[i] += 1
                    self._agents[i] = self._draw(i)

    def _play_opponents(self) -> None:
        """Rounds of the agents' moves (every game waiting on an opponent moves once a round) until every game
        waits on its learner (native random opponents move in :meth:`_learner_step` instead)."""
        env = self.env
        k = env.num_players
        while True:
            rows = np.flatnonzero(env.seat != self.learner_seats)
            if not rows.size:
                return
            offsets = (env.seat[rows] - self.learner_seats[rows]) % k - 1  # the opponent's place after the learner
            agents = [self._agents[i][j] for i, j in zip(rows.tolist(), offsets.tolist())]
            decide = group_actions if self.batch_opponents else act_each
            acts = np.full(self.num_envs, SKIP, dtype=np.int64)  # the learners' games wait
            acts[rows] = decide(agents, self._games, rows.tolist())
            self._step(acts)

    def _observation(self) -> np.ndarray:
        np.copyto(self._obs, self.env.obs)
        return self._obs.copy()

    def _infos(self, final: bool) -> dict[str, Any]:
        infos: dict[str, Any] = {"action_mask": self.env.mask.copy(), "learner_seat": self.learner_seats.copy()}
        if final and self._terminated.any():
            infos["final_obs"] = self._final_obs.copy()
            infos["_final_obs"] = self._terminated.copy()
            if not self._native_opponents:  # the native random path reports the learner's reward only
                infos["final_scores"] = self._final_scores.copy()
                infos["_final_scores"] = self._terminated.copy()
        return infos

    def set_opponents(self, sampler: OpponentSampler) -> None:
        """Draw the opponents of every game dealt from now on with ``sampler`` (the games under way keep theirs);
        as the single-agent environment's ``set_opponents(sampler=...)``, which a trainer calls when its pool
        grows."""
        if self._sampler is None:
            raise ValueError("set_opponents needs a GymVectorEnv made with an opponent_sampler")
        fitted = fitted_sampler(sampler, self.env.num_players)
        with self.lock:
            self._sampler = fitted

    def action_masks(self) -> np.ndarray:
        """The learners' masks now (int8 ``(N, num_actions)``), as sb3-contrib's masking asks for them."""
        with self.lock:
            return self.env.mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Free the native games (after a step under way in another thread); later calls raise ``RuntimeError``."""
        with self.lock:
            self.env.close()


class _Waiting:
    """A :class:`GymVectorEnv`'s games as the agents' ``act_group`` reads them
    (:class:`~five_towers_env.core.agent.WaitingGames`): rows are game indices, the seat on move each game's."""

    def __init__(self, env: VectorGameEnv, spec: GameSpec) -> None:
        self.env, self.spec = env, spec
        self.game, self.num_players, self.variant = spec.name, env.num_players, env.variant

    def observations(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        return self.env.obs[rows], self.env.mask[rows]

    def inputs(self, row: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        env, seat = self.env, int(self.env.seat[row])
        observation = {"observation": env.obs[row], "action_mask": env.mask[row]}
        return observation, self.spec.agent_info(env.state(row), seat)

    def native_views(self, rows: Sequence[int]) -> list[Any]:
        return self.env.native_states(rows)


def make_vector(num_envs: int = 1, **kwargs: Any) -> GymVectorEnv:
    """The ``vector_entry_point`` of every Gymnasium id of a game with a native core."""
    return GymVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["GymVectorEnv", "make_vector"]
