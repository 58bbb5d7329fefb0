"""``five-towers zoo``: the policies ``ppo`` plays in each setup; with ``--games``, how each fares."""
from __future__ import annotations

import argparse
from pathlib import Path

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.cli.matches import stopped
from five_towers_env.limits import games_arg


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("zoo", help="the policies ppo plays in each setup; with --games, how each fares against "
                                   "n - 1 copies of each --field agent")
    a.add_game(p)
    p.add_argument("--games", type=games_arg, help="games per setup and opponent (default: only list the policies)")
    p.add_argument("--setups", nargs="+", metavar="SETUP", help="only these setups, e.g. 3p-base (default: all)")
    p.add_argument("--field", nargs="+", metavar="AGENT",
                   help="the opponents, one column each (default: the game's rule-based opponents, strongest first); "
                        "any agent, e.g. sb3:path=model.zip")
    p.add_argument("--runs", metavar="DIR", help="folder of training run folders: the training time column "
                                                 "reads <DIR>/<run>/eval_log.csv (e.g. results)")
    a.add_running(p, "folder for table.json / table.md and each evaluation's files")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    from five_towers_env.core.game import get_game

    game = get_game(args.game)
    if args.field is None:
        args.field = list(reversed(game.opponents))
    unknown = [s for s in args.setups or [] if s not in game.shipped_policies]
    if unknown:
        parser.error(f"argument --setups: {game.title} ships no policy for {', '.join(unknown)}; its setups: "
                     f"{', '.join(k for k in game.shipped_policies if ':' not in k)}")
    a.check_running(parser, args)
    a.check_agents(parser, args.field, args.game, "--field")


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """List the shipped policies; with --games, play the zoo table and print it."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.journal_check import JournalError
    from five_towers_env.evaluation.zoo import shipped_listing, zoo_markdown, zoo_table

    print(shipped_listing(args.game))
    if args.games:
        try:
            rows = zoo_table(args.game, args.games, args.seed, out=args.out, workers=args.workers, runs=args.runs,
                             progress=not args.no_progress, setups=args.setups, opponents=tuple(args.field),
                             ray=args.ray, on_agent_error=args.on_agent_error, move_timeout=args.move_timeout,
                             discard_bad_journal_lines=args.discard_bad_journal_lines)
        except (AgentError, JournalError, ValueError) as exc:  # ValueError: an agent that does not fit a setup
            return stopped("zoo", args.out, exc)
        except OSError as exc:  # a journal or a result file that cannot be written
            return stopped("zoo", args.out, ValueError(f"{args.out}: {exc}"))
        print()
        print(zoo_markdown(rows))
        if args.out:
            print(f"wrote {Path(args.out) / 'table.json'}, {Path(args.out) / 'table.md'}")
            invocation.wrote(args.out)
    return 0
