"""The fingerprint of whole games both games' fingerprint tests take: seeded random play through a
raw AEC environment, hashing everything an agent sees."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


def fingerprint(make_env: Callable[..., Any], setups: Iterable[tuple[dict[str, Any], int, int]]) -> str:
    """sha256 of every (agent, observation bytes, mask bytes, reward, action) of the games of each setup
    ``(env kwargs, number of games, action seed)``, played with uniform random legal actions."""
    digest = hashlib.sha256()
    for kwargs, games, action_seed in setups:
        env = make_env(**kwargs)
        rng = np.random.default_rng(action_seed)
        for g in range(games):
            env.reset(seed=g)
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                digest.update(agent.encode())
                digest.update(obs["observation"].tobytes())
                digest.update(obs["action_mask"].tobytes())
                digest.update(np.float64(reward).tobytes())
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(legal.size)])
                    digest.update(action.to_bytes(2, "little"))
                env.step(action)
    return digest.hexdigest()
