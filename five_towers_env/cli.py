"""The ``five-towers`` command line.

    five-towers play --agents heuristic random --seed 3
    five-towers play --agents human ppo --record game.json      # you against the shipped policy
    five-towers replay game.json --html replay.html             # a replay any browser opens
    five-towers evaluate --agents heuristic random --games 1000 --players 2 --variant base --seed 0 \\
        --workers 2 --out runs/eval
    five-towers tournament --agents random greedy heuristic --games 1000 --workers 2 --out runs/tournament
    five-towers play --game campanile --agents human random --record g.json   # Campanile, same tools

Agents are registry names, optionally with settings: ``mcts:simulations=100,c=1.4``. Each game
(``--game``: five_towers, the default, or campanile) has its own agents and variants.
"""
from __future__ import annotations

import argparse
import difflib
import importlib.util
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Callable, NoReturn, Sequence, TextIO

from five_towers_env.core.game import DEFAULT_GAME, GAMES, Game, get_game

#: seats any game allows; each game's own range is checked once the game is known
MIN_PLAYERS = min(g.min_players for g in GAMES.values())
MAX_PLAYERS = max(g.max_players for g in GAMES.values())
#: every game's variants (argparse's choices); each game's own are checked once the game is known
VARIANTS = tuple(dict.fromkeys(v for g in GAMES.values() for v in g.variants))

AGENT_HELP = ("agents: registry names (" + "; ".join(f"{g.title}: {', '.join(g.agents)}" for g in GAMES.values())
              + "), optionally with settings, e.g. mcts:simulations=100,c=1.4")
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


def _positive(text: str) -> int:
    n = _int(text, "an integer >= 1")
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
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


def _folder_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be (or become) a folder: it, or a folder above it, is a file."""
    for p in (Path(path), *Path(path).parents):
        if p.exists():
            return None if p.is_dir() else (f"{path} is a file, not a folder" if p == Path(path)
                                            else f"{p} (in {path}) is a file, not a folder")
    return None


def _unwritable_folder(path: str | Path) -> str | None:
    """Why files cannot be written in the folder ``path`` (made if missing), or None: checked by
    making it and a scratch file in it, since permission bits do not tell (root, read-only mounts, /proc)."""
    problem = _folder_problem(path)
    if problem:
        return problem
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        return f"{path} cannot be written: {exc.strerror or exc}"
    return None


def _add_common(p: argparse.ArgumentParser, games_help: str, players_help: str,
                players_default: int | None = None) -> None:
    """The arguments shared by ``evaluate`` and ``tournament``."""
    p.add_argument("--game", type=_game_name, default=DEFAULT_GAME, metavar="GAME", help=GAME_HELP)
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT", help=AGENT_HELP)
    p.add_argument("--games", type=_positive, default=100, help=games_help)
    p.add_argument("--variant", choices=VARIANTS, default=None, help=VARIANT_HELP)
    p.add_argument("--seed", type=_nonneg, default=0, help="run seed; every game's seeds derive from it (default 0)")
    p.add_argument("--workers", type=_workers, default=1,
                   help="processes (1: in this process; 0: every CPU); results do not depend on it (default 1)")
    p.add_argument("--out", metavar="DIR", help="folder for CSV / JSON (and other) result files")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--unpaired", action="store_true",
                   help="a fresh deal for every game (default: the seat rotations of a cycle replay one deal)")
    p.add_argument("--players", type=_players, default=players_default, help=players_help)


# -- play -------------------------------------------------------------------------------------

def cmd_play(args: argparse.Namespace) -> int:
    """One game between the named agents (``human`` for a person), one line per move; the table
    with --show-table; the game saved for ``five-towers replay`` with --record."""
    from five_towers_env.agents.human import QuitGame
    from five_towers_env.evaluation.match import make_jobs, resolve_specs
    from five_towers_env.play import GameWatcher, MoveLog, play_game
    from five_towers_env.replay import GameRecorder

    specs = resolve_specs(args.agents, args.game)
    num_players = args.players or max(2, len(specs))
    # the same seeds, deal and seat rotation as game --game-index of `five-towers evaluate` with these agents
    job = make_jobs(list(range(len(specs))), args.game_index + 1, num_players, args.seed,
                    paired=not args.unpaired)[-1]
    labels = [specs[a].label for a in job.lineup]
    agents = [specs[a].build(job.agent_seeds[s]) for s, a in enumerate(job.lineup)]
    print("seats: " + ", ".join(f"{s}={label}" for s, label in enumerate(labels)))
    watchers: list[GameWatcher] = []
    if not args.quiet:
        # a person playing sees the final table even without --show-table: how the game ended
        human = any(s.name == "human" for s in specs)
        show = "move" if args.every_move else "round" if args.show_table else "end" if human else None
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
    scores, winners = result["scores"], result["winners"]
    print("final scores: " + ", ".join(f"seat {s} ({labels[s]}) {sc}" for s, sc in enumerate(scores)))
    print(f"winner{'s' if len(winners) > 1 else ''}: " + ", ".join(f"seat {w} ({labels[w]})" for w in winners)
          + f"  [{result['steps']} decisions, {result['moves']} moves]")
    if recorder is not None:
        path = recorder.save(args.record)
        print(f"wrote {path} (five-towers replay {path} --html replay.html)")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Check a recorded game and print it move by move, or write it as an HTML replay or an SVG."""
    from five_towers_env.core.gameui import get_ui
    from five_towers_env.play import MoveLog
    from five_towers_env.replay import RecordError, frame_state, read_record, replay, result_line, write_html

    def error(message: object) -> int:
        print(f"five-towers replay: error: {message}", file=sys.stderr)
        return 2

    try:
        record = read_record(args.record)
    except (RecordError, OSError) as exc:
        return error(exc)
    if args.game is not None and record["game"] != args.game:
        return error(f"{args.record} is a game of {record['game']}, not {args.game} (leave out --game to replay it)")
    ui = get_ui(record["game"])
    if args.html or args.svg:
        try:
            if args.html:
                print(f"wrote {write_html(record, args.html)}")
            if args.svg:
                picture = ui.svg(frame_state(record, args.move), record.get("seats"))
                Path(args.svg).parent.mkdir(parents=True, exist_ok=True)
                Path(args.svg).write_text(picture, encoding="utf-8")
                print(f"wrote {args.svg}")
        except (RecordError, IndexError, OSError) as exc:
            return error(exc)
        return 0
    log = MoveLog(record.get("seats"), show_table="round" if args.show_table else None)
    try:
        for state, move in replay(record):
            if move is None:
                log.start(state, ui)
            else:
                log.move(move)
    except RecordError as exc:
        return error(exc)
    print(result_line(record) or "(the game was not finished)")
    return 0


# -- evaluate and tournament -----------------------------------------------------------------

def _match_settings(args: argparse.Namespace) -> dict[str, object]:
    """The keyword arguments ``evaluate`` and ``round_robin`` share, from the common options."""
    return {"num_players": args.players, "variant": args.variant, "seed": args.seed, "workers": args.workers,
            "progress": not args.no_progress, "paired": not args.unpaired, "game": args.game}


def _report(result: object, out: str | None, **save_options: object) -> int:
    """Print a result's table; save its files in ``out`` if given."""
    print(result.table())
    if out:
        paths = result.save(out, **save_options)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Seat-rotated games between the agents; summary table, and CSV / JSON in --out."""
    from five_towers_env.evaluation.match import evaluate

    return _report(evaluate(args.agents, num_games=args.games, **_match_settings(args)), args.out)


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin; win-rate matrix, Elo / OpenSkill; CSV / JSON / Markdown / PNG in --out."""
    from five_towers_env.evaluation.tournament import round_robin

    return _report(round_robin(args.agents, games=args.games, **_match_settings(args)), args.out,
                   plot=not args.no_plot)


# -- train ------------------------------------------------------------------------------------

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
    except yaml.YAMLError as e:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not valid YAML: {e}") from None


#: module -> the package of the rl extra that provides it
RL_MODULES = {"yaml": "pyyaml", "torch": "torch", "stable_baselines3": "stable-baselines3",
              "sb3_contrib": "sb3-contrib", "tensorboard": "tensorboard", "tqdm": "tqdm"}
RL_INSTALL = ('pip install -e ".[rl]"  (in a clone of the repository; on a machine without an NVIDIA GPU, '
              "first: pip install torch --index-url https://download.pytorch.org/whl/cpu)")


def missing_rl_packages(progress: bool = True) -> list[str]:
    """The packages of the ``rl`` extra that training needs and are not installed (tqdm only for
    progress bars)."""
    missing = []
    for module, package in RL_MODULES.items():
        if module == "tqdm" and not progress:
            continue
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(package)
    return missing


def _train_error(message: str) -> int:
    print(f"five-towers train: error: {message}", file=sys.stderr)
    return 2


def cmd_train(args: argparse.Namespace) -> int:
    """Train (or resume) a self-play run, then print its policy's results against the baselines.
    Ctrl-C (SIGTERM) saves a checkpoint and exits 130 (143); nothing is written before every check passed."""
    missing = missing_rl_packages(progress=not args.no_progress)
    if missing:
        return _train_error(f"training needs the rl extra, and {', '.join(missing)} "
                            f"{'is' if len(missing) == 1 else 'are'} not installed; install it with\n  {RL_INSTALL}")
    from five_towers_env.training.config import ConfigError, build_config, config_to_dict, load_config

    try:
        from five_towers_env.training.checkpoints import newest_whole_checkpoint, resume_folder_problem, write_problem
        from five_towers_env.training.selfplay import (
            CheckpointError,
            TrainingInterrupted,
            final_evaluation,
            resume_config,
            train,
        )
    except ImportError as exc:  # an rl package present but broken
        return _train_error(f"training needs the rl extra ({exc}); install it with\n  {RL_INSTALL}")
    overrides = dict(args.set)
    try:
        if args.config:
            cfg = load_config(args.config, overrides)
        else:  # the checkpoint's own run folder, unless --set out_dir= / name= names a new one
            cfg = build_config(config_to_dict(resume_config(args.resume)), overrides,
                               source=str(Path(args.resume).with_suffix(".json")))
    except (ConfigError, ValueError, OSError) as exc:  # bad config, --set or checkpoint
        return _train_error(str(exc))
    problem = _folder_problem(cfg.run_dir) or write_problem(cfg.run_dir)
    if problem:
        return _train_error(f"out_dir / name: the run folder {cfg.run_dir} cannot be made: {problem}")
    problem = resume_folder_problem(args.resume, cfg.run_dir) if args.resume else None
    if problem:
        return _train_error(problem)
    print(f"run folder: {cfg.run_dir}")
    try:
        policy = train(cfg, resume=args.resume, progress=not args.no_progress)
    except CheckpointError as exc:  # a whole checkpoint that does not fit the config; nothing written yet
        return _train_error(str(exc))
    except TrainingInterrupted as exc:
        print(f"interrupted: saved checkpoint {exc.checkpoint}; resume with five-towers train --resume "
              f"{exc.checkpoint}", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:  # before training began, or a second Ctrl-C while saving
        newest = newest_whole_checkpoint(cfg.run_dir)
        print(f"interrupted: no checkpoint saved; {f'the newest is {newest}' if newest else 'none to resume from'}",
              file=sys.stderr)
        return 130
    game_flag = "" if cfg.game == "five_towers" else f" with --game {cfg.game}"
    print(f"exported policy: {policy}  (play it as the agent ppo:path={policy}{game_flag})")
    games = cfg.final_eval_games if args.eval_games is None else args.eval_games
    try:
        if games:
            # printed, and saved as final_eval.md / final_eval.json in the run folder
            print("\n" + final_evaluation(policy, cfg, games, workers=args.workers, progress=not args.no_progress))
    except KeyboardInterrupt:
        print(f"interrupted: the final evaluation was skipped; training finished ({policy})", file=sys.stderr)
        return 130
    return 0


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
    p.add_argument("--game-index", type=_nonneg, default=0, metavar="N",
                   help="replay game N of `evaluate` with the same agents, seed and players (default 0)")
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
    p.set_defaults(func=cmd_evaluate, parser=p)

    p = sub.add_parser("tournament", help="round robin: win-rate matrix, Elo and OpenSkill ratings, plot")
    _add_common(p, "games per pairing / group (default 100)", "seats per game (default 2)", players_default=2)
    p.add_argument("--no-plot", action="store_true", help="skip the PNG of the win-rate matrix")
    p.set_defaults(func=cmd_tournament, parser=p)

    p = sub.add_parser("train", help="self-play MaskablePPO training from a YAML config (needs the rl extra)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="YAML", help="a training config, e.g. configs/ppo_selfplay_2p.yaml")
    source.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue a run from <run>/checkpoints/step_N.zip (its stored config), writing into "
                             "<run>, or into a new folder named by --set out_dir=DIR name=NAME")
    # extend, not store: a second --set must add to the first, never silently replace it
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="KEY=VALUE", type=_override,
                   help="override config settings, e.g. total_timesteps=200000 ppo.n_epochs=2 (YAML values; "
                        "may be repeated)")
    p.add_argument("--eval-games", type=_nonneg, default=None,
                   help="games per baseline in the evaluation table printed at the end "
                        "(default: the config's final_eval_games; 0 skips it)")
    p.add_argument("--workers", type=_workers, default=1,
                   help="processes for that evaluation (1: in this process; 0: every CPU; default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train, parser=p)

    return parser


def _check_agents(parser: argparse.ArgumentParser, agents: Sequence[str], game: str = DEFAULT_GAME) -> None:
    """Turn a bad agent name or setting (for ``game``) into a usage error before any game starts."""
    from five_towers_env.evaluation.match import resolve_specs

    for text in agents:
        try:
            for spec in resolve_specs([text], game):
                spec.build(0)
        except (ValueError, TypeError, ImportError, OSError) as exc:
            parser.error(f"argument --agents: {text}: {exc}")


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
    if args.command in ("evaluate", "tournament") and any(a.partition(":")[0].strip() == "human"
                                                          for a in args.agents):
        parser.error("argument --agents: human plays only in `five-towers play` (a person cannot sit "
                     "through hundreds of games)")
    if args.command in ("play", "evaluate", "tournament"):
        _check_setup_args(parser, args, get_game(args.game))
    out = getattr(args, "out", None)
    if out is not None:
        problem = _unwritable_folder(out) if out.strip() else "an empty path"
        if problem:
            parser.error(f"argument --out: must be a folder to write in (made if missing): {problem}")
    if args.command == "tournament" and len(args.agents) < 2:
        parser.error(f"argument --agents: a tournament needs at least two agents, got {len(args.agents)} "
                     f"(to measure one agent against itself or others, use evaluate)")
    if getattr(args, "agents", None):
        _check_agents(parser, args.agents, getattr(args, "game", None) or DEFAULT_GAME)


def _check_setup_args(parser: argparse.ArgumentParser, args: argparse.Namespace, game: Game) -> None:
    """Fill in the game's default variant; refuse a variant or a seat count the game does not have."""
    if args.variant is None:
        args.variant = game.default_variant
    elif args.variant not in game.variants:
        parser.error(f"argument --variant: {game.title} has the variants {', '.join(game.variants)}, "
                     f"got {args.variant!r}")
    if args.players is not None and not game.min_players <= args.players <= game.max_players:
        parser.error(f"argument --players: {game.title} seats {game.min_players} to {game.max_players} "
                     f"players, got {args.players}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``five-towers`` console script; returns the exit status (2 for a usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        with warnings.catch_warnings():  # restores the usual display when main() returns
            warnings.showwarning = _show_plain_warning
            _check_args(args.parser, args)
            return func(args)
    except BrokenPipeError:
        # the reader went away (`five-towers play ... | head`): stop quietly, as other command-line tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
