"""Self-play PPO, with the steps in plain sight: read the config, prepare the run folder, train, evaluate.

    python training/ppo_selfplay.py --config configs/ppo_selfplay_2p.yaml
    python training/ppo_selfplay.py --config configs/ppo_smoke.yaml --set total_timesteps=4096
    python training/ppo_selfplay.py --resume runs/ppo_selfplay_2p          # its newest whole checkpoint

This folder holds scripts you read and run; the package they call is ``five_towers_env/training/``. The
loop itself (train, evaluate against the baselines, promote snapshots into the opponent pool, checkpoint)
is :class:`five_towers_env.training.ppo.trainer.PPOTrainer`, and the settings are the documented dataclasses of
:mod:`five_towers_env.training.ppo.config`. ``five-towers train`` runs the same steps, with more checks.
"""
import argparse
import sys

import yaml

from five_towers_env import numerics
from five_towers_env.training.ppo.eval_games import final_evaluation
from five_towers_env.training.trainer import find_trainer, prepare_run_folder, run_config


def setting(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    return key, yaml.safe_load(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="a training config, e.g. configs/ppo_selfplay_2p.yaml")
    source.add_argument("--resume", help="a run folder or one of its checkpoints")
    parser.add_argument("--set", nargs="+", default=[], type=setting, metavar="KEY=VALUE", help="override settings")
    parser.add_argument("--eval-games", type=int, help="games per baseline at the end (default: the config's)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    # 1. the config, read once: a new run's file, or the stored config of the run resumed
    trainer = find_trainer("ppo").load()
    cfg, checkpoint = run_config(trainer, args.config, args.resume, dict(args.set))
    # 2. portable numerics (the config's default): the same numbers on every x86-64 CPU with AVX2
    if cfg.numerics == numerics.PORTABLE and not numerics.active() and numerics.portable_problem() is None:
        return numerics.run_pinned(None)  # this script again, its kernels pinned
    # 3. the run folder: refused if it holds another run (five-towers train --force starts over)
    prepare_run_folder(trainer, cfg, checkpoint, force=False)
    # 4. train: checkpoints, snapshots, eval_log.csv and learning_curve.png land in the run folder
    result = trainer(cfg, resume=checkpoint, progress=not args.no_progress).run()
    print(f"exported policy: {result.network}  (play it as {result.agent})")
    # 5. the policy against the game's baselines, on fresh seeded games
    games = cfg.final_eval_games if args.eval_games is None else args.eval_games
    if games:
        print(final_evaluation(result.network, cfg, games, progress=not args.no_progress))
    return 0


if __name__ == "__main__":
    sys.exit(main())
