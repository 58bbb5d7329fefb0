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
  name of the game (``"heuristic"``, ``"ppo"``, ``"mcts:simulations=50"``, ...) or :class:`Agent` object
  plays through Python on each game's public view, as in the single-agent environment.
- **Autoreset.** Same-step (``metadata["autoreset_mode"]``): a game that ends is dealt again at once, the
  observation returned is the new game's first, and the learner's last observation of the finished game is
  in ``infos["final_obs"]`` (rows of the games with ``infos["_final_obs"]`` set).
- **Seeds.** ``reset(seed=s)`` deals game ``i`` from ``default_rng(s + i)`` and seeds the opponents from ``s``.

It needs Gymnasium 1.0 or newer (its ``VectorEnv`` API and ``make_vec``); on older releases the ids have no
vector entry point and making a :class:`GymVectorEnv` says so.
"""
from __future__ import annotations

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

from five_towers_env.agents.registry import agent_class, make_agent_from_text, parse_agent_text
from five_towers_env.core.agent import Agent, RandomAgent
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.vector_env import RANDOM, SKIP, VectorGameEnv

OpponentSpec = str | Agent


class GymVectorEnv(VectorEnv):
    """``num_envs`` games, one learner seat each, the opponents inside ``step()`` (see the module docstring).

    Args:
        num_envs: how many games.
        game: the game's registry name or spec (it must have a native core).
        num_players: the setup's player count.
        variant: the setup's variant (default: the game's first).
        opponents: one agent name or object for every opponent seat, or ``num_players - 1`` of them in
            seat order after the learner; default ``"random"`` (native).
        learner_seat: the learner's seat in every game; default: game ``i``'s is ``i % num_players``.
        **options: the game's own settings (Campanile ``bet_chip``; ``explicit``).
    """

    metadata = {"autoreset_mode": _SAME_STEP}

    def __init__(self, num_envs: int = 1, game: str | GameSpec = DEFAULT_GAME, num_players: int = 2,
                 variant: str | None = None, opponents: OpponentSpec | Sequence[OpponentSpec] = "random",
                 learner_seat: int | None = None, **options: Any) -> None:
        if _SAME_STEP is None:
            raise RuntimeError(f"the Gymnasium vector environment needs gymnasium>=1.0, found {gymnasium.__version__}")
        spec = get_game(game)
        self.game_spec = spec
        self.env = VectorGameEnv(spec, num_envs, num_players, variant, **options)
        self.num_envs = self.env.num_envs
        n, k = self.num_envs, self.env.num_players
        if learner_seat is not None and (isinstance(learner_seat, bool)
                                         or not isinstance(learner_seat, (int, np.integer))
                                         or not 0 <= learner_seat < k):
            raise ValueError(f"learner_seat must be None or a seat 0..{k - 1}, got {learner_seat!r}")
        self.learner_seats = (np.full(n, learner_seat, dtype=np.int32) if learner_seat is not None
                              else (np.arange(n) % k).astype(np.int32))
        self._opponent_specs = self._check_opponents(opponents, k)
        self._native_opponents = all(self._uniform_random(o) for o in self._opponent_specs)
        self._agents: list[list[Agent]] = []
        self.single_observation_space = spaces.Box(low=-1.0, high=2.0, shape=(self.env.observation_size,),
                                                   dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self._final_obs = np.zeros_like(self.env.obs)
        self._obs = np.zeros_like(self.env.obs)
        self._reward = np.zeros(n, dtype=np.float32)
        self._terminated = np.zeros(n, dtype=bool)
        self._done_bytes = np.zeros(n, dtype=np.uint8)
        self._started = False

    def _check_opponents(self, opponents: Any, k: int) -> list[OpponentSpec]:
        if isinstance(opponents, (str, Agent)):
            opponents = [opponents] * (k - 1)
        opponents = list(opponents)
        if len(opponents) != k - 1:
            raise ValueError(f"{k} players need {k - 1} opponents, got {len(opponents)}")
        for o in opponents:
            if isinstance(o, str):
                parse_agent_text(o, game=self.game_spec.name)
            elif not isinstance(o, Agent):
                raise TypeError(f"an opponent must be an agent name or an Agent, got {o!r}")
        return opponents

    def _uniform_random(self, opponent: OpponentSpec) -> bool:
        """Whether ``opponent`` names the uniform random agent without settings: the native core draws its moves."""
        if not isinstance(opponent, str):
            return False
        name, settings = parse_agent_text(opponent, game=self.game_spec.name)
        return not settings and agent_class(name, game=self.game_spec.name) is RandomAgent

    # -- gymnasium API --------------------------------------------------------------------

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal every game again (game ``i`` from ``default_rng(seed + i)``) and play the opponents up to
        each learner's first decision."""
        if isinstance(seed, (list, tuple)):
            seed = seed[0] if seed else None
        if options:
            raise ValueError("GymVectorEnv.reset takes no options")
        self.env.reset(seed)
        base = int(seed) if seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        if not self._native_opponents:
            self._agents = [[self._build(o, base * 7919 + i * 11 + j) for j, o in enumerate(self._opponent_specs)]
                            for i in range(self.num_envs)]
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
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
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

    def _build(self, spec: OpponentSpec, seed: int) -> Agent:
        if isinstance(spec, str):
            return make_agent_from_text(spec, seed=seed % 2**63, game=self.game_spec.name)
        return spec

    def _learner_step(self, actions: np.ndarray | None) -> None:
        env = self.env
        env._core.learner_step(actions, self.learner_seats, self._reward, self._done_bytes, self._final_obs)
        np.copyto(self._terminated, self._done_bytes.view(bool))
        env._core.write(env.obs, env.mask, env.seat)

    def _step(self, actions: np.ndarray) -> None:
        env = self.env
        env.step(actions, self.learner_seats, self._final_obs)
        done = env.done
        if done.any():
            rows = np.flatnonzero(done)
            self._reward[rows] = env.rewards[rows, self.learner_seats[rows]]
            self._terminated[rows] = True

    def _play_opponents(self) -> None:
        env = self.env
        while True:
            waiting = env.seat != self.learner_seats
            if not waiting.any():
                return
            if self._native_opponents:
                acts = np.where(waiting, RANDOM, SKIP)
            else:
                acts = np.full(self.num_envs, SKIP, dtype=np.int64)
                for i in np.flatnonzero(waiting):
                    acts[i] = self._opponent_action(int(i))
            self._step(acts)

    def _opponent_action(self, i: int) -> int:
        env = self.env
        seat = int(env.seat[i])
        k = env.num_players
        agent = self._agents[i][(seat - int(self.learner_seats[i])) % k - 1]
        state = env.state(i)
        observation = {"observation": env.obs[i], "action_mask": env.mask[i]}
        return int(agent.act(observation, self.game_spec.agent_info(state, seat)))

    def _observation(self) -> np.ndarray:
        np.copyto(self._obs, self.env.obs)
        return self._obs.copy()

    def _infos(self, final: bool) -> dict[str, Any]:
        infos: dict[str, Any] = {"action_mask": self.env.mask.copy(), "learner_seat": self.learner_seats.copy()}
        if final and self._terminated.any():
            infos["final_obs"] = self._final_obs.copy()
            infos["_final_obs"] = self._terminated.copy()
        return infos

    def action_masks(self) -> np.ndarray:
        """The learners' masks now (int8 ``(N, num_actions)``), as sb3-contrib's masking asks for them."""
        return self.env.mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""


def make_vector(num_envs: int = 1, **kwargs: Any) -> GymVectorEnv:
    """The ``vector_entry_point`` of every Gymnasium id of a game with a native core."""
    return GymVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["GymVectorEnv", "make_vector"]
