"""Game-neutral agents: the registry (agents by name, for every game), trained policies, the human seat.

Each game's own agents live in its package (``five_towers_env/games/<game>/agents/``); the agent
interface is :mod:`five_towers_env.core.agent`. ``Agent``, ``RandomAgent``, ``agent_info`` and
``public_view`` are still importable from here (the last two are 5 Towers'), with a
``DeprecationWarning``.
"""
from __future__ import annotations

import importlib
import warnings
from typing import Any

from five_towers_env.agents.registry import AGENTS, make_agent, make_agent_from_text

_MOVED = {"Agent": "five_towers_env.core.agent", "RandomAgent": "five_towers_env.core.agent",
          "agent_info": "five_towers_env.games.five_towers.agents.view",
          "public_view": "five_towers_env.games.five_towers.agents.view"}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(f"five_towers_env.agents.{name} moved to {_MOVED[name]}.{name}", DeprecationWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AGENTS", "make_agent", "make_agent_from_text"]
