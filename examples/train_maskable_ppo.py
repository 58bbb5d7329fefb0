"""Train sb3-contrib's MaskablePPO against random opponents, then measure its win rate.

    pip install torch==2.13.0 && pip install "stable-baselines3>=2.3" "sb3-contrib>=2.3"
    python examples/train_maskable_ppo.py --timesteps 20000 --players 2 --envs 4
    python examples/train_maskable_ppo.py --game campanile --variant played     # any registered game

A "win" is a reward of +1: the learner's score is the highest (ties count for every tied seat).
"""
from __future__ import annotations

import argparse

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from five_towers_env.wrappers import SingleAgentGymEnv, make_env


def evaluate(model: MaskablePPO, game: str, games: int, players: int, variant: str | None, seed: int) -> float:
    """Fraction of ``games`` the model wins against random opponents, in random seats."""
    env = SingleAgentGymEnv(game, num_players=players, variant=variant, opponents="random")
    wins = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
            obs, reward, done, _, _ = env.step(int(action))
        wins += reward > 0
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--game", default="five_towers", help="the game's registry name")
    parser.add_argument("--variant", default=None, help="the game's variant (default: its first)")
    parser.add_argument("--envs", type=int, default=4, help="parallel environments")
    parser.add_argument("--subproc", action="store_true", help="SubprocVecEnv instead of DummyVecEnv")
    parser.add_argument("--games", type=int, default=50, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="path to save the model (.zip)")
    args = parser.parse_args()

    torch.set_num_threads(1)  # small networks: more threads only add overhead
    env_fns = [make_env(i, seed=args.seed, game=args.game, num_players=args.players, variant=args.variant,
                        opponents="random") for i in range(args.envs)]
    venv = SubprocVecEnv(env_fns) if args.subproc else DummyVecEnv(env_fns)

    model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=256, learning_rate=3e-4, gamma=1.0,
                        ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, device="cpu",
                        verbose=0)
    before = evaluate(model, args.game, args.games, args.players, args.variant, seed=10_000)
    print(f"win rate before training: {before:.2f}  (random play wins about {1 / args.players:.2f})")
    model.learn(total_timesteps=args.timesteps, progress_bar=False)
    venv.close()
    after = evaluate(model, args.game, args.games, args.players, args.variant, seed=10_000)
    print(f"win rate after {args.timesteps} timesteps over {args.games} games: {after:.2f}")
    if args.save:
        model.save(args.save)
        print(f"saved to {args.save}")


if __name__ == "__main__":
    main()
