"""A game's rule-based agents deciding for many games in one compiled call: the game-neutral half of their
``act_group`` (:meth:`~five_towers_env.core.agent.AgentBase.act_group`).

A game's native agents module supplies the compiled batched call and which agents and states it takes; these
functions do the rest, the same for every game: fetch the games' compiled public views, group the agents by
their weights, pass each agent's generator words and write back what the call drew, and answer None wherever
the agents' ``act`` is to decide instead (the Python path, which the compiled one equals move for move).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from five_towers_env.core.agent import WaitingGames, rounds
from five_towers_env.core.native import set_generator_words, words_of_generator


def native_views(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int], state_type: type,
                 active: bool = True) -> list[Any] | None:
    """The games' compiled public views, or None where the agents' ``act`` is to decide: the native core not
    ``active``, an agent with ``native`` False, games whose states are not ``state_type`` (another game's)."""
    if not active or not all(a.native for a in agents):
        return None
    views = games.native_views(rows)
    if views is None or not all(type(v) is state_type for v in views):
        return None
    return views


def drawing_group(agents: Sequence[Any], views: list[Any] | None, batched: Callable[..., Any],
                  refused: tuple[type[BaseException], ...]) -> np.ndarray | None:
    """``agents[j]``'s choice on ``views[j]`` by ``batched(views, rng_words) -> (actions, words after)``, each
    agent drawing from its own generator (``agent.rng``), which is left as its ``act`` leaves it. Rows sharing
    a generator (one agent seated in several games) go into successive calls, so that it draws for them in row
    order. None where ``act`` decides instead: no views, a generator that is not numpy's default (PCG64), or a
    call ``refused`` before anything was drawn."""
    if views is None:
        return None
    try:
        for agent in agents:
            words_of_generator(agent.rng)  # ValueError for a generator that is not numpy's default (PCG64)
    except ValueError:
        return None
    out = np.empty(len(agents), dtype=np.int64)
    for k, members in enumerate(rounds(agents, key=lambda a: id(a.rng))):
        try:
            actions, after = batched([views[j] for j in members], [words_of_generator(agents[j].rng) for j in members])
        except refused:
            if k == 0:  # nothing drawn yet: act decides for all
                return None
            raise
        for j, action, words in zip(members, actions, after):
            out[j] = action
            set_generator_words(agents[j].rng, words)  # as act leaves it (unchanged where nothing was drawn)
    return out


def weighted_group(agents: Sequence[Any], views: list[Any] | None, weights: Callable[[Any], dict[str, Any]],
                   batched: Callable[..., Any], refused: tuple[type[BaseException], ...]) -> np.ndarray | None:
    """``agents[j]``'s choice on ``views[j]`` by ``batched(views, **weights)``, one call per set of ``weights``
    (the agents draw nothing). None where ``act`` decides instead: no views, or a call ``refused``."""
    if views is None:
        return None
    groups: dict[tuple[tuple[str, Any], ...], list[int]] = {}
    for j, agent in enumerate(agents):
        groups.setdefault(tuple(sorted(weights(agent).items())), []).append(j)
    out = np.empty(len(agents), dtype=np.int64)
    for key, members in groups.items():
        try:
            out[members] = batched([views[j] for j in members], **dict(key))
        except refused:
            return None  # nothing drawn: act may decide for all
    return out


__all__ = ["drawing_group", "native_views", "weighted_group"]
