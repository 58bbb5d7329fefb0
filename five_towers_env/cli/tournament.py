"""``five-towers tournament``: a round robin, its win-rate matrix, Elo and OpenSkill ratings and plot."""
from __future__ import annotations

import argparse

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.cli.matches import add_match, journal_path, match_settings, report, stopped
from five_towers_env.limits import tournament_games_problem


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("tournament", help="round robin: win-rate matrix, Elo and OpenSkill ratings, plot")
    add_match(p, "games per pairing / group (default 100)", "seats per game (default 2)", players_default=2)
    p.add_argument("--no-plot", action="store_true", help="skip the PNG of the win-rate matrix")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_setup(parser, args)
    a.check_running(parser, args)
    if len(args.agents) < 2:
        parser.error(f"argument --agents: a tournament needs at least two agents, got {len(args.agents)} "
                     f"(to measure one agent against itself or others, use evaluate)")
    problem = tournament_games_problem(len(args.agents), args.players, args.games)
    if problem:
        parser.error(f"argument --games: {problem}")
    a.check_agents(parser, args.agents, args.game)


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Round robin; win-rate matrix, Elo / OpenSkill; CSV / JSON / Markdown / PNG in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.journal_check import JournalError
    from five_towers_env.evaluation.tournament import round_robin

    journal = journal_path(args, "tournament")
    try:
        result = round_robin(args.agents, games=args.games, journal=journal, **match_settings(args))
    except (AgentError, JournalError, ValueError) as exc:  # ValueError: an agent that does not fit the setup
        return stopped("tournament", args.out, exc)
    except OSError as exc:  # the journal cannot be written (a folder in its place)
        return stopped("tournament", args.out, ValueError(f"{journal}: {exc.strerror or exc}"))
    return report(result, args, invocation, journal, plot=not args.no_plot)
