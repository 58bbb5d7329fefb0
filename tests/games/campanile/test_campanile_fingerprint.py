"""A fingerprint of whole Campanile games: trajectories, observations, masks and rewards over seeded
random play, in every setup.

The digest was computed with the code from before the game contract (173ce4e, when Campanile lived
in ``five_towers_env.campanile``) and is the same after the move: the rules and the observation did
not change. It must never change unless they do on purpose.
"""
from __future__ import annotations

from five_towers_env.games.campanile import raw_env

from fingerprints import fingerprint

#: sha256 of every (agent, observation bytes, mask bytes, reward, action) of the games below
EXPECTED = "ec1c9b73259acc9131c28e8c6fcd1d3f6eece82f4a57dcbe344afd965b5f922c"

#: (variant, players, games, bet_chip): both variants, 2-5 players, both chip rules
GAMES = [(v, n, 25, "at_least" if n % 2 else "exact") for v in ("pile", "played") for n in (2, 3, 4, 5)]


def test_games_are_unchanged():
    setups = [({"num_players": n, "variant": v, "bet_chip": chip}, games, n * 1000 + len(v))
              for v, n, games, chip in GAMES]
    assert fingerprint(raw_env, setups) == EXPECTED
