"""A wrapper that checks every decision an agent makes (shared by the agent and policy tests)."""
from __future__ import annotations

from five_towers_env.engine import actions as A


class LegalityChecker:
    """Wraps an agent and asserts every action it chooses is legal (and that it got a redacted view)."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.decisions = 0
        self.forced = 0  # decisions with a single legal action

    def act(self, observation, info):
        view = info["view"]
        assert list(view.deck) == sorted(view.deck), "agents must only see the deck as a sorted multiset"
        a = self.agent.act(observation, info)
        assert isinstance(a, int)
        assert a in info["legal_actions"], f"{self.name} chose illegal {A.action_name(a)}; legal: {info['legal_action_names']}"
        assert observation["action_mask"][a] == 1
        self.decisions += 1
        self.forced += len(info["legal_actions"]) == 1
        return a
