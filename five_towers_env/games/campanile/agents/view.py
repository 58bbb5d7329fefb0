"""What a Campanile agent may see: :func:`public_view` and the ``info`` dict (:func:`agent_info`).

The view is a full :class:`CampanileState`, so agents can call the engine on it, but every card
hidden from the seat (SPEC C5: the other players' unrevealed hand cards, the pile cards below the
face-up ones, the set-aside leftovers) has been dealt again by a fixed rule that depends only on
the *multiset* of those cards, and the game's generator is replaced by a fresh one. Two states
that differ only in cards hidden from ``seat`` therefore give equal views.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.games.campanile.actions import action_name
from five_towers_env.games.campanile.state import CampanileState


def public_view(state: CampanileState, seat: int, rng: np.random.Generator | None = None) -> CampanileState:
    """A copy of ``state`` that ``seat`` may be shown: nothing hidden from it can be recovered.

    :meth:`CampanileState.determinize` with a fixed generator: it deals the hidden cards again
    from their sorted multiset, so the result is a function of the public information and
    ``seat``'s hand only, and the copy never carries the game's generator (whose state would let
    one replay the shuffle of the deal). ``rng``, if given, becomes the copy's generator.
    """
    view = state.determinize(seat, np.random.default_rng(0))
    if rng is not None:
        view.rng = rng
    return view


def legal_actions(observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> list[int]:
    """The legal action ids: ``info["legal_actions"]``, else the observation's action mask."""
    legal = info.get("legal_actions")
    if legal:
        return list(legal)
    if observation is not None and "action_mask" in observation:
        return np.flatnonzero(observation["action_mask"]).tolist()
    view = info.get("view")
    return list(view.legal_actions()) if view is not None else []


def determinize(state: CampanileState, observer: int, rng: np.random.Generator) -> CampanileState:
    """A copy of ``state`` with every card hidden from ``observer`` dealt again (:meth:`CampanileState.determinize`)."""
    return state.determinize(observer, rng)


def agent_info(state: CampanileState, seat: int) -> dict[str, Any]:
    """The ``info`` dict an agent at ``seat`` receives (mirrors
    :func:`five_towers_env.games.five_towers.agents.view.agent_info`)."""
    legal = list(state.legal_actions()) if seat == state.current_player and not state.done else []
    return {
        "game": "campanile",
        "seat": seat,
        "phase": state.phase_name,
        "legal_actions": legal,
        "legal_action_names": [action_name(a) for a in legal],
        "view": public_view(state, seat),
    }


__all__ = ["public_view", "agent_info", "legal_actions"]
