"""A one-ply greedy Campanile player: its score as if the game ended after the action."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.core.agent import AgentBase, WaitingGames, best_after, legal_actions
from five_towers_env.games.campanile.agents import native
from five_towers_env.games.campanile.state import CampanileState


class GreedyAgent(AgentBase):
    """Takes the legal action after which its own score margin, as if the game ended now, is best.

    The key is ``(own score - best other score, own score)`` on a copy of the public view after
    the action (SPEC C4 ``scores()``); ties are broken at random with the agent's own seeded
    generator. It never looks past its own action: it raises whatever tower ranks its chips
    higher now and bets a chip wherever that gains points at once.

    Where the native core is active it decides in C++ (:mod:`.native`: the same moves and draws); set
    ``native`` to False to decide in Python whatever the backend.
    """

    def __init__(self, seed: int | None = None, name: str = "greedy") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.native = True

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Choose a legal action id (see the class docstring)."""
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        view: CampanileState = info["view"]
        seat = int(info["seat"])
        if self.native and (action := native.greedy_action(view, seat, legal, self.rng)) is not None:
            return action
        return best_after(view, legal, lambda child: _margin_key(child.scores(), seat), self.rng)

    @classmethod
    def act_group(cls, agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """Every agent's :meth:`act` for its game in one compiled call where the native core is active
        (:func:`.native.greedy_group`: the same moves and draws), else one game at a time."""
        chosen = native.greedy_group(agents, games, rows)
        return chosen if chosen is not None else super().act_group(agents, games, rows)


def _margin_key(scores: list[int], seat: int) -> tuple[int, int]:
    """(own score minus the best other score, own score)."""
    return scores[seat] - max(v for p, v in enumerate(scores) if p != seat), scores[seat]

__all__ = ["GreedyAgent"]
