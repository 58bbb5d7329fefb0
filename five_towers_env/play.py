"""Play whole games between agents through the PettingZoo environment."""
from __future__ import annotations

from typing import Any, Sequence

from .agents.base import Agent, agent_info
from .environment.aec import raw_env


def play_game(agents: Sequence[Agent], variant: str = "base", seed: int | None = None,
              render_mode: str | None = None, options: dict | None = None) -> dict[str, Any]:
    """Play one game, ``agents[i]`` in seat ``i``; return scores, winners, rewards and the step count."""
    env = raw_env(num_players=len(agents), variant=variant, render_mode=render_mode)
    env.reset(seed=seed, options=options)
    steps = 0
    while not env.game.is_terminal():
        seat = env.game.current_player
        agent = env.possible_agents[seat]
        action = agents[seat].act(env.observe(agent), agent_info(env.game, seat))
        env.step(action)
        steps += 1
    return {"scores": env.scores(), "winners": env.winners(),
            "rewards": [env.rewards[a] for a in env.possible_agents], "steps": steps}
