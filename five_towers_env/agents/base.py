"""Moved: the agent interface is :mod:`five_towers_env.core.agent`, 5 Towers' public view and agent
information :mod:`five_towers_env.games.five_towers.agents.view` (this module re-exports both)."""
from __future__ import annotations

import warnings

from five_towers_env.core.agent import Agent, RandomAgent, SetupWarning, legal_actions
from five_towers_env.games.five_towers.agents.view import agent_info, best_after, public_view

warnings.warn("five_towers_env.agents.base moved to five_towers_env.core.agent (Agent, RandomAgent) and "
              "five_towers_env.games.five_towers.agents.view (agent_info, public_view)", DeprecationWarning,
              stacklevel=2)

__all__ = ["Agent", "RandomAgent", "SetupWarning", "legal_actions", "agent_info", "best_after", "public_view"]
