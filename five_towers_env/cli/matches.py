"""What the commands that play many games share (``evaluate``, ``tournament``, ``rate``, ``zoo``, ``ladder``):
their match options, the journal of games in ``--out``, and how a result, a stop or a failed write is told."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from five_towers_env.cli import arguments as a
from five_towers_env.cli.invocation import Invocation
from five_towers_env.limits import games_arg


class Result(Protocol):
    """What a command's result offers: its table, and ``save(out_dir, **options)`` writing its files."""

    @property
    def save(self) -> Callable[..., dict[str, Path]]: ...

    def table(self) -> str: ...


def add_match(p: argparse.ArgumentParser, games_help: str, players_help: str,
              players_default: int | None = None) -> None:
    """The options of ``evaluate`` and ``tournament``."""
    a.add_game(p)
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT", help=a.AGENT_HELP)
    p.add_argument("--games", type=games_arg, default=100, help=games_help)
    a.add_variant(p)
    a.add_running(p)
    p.add_argument("--unpaired", action="store_true",
                   help="a fresh deal for every game (default: the seat rotations of a cycle replay one deal)")
    p.add_argument("--players", type=a.players, default=players_default, help=players_help)


def match_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments ``evaluate`` and ``round_robin`` share, from :func:`add_match`'s options."""
    return {"num_players": args.players, "variant": args.variant, "paired": not args.unpaired, "game": args.game,
            **a.running(args)}


def journal_path(args: argparse.Namespace, name: str) -> Path | None:
    """Where the command journals its games: ``<--out>/<name>_journal.jsonl`` (none without --out)."""
    return Path(args.out) / f"{name}_journal.jsonl" if args.out else None


def stopped(command: str, out: str | None, exc: Exception) -> int:
    """An agent failed and the run was told to stop: one line, and what is kept, exit 1; a journal this run
    cannot trust (a JournalError, a ValueError: another run's, or a bad line): one line, exit 2."""
    if isinstance(exc, ValueError):
        print(f"five-towers {command}: error: {exc}", file=sys.stderr)
        return 2
    kept = f"; the games played are kept in {out}: run the same command again to go on" if out else ""
    print(f"five-towers {command}: stopped: {exc} (--on-agent-error forfeit counts such a game as "
          f"lost instead){kept}", file=sys.stderr)
    return 1


def report(result: Result, args: argparse.Namespace, invocation: Invocation, journal: Path | None,
           **save_options: Any) -> int:
    """Print a result's table; save its files in ``--out`` if given, then drop the journal they were made
    from. A write that fails keeps the journal and says how to finish: one line, exit 2."""
    print(result.table())
    if not args.out:
        return 0
    try:
        paths = result.save(args.out, **save_options)
    except OSError as exc:  # the games are played and journaled: say how to write them without replaying
        kept = f"the games played are kept in {journal}: " if journal is not None and journal.exists() else ""
        print(f"five-towers {args.command}: error: the results could not be written in {args.out} ({exc}); "
              f"{kept}make the folder writable and run the same command again to write them", file=sys.stderr)
        return 2
    if journal is not None:
        journal.unlink(missing_ok=True)
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    invocation.wrote(args.out)
    return 0


__all__ = ["add_match", "journal_path", "match_settings", "report", "stopped"]
