"""The agent interface shared by every baseline, search agent and trained policy.

An agent answers ``act(observation, info) -> action id``. ``observation`` is the environment's
observation dict (flat vector and int8 action mask); ``info`` carries what rule-based and search
agents need, all public (SPEC §6):

* ``info["game"]``: the game's :mod:`five_towers_env.core.gameui` name (``"five_towers"``);
* ``info["seat"]``: the agent's seat; ``info["legal_actions"]``: legal ids;
  ``info["legal_action_names"]``: their SPEC §7 names;
* ``info["view"]``: a :class:`GameState` copy whose deck is *redacted* (sorted, so it holds
  the multiset of unseen cards but not their order) and whose random generator is a fresh one
  unrelated to the game's (so it cannot predict the reshuffle either).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.games.five_towers.actions import action_name
from five_towers_env.games.five_towers.state import GameState


def public_view(game: GameState, rng: np.random.Generator | None = None) -> GameState:
    """A copy of ``game`` safe to show any player: the deck order and the game's generator are gone."""
    view = game.clone(rng=rng if rng is not None else np.random.default_rng(0))
    view.deck = sorted(view.deck)
    return view


def determinize(game: GameState, observer: int, rng: np.random.Generator) -> GameState:
    """A copy of ``game`` with the deck, its only hidden information, shuffled from the sorted unseen
    cards with ``rng`` (which becomes the copy's generator); the same for every ``observer``."""
    new = game.clone(rng=rng)
    new.deck = [int(c) for c in rng.permutation(sorted(new.deck))]
    return new


def agent_info(game: GameState, seat: int) -> dict[str, Any]:
    """The ``info`` dict an agent at ``seat`` receives when it is on move."""
    legal = list(game.legal_actions()) if seat == game.current_player else []
    return {
        "game": "five_towers",  # the five_towers_env.core.gameui name: game-neutral agents (human) look it up
        "seat": seat,
        "phase": game.phase_name,
        "legal_actions": legal,
        "legal_action_names": [action_name(a) for a in legal],
        "view": public_view(game),
    }
