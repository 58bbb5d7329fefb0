"""Agents by name, so evaluation, training and the command line can build any of them."""
from __future__ import annotations

import importlib
from typing import Any

from .base import Agent

#: name -> "module:Class"; every class takes ``seed=`` plus its own keyword settings
AGENTS: dict[str, str] = {
    "random": "five_towers_env.agents.base:RandomAgent",
    "greedy": "five_towers_env.agents.greedy:GreedyAgent",
    "heuristic": "five_towers_env.agents.heuristic:HeuristicAgent",
    "mcts": "five_towers_env.agents.mcts:MCTSAgent",
    "ppo": "five_towers_env.agents.policy:PolicyAgent",  # path=... (default: the shipped policy)
}


def make_agent(name: str, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build an agent by registry name (``"mcts"`` accepts e.g. ``simulations=200``)."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
    module, cls = AGENTS[name].split(":")
    return getattr(importlib.import_module(module), cls)(seed=seed, **kwargs)
