"""Self-play MaskablePPO for 5 Towers: the same as ``five-towers train``, runnable from a clone.

    python training/ppo_selfplay.py --config configs/ppo_selfplay_2p.yaml
    python training/ppo_selfplay.py --config configs/ppo_smoke.yaml --set total_timesteps=4096
    python training/ppo_selfplay.py --resume runs/ppo_selfplay_2p/checkpoints/step_500000.zip

The loop itself (train, evaluate against the baselines, promote snapshots into the opponent
pool, checkpoint) is :class:`five_towers_env.training.selfplay.Trainer`; the settings are the
documented dataclasses of :mod:`five_towers_env.training.config`. ``--help`` lists the options.
"""
import sys

from five_towers_env.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
