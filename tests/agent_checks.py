"""A wrapper that checks every decision an agent makes (shared by the agent and policy tests)."""
from __future__ import annotations

from five_towers_env.games.five_towers import actions as A


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
        assert a in info["legal_actions"], \
            f"{self.name} chose illegal {A.action_name(a)}; legal: {info['legal_action_names']}"
        assert observation["action_mask"][a] == 1
        self.decisions += 1
        self.forced += len(info["legal_actions"]) == 1
        return a


def check_export_matches_sb3(model, agent, env, info, steps: int = 30):
    """Play ``steps`` decisions of the Gymnasium ``env`` with the SB3 ``model``'s deterministic
    choices and assert that the exported numpy ``agent`` gives the same logits (up to torch's
    normalisation) and the same action (``info(env)``: the info its ``act`` receives). Returns
    the last observation."""
    import numpy as np
    import torch

    obs, _ = env.reset(seed=1)
    for _ in range(steps):
        mask = env.action_masks()
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        with torch.no_grad():
            logits = model.policy.get_distribution(model.policy.obs_to_tensor(obs)[0]).distribution.logits
        ours = agent.logits(obs)
        ours = ours - np.log(np.exp(ours - ours.max()).sum()) - ours.max()  # torch normalises its logits
        assert np.allclose(ours, logits.numpy()[0], atol=1e-4)
        assert agent.act({"observation": obs, "action_mask": mask}, info(env)) == int(expected)
        obs, _, done, _, _ = env.step(int(expected))
        if done:
            obs, _ = env.reset()
    return obs
