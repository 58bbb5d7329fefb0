"""``five-towers play``: one game between named agents (``human`` for a person), one line per move."""
from __future__ import annotations

import argparse
import sys

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.limits import game_index_arg


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("play", help="play one game between named agents (human: you), one line per move")
    p.add_argument("--agents", nargs="+", default=["random", "random"], metavar="AGENT", help=a.AGENT_HELP)
    p.add_argument("--players", type=a.players, help="seats (default: the number of agents; agents repeat to fill)")
    a.add_variant(p)
    p.add_argument("--seed", type=a.nonneg, default=0)
    a.add_game(p)
    p.add_argument("--game-index", type=game_index_arg, default=0, metavar="N",
                   help="replay game N of `evaluate` with the same agents, seed and players (default 0; at most "
                        "999,999)")
    p.add_argument("--unpaired", action="store_true", help="as for evaluate")
    p.add_argument("--show-table", action="store_true", help="print the table at each round start and at the end")
    p.add_argument("--every-move", action="store_true", help="print the table after every move")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--record", metavar="JSON", help="save the game (positions and moves) for five-towers replay")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_output_file(parser, "record", args.record)
    a.check_setup(parser, args, seated=len(args.agents))
    a.check_agents(parser, args.agents, args.game, people=True)


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """One game between the named agents; the table with --show-table; the game saved for
    ``five-towers replay`` with --record."""
    from five_towers_env.agents.human import QuitGame
    from five_towers_env.agents.registry import is_interactive
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.specs import resolve_specs
    from five_towers_env.limits import play_agents
    from five_towers_env.play import GameWatcher, MoveLog, play_game
    from five_towers_env.replay import GameRecorder

    specs = resolve_specs(args.agents, args.game)
    num_players = args.players or max(2, len(specs))
    # the same seeds, deal and seat rotation as game --game-index of `five-towers evaluate` with these agents
    job, labels, agents = play_agents(specs, args.game_index, num_players, args.seed, not args.unpaired)
    print("seats: " + ", ".join(f"{s}={label}" for s, label in enumerate(labels)))
    watchers: list[GameWatcher] = []
    if not args.quiet:
        # a person playing sees the final table even without --show-table: how the game ended
        person = any(is_interactive(text, game=args.game) for text in args.agents)
        show = "move" if args.every_move else "round" if args.show_table else "end" if person else None
        watchers.append(MoveLog(labels, show_table=show))
    recorder = None
    if args.record:
        recorder = GameRecorder(labels, {"variant": args.variant, "num_players": num_players, "seed": args.seed,
                                         "game_index": args.game_index, "deal_seed": job.deal_seed,
                                         "paired": not args.unpaired, "agents": list(args.agents)})
        watchers.append(recorder)
    try:
        result = play_game(agents, variant=args.variant, seed=job.deal_seed, watchers=watchers, game=args.game)
    except (QuitGame, KeyboardInterrupt) as exc:
        # a person stopped the game: say so, keep what was played, no traceback
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped: {exc}"
        print(f"\ngame {why}; nothing more is played")
        if recorder is not None and recorder.ui is not None:
            print(f"wrote {recorder.save(args.record)} (the game so far)")
        return 130 if isinstance(exc, KeyboardInterrupt) else 0
    except AgentError as exc:  # as evaluate says it: one line
        print(f"five-towers play: stopped: {exc}", file=sys.stderr)
        return 1
    scores, winners = result["scores"], result["winners"]
    print("final scores: " + ", ".join(f"seat {s} ({labels[s]}) {sc}" for s, sc in enumerate(scores)))
    print(f"winner{'s' if len(winners) > 1 else ''}: " + ", ".join(f"seat {w} ({labels[w]})" for w in winners)
          + f"  [{result['steps']} decisions, {result['moves']} moves]")
    if recorder is not None:
        path = recorder.save(args.record)
        print(f"wrote {path} (five-towers replay {path} --html replay.html)")
    return 0
