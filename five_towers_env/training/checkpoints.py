"""Checkpoints of a training run: written so that a reader never sees half a file, and read back
only when whole.

A checkpoint is ``<run>/checkpoints/step_N.zip`` (Stable-Baselines3's save: weights, optimiser,
timestep count) with ``step_N.json`` beside it (config, seed, pool, evaluation log). Both are
written by :func:`five_towers_env.atomic.atomic_paths` under temporary names
(``.step_N.partial-<pid>.zip``, ``.step_N.partial-<pid>.json``) and renamed into place, the
``.json`` first, so a run killed while saving leaves its previous checkpoints whole and at worst a
``.partial-`` file (or, between the two renames, a ``.json`` without its ``.zip``).

``--resume`` takes a checkpoint or a run folder (its newest whole checkpoint: :func:`resolve_checkpoint`).
A resumed run writes into the run folder that holds its checkpoint (the checkpoint's grandparent),
whatever folder the checkpoint's config recorded: a copied or moved run continues in the copy.
"""
from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

from five_towers_env.atomic import atomic_paths
from five_towers_env.training.config import TrainConfig, config_from_dict

SB3_DATA = "data"  # the member SB3's load() needs first ("No data found in the saved file")
_ZIP_MAGIC = b"PK\x03\x04"  # how every zip file, and every SB3 save, begins


class CheckpointError(ValueError):
    """A ``--resume`` checkpoint that cannot be resumed from; the message names the file at fault."""


# -- writing --------------------------------------------------------------------------------------

def save_checkpoint(model: Any, state: dict[str, Any], path: Path) -> Path:
    """Save ``model`` as ``path`` (``step_N.zip``) and ``state`` as its ``.json`` companion, each
    written to a temporary name and renamed, so neither name ever holds a partial file."""
    # the .json first: a reader looks for step_*.zip, and a zip in place must have its json
    with atomic_paths(path.with_suffix(".json"), path) as (temp_json, temp_zip):
        with open(temp_zip, "wb") as f:
            model.save(f)  # a file object: SB3 adds no suffix to it
        temp_json.write_text(json.dumps(state, indent=1))
    return path


# -- reading and checking -------------------------------------------------------------------------

def is_whole_zip(path: Path) -> bool:
    """Whether ``path`` is a whole Stable-Baselines3 save: it opens as a zip, has SB3's ``data``
    member, and every member passes its CRC check."""
    try:
        with zipfile.ZipFile(path) as archive:
            # a cut-off save can still "open": when it ends inside a member that is itself a zip
            # (torch's .pth files, stored uncompressed), zipfile finds that member's directory
            return SB3_DATA in archive.namelist() and archive.testzip() is None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        return False


def _looks_like_a_save(path: Path) -> bool:
    """Whether ``path`` begins like a zip (or is empty): a cut-off save rather than another file."""
    with open(path, "rb") as f:
        head = f.read(len(_ZIP_MAGIC))
    return _ZIP_MAGIC.startswith(head)


def _read_state(path: Path, hint: bool = True) -> dict[str, Any]:
    companion = path.with_suffix(".json")
    try:
        state = json.loads(companion.read_text())
    except (ValueError, OSError) as e:
        # no hint when looking for one: the hint itself reads every checkpoint's state
        raise CheckpointError(f"{companion} (the companion of checkpoint {path}) is not valid JSON "
                              f"(incomplete?): {e}{newest_hint(path) if hint else ''}") from e
    missing = [k for k in ("config", "snapshots", "eval_rows") if not isinstance(state, dict) or k not in state]
    if missing:
        raise CheckpointError(f"{companion} (the companion of checkpoint {path}) is not a checkpoint's state: "
                              f"no {', '.join(missing)}")
    return state


def _step(path: Path) -> int:
    digits = path.stem[len("step_"):]
    return int(digits) if digits.isdigit() else -1


def is_whole(path: Path) -> bool:
    """Whether ``path`` is a checkpoint that can be resumed: a whole zip and a valid ``.json``."""
    if not path.is_file() or not is_whole_zip(path):
        return False
    try:
        _read_state(path, hint=False)
    except CheckpointError:
        return False
    return True


def newest_whole_checkpoint(folder: Path) -> Path | None:
    """The whole checkpoint with the most steps in ``folder`` or ``folder/checkpoints``, if any."""
    found = list(folder.glob("step_*.zip")) + list(folder.glob("checkpoints/step_*.zip"))
    return next((p for p in sorted(found, key=_step, reverse=True) if is_whole(p)), None)


def newest_hint(checkpoint: Path) -> str:
    """``"; the newest whole checkpoint is ..."`` for the folder of ``checkpoint`` (not counting it)."""
    folder = checkpoint.parent
    newest = newest_whole_checkpoint(folder)
    if newest is None or newest == checkpoint:
        return f"; there is no other whole checkpoint in {folder}"
    return f"; the newest whole checkpoint is {newest} (five-towers train --resume {newest})"


def resolve_checkpoint(checkpoint: str | Path) -> Path:
    """The checkpoint ``--resume`` names: a file as given, a folder's (a run folder or its ``checkpoints/``)
    newest whole checkpoint; :class:`CheckpointError` for a folder holding none."""
    path = Path(checkpoint)
    if not path.is_dir():
        return path
    newest = newest_whole_checkpoint(path)
    if newest is None:
        raise CheckpointError(f"--resume {path}: no whole checkpoint in it (a run folder holds them as "
                              "checkpoints/step_N.zip)")
    return newest


def checkpoint_state(checkpoint: str | Path) -> dict[str, Any]:
    """The state saved beside a checkpoint ``step_N.zip`` in ``step_N.json`` (or a run folder's newest, see
    :func:`resolve_checkpoint`), after checking both: a missing checkpoint, a missing ``.json`` companion
    (naming both paths), a file that is not a checkpoint ``.zip``, an incomplete one (a cut-off save: the
    message names the newest whole checkpoint) or a ``.json`` that is not a checkpoint's raise a clear error
    (``FileNotFoundError`` for the missing ones, :class:`CheckpointError` for the rest)."""
    path = resolve_checkpoint(checkpoint)
    if path.suffix != ".zip":
        hint = f"; did you mean {path.with_suffix('.zip')}?" if path.with_suffix(".zip").is_file() else ""
        raise CheckpointError(f"--resume {path}: not a run folder or its checkpoint (<run>/checkpoints/step_N.zip)"
                              f"{hint}")
    companion = path.with_suffix(".json")
    if not path.exists():
        also = (f" (its companion {companion} exists: the .zip was moved or deleted, or its save was cut off)"
                if companion.exists() else "")
        raise FileNotFoundError(f"checkpoint {path} does not exist{also}{newest_hint(path)}")
    whole = is_whole_zip(path)
    if not whole and _looks_like_a_save(path):
        raise CheckpointError(f"checkpoint {path} is incomplete ({path.stat().st_size:,} bytes, not a whole "
                              f"Stable-Baselines3 save): its save was cut off or the file was damaged"
                              f"{newest_hint(path)}")
    if not whole:
        raise CheckpointError(f"{path} is not a checkpoint .zip (training saves them as "
                              "runs/<name>/checkpoints/step_N.zip)")
    if not companion.is_file():
        raise FileNotFoundError(f"checkpoint {path} has no companion {companion} (the config, seed, pool and "
                                "evaluation log saved beside it); both are needed to resume")
    return _read_state(path)


# -- where a resumed run writes -------------------------------------------------------------------

def checkpoint_run_dir(checkpoint: str | Path) -> Path | None:
    """The run folder holding ``checkpoint``: ``<run>`` for ``<run>/checkpoints/step_N.zip``, else ``None``."""
    path = Path(checkpoint)
    if path.parent.name != "checkpoints":
        return None
    run = path.parent.parent
    if run.name in ("", ".", ".."):  # e.g. --resume checkpoints/step_N.zip from inside the run folder
        run = run.resolve()
    return run if run.name else None


def resume_config(checkpoint: str | Path) -> TrainConfig:
    """The config stored beside a checkpoint (or a run folder's newest), with its run folder (``out_dir`` /
    ``name``) moved to the folder that holds the checkpoint (see :func:`checkpoint_state` for the errors)."""
    import dataclasses

    from five_towers_env.training.config import ConfigError

    checkpoint = resolve_checkpoint(checkpoint)
    state = checkpoint_state(checkpoint)
    try:
        cfg = config_from_dict(state["config"])
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
#: (:class:`~.run_folder.RunFolder`)
RUN_FILES = ("config.yaml", "checkpoints", "snapshots", "tb", "eval_log.csv", "policy.npz", "learning_curve.png",
             "final_eval.md", "final_eval.json", "checkpoint_curve.csv", "checkpoint_curve.png", "policy_at_goal.npz",
             "provenance.json")
