"""The training reward: win/loss plus a small share of the score margin, and the game's outcome for logging."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from five_towers_env.training.ppo.config import TIE_REWARDS
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv


def shape_reward(coef: float, ties: str = "full") -> Callable[[float, bool, dict[str, Any]], float]:
    """The training reward: ``(reward, terminated, info) -> reward``. It adds ``coef`` x score margin to
    the final win/loss reward and reports the game's outcome in ``info["episode_outcome"]`` (score,
    margin, and ``win``: the learner's share of the win, ``1/k`` of a ``k``-way shared win, as every
    evaluation counts it) for logging. ``ties="full"`` keeps the environment's win/loss reward (+1 for each
    of the tied winners); ``"share"`` replaces it with ``2 x share - 1``: +1 for a sole win, 0 for a
    two-way shared win, -1 for a loss."""
    if ties not in TIE_REWARDS:
        raise ValueError(f"ties must be one of {', '.join(TIE_REWARDS)}, got {ties!r}")

    def shaped(reward: float, terminated: bool, info: dict[str, Any]) -> float:
        if terminated and info["phase"] == "game_over":  # not after an illegal action
            seat, scores, winners = info["learner_seat"], info["scores"].tolist(), info["winners"]
            margin = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
            share = float(winners[seat]) / max(1, int(winners.sum()))
            info["episode_outcome"] = {"score": scores[seat], "margin": margin, "win": share}
            if ties == "share":
                reward = 2.0 * share - 1.0
            reward += coef * margin
        return reward

    return shaped


class ShapedReward(gymnasium.Wrapper):
    """:func:`shape_reward` as a ``gymnasium.Wrapper`` of one environment."""

    def __init__(self, env: SingleAgentGymEnv, coef: float, ties: str = "full") -> None:
        super().__init__(env)
        self.coef = coef
        self._shaped = shape_reward(coef, ties)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, self._shaped(float(reward), terminated, info), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for ``MaskablePPO``)."""
        # gymnasium types unwrapped as a bare Env; ours is a SingleAgentGymEnv, which has action_masks
        return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
