"""The ``five-towers`` subcommands (``play``, ``replay``, ``evaluate``, ``tournament``, ``train``): each
takes the parsed arguments of :func:`five_towers_env.cli.build_parser`, already checked, and returns
the exit status. Their heavier imports happen inside them, so ``five-towers --help`` stays quick.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from five_towers_env.core.game import DEFAULT_GAME  # light: imports no game

if TYPE_CHECKING:
    from five_towers_env.evaluation.match import EvaluationResult
    from five_towers_env.evaluation.rate import RateResult
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
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.match import resolve_specs
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


def cmd_replay(args: argparse.Namespace) -> int:
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
            wrote(args, Path(path).parent)

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


# -- evaluate and tournament -----------------------------------------------------------------

def _running(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of how games run (``_add_running`` in the parser), as the API names them."""
    return {"seed": args.seed, "workers": args.workers, "progress": not args.no_progress, "ray": args.ray,
            "on_agent_error": args.on_agent_error, "move_timeout": args.move_timeout,
            "discard_bad_journal_lines": args.discard_bad_journal_lines}


def _match_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments ``evaluate`` and ``round_robin`` share, from the common options."""
    return {"num_players": args.players, "variant": args.variant, "paired": not args.unpaired, "game": args.game,
            **_running(args)}


def _journal(args: argparse.Namespace, name: str) -> Path | None:
    """Where the command journals its games: ``<--out>/<name>_journal.jsonl`` (none without --out)."""
    return Path(args.out) / f"{name}_journal.jsonl" if args.out else None


def _finish(journal: Path | None) -> None:
    """The result files are written: the journal they were made from is no longer needed."""
    if journal is not None:
        journal.unlink(missing_ok=True)


def _stopped(args: argparse.Namespace, exc: Exception) -> int:
    """An agent failed and the run was told to stop: one line, and what is kept; a journal this run cannot
    trust (a JournalError, a ValueError: another run's, or a bad line): one line, exit 2."""
    if isinstance(exc, ValueError):
        print(f"five-towers {args.command}: error: {exc}", file=sys.stderr)
        return 2
    kept = (f"; the games played are kept in {args.out}: run the same command again to go on"
            if getattr(args, "out", None) else "")
    print(f"five-towers {args.command}: stopped: {exc} (--on-agent-error forfeit counts such a game as "
          f"lost instead){kept}", file=sys.stderr)
    return 1


def _report(result: EvaluationResult | TournamentResult | RateResult, args: argparse.Namespace, journal: Path | None,
            **save_options: Any) -> int:
    """Print a result's table; save its files in ``args.out`` if given."""
    print(result.table())
    if args.out:
        try:
            paths = result.save(args.out, **save_options)
        except OSError as exc:  # the games are played and journaled: say how to write them without replaying
            kept = f"the games played are kept in {journal}: " if journal is not None and journal.exists() else ""
            print(f"five-towers {args.command}: error: the results could not be written in {args.out} ({exc}); "
                  f"{kept}make the folder writable and run the same command again to write them", file=sys.stderr)
            return 2
        _finish(journal)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
        wrote(args, args.out)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Seat-rotated games between the agents; summary table, and CSV / JSON in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.match import JournalError, evaluate

    journal = _journal(args, "evaluate")
    try:
        result = evaluate(args.agents, num_games=args.games, field=args.field, journal=journal,
                          **_match_settings(args))
    except (AgentError, JournalError) as exc:
        return _stopped(args, exc)
    return _report(result, args, journal)


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin; win-rate matrix, Elo / OpenSkill; CSV / JSON / Markdown / PNG in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.match import JournalError
    from five_towers_env.evaluation.tournament import round_robin

    journal = _journal(args, "tournament")
    try:
        result = round_robin(args.agents, games=args.games, journal=journal, **_match_settings(args))
    except (AgentError, JournalError) as exc:
        return _stopped(args, exc)
    return _report(result, args, journal, plot=not args.no_plot)


def cmd_rate(args: argparse.Namespace) -> int:
    """Rate one agent on the setup's shipped ladder; rate.json / rate.txt in --out."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.rate import rate

    journal = _journal(args, "rate")
    try:
        result = rate(args.agent, game=args.game, num_players=args.players, variant=args.variant, games=args.games,
                      journal=journal, **_running(args))
    except AgentError as exc:
        return _stopped(args, exc)
    except ValueError as exc:  # no ladder shipped for the setup
        print(f"five-towers rate: error: {exc}", file=sys.stderr)
        return 2
    return _report(result, args, journal)


def cmd_ladder(args: argparse.Namespace) -> int:
    """Calibrate a setup's ladder from the game's plan (results/ladder/<game>/<setup> by default), or list the
    shipped ladders."""
    import shutil

    from five_towers_env.core.game import get_game, setup_key
    from five_towers_env.evaluation.ladder import JournalError, calibrate, ladder_folder, shipped_ladder

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
    wrote(args, out, now=True)  # a calibration runs for hours: its folder says where it came from meanwhile
    try:
        ladder = calibrate(spec.name, args.players, args.variant, out, workers=args.workers, ray=args.ray,
                           seed=args.seed, progress=not args.no_progress,
                           discard_bad_journal_lines=args.discard_bad_journal_lines)
    except JournalError as exc:
        return _stopped(args, exc)
    print(ladder.table())
    print(f"wrote {out / 'ladder.json'}, {out / 'ladder.md'}, {out / 'journal.jsonl.gz'}")
    wrote(args, out)
    if args.ship:
        target = ladder_folder(spec) / f"{setup}.json"
        shutil.copyfile(out / "ladder.json", target)
        print(f"shipped: {target}")
    return 0


def cmd_zoo(args: argparse.Namespace) -> int:
    """List the shipped policies; with --games, play the zoo table and print it."""
    from five_towers_env.evaluation.guard import AgentError
    from five_towers_env.evaluation.zoo import JournalError, shipped_listing, zoo_markdown, zoo_table

    print(shipped_listing(args.game))
    if args.games:
        try:
            rows = zoo_table(args.game, args.games, args.seed, out=args.out, workers=args.workers, runs=args.runs,
                             progress=not args.no_progress, setups=args.setups, opponents=tuple(args.field),
                             ray=args.ray, on_agent_error=args.on_agent_error, move_timeout=args.move_timeout,
                             discard_bad_journal_lines=args.discard_bad_journal_lines)
        except (AgentError, JournalError) as exc:
            return _stopped(args, exc)
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


# -- train and expert: one skeleton ------------------------------------------------------------

def _train_error(message: str, command: str) -> int:
    print(f"five-towers {command}: error: {message}", file=sys.stderr)
    return 2


def _missing_rl(args: argparse.Namespace, what: str, needless: tuple[str, ...] = ()) -> str | None:
    """The error for a trainer whose packages of the rl extra (but ``needless``) are not all installed."""
    missing = [p for p in missing_rl_packages(progress=not args.no_progress) if p not in needless]
    if not missing:
        return None
    return (f"{what} needs the rl extra, and {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
            f"not installed; install it with\n  {RL_INSTALL}")


def _prepare_run_folder(args: argparse.Namespace, command: str, run_dir: Path, names: tuple[str, ...],
                        resume: str) -> str | None:
    """The checks of the run folder both trainers make before writing anything (an error message, or None):
    it can be made and written in, and a new run (``--config``) does not overwrite an old one unasked
    (``--force`` deletes the old run's files, which ``resume`` would continue)."""
    from five_towers_env.training.run_folder import RunFolder, existing_run_message, write_problem

    problem = folder_problem(run_dir) or write_problem(run_dir)
    if problem:
        return f"out_dir / name: the run folder {run_dir} cannot be made: {problem}"
    folder = RunFolder(run_dir, names)
    old = folder.run_files() if args.config else []
    if old and not args.force:
        return existing_run_message(run_dir, old, f"five-towers {command} --resume {resume}")
    if old:
        folder.remove_run_files()
        print(f"--force: deleted the old run's files in {run_dir}")
    print(f"run folder: {run_dir}")
    return None


def _train(args: argparse.Namespace, command: str, run_dir: Path, build: Callable[[], Any],
           run: Callable[[Any], Any], newest: Callable[[], Path | None]) -> tuple[int | None, Any]:
    """Build a trainer (``build``: nothing written before it has checked everything) and ``run`` it (its
    ``run`` takes SIGTERM as Ctrl-C). Returns ``(None, what run returned)``, or the exit status: 2 for a
    checkpoint or ``init_policy`` the trainer refused, ``128 + signum`` when interrupted (the message names
    the checkpoint to resume from: the one saved, else ``newest()``)."""
    from five_towers_env.training.interrupts import TrainingInterrupted, interrupted_message, signal_number

    try:
        try:
            trainer = build()
        except (ValueError, OSError) as exc:  # a checkpoint or init_policy that does not fit the config
            return _train_error(str(exc), command), None
        wrote(args, run_dir, now=True, keep_earlier=bool(args.resume))  # provenance.json: now and at the end
        return None, run(trainer)
    except TrainingInterrupted as exc:
        print(interrupted_message(command, exc.checkpoint, exc.saved), file=sys.stderr)
        return 128 + exc.signum, None
    except KeyboardInterrupt as exc:  # before training began, or a second Ctrl-C while saving
        print(interrupted_message(command, newest(), saved=False), file=sys.stderr)
        return 128 + signal_number(exc), None


def cmd_train(args: argparse.Namespace) -> int:
    """Train (or resume) a self-play run, then print its policy's results against the baselines.
    Ctrl-C (SIGTERM) saves a checkpoint and exits 130 (143); nothing is written before every check passed."""
    missing = _missing_rl(args, "training")
    if missing:
        return _train_error(missing, "train")
    from five_towers_env.training.config import ConfigError, build_config, config_to_dict, load_config

    try:
        from five_towers_env.training.checkpoints import (
            RUN_FILES,
            newest_whole_checkpoint,
            resolve_checkpoint,
            resume_config,
            resume_folder_problem,
        )
        from five_towers_env.training.eval_games import final_evaluation
        from five_towers_env.training.selfplay import Trainer
    except ImportError as exc:  # an rl package present but broken
        return _train_error(f"training needs the rl extra ({exc}); install it with\n  {RL_INSTALL}", "train")
    if args.force and args.resume:
        return _train_error("--force starts a new run (--config) over an old one; a resumed run keeps its files",
                            "train")
    overrides = dict(args.set)
    try:
        resume = resolve_checkpoint(args.resume) if args.resume else None  # a run folder: its newest checkpoint
        if resume is None:
            cfg = load_config(args.config, overrides)
        else:  # the checkpoint's own run folder, unless --set out_dir= / name= names a new one
            cfg = build_config(config_to_dict(resume_config(resume)), overrides,
                               source=str(resume.with_suffix(".json")))
    except (ConfigError, ValueError, OSError) as exc:  # bad config, --set or checkpoint
        return _train_error(str(exc), "train")
    newest = newest_whole_checkpoint(cfg.run_dir)
    problem = (resume_folder_problem(resume, cfg.run_dir) if resume else None) or _prepare_run_folder(
        args, "train", cfg.run_dir, RUN_FILES, str(newest or cfg.run_dir / "checkpoints" / "step_N.zip"))
    if problem:
        return _train_error(problem, "train")
    code, policy = _train(args, "train", cfg.run_dir,
                          lambda: Trainer(cfg, resume=resume, progress=not args.no_progress),
                          lambda trainer: trainer.run(), lambda: newest_whole_checkpoint(cfg.run_dir))
    if code is not None:
        return code
    game_flag = "" if cfg.game == DEFAULT_GAME else f" with --game {cfg.game}"
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
    """Run (or resume) expert iteration: a policy-value network trained from its own guided search.
    Ctrl-C (SIGTERM) exits 130 (143), the last generation's checkpoint kept; nothing is written before every
    check passed."""
    missing = _missing_rl(args, "expert iteration", needless=("stable-baselines3", "sb3-contrib"))
    if missing:
        return _train_error(missing, "expert")
    from five_towers_env.training.config_base import ConfigError
    from five_towers_env.training.expert import EXPERT_RUN_FILES, ExpertTrainer
    from five_towers_env.training.expert_config import last_checkpoint, load_expert_config, resume_expert_config

    if args.force and args.resume:
        return _train_error("--force starts a new run (--config) over an old one; a resumed run keeps its files",
                            "expert")
    overrides = dict(args.set)
    try:
        cfg = resume_expert_config(args.resume, overrides) if args.resume else load_expert_config(args.config,
                                                                                                   overrides)
    except (ConfigError, ValueError, OSError) as exc:  # bad config, --set or run folder
        return _train_error(str(exc), "expert")
    problem = _prepare_run_folder(args, "expert", cfg.run_dir, EXPERT_RUN_FILES, str(cfg.run_dir))
    if problem:
        return _train_error(problem, "expert")
    code, run_dir = _train(args, "expert", cfg.run_dir, lambda: ExpertTrainer(cfg, resume=bool(args.resume)),
                           lambda trainer: trainer.run(progress=not args.no_progress),
                           lambda: last_checkpoint(cfg.run_dir))
    if code is not None:
        return code
    flag = "" if cfg.game == DEFAULT_GAME else f" with --game {cfg.game}"
    print(f"network: {run_dir / 'network.npz'}  (play it as net:path=... or guided:path=...{flag}); "
          f"learning curve: {run_dir / 'curve.png'}")
    return 0
