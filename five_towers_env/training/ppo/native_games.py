"""Training games on the native core (``vector_env: native``): an SB3 ``VecEnv`` over Gymnasium vector envs.

:class:`NativeGames` holds the run's ``n_envs`` games in :class:`~five_towers_env.wrappers.gym_vector.GymVectorEnv`
objects, one per setup of the config (game ``i`` plays setup ``i % len(setups)``, as the Python pipeline's
:func:`~five_towers_env.training.ppo.trainer.make_game` lays them out), all in this process: the rules step in
C++ and the opponents, drawn for every new game from the pool's sampler, decide class by class in one call per
round (``act_group``). It gives the trainer what :class:`~.vec_env.SelfPlayVecEnv` gives: the shaped reward
(:func:`~.reward.shape_reward`, from the final scores), ``episode_outcome`` and Monitor's ``episode`` in the
finished games' infos, ``terminal_observation``, ``action_masks()``, and ``env_method("set_opponents",
sampler=...)`` when the pool grows.

With ``subproc`` on and ``env_workers`` of 2 or more, ``env_workers`` helper processes without games
(:class:`~.vec_env.Helpers`, :attr:`NativeGames.helpers`) play the run's evaluation games and the warm start's
teacher games while the trainer waits, as the Python pipeline's environment workers do (the same results as in
one process); the training games themselves always step here.

Two differences from the Python pipeline, neither a difference in what is learned: game ``i``'s learner sits
at seat ``i % num_players`` in every game it plays (the Python games draw a random seat per game: over the
batch every seat is trained either way), and the games' generators are the vector environment's
(``reset(seed=s)`` deals game ``i`` from ``default_rng(s + i)``).
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from five_towers_env.training.ppo.config import TrainConfig
from five_towers_env.training.ppo.reward import shape_reward
from five_towers_env.training.ppo.vec_env import Helpers
from five_towers_env.wrappers.gym_vector import GymVectorEnv


class NativeGames(VecEnv):
    """The run's training games on the native core (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, sampler: Any) -> None:
        setups = cfg.setup_list
        counts = [len(range(s, cfg.n_envs, len(setups))) for s in range(len(setups))]
        self.parts = [GymVectorEnv(count, game=cfg.game, num_players=players, variant=variant,
                                   opponent_sampler=sampler)
                      for (players, variant), count in zip(setups, counts) if count]
        self._bounds = np.cumsum([0] + [p.num_envs for p in self.parts])
        first = self.parts[0]
        super().__init__(int(self._bounds[-1]), first.single_observation_space, first.single_action_space)
        self.shaping = shape_reward(cfg.reward_margin, cfg.tie_reward)
        self.seed_base = cfg.seed
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._start = time.time()
        workers = cfg.env_workers if cfg.subproc else 1
        #: the worker processes that play the evaluations and the teacher games (None: this process plays them)
        self.helpers = Helpers(workers) if workers > 1 else None

    def _slices(self) -> list[slice]:
        return [slice(int(a), int(b)) for a, b in zip(self._bounds[:-1], self._bounds[1:])]

    # -- the VecEnv API ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Deal every game: part ``k``'s from the run's seed (or the one ``seed()`` gave) plus its first game's
        index, so that no two games share a deal."""
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else self.seed_base
        obs = [part.reset(seed=int(seed) + int(start))[0]
               for part, start in zip(self.parts, self._bounds[:-1])]
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """The learners' actions, the opponents' turns, the shaped rewards; finished games are dealt again."""
        assert self._actions is not None, "step_async() first"
        obs_parts, rewards, dones = [], np.zeros(self.num_envs, dtype=np.float32), np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for part, where in zip(self.parts, self._slices()):
            obs, reward, terminated, _, part_infos = part.step(self._actions[where])
            obs_parts.append(obs)
            rewards[where], dones[where] = reward, terminated
            for j in np.flatnonzero(terminated).tolist():
                i = where.start + j
                seat = int(part_infos["learner_seat"][j])
                scores = part_infos["final_scores"][j]
                info = {"phase": "game_over", "learner_seat": seat, "scores": scores,
                        "winners": (scores == scores.max()).astype(np.int8),
                        "terminal_observation": part_infos["final_obs"][j]}
                rewards[i] = self.shaping(float(reward[j]), True, info)
                infos[i] = info
        self._returns += rewards
        self._lengths += 1
        for i in np.flatnonzero(dones).tolist():
            infos[i]["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]),
                                   "t": round(time.time() - self._start, 6)}
            infos[i]["TimeLimit.truncated"] = False
            self._returns[i], self._lengths[i] = 0.0, 0
        self._actions = None
        return np.concatenate(obs_parts), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(n, num_actions)`` bool."""
        return np.concatenate([part.action_masks() for part in self.parts]).astype(bool)

    def set_opponents(self, sampler: Any) -> None:
        """Draw every game's next opponents from ``sampler`` (the pool grew)."""
        for part in self.parts:
            part.set_opponents(sampler)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """``set_opponents`` (for all games) and ``action_masks`` (one row per game), the two the trainer and
        sb3-contrib ask for."""
        if method_name == "set_opponents":
            self.set_opponents(*method_args, **method_kwargs)
            return [None for _ in self._get_indices(indices)]
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"NativeGames has no per-game method {method_name!r}")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """Only ``action_masks`` (by which sb3-contrib recognises an environment that masks) and ``render_mode``
        (None: SB3 asks for it)."""
        if attr_name == "action_masks":
            return [self.action_masks for _ in self._get_indices(indices)]
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        raise AttributeError(f"NativeGames has no per-game attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"NativeGames has no per-game attribute {attr_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        """End the helper processes (the games live in this process)."""
        if self.helpers is not None:
            self.helpers.close()


__all__ = ["NativeGames"]
