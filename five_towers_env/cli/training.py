"""What ``five-towers train`` and ``five-towers expert`` share: every trainer is started the same way
(:mod:`five_towers_env.training.trainer`), and told the same way when it stops."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation


def add_source(p: argparse.ArgumentParser, config_help: str, resume_help: str, set_help: str, force_help: str) -> None:
    """The options every trainer takes: a config or a run to resume, overrides, --force, --no-progress."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="YAML", help=config_help)
    source.add_argument("--resume", metavar="RUN|CHECKPOINT", help=resume_help)
    # extend, not store: a second --set must add to the first, never silently replace it
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="KEY=VALUE", type=a.override,
                   help=set_help)
    p.add_argument("--force", action="store_true", help=force_help)
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def error(command: str, message: str) -> int:
    print(f"five-towers {command}: error: {message}", file=sys.stderr)
    return 2


def train(method: str, args: argparse.Namespace, invocation: Invocation) -> tuple[int | None, Any, Any]:
    """Load the run's config (once), pin the numerics it asks for, check and prepare its folder, and run the
    trainer of ``method``. Returns ``(None, TrainResult, config)``, or the exit status: 2 for what the trainer
    refused (a bad config, ``--set``, checkpoint or run folder), ``128 + signum`` when interrupted (the
    message names the checkpoint to resume from), a pinned child's own status."""
    from five_towers_env import numerics
    from five_towers_env.training.trainer import RL_INSTALL, find_trainer, missing_packages

    entry = find_trainer(method)
    command = entry.command
    if args.force and args.resume:
        return error(command, "--force starts a new run (--config) over an old one; a resumed run keeps its "
                              "files"), None, None
    missing = missing_packages(entry.needs, progress=not args.no_progress)
    if missing:
        return error(command, f"{entry.title} needs the rl extra, and {', '.join(missing)} "
                              f"{'is' if len(missing) == 1 else 'are'} not installed; install it with\n"
                              f"  {RL_INSTALL}"), None, None
    try:
        from five_towers_env.training.config_base import ConfigError
        from five_towers_env.training.interrupts import TrainingInterrupted, interrupted_message, signal_number
        from five_towers_env.training.trainer import prepare_run_folder, run_config

        trainer = entry.load()
    except ImportError as exc:  # an rl package present but broken
        return error(command, f"{entry.title} needs the rl extra ({exc}); install it with\n  {RL_INSTALL}"), None, None
    try:
        cfg, checkpoint = run_config(trainer, args.config, args.resume, dict(args.set))
    except (ConfigError, ValueError, OSError) as exc:  # bad config, --set or checkpoint
        return error(command, str(exc)), None, None
    if cfg.numerics == numerics.PORTABLE and not numerics.active():
        problem = numerics.portable_problem()
        if problem is None:
            return numerics.run_pinned(invocation.argv), None, None  # the same command, its kernels pinned
        print(f"five-towers {command}: numerics: portable is not available here ({problem}); running with this "
              "CPU's native kernels, so its figures may differ from other machines'", file=sys.stderr)
    run_dir = Path(cfg.run_dir)
    try:
        removed = prepare_run_folder(trainer, cfg, checkpoint, force=args.force)
    except ValueError as exc:
        return error(command, str(exc)), None, None
    if removed:
        print(f"--force: deleted the old run's files in {run_dir}")
    print(f"run folder: {run_dir}")
    try:
        try:
            # nothing is written before the trainer has checked everything
            running = trainer(cfg, resume=checkpoint, progress=not args.no_progress)
        except (ValueError, OSError) as exc:  # a checkpoint or init_policy that does not fit the config
            return error(command, str(exc)), None, None
        invocation.wrote(run_dir, now=True, keep_earlier=checkpoint is not None)  # now and at the end
        return None, running.run(), cfg
    except TrainingInterrupted as exc:
        print(interrupted_message(command, exc.checkpoint, exc.saved), file=sys.stderr)
        return 128 + exc.signum, None, None
    except KeyboardInterrupt as exc:  # before training began, or a second Ctrl-C while saving
        print(interrupted_message(command, trainer.newest_checkpoint(run_dir), saved=False), file=sys.stderr)
        return 128 + signal_number(exc), None, None


def played_as(result: Any) -> str:
    """How to play what a run made, with ``--game`` where it is not the default game."""
    from five_towers_env.core.game import DEFAULT_GAME

    flag = "" if result.game == DEFAULT_GAME else f" with --game {result.game}"
    curve = f"; learning curve: {result.curve}" if result.curve else ""
    return f"exported network: {result.network}  (play it as the agent {result.agent}{flag}){curve}"
