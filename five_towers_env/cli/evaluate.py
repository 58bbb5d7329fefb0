"""``five-towers evaluate``: seat-rotated seeded games between agents, win rates with 95% intervals."""
from __future__ import annotations

import argparse

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.cli.matches import add_match, journal_path, match_settings, report, stopped


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("evaluate", help="seat-rotated seeded games between agents: win rates with 95%% CIs")
    add_match(p, "games to play (default 100; a multiple of the number of agents balances the seats)",
              "seats per game (default: the number of agents, at least 2)")
    p.add_argument("--field", metavar="AGENT",
                   help="an agent filling every seat the agents leave (needs --players above their number): "
                        "--agents ppo --field heuristic --players 4 is one ppo against three heuristics, "
                        "the ppo seat rotated over each deal's four seatings")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_setup(parser, args, seated=len(args.agents))
    a.check_running(parser, args)
    a.check_agents(parser, args.agents, args.game)
    if args.field is not None:
        a.check_agents(parser, [args.field], args.game, "--field")
        if args.players is None or args.players <= len(args.agents):
            parser.error(f"argument --field: the agents leave no seat to fill; give --players above "
                         f"{len(args.agents)} (the number of agents)")


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Seat-rotated games between the agents; summary table, and CSV / JSON in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.journal_check import JournalError
    from five_towers_env.evaluation.match import evaluate

    journal = journal_path(args, "evaluate")
    try:
        result = evaluate(args.agents, num_games=args.games, field=args.field, journal=journal,
                          **match_settings(args))
    except (AgentError, JournalError, ValueError) as exc:  # ValueError: an agent that does not fit the setup
        return stopped("evaluate", args.out, exc)
    except OSError as exc:  # the journal cannot be written (a folder in its place)
        return stopped("evaluate", args.out, ValueError(f"{journal}: {exc.strerror or exc}"))
    return report(result, args, invocation, journal)
