"""The ``five-towers`` command line.

    five-towers play --agents heuristic random --seed 3
    five-towers play --agents human ppo --record game.json      # you against the shipped policy
    five-towers replay game.json --html replay.html             # a replay any browser opens
    five-towers evaluate --agents heuristic random --games 1000 --players 2 --variant base --seed 0 \\
        --workers 2 --out runs/eval
    five-towers tournament --agents random greedy heuristic --games 1000 --workers 2 --out runs/tournament
    five-towers play --game campanile --agents human random --record g.json   # Campanile, same tools

Agents are registry names, optionally with settings: ``mcts:simulations=100,race_z=1.5``. Each game
(``--game``: five_towers, the default, or campanile) has its own agents and variants.
"""
from __future__ import annotations

import argparse
import difflib
import math
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from five_towers_env import numerics

# this module: the parser, its argument checks and main(); the subcommands are in cli_commands
from five_towers_env.cli_commands import (
    cmd_evaluate,
    cmd_expert,
    cmd_ladder,
    cmd_play,
    cmd_rate,
    cmd_replay,
    cmd_tournament,
    cmd_train,
    cmd_zoo,
    folder_problem,
    write_provenances,
)
from five_towers_env.core.game import DEFAULT_GAME, GAMES, GameSpec, get_game
from five_towers_env.limits import (
    cap_workers,
    eval_games_arg,
    game_index_arg,
    games_arg,
    tournament_games_problem,
)
from five_towers_env.provenance import command_line

#: seats any game allows; each game's own range is checked once the game is known
MIN_PLAYERS = min(g.min_players for g in GAMES.values())
MAX_PLAYERS = max(g.max_players for g in GAMES.values())
#: every game's variants (argparse's choices); each game's own are checked once the game is known
VARIANTS = tuple(dict.fromkeys(v for g in GAMES.values() for v in g.variants))

AGENT_HELP = ("agents: registry names (" + "; ".join(f"{g.title}: {', '.join(g.agents)}" for g in GAMES.values())
              + "), optionally with settings, e.g. mcts:simulations=100,race_z=1.5; your own: "
                "py:path=module.attr or py:path=file.py:attr, sb3:path=model.zip, rllib:path=CHECKPOINT")
# evaluation's defaults, written here so that `five-towers --help` need not import it (a test keeps them equal)
#: games `five-towers rate` plays by default (evaluation.rate.DEFAULT_GAMES)
RATE_GAMES = 360
#: what an agent's failed decision costs (evaluation.guard.ON_ERROR)
ON_AGENT_ERROR = ("stop", "forfeit")
#: the zoo table's opponents (evaluation.zoo.OPPONENTS)
ZOO_OPPONENTS = ("heuristic", "greedy", "random")
GAME_HELP = (f"the game: {', '.join(GAMES)} (default {DEFAULT_GAME}); agents, variants and seats are the game's")
VARIANT_HELP = ("the rule variant (default: the game's first): "
                + "; ".join(f"{g.title}: {', '.join(g.variants)}" for g in GAMES.values()))


def _int(text: str, wanted: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None


def _players(text: str) -> int:
    wanted = "one of " + ", ".join(map(str, range(MIN_PLAYERS, MAX_PLAYERS + 1)))
    n = _int(text, wanted)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def _nonneg(text: str) -> int:
    n = _int(text, "an integer >= 0")
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}")
    return n


def _workers(text: str) -> int:
    wanted = "an integer >= 0 (1: in this process, 0: every CPU)"
    n = _int(text, wanted)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def _game_name(text: str) -> str:
    """A game's name for ``--game``: a number or a near miss gets a pointed hint."""
    if text in GAMES:
        return text
    hint = ""
    if text.strip().isdigit():
        hint = f"; to replay game {text.strip()} of an evaluation, use --game-index {text.strip()}"
    else:
        close = difflib.get_close_matches(text, list(GAMES), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
    raise argparse.ArgumentTypeError(f"must be a game ({', '.join(GAMES)}), got {text!r}{hint}")


def _unwritable_folder(path: str | Path) -> str | None:
    """Why files cannot be written in the folder ``path`` (made if missing), or None: checked by
    making it and a scratch file in it, since permission bits do not tell (root, read-only mounts, /proc)."""
    problem = folder_problem(path)
    if problem:
        return problem
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        return f"{path} cannot be written: {exc.strerror or exc}"
    return None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _add_running(p: argparse.ArgumentParser, out_help: str = "folder for CSV / JSON (and other) result files",
                 seed_default: int | None = 0, seed_help: str = "default 0") -> None:
    """How the games of ``evaluate``, ``tournament``, ``zoo``, ``rate`` and ``ladder`` run."""
    p.add_argument("--seed", type=_nonneg, default=seed_default,
                   help=f"run seed; every game's seeds derive from it ({seed_help})")
    p.add_argument("--workers", type=_workers, default=1,
                   help="processes (1: in this process; 0: every CPU; more than the CPUs: capped there, with a "
                        "warning); results do not depend on it (default 1)")
    p.add_argument("--force-workers", action="store_true", help="start --workers processes even above the CPUs")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="play on a Ray cluster: auto (the one this machine joined), its address, or local (a Ray "
                        "instance here with --workers CPUs); results are the same as without (needs the ray extra)")
    p.add_argument("--out", metavar="DIR",
                   help=out_help + "; each game is journalled there as it finishes, so the same command run "
                                   "again after a stop plays only the games it lacks")
    p.add_argument("--on-agent-error", choices=ON_AGENT_ERROR, default="stop",
                   help="when an agent raises, returns an illegal or malformed action, or runs past "
                        "--move-timeout: stop the run (default; the games played are kept with --out) or forfeit "
                        "that game (its seat loses; counted and reported)")
    p.add_argument("--move-timeout", type=_seconds, metavar="SECONDS",
                   help="seconds an agent may take per decision (default: no limit)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--discard-bad-journal-lines", action="store_true",
                   help="drop the --out journal's lines that fail their checks (named in a warning) and play their "
                        "games again (default: such a line stops the run, exit 2)")


def _add_common(p: argparse.ArgumentParser, games_help: str, players_help: str,
                players_default: int | None = None) -> None:
    """The arguments shared by ``evaluate`` and ``tournament``."""
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT", help=AGENT_HELP)
    p.add_argument("--games", type=games_arg, default=100, help=games_help)
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)
    _add_running(p)
    p.add_argument("--unpaired", action="store_true",
                   help="a fresh deal for every game (default: the seat rotations of a cycle replay one deal)")
    p.add_argument("--players", type=_players, default=players_default, help=players_help)


def _override(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, e.g. total_timesteps=200000, got {text!r}")
    try:
        import yaml
    except ImportError:  # cmd_train reports the missing rl extra before any value is used
        return key.strip(), value
    try:
        return key.strip(), yaml.safe_load(value)
    except (yaml.YAMLError, ValueError) as e:  # ValueError: an integer longer than Python reads
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not valid YAML: {e}") from None


# -- parser -----------------------------------------------------------------------------------

def _show_plain_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                        file: TextIO | None = None, line: str | None = None) -> None:
    """Warnings as a user reads them on the command line: what, not where in the code."""
    (file or sys.stderr).write(f"five-towers: warning: {message}\n")


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (the usage block is one ``--help`` away)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``five-towers`` argument parser (each subcommand sets ``func``)."""
    parser = _Parser(prog="five-towers", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("play", help="play one game between named agents (human: you), one line per move")
    p.add_argument("--agents", nargs="+", default=["random", "random"], metavar="AGENT", help=AGENT_HELP)
    p.add_argument("--players", type=_players, help="seats (default: the number of agents; agents repeat to fill)")
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)
    p.add_argument("--seed", type=_nonneg, default=0)
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--game-index", type=game_index_arg, default=0, metavar="N",
                   help="replay game N of `evaluate` with the same agents, seed and players (default 0; at most "
                        "999,999)")
    p.add_argument("--unpaired", action="store_true", help="as for evaluate")
    p.add_argument("--show-table", action="store_true", help="print the table at each round start and at the end")
    p.add_argument("--every-move", action="store_true", help="print the table after every move")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--record", metavar="JSON", help="save the game (positions and moves) for five-towers replay")
    p.set_defaults(func=cmd_play, parser=p)

    p = sub.add_parser("replay", help="a recorded game (play --record) move by move, as an HTML replay or an SVG")
    p.add_argument("record", metavar="JSON", help="a game written by five-towers play --record")
    p.add_argument("--game", type=_game_name, default=None, metavar="GAME",
                   help="check that the record is a game of GAME (default: whichever game it records)")
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML replay (opens in any browser)")
    p.add_argument("--svg", metavar="FILE", help="write the table after move --move as an SVG picture")
    p.add_argument("--move", type=_nonneg, default=-1, help="with --svg: after this many moves (default: the end)")
    p.add_argument("--show-table", action="store_true", help="print the table at each round start and at the end")
    p.set_defaults(func=cmd_replay, parser=p)

    p = sub.add_parser("evaluate", help="seat-rotated seeded games between agents: win rates with 95%% CIs")
    _add_common(p, "games to play (default 100; a multiple of the number of agents balances the seats)",
                "seats per game (default: the number of agents, at least 2)")
    p.add_argument("--field", metavar="AGENT",
                   help="an agent filling every seat the agents leave (needs --players above their number): "
                        "--agents ppo --field heuristic --players 4 is one ppo against three heuristics, "
                        "the ppo seat rotated over each deal's four seatings")
    p.set_defaults(func=cmd_evaluate, parser=p)

    p = sub.add_parser("tournament", help="round robin: win-rate matrix, Elo and OpenSkill ratings, plot")
    _add_common(p, "games per pairing / group (default 100)", "seats per game (default 2)", players_default=2)
    p.add_argument("--no-plot", action="store_true", help="skip the PNG of the win-rate matrix")
    p.set_defaults(func=cmd_tournament, parser=p)

    p = sub.add_parser("zoo", help="the policies ppo plays in each setup; with --games, how each fares against "
                                   "n - 1 copies of each --field agent")
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--games", type=games_arg, help="games per setup and opponent (default: only list the policies)")
    p.add_argument("--setups", nargs="+", metavar="SETUP", help="only these setups, e.g. 3p-base (default: all)")
    p.add_argument("--field", nargs="+", default=list(ZOO_OPPONENTS), metavar="AGENT",
                   help=f"the opponents, one column each (default: {' '.join(ZOO_OPPONENTS)}); any agent, "
                        "e.g. sb3:path=model.zip")
    p.add_argument("--runs", metavar="DIR", help="folder of training run folders: the training time column "
                                                 "reads <DIR>/<run>/eval_log.csv (e.g. results)")
    _add_running(p, "folder for table.json / table.md and each evaluation's files")
    p.set_defaults(func=cmd_zoo, parser=p)

    p = sub.add_parser("rate", help="rate any agent on the setup's fixed ladder (random = 0), with a 95%% interval")
    p.add_argument("agent", metavar="AGENT", help="the agent to rate: a registry name with settings, "
                                                  "py:path=module.attr, sb3:path=model.zip, rllib:path=CHECKPOINT")
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--players", type=_players, default=2, help="seats per game (default 2)")
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)
    p.add_argument("--games", type=games_arg, default=RATE_GAMES,
                   help=f"games in all, split evenly over the ladder's agents (default {RATE_GAMES}); more games, "
                        "a tighter interval")
    _add_running(p, "folder for rate.json / rate.txt")
    p.set_defaults(func=cmd_rate, parser=p)

    p = sub.add_parser("ladder", help="calibrate a setup's rating ladder from the game's plan (a long run); "
                                      "without --players, list the shipped ladders")
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--players", type=_players, help="seats per game: calibrate this setup")
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)
    p.add_argument("--ship", action="store_true",
                   help="copy the calibrated ladder into the game's package, where rate reads it")
    _add_running(p, "folder for the ladder and its journal of games (default results/ladder/<game>/<setup>)",
                 seed_default=None, seed_help="default: the seed of the game's ladder plan")
    p.set_defaults(func=cmd_ladder, parser=p)

    p = sub.add_parser("train", help="self-play MaskablePPO training from a YAML config (needs the rl extra)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="YAML", help="a training config, e.g. configs/ppo_selfplay_2p.yaml")
    source.add_argument("--resume", metavar="RUN|CHECKPOINT",
                        help="continue a run from a checkpoint, <run>/checkpoints/step_N.zip, or a run folder (its "
                             "newest whole checkpoint), with the config stored beside it, writing into <run>, or "
                             "into a new folder named by --set out_dir=DIR name=NAME")
    # extend, not store: a second --set must add to the first, never silently replace it
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="KEY=VALUE", type=_override,
                   help="override config settings, e.g. total_timesteps=200000 ppo.n_epochs=2 (YAML values; "
                        "may be repeated)")
    p.add_argument("--eval-games", type=eval_games_arg, default=None,
                   help="games per baseline in the evaluation table printed at the end "
                        "(default: the config's final_eval_games; 0 skips it)")
    p.add_argument("--workers", type=_workers, default=1,
                   help="processes for that evaluation (1: in this process; 0: every CPU; default 1; capped at "
                        "the CPUs)")
    p.add_argument("--force-workers", action="store_true", help="start --workers processes even above the CPUs")
    p.add_argument("--force", action="store_true",
                   help="with --config: start over in a run folder that holds a run, deleting that run's files "
                        "(checkpoints, logs, policy) first; without it, that is an error")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train, parser=p)

    p = sub.add_parser("expert", help="expert iteration: a policy-value network trained from its own guided search "
                                      "(needs the rl extra)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="YAML", help="an expert-iteration config, e.g. configs/expert_2p.yaml")
    source.add_argument("--resume", metavar="RUN|CHECKPOINT",
                        help="continue a run from its checkpoint, <run>/checkpoint.pt, or its run folder (the last "
                             "finished generation), with the config stored beside it, writing into <run>")
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="KEY=VALUE", type=_override,
                   help="override config settings, e.g. generations=20 (on --resume: to run more generations)")
    p.add_argument("--force", action="store_true",
                   help="with --config: start over in a run folder that holds a run, deleting that run's files "
                        "(checkpoint, networks, curve) first; without it, that is an error")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_expert, parser=p)

    return parser


def _agent_texts(args: argparse.Namespace) -> list[str]:
    """Every agent the command line names (``--agents``, ``--field``, ``rate``'s AGENT)."""
    field = getattr(args, "field", None)
    return [*(getattr(args, "agents", None) or []), *([field] if isinstance(field, str) else field or []),
            *([args.agent] if getattr(args, "agent", None) else [])]


def _check_agents(parser: argparse.ArgumentParser, agents: Sequence[str], game: str = DEFAULT_GAME,
                  argument: str = "--agents") -> None:
    """Turn a bad agent name or setting (for ``game``), or a user's agent that does not load, into a
    one-line usage error before any game starts."""
    from five_towers_env.evaluation.match import resolve_specs

    for text in agents:
        try:
            for spec in resolve_specs([text], game):
                spec.build(0)
        except (ValueError, TypeError, ImportError, OSError, AttributeError) as exc:
            reason = " ".join(str(exc).split())  # one line, whatever the library wrote
            parser.error(f"argument {argument}: {text}: {reason}")


def _file_problem(path: str) -> str | None:
    """Why ``path`` cannot be written as a file: empty, a folder, or in a folder that cannot be written."""
    if not path.strip():
        return "an empty path"
    if Path(path).is_dir():
        return f"{path} is a folder"
    return _unwritable_folder(Path(path).parent)


def _check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Checks of the parsed arguments that need more than one argument or the file system."""
    outputs = {"play": ("record",), "replay": ("html", "svg")}.get(args.command, ())
    for name in outputs:
        value = getattr(args, name, None)
        problem = _file_problem(value) if value is not None else None
        if problem:
            parser.error(f"argument --{name}: must be a file to write: {problem}")
    if args.command in ("evaluate", "tournament", "rate", "zoo") and any(
            a.partition(":")[0].strip() == "human" for a in _agent_texts(args)):
        parser.error("argument --agents: human plays only in `five-towers play` (a person cannot sit "
                     "through hundreds of games)")
    if args.command in ("play", "evaluate", "tournament", "rate", "ladder"):
        _check_setup_args(parser, args, get_game(args.game))
    out = getattr(args, "out", None)
    if out is not None:
        problem = _unwritable_folder(out) if out.strip() else "an empty path"
        if problem:
            parser.error(f"argument --out: must be a folder to write in (made if missing): {problem}")
    if args.command == "tournament" and len(args.agents) < 2:
        parser.error(f"argument --agents: a tournament needs at least two agents, got {len(args.agents)} "
                     f"(to measure one agent against itself or others, use evaluate)")
    problem = tournament_games_problem(len(args.agents), args.players, args.games) if args.command == "tournament" \
        else None
    if problem:
        parser.error(f"argument --games: {problem}")
    cap_workers(args)
    if getattr(args, "agents", None):
        _check_agents(parser, args.agents, getattr(args, "game", None) or DEFAULT_GAME)
    if args.command == "rate":
        _check_agents(parser, [args.agent], args.game, "AGENT")
    if args.command == "zoo":
        _check_agents(parser, args.field, args.game, "--field")
    if args.command == "evaluate" and args.field is not None:
        _check_agents(parser, [args.field], args.game, "--field")
        if args.players is None or args.players <= len(args.agents):
            parser.error(f"argument --field: the agents leave no seat to fill; give --players above "
                         f"{len(args.agents)} (the number of agents)")


def _check_setup_args(parser: argparse.ArgumentParser, args: argparse.Namespace, game: GameSpec) -> None:
    """Fill in the game's default variant; refuse a variant or a seat count the game does not have."""
    if args.variant is None:
        args.variant = game.default_variant
    elif args.variant not in game.variants:
        parser.error(f"argument --variant: {game.title} has the variants {', '.join(game.variants)}, "
                     f"got {args.variant!r}")
    if args.players is not None and not game.min_players <= args.players <= game.max_players:
        parser.error(f"argument --players: {game.title} seats {game.min_players} to {game.max_players} "
                     f"players, got {args.players}")


def _numerics_mode(args: argparse.Namespace) -> str | None:
    """The ``numerics`` setting of a ``train`` or ``expert`` run (its config with ``--set``), or ``None`` for
    other commands and for a config the command itself will reject."""
    if args.command not in ("train", "expert"):
        return None
    overrides = dict(args.set)
    try:
        if args.command == "expert":
            from five_towers_env.training.expert_config import load_expert_config, resume_expert_config

            if args.resume:
                return resume_expert_config(args.resume, overrides).numerics
            return load_expert_config(args.config, overrides).numerics
        from five_towers_env.training.checkpoints import resume_config
        from five_towers_env.training.config import build_config, config_to_dict, load_config

        if args.config:
            return load_config(args.config, overrides).numerics
        return build_config(config_to_dict(resume_config(args.resume)), overrides).numerics
    except Exception:  # missing extras or a bad config: the command reports it in its own words
        return None


def _pin_numerics(args: argparse.Namespace, argv: Sequence[str] | None) -> int | None:
    """Run a ``numerics: portable`` command again with its kernels pinned (:mod:`five_towers_env.numerics`)
    and return its exit status; ``None`` when this process is to run the command itself."""
    if _numerics_mode(args) != numerics.PORTABLE or numerics.active():
        return None
    problem = numerics.portable_problem()
    if problem is None and os.environ.get(numerics.MARKER) == numerics.PORTABLE:
        problem = "this process was started pinned, yet its settings differ (were they changed inside it?)"
    if problem:
        print(f"five-towers {args.command}: numerics: portable is not available here ({problem}); "
              "running with this CPU's native kernels, so its figures may differ from other machines'",
              file=sys.stderr)
        return None
    return numerics.run_pinned(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``five-towers`` console script; returns the exit status (2 for a usage error)."""
    started = time.time()
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    # provenance.json beside the result files: the command as typed, from when it started (cli_commands.wrote)
    args.provenance_command = command_line(None if argv is None else ["five-towers", *argv])
    args.provenance_started = started
    try:
        with warnings.catch_warnings():  # restores the usual display when main() returns
            warnings.showwarning = _show_plain_warning
            _check_args(args.parser, args)
            pinned = _pin_numerics(args, argv)
            if pinned is not None:
                return pinned
            return func(args)
    except BrokenPipeError:
        # the reader went away (`five-towers play ... | head`): stop quietly, as other command-line tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    finally:
        write_provenances(args)


if __name__ == "__main__":
    sys.exit(main())
