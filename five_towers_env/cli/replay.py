"""``five-towers replay``: a recorded game checked, then shown move by move, as an HTML replay or an SVG."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("replay", help="a recorded game (play --record) move by move, as an HTML replay or an SVG")
    p.add_argument("record", metavar="JSON", help="a game written by five-towers play --record")
    p.add_argument("--game", type=a.game_name, default=None, metavar="GAME",
                   help="check that the record is a game of GAME (default: whichever game it records)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML replay (opens in any browser)")
    p.add_argument("--svg", metavar="FILE", help="write the table after move --move as an SVG picture")
    p.add_argument("--move", type=a.nonneg, default=-1, help="with --svg: after this many moves (default: the end)")
    p.add_argument("--show-table", action="store_true", help="print the table at each round start and at the end")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_output_file(parser, "html", args.html)
    a.check_output_file(parser, "svg", args.svg)


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Check a recorded game and print it move by move, or write it as an HTML replay or an SVG."""
    from five_towers_env import replay as records
    from five_towers_env.atomic import write_text
    from five_towers_env.core.game import get_game
    from five_towers_env.core.gameui import get_ui
    from five_towers_env.play import MoveLog

    def error(message: object) -> int:
        print(f"five-towers replay: error: {' '.join(str(message).split())}", file=sys.stderr)
        return 2

    def written(path: str) -> None:
        print(f"wrote {path}")
        taken = records.provenance_taken(Path(path).parent)
        if taken:
            print(f"five-towers replay: note: {taken}", file=sys.stderr)
        else:
            invocation.wrote(Path(path).parent)

    try:  # every output runs the same checks, the whole record's, before anything is written or shown
        record = records.check_replay(records.read_record(args.record))
    except (records.RecordError, OSError) as exc:
        return error(exc)
    game = records.game_of(record)
    if args.game is not None and game != args.game:
        return error(f"{args.record} is a game of {game}, not {args.game} (leave out --game to replay it)")
    ui = get_ui(game)
    if args.html or args.svg:
        try:
            if args.html:
                written(str(records.write_html(record, args.html)))
            if args.svg:
                picture = ui.svg(records.frame_state(record, args.move), record.get("seats"))
                write_text(args.svg, picture)
                written(args.svg)
        except (records.RecordError, IndexError, OSError) as exc:
            return error(exc)
        return 0
    log = MoveLog(record.get("seats"), show_table="round" if args.show_table else None)
    try:
        for state, move in records.replay(record):
            if move is None:
                log.start(state, get_game(game))
            else:
                log.move(move)
    except records.RecordError as exc:
        return error(exc)
    print(records.result_line(record) or "(the game was not finished)")
    return 0
