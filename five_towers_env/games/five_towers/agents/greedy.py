"""A one-step greedy baseline.

* Bid: the highest bid it may legally make (the masks guarantee it can carry it out).
* Take / teardown / build / recover: the legal action after which its own score
  (``scores()[seat]`` on a copy of the public view) is highest; ties go to the action that
  keeps its tower tops highest, then to a random one (its own seeded generator).

It never looks further than one action, so it takes every card it can, tears down only when
the masks leave no other choice (a teardown lowers the score at once) and grabs every 0.

Where the native core is active it decides in C++ (:mod:`.native`: the same moves and draws); set
``native`` to False to decide in Python whatever the backend.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.core.agent import AgentBase, WaitingGames, best_after, legal_actions
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents import native
from five_towers_env.games.five_towers.state import GameState, Phase


def _tops_key(towers: tuple) -> int:
    """Sum of the top values of the open (non-empty, not topped) towers: higher keeps more cards placeable."""
    return sum(tw[-1] for tw in towers if tw)


class GreedyAgent(AgentBase):
    """Bids as high as it legally can; otherwise maximises its immediate score."""

    def __init__(self, seed: int | None = None, name: str = "greedy") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.native = True

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """Choose a legal action id (see the module docstring)."""
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        view: GameState = info["view"]
        seat = int(info["seat"])
        if view.phase == Phase.BID:
            bids = [a for a in legal if A.BID <= a <= A.BID + A.MAX_BID]
            return int(max(bids)) if bids else int(legal[0])
        if self.native and (action := native.greedy_action(view, seat, legal, self.rng)) is not None:
            return action
        return best_after(view, legal, lambda child: (child.scores()[seat], _tops_key(child.towers[seat])), self.rng)

    @classmethod
    def act_group(cls, agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """Every agent's :meth:`act` for its game in one compiled call where the native core is active
        (:func:`.native.greedy_group`: the same moves and draws), else one game at a time."""
        chosen = native.greedy_group(agents, games, rows)
        return chosen if chosen is not None else super().act_group(agents, games, rows)

__all__ = ["GreedyAgent"]
