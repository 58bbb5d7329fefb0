"""Strength regression of the shipped Campanile policy (``ppo`` with ``game="campanile"``).

The shipped policy scores about 0.99 against ``random``, 0.88 against ``greedy`` and 0.57 against
the ``heuristic`` (README, 1,000 games each); the thresholds below leave margins. So that the test is seen to
discriminate, the same games are played by ``random`` in the policy's place, which must stay far below.
Every game is seeded, so the rates are the same on every run.
"""
from __future__ import annotations

import pytest

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.agents.registry import make_agent
from five_towers_env.core.game import get_game
from five_towers_env.evaluation import evaluate

EVAL_SEED = 2024
GAMES = 100  # 50 deals, each played from both seats
THRESHOLDS = {"random": 0.85, "greedy": 0.65, "heuristic": 0.42}


def _win_rate(spec: str, opponent: str) -> float:
    result = evaluate([spec, opponent], num_games=GAMES, num_players=2, seed=EVAL_SEED, workers=1,
                      progress=False, game="campanile")
    assert result.agents[0]["games"] == GAMES
    return result.agents[0]["win_rate"]


def test_the_campanile_ppo_agent_loads_the_shipped_campanile_policy():
    agent = make_agent("ppo", game="campanile")
    assert isinstance(agent, PolicyAgent) and agent.game == "campanile"
    shipped = get_game("campanile").default_policy()
    assert shipped is not None and agent.path == shipped
    assert shipped.stat().st_size < 2_000_000  # a few MB at most


@pytest.mark.parametrize("opponent", sorted(THRESHOLDS))
def test_shipped_campanile_policy_beats_the_baselines(opponent):
    rate = _win_rate("ppo", opponent)
    assert rate >= THRESHOLDS[opponent], f"shipped Campanile policy: {rate:.3f} against {opponent}"


def test_a_random_player_in_its_seat_scores_far_below():
    assert _win_rate("random", "greedy") < 0.3
