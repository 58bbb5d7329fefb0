"""The one training skeleton: what every trainer is, and the one way to start, resume and run one.

A trainer is a class with the :class:`Trainer` protocol: self-play PPO (:class:`.ppo.trainer.PPOTrainer`) and
expert iteration (:class:`.expert.trainer.ExpertTrainer`) today, found by their config's ``method`` in
:data:`TRAINERS`. Each is built from a validated config (:meth:`Trainer.from_config`) or from a run it
continues (:meth:`Trainer.resume`), checks everything before it writes, and :meth:`Trainer.run` returns a
:class:`TrainResult`. What they share lives below them: the run folder (:mod:`.run_folder`), settings and
``--set`` overrides (:mod:`.config_base`), interrupts (:mod:`.interrupts`) and provenance. A caller (the
command line, a script) starts any trainer the same way::

    trainer_class = find_trainer("ppo").load()
    cfg, checkpoint = run_config(trainer_class, "configs/ppo_selfplay_2p.yaml", None, {"total_timesteps": 10_000})
    prepare_run_folder(trainer_class, cfg, checkpoint, force=False)
    result = trainer_class(cfg, resume=checkpoint, progress=True).run()
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from five_towers_env.atomic import folder_problem
from five_towers_env.core.game import load

#: module -> the package of the rl extra that provides it
RL_MODULES = {"yaml": "pyyaml", "torch": "torch", "stable_baselines3": "stable-baselines3",
              "sb3_contrib": "sb3-contrib", "tensorboard": "tensorboard", "tqdm": "tqdm"}
RL_INSTALL = ('pip install -e ".[rl]"  (in a clone of the repository; on a machine without an NVIDIA GPU, '
              "first: pip install torch --index-url https://download.pytorch.org/whl/cpu)")


@dataclass(frozen=True)
class TrainerEntry:
    """What is known of a trainer before its module (and torch) is imported."""

    target: str  # "module:Class" of its :class:`Trainer`
    command: str  # the ``five-towers`` subcommand that runs it (named in its messages)
    title: str  # what it is called in a sentence
    needs: tuple[str, ...]  # the modules of the rl extra it imports (keys of RL_MODULES)

    def load(self) -> type[Trainer]:
        """The trainer class (imports its module)."""
        found: type[Trainer] = load(self.target)
        return found


#: each trainer, by the ``method`` its configs name
TRAINERS = {
    "ppo": TrainerEntry("five_towers_env.training.ppo.trainer:PPOTrainer", "train", "training", tuple(RL_MODULES)),
    "expert_iteration": TrainerEntry("five_towers_env.training.expert.trainer:ExpertTrainer", "expert",
                                     "expert iteration", ("yaml", "torch", "tensorboard", "tqdm")),
}


@dataclass(frozen=True)
class TrainResult:
    """What a finished run made: its folder, the network it exported and how to play it."""

    run_dir: Path
    network: Path
    agent: str  # the registry agent that plays ``network`` (``ppo``, ``net``, ...), with ``path=``
    game: str
    curve: Path | None = None  # the learning curve's picture


class Trainer(Protocol):
    """A training method; see the module docstring."""

    method: ClassVar[str]  # the config's ``method``: its entry in TRAINERS
    run_files: ClassVar[tuple[str, ...]]  # what it writes into its run folder (--force removes those)

    def __init__(self, cfg: Any, resume: str | Path | None = None, progress: bool = True) -> None: ...

    @classmethod
    def load_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> Any:
        """A config file's settings with ``overrides``, validated (``ConfigError`` naming the key)."""

    @classmethod
    def resume_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[Any, Path]:
        """The config and checkpoint of the run that ``path`` (a run folder or a checkpoint) continues."""

    @classmethod
    def newest_checkpoint(cls, run_dir: Path) -> Path | None:
        """The checkpoint a stopped run in ``run_dir`` would resume from, if any."""

    @classmethod
    def checkpoint_run(cls, checkpoint: Path) -> Path | None:
        """The run folder that holds ``checkpoint``."""

    def run(self) -> TrainResult:
        """Train to the end of the config; Ctrl-C or SIGTERM raise :class:`.interrupts.TrainingInterrupted`."""


T = TypeVar("T", bound="TrainerBase")


class TrainerBase:
    """The two ways into a run that every trainer shares, built on its constructor and ``resume_config``."""

    def __init__(self, cfg: Any, resume: str | Path | None = None, progress: bool = True) -> None:
        raise NotImplementedError  # each trainer builds its own run

    @classmethod
    def resume_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[Any, Path]:
        raise NotImplementedError  # each trainer reads its own checkpoints

    @classmethod
    def from_config(cls: type[T], cfg: Any, progress: bool = True) -> T:
        """A new run of ``cfg``."""
        return cls(cfg, progress=progress)

    @classmethod
    def resume(cls: type[T], path: str | Path, overrides: dict[str, Any] | None = None, progress: bool = True) -> T:
        """The run ``path`` (a run folder or any file of a checkpoint) continued, with ``overrides``."""
        cfg, checkpoint = cls.resume_config(path, overrides)
        return cls(cfg, resume=checkpoint, progress=progress)


def find_trainer(method: str) -> TrainerEntry:
    """The trainer of ``method`` (a key of :data:`TRAINERS`); ``ValueError`` for another."""
    if method not in TRAINERS:
        raise ValueError(f"method: {method!r} is not a training method ({', '.join(TRAINERS)})")
    return TRAINERS[method]


def missing_packages(needs: tuple[str, ...], progress: bool = True) -> list[str]:
    """The packages of the ``rl`` extra among ``needs`` (module names) that are not installed (tqdm only
    for progress bars)."""
    missing = []
    for module in needs:
        if module == "tqdm" and not progress:
            continue
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(RL_MODULES[module])
    return missing


def run_config(trainer: type[Trainer], config: str | Path | None, resume: str | Path | None,
               overrides: dict[str, Any]) -> tuple[Any, Path | None]:
    """The run's config, loaded once, and the checkpoint it resumes from: a new run from the file
    ``config``, or the run ``resume`` names with its stored config; either with ``overrides``."""
    if resume is not None and not str(resume).strip():
        raise ValueError("--resume: an empty path; name a run folder or a checkpoint")
    if resume is None:
        if config is None or not str(config).strip():
            raise ValueError("a run needs a config file or a run to resume")
        return trainer.load_config(config, overrides), None
    return trainer.resume_config(resume, overrides)


def prepare_run_folder(trainer: type[Trainer], cfg: Any, checkpoint: Path | None, force: bool) -> list[Path]:
    """Check, before anything is written, that the run may write into its folder, and return the old run's
    files ``force`` removed (a resumed run removes nothing). ``ValueError`` says why not: a folder that cannot
    be written; a new run over an old one without ``force``; a resumed run whose folder is neither its
    checkpoint's nor a new one."""
    from five_towers_env.training.run_folder import RunFolder

    run_dir = Path(cfg.run_dir)
    problem = folder_problem(run_dir)  # before anything reads the folder: a name too long, a file in the way
    if problem:
        raise ValueError(f"out_dir / name: the run folder {run_dir} cannot be made: {problem}")
    if checkpoint is not None:
        own = trainer.checkpoint_run(checkpoint)
        if not (own is not None and os.path.abspath(own) == os.path.abspath(run_dir)) \
                and run_dir.is_dir() and any(run_dir.iterdir()):
            whose = f"the checkpoint's run folder is {own}" if own else "the checkpoint is not in a run folder"
            raise ValueError(f"the run folder {run_dir} already holds files ({whose}); a resumed run writes only "
                             "into its checkpoint's run folder or a new one: name it with --set out_dir=DIR "
                             "name=NAME")
    newest = trainer.newest_checkpoint(run_dir)
    resume = f"five-towers {TRAINERS[trainer.method].command} --resume {newest or run_dir}"
    return RunFolder(run_dir, trainer.run_files).prepare(new_run=checkpoint is None, force=force, resume=resume)


__all__ = ["RL_INSTALL", "RL_MODULES", "TRAINERS", "TrainResult", "Trainer", "TrainerBase", "TrainerEntry",
           "find_trainer",
           "missing_packages", "prepare_run_folder", "run_config"]
