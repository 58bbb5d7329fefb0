"""Wrappers: the single-agent Gymnasium environment of every game.

* :class:`SingleAgentGymEnv`: one learner seat against opponent agents in any registered game
  (``game=``), a ``gymnasium.Env`` with ``action_masks()`` for sb3-contrib's ``MaskablePPO``;
  :func:`make_env` is a picklable factory for SB3 vectorized environments.
* :func:`register_gymnasium`: registers every game's Gymnasium id (``GameSpec.gymnasium_id``; the
  default game's is :data:`GYM_ENV_ID`), each making a :class:`SingleAgentGymEnv` of its game.

A game's other observations (5 Towers' structured ``"dict"``) are its own, named by its spec
(``GameSpec.observations``) and chosen with ``SingleAgentGymEnv(observation=...)``.
"""
from five_towers_env.core.builtin_games import BUILTIN_GAMES, DEFAULT_GAME
from five_towers_env.registration import register_gymnasium
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv, make_env

#: the Gymnasium id of the default game (every game's is its spec's ``gymnasium_id``)
GYM_ENV_ID = BUILTIN_GAMES[DEFAULT_GAME].gymnasium_id

__all__ = ["SingleAgentGymEnv", "make_env", "register_gymnasium", "GYM_ENV_ID"]
