"""What a Goofspiel agent may see (:func:`agent_info`), the hidden information redrawn
(:func:`determinize`), and the game's own agent, :class:`MatchAgent`."""
from __future__ import annotations

from typing import Any

import numpy as np

from .actions import action_name, bid_action
from .state import GoofState


def determinize(state: GoofState, observer: int, rng: np.random.Generator) -> GoofState:
    """A copy in which what ``observer`` cannot see is drawn again with ``rng``: each other seat's
    face-down bid (from the cards it has not shown) and the order of the prize deck."""
    new = state.clone()
    for p, bid in enumerate(state.bids):
        if bid and p != observer:
            unshown = sorted((*state.hands[p], bid))
            new.bids[p] = unshown[rng.integers(len(unshown))]
            new.hands[p] = tuple(c for c in unshown if c != new.bids[p])
    new.deck = [int(c) for c in rng.permutation(sorted(state.deck))]
    return new


def public_view(state: GoofState, seat: int) -> GoofState:
    """A copy of ``state`` safe to show ``seat``: the hidden cards redrawn by a fixed rule, so that
    states differing only in what ``seat`` cannot see give equal views."""
    return determinize(state, seat, np.random.default_rng(0))


def agent_info(state: GoofState, seat: int) -> dict[str, Any]:
    """The ``info`` an agent at ``seat`` receives (see :mod:`five_towers_env.core.agent`)."""
    legal = state.legal_actions() if seat == state.current_player else []
    return {"game": "goofspiel", "seat": seat, "phase": state.phase_name, "legal_actions": legal,
            "legal_action_names": [action_name(a) for a in legal], "view": public_view(state, seat)}


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


__all__ = ["determinize", "public_view", "agent_info", "MatchAgent"]
