"""The agent interface shared by every game's agents, and the one agent every game has.

An agent answers ``act(observation, info) -> action id``. ``observation`` is the environment's
observation dict (flat float32 vector and int8 action mask); ``info`` is what
``GameSpec.agent_info(state, seat)`` gives the seat on move, public information only: at least
``info["game"]`` (the game's registry name), ``info["seat"]``, ``info["legal_actions"]`` (ids),
``info["legal_action_names"]`` and ``info["view"]`` (the state's ``public_view(seat)``: a copy with
what the seat may not see redrawn by a fixed rule). :func:`five_towers_env.core.state.agent_info`
builds it, the same for every game.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


class SetupWarning(UserWarning):
    """An agent seated in a setup (player count, variant) it was not made for: it plays, maybe weakly."""


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(observation, info) -> int``."""

    name: str

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """Choose a legal action id."""
        ...


def legal_actions(observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> list[int]:
    """The legal action ids an agent may choose from: ``info["legal_actions"]``, else the observation's
    action mask, else those of ``info["view"]``."""
    legal = info.get("legal_actions")
    if legal:
        return list(legal)
    if observation is not None and "action_mask" in observation:
        return np.flatnonzero(observation["action_mask"]).tolist()
    view = info.get("view")
    return list(view.legal_actions()) if view is not None else []


class RandomAgent:
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """A uniformly random legal action."""
        legal = legal_actions(observation, info)
        return int(legal[self.rng.integers(len(legal))])


def best_after(view: Any, legal: list[int], key: Any, rng: np.random.Generator) -> int:
    """One-ply search on the engine (any game's state with ``clone`` and ``apply_action``): the legal action
    whose successor (a clone of ``view`` with the action applied) has the largest ``key(successor)``, ties
    broken uniformly with ``rng`` (every game's ``greedy`` agent)."""
    best: list[int] = []
    best_key = None
    for a in legal:
        child = view.clone(rng=view.rng)  # a shared throwaway generator: no deepcopy
        child.apply_action(a)
        k = key(child)
        if best_key is None or k > best_key:
            best, best_key = [a], k
        elif k == best_key:
            best.append(a)
    return int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])


__all__ = ["Agent", "RandomAgent", "SetupWarning", "best_after", "legal_actions"]
