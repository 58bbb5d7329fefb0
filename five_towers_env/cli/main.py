"""The ``five-towers`` parser and ``main()``: each subcommand is one module of this package with its
arguments (``add``), the checks that need more than one argument or the file system (``check``, where it
has any) and a call into the package (``run``)."""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Sequence

from five_towers_env.cli import (
    arguments,
    evaluate,
    expert,
    ladder,
    play,
    rate,
    replay,
    serve,
    tournament,
    train,
    zoo,
)
from five_towers_env.cli.invocation import Invocation

#: the subcommands, in the order ``--help`` lists them
COMMANDS = (play, serve, replay, evaluate, tournament, zoo, rate, ladder, train, expert)

USAGE = """The ``five-towers`` command line.

    five-towers play --agents heuristic random --seed 3
    five-towers play --agents human ppo --record game.json      # you against the shipped policy
    five-towers replay game.json --html replay.html             # a replay any browser opens
    five-towers serve --agents human ppo                        # play in the browser (a local page)
    five-towers evaluate --agents heuristic random --games 1000 --players 2 --variant base --seed 0 \\
        --workers 2 --out runs/eval
    five-towers tournament --agents random greedy heuristic --games 1000 --workers 2 --out runs/tournament
    five-towers play --game campanile --agents human random --record g.json   # Campanile, same tools

Agents are registry names, optionally with settings: ``mcts:simulations=100,race_z=1.5``. Each game
(``--game``: five_towers, the default, or campanile) has its own agents and variants.
"""


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser and each subcommand's own (which states its usage errors)."""
    parser = arguments.Parser(prog="five-towers", description=USAGE,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    subparsers = {}
    for command in COMMANDS:
        p = command.add(sub)
        subparsers[p.prog.split()[-1]] = p
    return parser, subparsers


def build_parser() -> argparse.ArgumentParser:
    """The ``five-towers`` argument parser (each subcommand sets ``run`` and ``check``)."""
    return _parsers()[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``five-towers`` console script; returns the exit status (2 for a usage error)."""
    invocation = Invocation(argv)
    parser, subparsers = _parsers()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace, Invocation], int] = args.run
    try:
        with warnings.catch_warnings():  # restores the usual display when main() returns
            warnings.showwarning = arguments.show_plain_warning
            if hasattr(args, "check"):
                args.check(subparsers[args.command], args)
            return run(args, invocation)
    except BrokenPipeError:
        # the reader went away (`five-towers play ... | head`): stop quietly, as other command-line tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    finally:
        invocation.write_provenances()
