"""A structured observation for PettingZoo: :class:`DictObservationWrapper` and :func:`dict_env`.

The encoding itself lives in :mod:`five_towers_env.games.five_towers.dict_observation` (so that
``raw_env(observation="dict")`` can use it); its names are re-exported here: ``encode_dict(game,
observer)`` builds one observation, ``dict_observation_space()`` is its space and
``dict_layout_table()`` documents every key in Markdown. :class:`DictObservationWrapper` makes a
whole observation the dict (``action_mask`` one of its keys), where ``raw_env(observation="dict")``
keeps PettingZoo's ``{"observation": ..., "action_mask": ...}`` with the dict as ``"observation"``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from five_towers_env.games.five_towers.dict_observation import (
    ACTION_MASK_MEANING,
    dict_layout_table,
    dict_observation_space,
    encode_dict,
    split_flat,
)
from five_towers_env.games.five_towers.observation import SeatCache


class DictObservationWrapper(BaseWrapper):
    """A PettingZoo AEC wrapper that replaces ``observe()`` / ``observation_space()`` of the five
    towers environment (``raw_env`` or any wrapper around it) with the structured dict encoding.

    Stack PettingZoo's usual wrappers outside it, as :func:`dict_env` does, so that they see the
    dict's ``action_mask``.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        if not hasattr(env.unwrapped, "game"):
            raise TypeError("DictObservationWrapper needs a five_towers_env environment (raw_env or a wrapper of it)")
        self._space = dict_observation_space()
        self._cache = SeatCache()

    @property
    def observation_spaces(self) -> dict[str, spaces.Space]:
        return dict.fromkeys(self.env.possible_agents, self._space)

    def observation_space(self, agent: str) -> spaces.Space:
        """The same :func:`dict_observation_space` object for every agent."""
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """:func:`encode_dict` for ``agent``'s seat."""
        raw = self.env.unwrapped
        return encode_dict(raw.game, raw.agent_name_mapping[agent], self._cache)


def dict_env(**kwargs: Any) -> AECEnv:
    """Like :func:`five_towers_env.env`, with dict observations: ``raw_env(**kwargs)`` wrapped by
    :class:`DictObservationWrapper` and PettingZoo's illegal-move, bounds and order wrappers."""
    from pettingzoo.utils import wrappers

    from five_towers_env.games.five_towers.aec import raw_env

    e: AECEnv = DictObservationWrapper(raw_env(**kwargs))
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = ["ACTION_MASK_MEANING", "DictObservationWrapper", "dict_env", "dict_layout_table",
           "dict_observation_space", "encode_dict", "split_flat"]
