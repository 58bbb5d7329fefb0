"""Self-play PPO's checkpoints: the :class:`~five_towers_env.training.checkpoint_files.CheckpointKind`
:data:`PPO_CHECKPOINT` of the one checkpoint scheme (:mod:`~five_towers_env.training.checkpoint_files`), its
Stable-Baselines3 checks and its state.

A checkpoint is ``<run>/checkpoints/step_N.zip`` (Stable-Baselines3's save: weights, optimiser,
timestep count) with ``step_N.json`` beside it (config, seed, pool, evaluation log). Both are
written by :func:`five_towers_env.atomic.atomic_paths` under temporary names
(``.step_N.partial-<pid>.zip``, ``.step_N.partial-<pid>.json``) and renamed into place, the
``.json`` last, so a run killed while saving leaves its previous checkpoints whole and at worst a
``.partial-`` file (or, between the two renames, a ``.zip`` without its ``.json``, which no reader
takes). Every checkpoint is kept. A whole one is a zip that reads back completely (every member
passes its CRC check) with SB3's ``data``, beside a valid ``.json``.

``--resume`` takes a checkpoint, its ``.json`` or a run folder (its newest whole checkpoint:
:func:`resolve_checkpoint`). A resumed run writes into the run folder that holds its checkpoint (the
checkpoint's grandparent), whatever folder the checkpoint's config recorded: a copied or moved run
continues in the copy.
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from five_towers_env.training import checkpoint_files as files
from five_towers_env.training.checkpoint_files import CheckpointError, CheckpointKind, checkpoint_run_dir, whole_zip
from five_towers_env.training.ppo.config import TrainConfig, config_from_dict, stored_config

SB3_DATA = "data"  # the member SB3's load() needs first ("No data found in the saved file")
_ZIP_MAGIC = b"PK\x03\x04"  # how every zip file, and every SB3 save, begins


# -- what a whole checkpoint is -------------------------------------------------------------------

def is_whole_zip(path: Path) -> bool:
    """Whether ``path`` is a whole Stable-Baselines3 save: it opens as a zip, has SB3's ``data``
    member, and every member passes its CRC check."""
    # a cut-off save can still "open": when it ends inside a member that is itself a zip (torch's
    # .pth files, stored uncompressed), zipfile finds that member's directory, which has no "data"
    return whole_zip(path, (SB3_DATA,))


def _looks_like_a_save(path: Path) -> bool:
    """Whether ``path`` begins like a zip (or is empty): a cut-off save rather than another file."""
    with open(path, "rb") as f:
        head = f.read(len(_ZIP_MAGIC))
    return _ZIP_MAGIC.startswith(head)


def _sb3_problem(path: Path, hint: Callable[[], str]) -> str | None:
    """Why ``path`` is not a whole SB3 save: cut off (naming the newest whole checkpoint) or another file."""
    if is_whole_zip(path):
        return None
    if _looks_like_a_save(path):
        return (f"checkpoint {path} is incomplete ({path.stat().st_size:,} bytes, not a whole Stable-Baselines3 "
                f"save): its save was cut off or the file was damaged{hint()}")
    return f"{path} is not a checkpoint .zip (training saves them as runs/<name>/checkpoints/step_N.zip)"


#: self-play PPO's checkpoints: an SB3 save and its state; every one is kept
#: the most timesteps a checkpoint may have counted (total_timesteps' limit)
MAX_TIMESTEPS = 10**11


def _ppo_state_problem(state: dict[str, Any]) -> str | None:
    """What is wrong with the values of a PPO checkpoint's state (its keys are checked already)."""
    if not isinstance(state["config"], dict):
        return "config is not a mapping"
    if not isinstance(state["snapshots"], list) or not all(isinstance(s, str) for s in state["snapshots"]):
        return "snapshots is not a list of file names"
    rows = state["eval_rows"]
    if not isinstance(rows, list) or not all(
            isinstance(row, dict) and all(isinstance(k, str) and isinstance(v, (int, float)) and math.isfinite(v)
                                          for k, v in row.items()) for row in rows):
        return "eval_rows is not a list of rows of finite numbers"
    timesteps = state.get("timesteps", 0)
    if not isinstance(timesteps, int) or not 0 <= timesteps <= MAX_TIMESTEPS:
        return f"timesteps {timesteps!r} is not a count of timesteps"
    return None


PPO_CHECKPOINT = CheckpointKind(
    parts=(".zip",), state_keys=("config", "snapshots", "eval_rows"),
    holds={".zip": "the weights, optimiser and timestep count",
           files.STATE: "the config, seed, pool and evaluation log"},
    command="train", part_problem=_sb3_problem, keep=None, state_problem=_ppo_state_problem)


# -- writing --------------------------------------------------------------------------------------

def save_checkpoint(model: Any, state: dict[str, Any], path: Path) -> Path:
    """Save ``model`` as ``path`` (``step_N.zip``) and ``state`` as its ``.json`` companion, each
    written to a temporary name and renamed, the ``.json`` last, so neither name ever holds a partial file."""
    def write(temps: list[Path]) -> None:
        with open(temps[0], "wb") as f:
            model.save(f)  # a file object: SB3 adds no suffix to it

    return files.write_checkpoint(path, PPO_CHECKPOINT, state, write)


# -- reading and checking -------------------------------------------------------------------------

def is_whole(path: Path) -> bool:
    """Whether ``path`` is a checkpoint that can be resumed: a whole zip and a valid ``.json``."""
    return files.is_whole(Path(path), PPO_CHECKPOINT)


def newest_whole_checkpoint(folder: Path) -> Path | None:
    """The whole checkpoint with the most steps in ``folder`` or ``folder/checkpoints``, if any."""
    return files.newest_whole(folder, PPO_CHECKPOINT)


def newest_hint(checkpoint: Path) -> str:
    """``"; the newest whole checkpoint is ..."`` for the folder of ``checkpoint`` (not counting it)."""
    return files.newest_hint(checkpoint, PPO_CHECKPOINT)


def resolve_checkpoint(checkpoint: str | Path) -> Path:
    """The checkpoint ``--resume`` names: a ``step_N.zip`` as given, the ``.zip`` of a ``step_N.json``, a folder's
    (a run folder or its ``checkpoints/``) newest whole checkpoint; :class:`CheckpointError` for a folder
    holding none (:func:`~five_towers_env.training.checkpoint_files.resolve_checkpoint`)."""
    return files.resolve_checkpoint(checkpoint, PPO_CHECKPOINT)


def checkpoint_state(checkpoint: str | Path) -> dict[str, Any]:
    """The state saved beside a checkpoint ``step_N.zip`` in ``step_N.json`` (or a run folder's newest, see
    :func:`resolve_checkpoint`), after checking both: a missing checkpoint, a missing ``.json`` companion
    (naming both paths), a file that is not a checkpoint ``.zip``, an incomplete one (a cut-off save: the
    message names the newest whole checkpoint) or a ``.json`` that is not a checkpoint's raise a clear error
    (:class:`~five_towers_env.training.checkpoint_files.MissingCheckpointError`, a ``FileNotFoundError``, for the
    missing ones,
    :class:`CheckpointError` for the rest)."""
    return files.checked_state(resolve_checkpoint(checkpoint), PPO_CHECKPOINT)


# -- where a resumed run writes -------------------------------------------------------------------

def resume_config(checkpoint: str | Path) -> TrainConfig:
    """The config stored beside a checkpoint (or a run folder's newest), with its run folder (``out_dir`` /
    ``name``) moved to the folder that holds the checkpoint (see :func:`checkpoint_state` for the errors). It
    keeps the training games and loop the run had (``vector_env``, ``ppo.loop``; a config stored before those
    settings existed ran ``python`` and ``sb3``: :func:`~.config.stored_config`)."""
    import dataclasses

    from five_towers_env.training.ppo.config import ConfigError

    checkpoint = resolve_checkpoint(checkpoint)
    state = checkpoint_state(checkpoint)
    try:  # a run from before a setting existed keeps what it had
        cfg = config_from_dict(stored_config(state["config"]))
    except ConfigError as e:
        raise ConfigError(f"{Path(checkpoint).with_suffix('.json')}: {e}") from None
    run = checkpoint_run_dir(checkpoint)
    return dataclasses.replace(cfg, out_dir=str(run.parent), name=run.name) if run else cfg


def resume_folder_problem(checkpoint: str | Path, run_dir: Path) -> str | None:
    """Why a run resumed from ``checkpoint`` must not write into ``run_dir`` (``None`` if it may):
    it writes only into the checkpoint's own run folder or into a new (missing or empty) one."""
    own = checkpoint_run_dir(checkpoint)
    if own is not None and _same_folder(own, run_dir):
        return None
    if run_dir.is_dir() and any(run_dir.iterdir()):
        whose = f"the checkpoint's run folder is {own}" if own else "the checkpoint is not in a run's checkpoints/"
        return (f"the run folder {run_dir} already holds files ({whose}); a resumed run writes only into its "
                "checkpoint's run folder or a new one: name it with --set out_dir=DIR name=NAME")
    return None


def relocated_snapshots(state: dict[str, Any], run_dir: Path) -> list[str]:
    """The pool's snapshots of a checkpoint's ``state``, those of its recorded run folder taken from
    ``run_dir`` instead when the run was copied or moved there (and the file is there)."""
    config = state.get("config", {})
    recorded = Path(str(config.get("out_dir", ""))) / str(config.get("name", ""))
    if _same_folder(recorded, run_dir):
        return list(state["snapshots"])
    moved = []
    for snapshot in state["snapshots"]:
        try:
            there = run_dir / Path(snapshot).relative_to(recorded)
        except ValueError:  # not the run's own (e.g. another run's policy)
            there = Path(snapshot)
        moved.append(str(there) if there.exists() else snapshot)
    return moved


def _same_folder(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


# -- a new run over an old one ---------------------------------------------------------------------

#: what a training run writes into its run folder (checkpoint_curve.py's files included): a folder
#: holding any of them holds a run, and ``five-towers train --force`` removes these and only these
#: (:class:`~five_towers_env.training.run_folder.RunFolder`)
RUN_FILES = ("config.yaml", "checkpoints", "snapshots", "tb", "eval_log.csv", "policy.npz", "learning_curve.png",
             "final_eval.md", "final_eval.json", "checkpoint_curve.csv", "checkpoint_curve.png", "policy_at_goal.npz",
             "provenance.json")


__all__ = ["PPO_CHECKPOINT", "RUN_FILES", "SB3_DATA", "CheckpointError", "checkpoint_run_dir", "checkpoint_state",
           "is_whole", "is_whole_zip", "newest_hint", "newest_whole_checkpoint", "relocated_snapshots",
           "resolve_checkpoint", "resume_config", "resume_folder_problem", "save_checkpoint"]
