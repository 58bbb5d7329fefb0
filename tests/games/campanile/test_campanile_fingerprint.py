"""A fingerprint of whole Campanile games: trajectories, observations, masks and rewards over seeded
random play, in every setup.

The digest was computed with the code from before the game contract (173ce4e, when Campanile lived
in ``five_towers_env.campanile``) and is the same after the move: the rules and the observation did
not change. It must never change unless they do on purpose.
"""
from __future__ import annotations

import hashlib

import numpy as np

from five_towers_env.games.campanile import raw_env

#: sha256 of every (agent, observation bytes, mask bytes, reward, action) of the games below
EXPECTED = "ec1c9b73259acc9131c28e8c6fcd1d3f6eece82f4a57dcbe344afd965b5f922c"

#: (variant, players, games, bet_chip): both variants, 2-5 players, both chip rules
GAMES = [(v, n, 25, "at_least" if n % 2 else "exact") for v in ("pile", "played") for n in (2, 3, 4, 5)]


def fingerprint() -> str:
    """Play the seeded games with uniform random legal actions and hash everything an agent sees."""
    digest = hashlib.sha256()
    for variant, n, games, chip in GAMES:
        env = raw_env(num_players=n, variant=variant, bet_chip=chip)
        rng = np.random.default_rng(n * 1000 + len(variant))
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


def test_games_are_unchanged():
    assert fingerprint() == EXPECTED
