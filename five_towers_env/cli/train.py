"""``five-towers train``: self-play PPO from a YAML config, or a run resumed; the policy's results at the end."""
from __future__ import annotations

import argparse
import sys

from five_towers_env.cli import arguments as a
from five_towers_env.cli import training
from five_towers_env.cli.invocation import Invocation
from five_towers_env.limits import cap_workers, eval_games_arg, usable_cpus


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("train", help="self-play MaskablePPO training from a YAML config (needs the rl extra)")
    training.add_source(
        p, config_help="a training config, e.g. configs/ppo_selfplay_2p.yaml",
        resume_help="continue a run from a checkpoint, <run>/checkpoints/step_N.zip, or a run folder (its newest "
                    "whole checkpoint), with the config stored beside it, writing into <run>, or into a new folder "
                    "named by --set out_dir=DIR name=NAME",
        set_help="override config settings, e.g. total_timesteps=200000 ppo.n_epochs=2 (YAML values; may be "
                 "repeated)",
        force_help="with --config: start over in a run folder that holds a run, deleting that run's files "
                   "(checkpoints, logs, policy) first; without it, that is an error")
    p.add_argument("--eval-games", type=eval_games_arg, default=None,
                   help="games per baseline in the evaluation table printed at the end "
                        "(default: the config's final_eval_games; 0 skips it)")
    p.add_argument("--workers", type=a.workers, default=None,
                   help="processes for that evaluation (1: in this process; 0: every CPU; default: the run's "
                        "env_workers when subproc is on, else 1; capped at the CPUs)")
    p.add_argument("--force-workers", action="store_true", help="start --workers processes even above the CPUs")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    cap_workers(args)


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Train (or resume) a self-play run, then print its policy's results against the baselines.
    Ctrl-C (SIGTERM) saves a checkpoint and exits 130 (143); nothing is written before every check passed."""
    code, result, cfg = training.train("ppo", args, invocation)
    if code is not None:
        return code
    from five_towers_env.training.ppo.eval_games import final_evaluation

    print(training.played_as(result))
    games = cfg.final_eval_games if args.eval_games is None else args.eval_games
    # training is over, so the cores its game workers used are free; each game is seeded on its own, so the
    # table is the same for any number of processes
    workers = args.workers if args.workers is not None else final_eval_workers(cfg)
    try:
        if games:
            # printed, and saved as final_eval.md / final_eval.json in the run folder
            print("\n" + final_evaluation(result.network, cfg, games, workers=workers,
                                          progress=not args.no_progress))
    except KeyboardInterrupt:
        print(f"interrupted: the final evaluation was skipped; training finished ({result.network})",
              file=sys.stderr)
        return 130
    return 0


def final_eval_workers(cfg: object) -> int:
    """The final evaluation's default processes: the run's ``env_workers`` if it ran them (``subproc``), capped
    at the CPUs this process may use."""
    if not getattr(cfg, "subproc", False):
        return 1
    return max(1, min(int(getattr(cfg, "env_workers", 1)), usable_cpus()))
