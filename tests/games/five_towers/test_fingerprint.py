"""A fingerprint of whole games: trajectories, observations and masks over seeded random play.

The digest below was computed before the Great Powers look-ahead was rewritten (issue 15) and
must never change unless the rules or the observation layout change on purpose: a faster
engine has to play exactly the same games, seat by seat, observation by observation.
"""
from __future__ import annotations

import hashlib

import numpy as np

from five_towers_env.games.five_towers import raw_env

#: sha256 of every (agent, observation bytes, mask bytes, reward, action) of the games below
EXPECTED = "cd49006dbdcb08e791693e4a30af381a34666748eb63f79198cc866477a30f8e"

#: (variant, players, games, explicit): a few hundred seeded games over every setup
GAMES = [("base", n, 30, n == 3) for n in (2, 3, 4, 5)] + [("great_powers", n, 20, n == 2) for n in (2, 3, 4, 5)]


def fingerprint() -> str:
    """Play the seeded games with uniform random legal actions and hash everything an agent sees."""
    digest = hashlib.sha256()
    for variant, n, games, explicit in GAMES:
        env = raw_env(num_players=n, variant=variant, explicit=explicit)
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
