"""A fingerprint of whole games: trajectories, observations and masks over seeded random play.

The digest below was computed before the Great Powers look-ahead was rewritten (issue 15) and
must never change unless the rules or the observation layout change on purpose: a faster
engine has to play exactly the same games, seat by seat, observation by observation.
"""
from __future__ import annotations

from five_towers_env.games.five_towers import raw_env

from fingerprints import fingerprint

#: sha256 of every (agent, observation bytes, mask bytes, reward, action) of the games below
EXPECTED = "cd49006dbdcb08e791693e4a30af381a34666748eb63f79198cc866477a30f8e"

#: (variant, players, games, explicit): a few hundred seeded games over every setup
GAMES = [("base", n, 30, n == 3) for n in (2, 3, 4, 5)] + [("great_powers", n, 20, n == 2) for n in (2, 3, 4, 5)]


def test_games_are_unchanged():
    setups = [({"num_players": n, "variant": v, "explicit": explicit}, games, n * 1000 + len(v))
              for v, n, games, explicit in GAMES]
    assert fingerprint(raw_env, setups) == EXPECTED
