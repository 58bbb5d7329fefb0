"""Many games' opponent turns driven side by side, so that one policy network decides for all of them.

:meth:`~five_towers_env.wrappers.SingleAgentGymEnv.reset_turns` and
:meth:`~five_towers_env.wrappers.SingleAgentGymEnv.step_turns` are generators that yield
``(opponent, seat)`` for each opponent decision. :func:`drive_turns` runs the generators of many games
at once: an opponent with an ``act_batch`` method (a :class:`~five_towers_env.agents.policy.PolicyAgent`)
decides for every game waiting on it in one pass, every other opponent decides on its own, as in
``env.step``. It needs neither SB3 nor torch: :mod:`.vec_env` (training) and :func:`play_batched`
(evaluation) build on it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from five_towers_env.wrappers.single_agent import SingleAgentGymEnv, Turns


def drive_turns(envs: Sequence[SingleAgentGymEnv], turns: Mapping[int, Turns]) -> dict[int, Any]:
    """Run the turn generator ``turns[i]`` of each game ``envs[i]`` to its end; return their results by index."""
    results: dict[int, Any] = {}
    waiting: dict[int, tuple[Any, int]] = {}

    def advance(i: int, action: int | None) -> None:
        try:
            waiting[i] = turns[i].send(action) if action is not None else next(turns[i])
        except StopIteration as end:
            waiting.pop(i, None)
            results[i] = end.value

    for i in turns:
        advance(i, None)
    while waiting:
        batches: dict[int, list[int]] = {}
        decided: list[tuple[int, int]] = []
        for i, (agent, seat) in waiting.items():
            if callable(getattr(agent, "act_batch", None)):
                batches.setdefault(id(agent), []).append(i)
            else:
                decided.append((i, int(agent.act(*envs[i].opponent_input(seat)))))
        for members in batches.values():
            agent = waiting[members[0]][0]
            views = [envs[i].opponent_observation(waiting[i][1]) for i in members]
            actions = agent.act_batch(np.stack([v["observation"] for v in views]),
                                      np.stack([v["action_mask"] for v in views]),
                                      rngs=[envs[i].opponent_rng(waiting[i][1]) for i in members])
            decided += [(i, int(a)) for i, a in zip(members, actions)]
        for i, action in sorted(decided):
            advance(i, action)
    return results


def play_batched(agent: Any, envs: Sequence[SingleAgentGymEnv], seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Play one game per seed (``env.reset(seed=s)``) with ``agent`` (it has ``act_batch``) in the learner's
    seat, ``len(envs)`` games at a time, the agent deciding for all of them in one pass per step.
    Returns each game's last ``info``, in the order of ``seeds``."""
    queue = list(enumerate(seeds))
    playing: dict[int, int] = {}  # env index -> game index
    finals: list[dict[str, Any]] = [{} for _ in seeds]
    obs: dict[int, np.ndarray] = {}

    def start(slots: list[int]) -> None:
        turns = {}
        for i in slots:
            if queue:
                game, seed = queue.pop(0)
                playing[i] = game
                turns[i] = envs[i].reset_turns(seed=seed)
            else:
                playing.pop(i, None)
        for i, (o, _) in drive_turns(envs, turns).items():
            obs[i] = o

    start(list(range(len(envs))))
    while playing:
        slots = sorted(playing)
        masks = np.stack([envs[i].action_masks() for i in slots])
        actions = agent.act_batch(np.stack([obs[i] for i in slots]), masks)
        results = drive_turns(envs, {i: envs[i].step_turns(int(a)) for i, a in zip(slots, actions)})
        ended = []
        for i in slots:
            o, _, terminated, truncated, info = results[i]
            obs[i] = o
            if terminated or truncated:
                finals[playing[i]] = info
                ended.append(i)
        start(ended)
    return finals
