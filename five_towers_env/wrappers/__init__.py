"""Wrappers: a single-agent Gymnasium environment and a structured (dict) observation.

* :class:`FiveTowersGymEnv`: one learner seat against opponent agents, a ``gymnasium.Env``
  with ``action_masks()`` for sb3-contrib's ``MaskablePPO``; :class:`CampanileGymEnv` the same for
  Campanile, both :class:`SingleAgentGymEnv` (game-neutral, ``game=``) with the game filled in;
  :func:`make_env` is a picklable factory for SB3 vectorized environments.
* :class:`DictObservationWrapper`: PettingZoo AEC wrapper giving ``gymnasium.spaces.Dict``
  observations (:func:`encode_dict`, :func:`dict_observation_space`, :func:`dict_layout_table`).
* :func:`register_gymnasium`: registers ``"five_towers_env/FiveTowers-v0"`` and
  ``"five_towers_env/Campanile-v0"`` with Gymnasium.
"""
from five_towers_env.registration import CAMPANILE_GYMNASIUM_ID, register_gymnasium
from five_towers_env.registration import GYMNASIUM_ID as GYM_ENV_ID
from five_towers_env.wrappers.dict_obs import (
    DictObservationWrapper,
    dict_env,
    dict_layout_table,
    dict_observation_space,
    encode_dict,
    split_flat,
)
from five_towers_env.wrappers.single_agent import CampanileGymEnv, FiveTowersGymEnv, SingleAgentGymEnv, make_env

__all__ = [
    "FiveTowersGymEnv", "CampanileGymEnv", "SingleAgentGymEnv", "make_env", "DictObservationWrapper", "dict_env",
    "dict_layout_table", "dict_observation_space", "encode_dict", "split_flat", "register_gymnasium", "GYM_ENV_ID",
    "CAMPANILE_GYMNASIUM_ID",
]
