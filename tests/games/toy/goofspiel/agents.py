"""Goofspiel's own agent, :class:`MatchAgent` (``mcts``, ``net``, ``guided`` and ``openspiel-ismcts`` come
with the contract: :class:`~five_towers_env.core.game.GameSpec`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .actions import bid_action
from .state import GoofState


class MatchAgent:
    """Bids the card whose rank among its own cards is the prize's rank among the prizes still to come
    (its best card for the best prize, its worst for the worst)."""

    def __init__(self, seed: int | None = None, name: str = "match") -> None:
        self.name = name  # deterministic: the seed is not needed

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The matching bid (a seat on move holds one card per prize still to come)."""
        view: GoofState = info["view"]
        prizes = sorted((*view.deck, view.prize))
        return bid_action(view.hands[info["seat"]][prizes.index(view.prize)])


__all__ = ["MatchAgent"]
