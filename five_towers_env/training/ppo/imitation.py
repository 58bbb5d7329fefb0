"""Optional warm start before self-play: imitate a teacher agent (behaviour cloning).

With ``imitation.games > 0`` the trainer first lets the teacher (an agent of the run's game's
registry, by default the game's teacher, ``GameSpec.teacher``) play the learner's seat against the
training pool, records every decision it makes with more than one legal action (observation, mask,
action, and the game's final shaped return from the teacher's seat), and fits the policy network to the
teacher's actions (cross-entropy over the legal actions) and the value network to the returns (mean squared error).
PPO self-play then starts from that policy instead of from a uniform one.

Why: a uniform policy needs millions of games against the pool to discover what a rule-based teacher
already knows (5 Towers: bidding only what it can build, keeping towers open); with the warm start PPO
spends its budget improving on the teacher instead.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from five_towers_env.evaluation.specs import parse_agent_spec
from five_towers_env.training.ppo.config import TrainConfig
from five_towers_env.training.ppo.reward import shape_reward
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

if TYPE_CHECKING:
    from gymnasium.spaces import Box


def collect_teacher_games(cfg: TrainConfig, sampler: Any, seed: int, first: int = 0,
                          count: int | None = None) -> dict[str, np.ndarray]:
    """Play ``cfg.imitation.games`` games of ``cfg.game`` (or games ``first .. first + count - 1`` of them:
    each game depends only on its number, so parts played apart and concatenated in order are the whole)
    with the teacher in the learner's seat against opponents drawn by ``sampler``; return the teacher's
    real decisions as arrays. Game ``g`` is played in setup ``cfg.setup_list[g % len]``."""
    setups = cfg.setup_list
    envs = [SingleAgentGymEnv(cfg.game, num_players=n, variant=v, opponent_sampler=sampler) for n, v in setups]
    env = envs[0]
    obs_list: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    teacher_spec = parse_agent_spec(cfg.imitation.teacher, game=cfg.game)
    shaped = shape_reward(cfg.reward_margin, cfg.tie_reward)  # the return PPO will train the value towards
    for g in range(first, first + (cfg.imitation.games - first if count is None else count)):
        teacher = teacher_spec.build(seed=seed + g)
        env = envs[g % len(envs)]
        obs, info = env.reset(seed=seed + g)
        game_start = len(actions)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            action = teacher.act({"observation": obs, "action_mask": mask.astype(np.int8)}, env.learner_info())
            if mask.sum() > 1:  # forced moves teach nothing
                obs_list.append(obs.astype(np.float16))
                masks.append(mask)
                actions.append(int(action))
            obs, reward, terminated, _, info = env.step(action)
        returns += [shaped(reward, terminated, info)] * (len(actions) - game_start)
    # the observation space is a flat Box (gymnasium types an env's space as a Space, whose shape may be None)
    return {"obs": np.stack(obs_list) if obs_list else np.zeros((0, cast("Box", env.observation_space).shape[0]),
                                                                np.float16),
            "mask": np.stack(masks) if masks else np.zeros((0, env.num_actions), bool),
            "action": np.array(actions, dtype=np.int64), "return": np.array(returns, dtype=np.float32)}


def collect_in_parts(run: Any, parts: int, cfg: TrainConfig, sampler: Any, seed: int) -> dict[str, np.ndarray]:
    """:func:`collect_teacher_games` split into ``parts`` consecutive runs of games, played by
    ``run(function, jobs)`` (the environment workers' ``map``) and joined in order: the same arrays."""
    games = cfg.imitation.games
    bounds = np.linspace(0, games, parts + 1).astype(int)
    jobs = [(cfg, sampler, seed, int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    pieces = run(collect_teacher_games, jobs)
    return {key: np.concatenate([piece[key] for piece in pieces]) for key in pieces[0]}


def fit_policy(model: Any, data: dict[str, np.ndarray], cfg: TrainConfig, seed: int,
               log: Any = None) -> dict[str, float]:
    """Fit ``model.policy`` (a ``MaskablePPO`` policy) to the teacher's actions and returns."""
    import torch
    import torch.nn.functional as F

    settings = cfg.imitation
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=settings.learning_rate)
    n = len(data["action"])
    rng = np.random.default_rng(seed)
    stats: dict[str, float] = {}
    for epoch in range(settings.epochs):
        order = rng.permutation(n)
        totals = np.zeros(3)
        for start in range(0, n, settings.batch_size):
            idx = order[start:start + settings.batch_size]
            obs = torch.as_tensor(data["obs"][idx], dtype=torch.float32)
            mask = torch.as_tensor(data["mask"][idx])
            target = torch.as_tensor(data["action"][idx])
            ret = torch.as_tensor(data["return"][idx])
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs, policy.pi_features_extractor))
            logits = policy.action_net(latent_pi).masked_fill(~mask, -1e8)
            policy_loss = F.cross_entropy(logits, target)
            value_loss = F.mse_loss(policy.value_net(latent_vf).squeeze(-1), ret)
            loss = policy_loss + settings.value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.ppo.max_grad_norm)
            optimizer.step()
            accuracy = (logits.argmax(-1) == target).float().mean()
            totals += np.array([policy_loss.item(), value_loss.item(), accuracy.item()]) * len(idx)
        stats = dict(zip(("policy_loss", "value_loss", "accuracy"), (totals / n).tolist()))
        if log is not None:
            for key, value in stats.items():
                log.record(f"imitation/{key}", value)
            log.dump(epoch)
    return stats
