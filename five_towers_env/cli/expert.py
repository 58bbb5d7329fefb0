"""``five-towers expert``: expert iteration, a policy-value network trained from its own guided search."""
from __future__ import annotations

import argparse

from five_towers_env.cli import training
from five_towers_env.cli.invocation import Invocation


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("expert", help="expert iteration: a policy-value network trained from its own guided search "
                                      "(needs the rl extra)")
    training.add_source(
        p, config_help="an expert-iteration config, e.g. configs/expert_2p.yaml",
        resume_help="continue a run from a checkpoint, <run>/checkpoints/step_G.pt, or its run folder (the last "
                    "finished generation), with the config stored beside it, writing into <run>",
        set_help="override config settings, e.g. generations=20 (on --resume: to run more generations)",
        force_help="with --config: start over in a run folder that holds a run, deleting that run's files "
                   "(checkpoint, networks, curve) first; without it, that is an error")
    p.set_defaults(run=run)  # its checks are the trainer's (training.train)
    return p


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Run (or resume) expert iteration. Ctrl-C (SIGTERM) exits 130 (143), the last generation's checkpoint
    kept; nothing is written before every check passed."""
    code, result, _ = training.train("expert_iteration", args, invocation)
    if code is not None:
        return code
    print(training.played_as(result))
    return 0
