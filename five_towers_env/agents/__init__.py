"""Game-neutral agents: the registry (agents by name, for every game), trained policies, the human seat, and
the agents playing code or models from elsewhere (``py``, ``sb3``, ``rllib``).

Each game's own agents live in its package (``five_towers_env/games/<game>/agents/``); the agent
interface is :mod:`five_towers_env.core.agent`.
"""
from __future__ import annotations

from five_towers_env.agents.registry import make_agent, make_agent_from_text

__all__ = ["make_agent", "make_agent_from_text"]
