"""``five-towers rate``: any agent placed on the setup's shipped ladder (random = 0), with a 95% interval."""
from __future__ import annotations

import argparse
import sys

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.cli.matches import journal_path, report, stopped
from five_towers_env.limits import games_arg


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from five_towers_env.evaluation.rate import DEFAULT_GAMES

    p = sub.add_parser("rate", help="rate any agent on the setup's fixed ladder (random = 0), with a 95%% interval")
    p.add_argument("agent", metavar="AGENT", help="the agent to rate: a registry name with settings, "
                                                  "py:path=module.attr, sb3:path=model.zip, rllib:path=CHECKPOINT")
    a.add_game(p)
    p.add_argument("--players", type=a.players, default=2, help="seats per game (default 2)")
    a.add_variant(p)
    p.add_argument("--games", type=games_arg, default=DEFAULT_GAMES,
                   help=f"games in all, split evenly over the ladder's agents (default {DEFAULT_GAMES}); more games, "
                        "a tighter interval")
    a.add_running(p, "folder for rate.json / rate.txt")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_setup(parser, args)
    a.check_running(parser, args)
    a.check_agents(parser, [args.agent], args.game, "AGENT")


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Rate one agent on the setup's shipped ladder; rate.json / rate.txt in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.rate import rate

    journal = journal_path(args, "rate")
    try:
        result = rate(args.agent, game=args.game, num_players=args.players, variant=args.variant, games=args.games,
                      journal=journal, **a.running(args))
    except AgentError as exc:
        return stopped("rate", args.out, exc)
    except (ValueError, OSError) as exc:  # no ladder for the setup, a journal this run cannot trust or write
        print(f"five-towers rate: error: {exc}", file=sys.stderr)
        return 2
    return report(result, args, invocation, journal)
