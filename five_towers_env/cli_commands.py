"""The ``five-towers`` subcommands (``play``, ``replay``, ``evaluate``, ``tournament``, ``train``): each
takes the parsed arguments of :func:`five_towers_env.cli.build_parser`, already checked, and returns
the exit status. Their heavier imports happen inside them, so ``five-towers --help`` stays quick.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from five_towers_env.evaluation.match import EvaluationResult
    from five_towers_env.evaluation.tournament import TournamentResult


def folder_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be (or become) a folder: it, or a folder above it, is a file."""
    for p in (Path(path), *Path(path).parents):
        if p.exists():
            return None if p.is_dir() else (f"{path} is a file, not a folder" if p == Path(path)
                                            else f"{p} (in {path}) is a file, not a folder")
    return None


# -- provenance.json --------------------------------------------------------------------------

def wrote(args: argparse.Namespace, folder: str | Path, now: bool = False, keep_earlier: bool = False) -> None:
    """Record that this command wrote result files into ``folder``: ``main()`` writes its
    ``provenance.json`` (:mod:`five_towers_env.provenance`) when the command ends. ``now``: write it now
    as well (a training run, which may be stopped midway); ``keep_earlier``: a resumed run, whose file
    keeps the earlier invocations' command lines."""
    args.provenance_dirs = {**getattr(args, "provenance_dirs", {}), Path(folder): keep_earlier}
    if now:
        write_provenances(args, [Path(folder)])


def write_provenances(args: argparse.Namespace, folders: list[Path] | None = None) -> None:
    """Write ``provenance.json`` into the folders this command wrote (:func:`wrote`), with the command
    line and start time ``main()`` recorded; a folder that cannot take it is a warning, not a failure."""
    from five_towers_env.provenance import write_provenance

    dirs: dict[Path, bool] = getattr(args, "provenance_dirs", {})
    for folder in dirs if folders is None else folders:
        try:
            write_provenance(folder, command=getattr(args, "provenance_command", None),
                             started=getattr(args, "provenance_started", None), keep_earlier=dirs.get(folder, False))
        except OSError as exc:
            print(f"five-towers: warning: {Path(folder) / 'provenance.json'} not written: {exc}", file=sys.stderr)


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
    from five_towers_env.atomic import write_text
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
                wrote(args, Path(args.html).parent)
            if args.svg:
                picture = ui.svg(frame_state(record, args.move), record.get("seats"))
                write_text(args.svg, picture)
                print(f"wrote {args.svg}")
                wrote(args, Path(args.svg).parent)
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

def _match_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments ``evaluate`` and ``round_robin`` share, from the common options."""
    return {"num_players": args.players, "variant": args.variant, "seed": args.seed, "workers": args.workers,
            "progress": not args.no_progress, "paired": not args.unpaired, "game": args.game}


def _report(result: EvaluationResult | TournamentResult, args: argparse.Namespace, **save_options: Any) -> int:
    """Print a result's table; save its files in ``args.out`` if given."""
    print(result.table())
    if args.out:
        paths = result.save(args.out, **save_options)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
        wrote(args, args.out)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Seat-rotated games between the agents; summary table, and CSV / JSON in --out."""
    from five_towers_env.evaluation.match import evaluate

    return _report(evaluate(args.agents, num_games=args.games, field=args.field, **_match_settings(args)), args)


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin; win-rate matrix, Elo / OpenSkill; CSV / JSON / Markdown / PNG in --out."""
    from five_towers_env.evaluation.tournament import round_robin

    return _report(round_robin(args.agents, games=args.games, **_match_settings(args)), args,
                   plot=not args.no_plot)


def cmd_zoo(args: argparse.Namespace) -> int:
    """List the shipped policies; with --games, play the zoo table and print it."""
    from five_towers_env.evaluation.zoo import shipped_listing, zoo_markdown, zoo_table

    print(shipped_listing(args.game))
    if args.games:
        rows = zoo_table(args.game, args.games, args.seed, out=args.out, workers=args.workers, runs=args.runs,
                         progress=not args.no_progress, setups=args.setups)
        print()
        print(zoo_markdown(rows))
        if args.out:
            print(f"wrote {Path(args.out) / 'table.json'}, {Path(args.out) / 'table.md'}")
            wrote(args, args.out)
    return 0


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


def _train_error(message: str, command: str = "train") -> int:
    print(f"five-towers {command}: error: {message}", file=sys.stderr)
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
        from five_towers_env.training.checkpoints import (
            existing_run_message,
            newest_whole_checkpoint,
            remove_run_files,
            resume_folder_problem,
            run_files,
            write_problem,
        )
        from five_towers_env.training.selfplay import (
            CheckpointError,
            Trainer,
            TrainingInterrupted,
            final_evaluation,
            resume_config,
        )
    except ImportError as exc:  # an rl package present but broken
        return _train_error(f"training needs the rl extra ({exc}); install it with\n  {RL_INSTALL}")
    if args.force and args.resume:
        return _train_error("--force starts a new run (--config) over an old one; a resumed run keeps its files")
    overrides = dict(args.set)
    try:
        if args.config:
            cfg = load_config(args.config, overrides)
        else:  # the checkpoint's own run folder, unless --set out_dir= / name= names a new one
            cfg = build_config(config_to_dict(resume_config(args.resume)), overrides,
                               source=str(Path(args.resume).with_suffix(".json")))
    except (ConfigError, ValueError, OSError) as exc:  # bad config, --set or checkpoint
        return _train_error(str(exc))
    problem = folder_problem(cfg.run_dir) or write_problem(cfg.run_dir)
    if problem:
        return _train_error(f"out_dir / name: the run folder {cfg.run_dir} cannot be made: {problem}")
    problem = resume_folder_problem(args.resume, cfg.run_dir) if args.resume else None
    if problem:
        return _train_error(problem)
    old = run_files(cfg.run_dir) if args.config else []
    if old and not args.force:  # a new run never overwrites an old one unasked
        newest = newest_whole_checkpoint(cfg.run_dir)
        return _train_error(existing_run_message(
            cfg.run_dir, old, f"five-towers train --resume {newest or cfg.run_dir / 'checkpoints' / 'step_N.zip'}"))
    if old:
        remove_run_files(cfg.run_dir)
        print(f"--force: deleted the old run's files in {cfg.run_dir}")
    print(f"run folder: {cfg.run_dir}")
    try:
        trainer = Trainer(cfg, resume=args.resume, progress=not args.no_progress)  # checks, then writes
        wrote(args, cfg.run_dir, now=True, keep_earlier=bool(args.resume))  # provenance.json: now and at the end
        policy = trainer.run()
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


def cmd_expert(args: argparse.Namespace) -> int:
    """Run (or resume) expert iteration: a policy-value network trained from its own guided search."""
    missing = [p for p in missing_rl_packages(progress=not args.no_progress)
               if p not in ("stable-baselines3", "sb3-contrib")]
    if missing:
        return _train_error(f"expert iteration needs the rl extra, and {', '.join(missing)} "
                            f"{'is' if len(missing) == 1 else 'are'} not installed; install it with\n  {RL_INSTALL}",
                            "expert")
    from five_towers_env.training.checkpoints import existing_run_message, remove_run_files, run_files
    from five_towers_env.training.config import ConfigError
    from five_towers_env.training.expert import EXPERT_RUN_FILES, ExpertTrainer, plot_curve
    from five_towers_env.training.expert_config import load_expert_config

    if args.force and args.resume:
        return _train_error("--force starts a new run (--config) over an old one; a resumed run keeps its files",
                            "expert")
    overrides = dict(args.set)
    try:
        source = Path(args.resume) / "config.yaml" if args.resume else Path(args.config)
        cfg = load_expert_config(source, overrides)
        if args.resume and Path(args.resume).resolve() != cfg.run_dir.resolve():
            raise ConfigError(f"--resume {args.resume}: its config names the run folder {cfg.run_dir}; "
                              "out_dir / name cannot change on resume")
    except (ConfigError, ValueError, OSError) as exc:
        return _train_error(str(exc), "expert")
    problem = folder_problem(cfg.run_dir)
    if problem:
        return _train_error(f"out_dir / name: the run folder {cfg.run_dir} cannot be made: {problem}", "expert")
    old = [] if args.resume else run_files(cfg.run_dir, EXPERT_RUN_FILES)
    if old and not args.force:  # a new run never overwrites an old one unasked
        return _train_error(existing_run_message(cfg.run_dir, old, f"five-towers expert --resume {cfg.run_dir}"),
                            "expert")
    if old:
        remove_run_files(cfg.run_dir, EXPERT_RUN_FILES)
        print(f"--force: deleted the old run's files in {cfg.run_dir}")
    print(f"run folder: {cfg.run_dir}")
    try:
        trainer = ExpertTrainer(cfg, resume=bool(args.resume))
        wrote(args, cfg.run_dir, now=True, keep_earlier=bool(args.resume))  # provenance.json: now and at the end
        run_dir = trainer.run(progress=not args.no_progress)
    except (FileNotFoundError, ValueError) as exc:
        return _train_error(str(exc), "expert")
    except KeyboardInterrupt:
        print(f"interrupted: resume from the last finished generation with five-towers expert --resume {cfg.run_dir}",
              file=sys.stderr)
        return 130
    plot_curve(run_dir)
    flag = "" if cfg.game == "five_towers" else f" with --game {cfg.game}"
    print(f"network: {run_dir / 'network.npz'}  (play it as net:path=... or guided:path=...{flag}); "
          f"learning curve: {run_dir / 'curve.png'}")
    return 0
