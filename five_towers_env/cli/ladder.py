"""``five-towers ladder``: calibrate a setup's rating ladder from the game's plan, or list the shipped ones."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.cli.matches import stopped


def add(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("ladder", help="calibrate a setup's rating ladder from the game's plan (a long run); "
                                      "without --players, list the shipped ladders")
    a.add_game(p)
    p.add_argument("--players", type=a.players, help="seats per game: calibrate this setup")
    a.add_variant(p)
    p.add_argument("--ship", action="store_true",
                   help="copy the calibrated ladder into the game's package, where rate reads it")
    a.add_running(p, "folder for the ladder and its journal of games (default results/ladder/<game>/<setup>)",
                  seed_default=None, seed_help="default: the seed of the game's ladder plan")
    p.set_defaults(run=run, check=check)
    return p


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    a.check_setup(parser, args)
    a.check_running(parser, args)


def run(args: argparse.Namespace, invocation: Invocation) -> int:
    """Calibrate a setup's ladder (results/ladder/<game>/<setup> by default), or list the shipped ladders."""
    import shutil

    from five_towers_env.core.game import get_game, setup_key
    from five_towers_env.evaluation.journal_check import JournalError
    from five_towers_env.evaluation.ladder import calibrate, ladder_folder, shipped_ladder

    spec = get_game(args.game)
    if args.players is None:
        paths = sorted(ladder_folder(spec).glob("*p-*.json"))
        for path in paths:
            players, _, variant = path.stem.partition("p-")
            print(shipped_ladder(spec, int(players), variant).table() + "\n")
        if not paths:
            print(f"{spec.title} ships no calibrated ladder yet (five-towers ladder --game {spec.name} --players N)")
        return 0
    setup = setup_key(args.players, args.variant)
    out = Path(args.out or Path("results") / "ladder" / spec.name / setup)
    invocation.wrote(out, now=True)  # a calibration runs for hours: its folder says where it came from meanwhile
    try:
        ladder = calibrate(spec.name, args.players, args.variant, out, workers=args.workers, ray=args.ray,
                           seed=args.seed, progress=not args.no_progress,
                           discard_bad_journal_lines=args.discard_bad_journal_lines)
    except JournalError as exc:
        return stopped("ladder", args.out, exc)
    except EOFError as exc:  # a cut-off archive of games
        print(f"five-towers ladder: error: {out / 'journal.jsonl.gz'} is cut off ({exc}); delete it to play its "
              "games again", file=sys.stderr)
        return 2
    except OSError as exc:  # not writable, or an archive that is not gzip: the journal keeps what was played
        print(f"five-towers ladder: error: {exc} (in {out}); the games played are kept in its journal: fix that and "
              "run the same command again", file=sys.stderr)
        return 2
    print(ladder.table())
    print(f"wrote {out / 'ladder.json'}, {out / 'ladder.md'}, {out / 'journal.jsonl.gz'}")
    invocation.wrote(out)
    if args.ship:
        target = ladder_folder(spec) / f"{setup}.json"
        try:
            shutil.copyfile(out / "ladder.json", target)
        except OSError as exc:
            print(f"five-towers ladder: error: the ladder was not shipped to {target}: {exc}", file=sys.stderr)
            return 2
        print(f"shipped: {target}")
    return 0
