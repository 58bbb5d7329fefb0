"""The structured observation as a PettingZoo wrapper: :class:`DictObservationWrapper` and :func:`dict_env`.

The encoding lives in :mod:`five_towers_env.games.five_towers.dict_observation` (``encode_dict(game,
observer)``, ``dict_observation_space()``, ``dict_layout_table()``). :class:`DictObservationWrapper` makes a
whole observation the dict (``action_mask`` one of its keys), where ``raw_env(observation="dict")`` keeps
PettingZoo's ``{"observation": ..., "action_mask": ...}`` with the dict as ``"observation"``. The spec
names the wrapper as the observation ``"dict"`` (``SPEC.observations``), which
``SingleAgentGymEnv(observation="dict")`` shows the learner.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper

from five_towers_env.games.five_towers.dict_observation import dict_observation_space, encode_dict
from five_towers_env.games.five_towers.observation import SeatCache


class DictObservationWrapper(BaseWrapper):
    """A PettingZoo AEC wrapper that replaces ``observe()`` / ``observation_space()`` of the 5 Towers
    environment (``raw_env`` or any wrapper around it) with the structured dict encoding.

    Stack PettingZoo's usual wrappers outside it, as :func:`dict_env` does, so that they see the
    dict's ``action_mask``.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        if not hasattr(env.unwrapped, "game"):
            raise TypeError("DictObservationWrapper needs a 5 Towers environment (raw_env or a wrapper of it)")
        self._space = dict_observation_space()
        # the environment's own memo when it has one: a memo serves any number of readers (SeatCache)
        self._cache = getattr(env.unwrapped, "_seat_cache", None) or SeatCache()

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
    """Like :func:`five_towers_env.games.five_towers.env`, with dict observations: ``raw_env(**kwargs)``
    wrapped by :class:`DictObservationWrapper` and PettingZoo's illegal-move, bounds and order wrappers."""
    from pettingzoo.utils import wrappers

    from five_towers_env.games.five_towers.aec import raw_env

    e: AECEnv = DictObservationWrapper(raw_env(**kwargs))
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = ["DictObservationWrapper", "dict_env"]
