"""Training environments stepped together, with the opponents' policy networks asked once per batch.

:class:`SelfPlayVecEnv` is an SB3 ``VecEnv`` of ``n`` :class:`~five_towers_env.wrappers.SingleAgentGymEnv`
games in one process. It does what ``DummyVecEnv`` over ``Monitor(ShapedReward(env))`` does (the
same observations, rewards, ``info`` keys, automatic resets and episode statistics) but drives the
games' turn generators (:meth:`~five_towers_env.wrappers.SingleAgentGymEnv.step_turns`) side by side
(:func:`~.turns.drive_turns`):
an opponent with an ``act_batch`` method (a snapshot :class:`~five_towers_env.agents.policy.PolicyAgent`)
decides for all the games waiting on it in one network pass instead of one pass per decision;
every other opponent decides on its own, as in ``env.step``.

:class:`ProcessVecEnv` splits the games over worker processes, each holding a ``SelfPlayVecEnv``,
so that the opponents of different games run on different cores while the trainer waits. :class:`Helpers`
are the same worker processes without games, for a run whose training games stay in the trainer's process
(``vector_env: native``): they play its evaluation games and the warm start's teacher games (``map``).

Both are game-neutral: they know the games only through ``SingleAgentGymEnv``.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from five_towers_env.numerics import one_blas_thread
from five_towers_env.training.ppo.turns import drive_turns
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

#: the reward shaping of a training environment: ``(reward, terminated, info) -> reward``
Shaping = Callable[[float, bool, dict[str, Any]], float]


def _no_shaping(reward: float, terminated: bool, info: dict[str, Any]) -> float:
    return reward


class SelfPlayVecEnv(VecEnv):
    """``n`` single-agent games in this process, stepped together (see the module docstring).

    Args:
        envs: the games (``SingleAgentGymEnv`` objects of one game and setup).
        shaping: ``(reward, terminated, info) -> reward``, applied to every step's reward as a
            ``gymnasium.Wrapper`` around each game would (:class:`~.reward.ShapedReward`).
    """

    def __init__(self, envs: Sequence[SingleAgentGymEnv], shaping: Shaping = _no_shaping) -> None:
        self.envs = list(envs)
        first = self.envs[0]
        super().__init__(len(self.envs), first.observation_space, first.action_space)
        self.shaping = shaping
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)
        self._start = time.time()

    # -- the VecEnv API ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start every game (with the seeds and options given by ``seed()`` / ``set_options()``)."""
        turns = {i: env.reset_turns(seed=self._seeds[i], **self._option_kwargs(i)) for i, env in enumerate(self.envs)}
        results = drive_turns(self.envs, turns)
        self.reset_infos = [results[i][1] for i in range(self.num_envs)]
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._reset_seeds()
        self._reset_options()
        return np.stack([results[i][0] for i in range(self.num_envs)])

    def _option_kwargs(self, i: int) -> dict[str, Any]:
        return {"options": self._options[i]} if self._options[i] else {}

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the learner's actions and the opponents' turns of every game; restart finished games."""
        assert self._actions is not None, "step_async() first"
        steps = drive_turns(self.envs, {i: env.step_turns(self._actions[i]) for i, env in enumerate(self.envs)})
        obs = [steps[i][0] for i in range(self.num_envs)]
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = []
        for i in range(self.num_envs):
            _, reward, terminated, truncated, info = steps[i]
            reward = self.shaping(reward, terminated, info)
            rewards[i], dones[i] = reward, terminated or truncated
            self._returns[i] += reward
            self._lengths[i] += 1
            if dones[i]:
                info["episode"] = {"r": float(self._returns[i]), "l": int(self._lengths[i]),
                                   "t": round(time.time() - self._start, 6)}
                info["TimeLimit.truncated"] = truncated and not terminated
                info["terminal_observation"] = obs[i]
                self._returns[i], self._lengths[i] = 0.0, 0
            infos.append(info)
        finished = [i for i in range(self.num_envs) if dones[i]]
        restarts = drive_turns(self.envs, {i: self.envs[i].reset_turns() for i in finished})
        for i in finished:
            obs[i], self.reset_infos[i] = restarts[i]
        self._actions = None
        return np.stack(obs), rewards, dones, infos

    def close(self) -> None:
        """Nothing to release."""

    def _targets(self, indices: Any) -> list[SingleAgentGymEnv]:
        return [self.envs[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(env, attr_name) for env in self._targets(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for env in self._targets(indices):
            setattr(env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        return [getattr(env, method_name)(*method_args, **method_kwargs) for env in self._targets(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._targets(indices)]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(n, num_actions)`` bool."""
        return np.stack([env.action_masks() for env in self.envs])


# -- worker processes ----------------------------------------------------------------------------

def _worker(conn: Any, make: Callable[[], SelfPlayVecEnv]) -> None:
    # Ctrl-C in a terminal reaches the whole process group: the trainer, not a worker, must handle it
    # (it saves a checkpoint, then ends the workers); SIGTERM is left alone so that exiting never hangs
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_blas_thread()
    venv = make()
    while True:
        command, args = conn.recv()
        if command == "close":
            conn.close()
            return
        if command == "step":  # the learner's next masks come along: MaskablePPO asks for them every step
            venv.step_async(args)
            conn.send((*venv.step_wait(), venv.action_masks()))
        elif command == "reset":
            seeds, options = args
            venv._seeds, venv._options = seeds, options
            conn.send((venv.reset(), venv.reset_infos, venv.action_masks()))
        elif command == "call":
            name, method_args, method_kwargs = args
            conn.send(getattr(venv, name)(*method_args, **method_kwargs))
        elif command == "run":
            function, function_args = args
            conn.send(function(*function_args))


def _start_workers(makers: Sequence[Callable[[], Any]]) -> tuple[list[Any], list[Any]]:
    """One worker process per maker (forked where the platform can): the pipes to them and the processes."""
    ctx: Any = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    remotes, processes = [], []
    for make in makers:
        local, remote = ctx.Pipe()
        process = ctx.Process(target=_worker, args=(remote, make), daemon=True)
        process.start()
        remote.close()
        remotes.append(local)
        processes.append(process)
    return remotes, processes


def _map(remotes: Sequence[Any], function: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``[function(*job) for job in jobs]``, the jobs shared out among the workers at ``remotes``, in order."""
    results: list[Any] = [None] * len(jobs)
    for start in range(0, len(jobs), len(remotes)):
        batch = list(enumerate(jobs))[start:start + len(remotes)]
        for remote, (_, job) in zip(remotes, batch):
            remote.send(("run", (function, tuple(job))))
        for remote, (k, _) in zip(remotes, batch):
            results[k] = remote.recv()
    return results


def _close(remotes: Sequence[Any], processes: Sequence[Any]) -> None:
    for remote in remotes:
        remote.send(("close", None))
    for process in processes:
        process.join()


def _no_games() -> None:
    """A helper worker's games: none (it runs jobs only)."""
    return None


class Helpers:
    """``count`` worker processes that hold no games and run jobs (:meth:`map`): the evaluation games and the
    warm start's teacher games of a run whose training games stay in the trainer's process (``vector_env:
    native``), played on other cores while the trainer waits for them. A job's result depends on its
    arguments alone, so they are the results of one process."""

    def __init__(self, count: int) -> None:
        self.remotes, self.processes = _start_workers([_no_games] * count)
        self._closed = False

    def map(self, function: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``[function(*job) for job in jobs]``, the jobs shared out among the workers. ``function`` must be
        picklable."""
        return _map(self.remotes, function, jobs)

    def close(self) -> None:
        """End the workers."""
        if not self._closed:
            self._closed = True
            _close(self.remotes, self.processes)


class ProcessVecEnv(VecEnv):
    """:class:`SelfPlayVecEnv` split over worker processes: ``makers[k]()`` builds worker ``k``'s games.

    Games keep their order: worker 0 holds the first games, worker 1 the next, and so on, so results
    do not depend on the scheduling of the processes."""

    def __init__(self, makers: Sequence[Callable[[], SelfPlayVecEnv]], sizes: Sequence[int],
                 observation_space: Any, action_space: Any) -> None:
        self.num_envs = int(sum(sizes))
        self.bounds = np.cumsum([0, *sizes])
        self.remotes, self.processes = _start_workers(makers)
        self._closed = False
        self._masks: np.ndarray | None = None  # the learner's legal actions after the last step or reset
        super().__init__(self.num_envs, observation_space, action_space)  # asks the workers for render_mode

    def _slices(self) -> list[slice]:
        return [slice(int(a), int(b)) for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def reset(self) -> np.ndarray:
        for remote, part in zip(self.remotes, self._slices()):
            remote.send(("reset", (self._seeds[part], self._options[part])))
        replies = [remote.recv() for remote in self.remotes]
        self.reset_infos = [info for _, infos, _ in replies for info in infos]
        self._masks = np.concatenate([masks for _, _, masks in replies])
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([obs for obs, _, _ in replies])

    def step_async(self, actions: np.ndarray) -> None:
        for remote, part in zip(self.remotes, self._slices()):
            remote.send(("step", np.asarray(actions)[part]))

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        replies = [remote.recv() for remote in self.remotes]
        obs, rewards, dones, infos, masks = zip(*replies)
        self._masks = np.concatenate(masks)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for part in infos for i in part]

    def _call(self, name: str, indices: Any, *args: Any, **kwargs: Any) -> list[Any]:
        """``SelfPlayVecEnv.<name>(..., indices=local)`` in each worker holding one of ``indices``."""
        wanted = set(self._get_indices(indices))
        asked = []
        for remote, part in zip(self.remotes, self._slices()):
            local = [i - part.start for i in range(part.start, part.stop) if i in wanted]
            if local:
                remote.send(("call", (name, args, {**kwargs, "indices": local})))
                asked.append(remote)
        return [value for remote in asked for value in remote.recv()]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return self._call("get_attr", indices, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._masks = None
        self._call("set_attr", indices, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks" and self._masks is not None and indices is None:
            return list(self._masks)  # sent with the last step or reset: no second message per step
        if method_name != "set_opponents":  # that one acts from the next reset on; another may change the games
            self._masks = None
        return self._call("env_method", indices, method_name, *method_args, **method_kwargs)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def map(self, function: Callable[..., Any], jobs: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``[function(*job) for job in jobs]``, the jobs shared out among the workers (which are idle
        between rollouts: the trainer's evaluations run there). ``function`` must be picklable."""
        return _map(self.remotes, function, jobs)

    def has_attr(self, attr_name: str) -> bool:
        """Whether the games have ``attr_name`` (asked of the first worker: every game is alike)."""
        self.remotes[0].send(("call", ("has_attr", (attr_name,), {})))
        return bool(self.remotes[0].recv())

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(n, num_actions)`` bool."""
        if self._masks is not None:
            return self._masks
        for remote in self.remotes:
            remote.send(("call", ("action_masks", (), {})))
        return np.concatenate([remote.recv() for remote in self.remotes])

    def close(self) -> None:
        """End the workers."""
        if self._closed:
            return
        _close(self.remotes, self.processes)
        self._closed = True
