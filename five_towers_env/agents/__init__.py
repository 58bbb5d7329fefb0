"""Agents: one interface (``act(observation, info) -> action``) for baselines, search and policies."""
from .base import Agent, RandomAgent, agent_info, public_view
from .registry import AGENTS, make_agent

__all__ = ["Agent", "RandomAgent", "agent_info", "public_view", "AGENTS", "make_agent"]
