"""A training loop on the batched native vector environment: masked advantage actor-critic (A2C) in PyTorch.

``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` gives N games stepped in
C++, one learner seat each (game i's learner sits at seat i % players), the opponents moving inside
``step()``. The masks are in ``infos["action_mask"]``; a finished game is dealt again in the same step
(``infos["final_obs"]`` holds its last observation). The loop: collect ``--steps`` decisions from every
game, score each with the discounted return bootstrapped from the critic, take one gradient step.

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install -e ".[rl]"
    python examples/vector_env_training.py --game campanile --envs 256 --updates 200
"""
from __future__ import annotations

import argparse

import gymnasium
import torch
from torch import nn

import five_towers_env  # noqa: F401  (registers the ids)
from five_towers_env.core.game import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="campanile", help="five_towers or campanile")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", default="random", help="an agent name of the game (random is native)")
    parser.add_argument("--envs", type=int, default=256, help="games stepped together")
    parser.add_argument("--steps", type=int, default=16, help="decisions per game per update")
    parser.add_argument("--updates", type=int, default=100)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    env = gymnasium.make_vec(get_game(args.game).gymnasium_id, num_envs=args.envs,
                             vectorization_mode="vector_entry_point", num_players=args.players,
                             opponents=args.opponents)
    n_obs, n_act = env.single_observation_space.shape[0], env.single_action_space.n
    body = nn.Sequential(nn.Linear(n_obs, 128), nn.Tanh())
    policy, value = nn.Linear(128, n_act), nn.Linear(128, 1)
    params = [*body.parameters(), *policy.parameters(), *value.parameters()]
    optim = torch.optim.Adam(params, lr=args.lr)
    obs, infos = env.reset(seed=args.seed)
    wins, games = 0.0, 0
    for update in range(1, args.updates + 1):
        logps, values, rewards, dones, entropies = [], [], [], [], []
        for _ in range(args.steps):
            hidden = body(torch.as_tensor(obs))
            logits = policy(hidden).masked_fill(torch.as_tensor(infos["action_mask"]) == 0, -1e9)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            obs, reward, terminated, truncated, infos = env.step(action.numpy())
            logps.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value(hidden).squeeze(1))
            rewards.append(torch.as_tensor(reward))
            dones.append(torch.as_tensor(terminated | truncated, dtype=torch.float32))
            wins += float((reward > 0).sum())
            games += int(terminated.sum())
        with torch.no_grad():  # bootstrap from the critic where a game goes on past the rollout
            ret = value(body(torch.as_tensor(obs))).squeeze(1)
        returns = []
        for r, d in zip(reversed(rewards), reversed(dones)):
            ret = r + args.gamma * ret * (1.0 - d)
            returns.append(ret)
        returns_t, values_t = torch.stack(returns[::-1]), torch.stack(values)
        advantage = returns_t - values_t
        loss = (-(torch.stack(logps) * advantage.detach()).mean() + 0.5 * advantage.pow(2).mean()
                - 0.01 * torch.stack(entropies).mean())
        optim.zero_grad()
        loss.backward()
        optim.step()
        if update % max(1, args.updates // 10) == 0 or update == args.updates:
            print(f"update {update:4d}: {update * args.steps * args.envs:8d} learner steps, "
                  f"win rate {wins / max(games, 1):.3f} over the last {games} games")
            wins, games = 0.0, 0


if __name__ == "__main__":
    main()
