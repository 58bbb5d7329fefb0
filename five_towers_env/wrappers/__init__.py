"""Wrappers: a single-agent Gymnasium environment and a structured (dict) observation.

* :class:`FiveTowersGymEnv`: one learner seat against opponent agents, a ``gymnasium.Env``
  with ``action_masks()`` for sb3-contrib's ``MaskablePPO``; :func:`make_env` is a picklable
  factory for SB3 vectorized environments.
* :class:`DictObservationWrapper`: PettingZoo AEC wrapper giving ``gymnasium.spaces.Dict``
  observations (:func:`encode_dict`, :func:`dict_observation_space`, :func:`dict_layout_table`).
* :func:`register_gymnasium`: registers ``"five_towers_env/FiveTowers-v0"`` with Gymnasium.
"""
from .dict_obs import (
    DictObservationWrapper, dict_env, dict_layout_table, dict_observation_space, encode_dict, split_flat,
)
from .single_agent import FiveTowersGymEnv, make_env
from ..registration import GYMNASIUM_ID as GYM_ENV_ID, register_gymnasium

__all__ = [
    "FiveTowersGymEnv", "make_env", "DictObservationWrapper", "dict_env", "dict_layout_table",
    "dict_observation_space", "encode_dict", "split_flat", "register_gymnasium", "GYM_ENV_ID",
]
