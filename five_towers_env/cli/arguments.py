"""The arguments the subcommands share: their types (each a one-line usage error when wrong), help texts,
the groups of options several commands take, and the checks that need the game or the file system."""
from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from five_towers_env.agents.registry import agents_of, is_interactive
from five_towers_env.atomic import file_problem, folder_problem
from five_towers_env.core.game import DEFAULT_GAME, GAMES, GameSpec, get_game
from five_towers_env.evaluation.guard import ON_ERROR
from five_towers_env.limits import cap_workers

#: the longest --move-timeout: a day (a timer's deadline must stay a time the clock can hold)
MAX_SECONDS = 86_400
#: seats any game allows; each game's own range is checked once the game is known
MIN_PLAYERS = min(g.min_players for g in GAMES.values())
MAX_PLAYERS = max(g.max_players for g in GAMES.values())
#: every game's variants (argparse's choices); each game's own are checked once the game is known
VARIANTS = tuple(dict.fromkeys(v for g in GAMES.values() for v in g.variants))

AGENT_HELP = ("agents: registry names (" + "; ".join(f"{g.title}: {', '.join(agents_of(g))}" for g in GAMES.values())
              + "), optionally with settings, e.g. mcts:simulations=100,race_z=1.5; your own: "
                "py:path=module.attr or py:path=file.py:attr, sb3:path=model.zip, rllib:path=CHECKPOINT")
GAME_HELP = (f"the game: {', '.join(GAMES)} (default {DEFAULT_GAME}); agents, variants and seats are the game's")
VARIANT_HELP = ("the rule variant (default: the game's first): "
                + "; ".join(f"{g.title}: {', '.join(g.variants)}" for g in GAMES.values()))


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the usage block is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def show_plain_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                       file: TextIO | None = None, line: str | None = None) -> None:
    """Warnings as a user reads them on the command line: what, not where in the code."""
    (file or sys.stderr).write(f"five-towers: warning: {message}\n")


# -- types ------------------------------------------------------------------------------------

def _int(text: str, wanted: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None


def players(text: str) -> int:
    wanted = "one of " + ", ".join(map(str, range(MIN_PLAYERS, MAX_PLAYERS + 1)))
    n = _int(text, wanted)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def nonneg(text: str) -> int:
    n = _int(text, "an integer >= 0")
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return n


def workers(text: str) -> int:
    wanted = "an integer >= 0 (1: in this process, 0: every CPU)"
    n = _int(text, wanted)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def game_name(text: str) -> str:
    """A game's name for ``--game``: a number or a near miss gets a pointed hint."""
    if text in GAMES:
        return text
    if text.strip().isdigit():
        hint = f"; to replay game {text.strip()} of an evaluation, use --game-index {text.strip()}"
    else:
        close = difflib.get_close_matches(text, list(GAMES), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
    raise argparse.ArgumentTypeError(f"must be a game ({', '.join(GAMES)}), got {text!r}{hint}")


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, at most {MAX_SECONDS:,}, "
                                         f"got {text!r}")
    return value


def override(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` of ``--set``, the value read as YAML."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, e.g. total_timesteps=200000, got {text!r}")
    try:
        import yaml
    except ImportError:  # the trainer reports the missing rl extra before any value is used
        return key.strip(), value
    from five_towers_env.training.config_base import ConfigError, load_yaml, short_repr

    try:
        return key.strip(), load_yaml(value, f"--set {key.strip()}")
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    except (yaml.YAMLError, ValueError) as e:  # ValueError: an integer longer than Python reads
        raise argparse.ArgumentTypeError(f"{short_repr(text)}: the value is not valid YAML: {e}") from None
    except RecursionError:
        raise argparse.ArgumentTypeError(f"{key.strip()}=...: the value nests too deeply") from None


# -- groups of options --------------------------------------------------------------------------

def add_game(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", type=game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)


def add_variant(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)


def add_running(p: argparse.ArgumentParser, out_help: str = "folder for CSV / JSON (and other) result files",
                seed_default: int | None = 0, seed_help: str = "default 0") -> None:
    """How the games of ``evaluate``, ``tournament``, ``zoo``, ``rate`` and ``ladder`` run."""
    p.add_argument("--seed", type=nonneg, default=seed_default,
                   help=f"run seed; every game's seeds derive from it ({seed_help})")
    p.add_argument("--workers", type=workers, default=1,
                   help="processes (1: in this process; 0: every CPU; more than the CPUs: capped there, with a "
                        "warning); results do not depend on it (default 1)")
    p.add_argument("--force-workers", action="store_true", help="start --workers processes even above the CPUs")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="play on a Ray cluster: auto (the one this machine joined), its address, or local (a Ray "
                        "instance here with --workers CPUs); results are the same as without (needs the ray extra)")
    p.add_argument("--out", metavar="DIR",
                   help=out_help + "; each game is journalled there as it finishes, so the same command run "
                                   "again after a stop plays only the games it lacks")
    p.add_argument("--on-agent-error", choices=ON_ERROR, default="stop",
                   help="when an agent raises, returns an illegal or malformed action, or runs past "
                        "--move-timeout: stop the run (default; the games played are kept with --out) or forfeit "
                        "that game (its seat loses; counted and reported)")
    p.add_argument("--move-timeout", type=seconds, metavar="SECONDS",
                   help="seconds an agent may take per decision, at most 86400 (default: no limit)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--discard-bad-journal-lines", action="store_true",
                   help="drop the --out journal's lines that fail their checks (named in a warning) and play their "
                        "games again (default: such a line stops the run, exit 2)")


def running(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of how games run (:func:`add_running`), as the API names them."""
    return {"seed": args.seed, "workers": args.workers, "progress": not args.no_progress, "ray": args.ray,
            "on_agent_error": args.on_agent_error, "move_timeout": args.move_timeout,
            "discard_bad_journal_lines": args.discard_bad_journal_lines}


# -- checks -------------------------------------------------------------------------------------

def check_running(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The checks of :func:`add_running`'s options: ``--out`` writable, ``--ray`` installed, ``--workers`` capped
    at the CPUs (with a warning) unless forced."""
    check_out(parser, args)
    check_ray(parser, args)
    cap_workers(args)


def check_out(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--out`` must be a folder this process can write in (made when the command writes)."""
    out = getattr(args, "out", None)
    problem = folder_problem(out) if out is not None else None
    if problem:
        parser.error(f"argument --out: must be a folder to write in (made if missing): {problem}")


def check_output_file(parser: argparse.ArgumentParser, flag: str, path: str | None) -> None:
    """``--FLAG FILE`` must be a file this process can write."""
    problem = file_problem(path) if path is not None else None
    if problem:
        parser.error(f"argument --{flag}: must be a file to write: {problem}")


def check_agents(parser: argparse.ArgumentParser, agents: Sequence[str], game: str,
                 argument: str = "--agents", people: bool = False) -> None:
    """Turn a bad agent name or setting (for ``game``), or a user's agent that does not load, into a
    one-line usage error before any game starts; ``human`` only where ``people`` may play."""
    from five_towers_env.evaluation.specs import resolve_specs

    for text in agents:
        if not people and is_interactive(text, game=game):
            parser.error(f"argument {argument}: human plays only in `five-towers play` (a person cannot sit "
                         "through hundreds of games)")
        try:
            for spec in resolve_specs([text], game):
                spec.build(0)
        except (ValueError, TypeError, ImportError, OSError, AttributeError) as exc:
            reason = " ".join(str(exc).split())  # one line, whatever the library wrote
            parser.error(f"argument {argument}: {text}: {reason}")


def check_ray(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--ray`` needs Ray installed: a usage error before any game, not an import error after."""
    import importlib.util

    if getattr(args, "ray", None) is not None and importlib.util.find_spec("ray") is None:
        parser.error('argument --ray: Ray is not installed (pip install -e ".[ray]")')


def check_setup(parser: argparse.ArgumentParser, args: argparse.Namespace,
                seated: int | None = None) -> GameSpec:
    """Fill in the game's default variant; refuse a variant or a seat count the game does not have (with no
    ``--players``, ``seated``: the seats the agents fill by default)."""
    game = get_game(args.game)
    if args.players is None and seated is not None and seated > game.max_players:
        parser.error(f"argument --agents: {game.title} seats {game.min_players} to {game.max_players} players, "
                     f"got {seated} agents")
    if args.variant is None:
        args.variant = game.default_variant
    elif args.variant not in game.variants:
        parser.error(f"argument --variant: {game.title} has the variants {', '.join(game.variants)}, "
                     f"got {args.variant!r}")
    if args.players is not None and not game.min_players <= args.players <= game.max_players:
        parser.error(f"argument --players: {game.title} seats {game.min_players} to {game.max_players} "
                     f"players, got {args.players}")
    return game


__all__ = ["AGENT_HELP", "GAME_HELP", "MAX_PLAYERS", "MIN_PLAYERS", "Parser", "VARIANTS", "VARIANT_HELP",
           "add_game", "add_running", "add_variant", "check_agents", "check_out", "check_output_file", "check_ray",
           "check_running",
           "check_setup",
           "game_name", "nonneg", "override", "players", "running", "seconds", "show_plain_warning", "workers"]
