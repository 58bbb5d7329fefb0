"""The one checkpoint scheme of every trainer: where a checkpoint's files lie, how they are written,
found, resumed from and pruned. What differs between trainers is a :class:`CheckpointKind`: the
files it is made of, what "whole" means for them, the keys of its state and how many to keep
(self-play PPO's in :mod:`.ppo.checkpoints`, expert iteration's in :mod:`.expert.config`).

A checkpoint of step ``N`` (PPO: timesteps; expert iteration: generations) is
``<run>/checkpoints/step_N<part>`` for each of its kind's parts (PPO ``.zip``; expert iteration ``.pt``
and ``.npz``) and its state ``step_N.json``. The first part names the checkpoint (``--resume`` and the
messages show it).

- **Atomic**: all its files are written under temporary names and renamed into place together
  (:func:`five_towers_env.atomic.atomic_paths`), the state ``.json`` last. A kill at any moment leaves
  the earlier checkpoints whole (at worst a ``.partial-`` file, or parts without their state).
- **Whole**: every part is there and passes its kind's check, and the state is valid JSON holding its
  kind's keys. A reader takes only whole checkpoints (:func:`newest_whole`) or says which file is at
  fault (:func:`checked_state`).
- **Resume**: ``--resume`` names a run folder (or its ``checkpoints/``: the newest whole checkpoint), its
  ``config.yaml``, or any file of a checkpoint (:func:`resolve_checkpoint`); anything else is a
  :class:`CheckpointError` (a ``ValueError``) of one line naming the file at fault.
- **Prune**: after each save, all but the newest ``keep`` whole checkpoints are deleted (the one just
  written always kept; ``keep=None``: every one is kept), the state first.
"""
from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from five_towers_env.atomic import atomic_paths, sync_folder

FOLDER = "checkpoints"  # the run folder's sub-folder that holds the checkpoints
STATE = ".json"  # the suffix of a checkpoint's state, renamed into place last
CONFIG_FILE = "config.yaml"  # a run folder's config: --resume <run>/config.yaml names its run


class CheckpointError(ValueError):
    """A ``--resume`` checkpoint that cannot be resumed from; the message names the file at fault."""


class MissingCheckpointError(CheckpointError, FileNotFoundError):
    """A checkpoint, or one of its files, that does not exist (a :class:`CheckpointError` and a
    ``FileNotFoundError``)."""


#: why a part of a checkpoint (a file that exists) is not whole, ``None`` if it is; the second argument
#: gives the hint to append where a whole checkpoint should be named instead (:func:`newest_hint`)
PartProblem = Callable[[Path, Callable[[], str]], str | None]


@dataclass(frozen=True)
class CheckpointKind:
    """One trainer's checkpoints: see the module docstring."""

    parts: tuple[str, ...]  # the suffixes of its files beside the state, the first naming the checkpoint
    state_keys: tuple[str, ...]  # what its state must hold
    holds: Mapping[str, str]  # suffix (parts and STATE) -> what that file holds, for messages
    command: str  # the ``five-towers`` subcommand that resumes it, for messages
    part_problem: PartProblem  # its "whole" check of each part
    keep: int | None = None  # how many checkpoints a run keeps (None: all)
    state_problem: Callable[[dict[str, Any]], str | None] | None = None  # what is wrong with a state's values

    @property
    def suffix(self) -> str:
        """The suffix of the file that names a checkpoint."""
        return self.parts[0]

    def files(self, checkpoint: Path) -> list[Path]:
        """The files of ``checkpoint`` in the order they are renamed into place: its parts, then its state."""
        return [checkpoint.with_suffix(s) for s in self.parts] + [checkpoint.with_suffix(STATE)]

    def state_file(self, checkpoint: Path) -> Path:
        """The state beside ``checkpoint``."""
        return checkpoint.with_suffix(STATE)


def step_of(path: Path) -> int:
    """``N`` for ``step_N.<suffix>``, -1 for another name."""
    digits = path.stem[len("step_"):] if path.stem.startswith("step_") else ""
    return int(digits) if digits.isdigit() else -1


def checkpoint_path(run_dir: Path, step: int, kind: CheckpointKind) -> Path:
    """Where the checkpoint of ``step`` of the run in ``run_dir`` is written: ``<run>/checkpoints/step_N<part>``."""
    return Path(run_dir) / FOLDER / f"step_{step}{kind.suffix}"


def whole_zip(path: Path, members: Sequence[str] = ()) -> bool:
    """Whether ``path`` is a whole zip: it opens, holds ``members``, and every member passes its CRC check
    (torch's ``.pt`` files and numpy's ``.npz`` files are zips, as Stable-Baselines3's saves are)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            return all(m in names for m in members) and archive.testzip() is None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError):
        return False


def zip_problem(path: Path, hint: Callable[[], str]) -> str | None:
    """A :data:`PartProblem` for parts that are zips: whole (:func:`whole_zip`) or cut off or damaged."""
    if whole_zip(path):
        return None
    return (f"checkpoint file {path} is incomplete ({path.stat().st_size:,} bytes, not a whole zip): its save was "
            f"cut off or the file was damaged{hint()}")


# -- writing ---------------------------------------------------------------------------------------

def write_checkpoint(checkpoint: Path, kind: CheckpointKind, state: dict[str, Any],
                     write_parts: Callable[[list[Path]], None]) -> Path:
    """Write the checkpoint named ``checkpoint``: ``write_parts`` writes its parts to the temporary paths it is
    given (in the order of ``kind.parts``), ``state`` goes into its ``.json``; all are renamed into place
    together, the state last. Then prune the folder to ``kind.keep`` checkpoints. Returns ``checkpoint``."""
    checkpoint = Path(checkpoint)
    if checkpoint.suffix != kind.suffix:
        raise ValueError(f"a checkpoint is named step_N{kind.suffix}, not {checkpoint.name}")
    with atomic_paths(*kind.files(checkpoint)) as temps:
        write_parts(temps[:-1])
        temps[-1].write_text(json.dumps(state, indent=1))
    prune_checkpoints(checkpoint.parent, kind, kind.keep, latest=checkpoint)
    return checkpoint


def prune_checkpoints(folder: Path, kind: CheckpointKind, keep: int | None, latest: Path | None = None) -> list[Path]:
    """Delete the files of every checkpoint in ``folder`` but the newest ``keep`` whole ones (``latest``, the one
    just written, always among them), and parts left without their state; return what was deleted. Each
    checkpoint's state goes first, so that a kill mid-way never leaves a whole-looking checkpoint with a part
    missing. ``keep=None`` deletes nothing."""
    if keep is None:
        return []
    suffixes = {*kind.parts, STATE}
    steps: dict[int, list[Path]] = {}
    for path in folder.glob("step_*"):
        if path.suffix in suffixes and step_of(path) >= 0 and path.is_file():
            steps.setdefault(step_of(path), []).append(path)
    kept = {step_of(latest)} if latest is not None else set()
    for step in sorted(set(steps) - kept, reverse=True):
        if len(kept) >= keep:
            break
        if is_whole(folder / f"step_{step}{kind.suffix}", kind):
            kept.add(step)
    removed = []
    for step in sorted(set(steps) - kept):
        for path in sorted(steps[step], key=lambda p: p.suffix != STATE):  # the state first
            path.unlink(missing_ok=True)
            removed.append(path)
    if removed:
        sync_folder(folder)
    return removed


# -- reading and checking --------------------------------------------------------------------------

def read_state(checkpoint: Path, kind: CheckpointKind, hint: bool = True) -> dict[str, Any]:
    """The state beside ``checkpoint``; :class:`CheckpointError` for one that is not valid JSON or lacks a key of
    ``kind.state_keys``."""
    companion = kind.state_file(checkpoint)
    try:
        state = json.loads(companion.read_text())
    except RecursionError:
        raise CheckpointError(f"{companion} (the companion of checkpoint {checkpoint}) nests too deeply to be a "
                              "checkpoint's state") from None
    except (ValueError, OSError) as e:
        # no hint when looking for one: the hint itself reads every checkpoint's state
        raise CheckpointError(f"{companion} (the companion of checkpoint {checkpoint}) is not valid JSON "
                              f"(incomplete?): {e}{newest_hint(checkpoint, kind) if hint else ''}") from e
    missing = [k for k in kind.state_keys if not isinstance(state, dict) or k not in state]
    if missing:
        raise CheckpointError(f"{companion} (the companion of checkpoint {checkpoint}) is not a checkpoint's state: "
                              f"no {', '.join(missing)}")
    problem = kind.state_problem(state) if kind.state_problem is not None else None
    if problem:
        raise CheckpointError(f"{companion} (the companion of checkpoint {checkpoint}) is not a checkpoint's state: "
                              f"{problem}")
    return state


def is_whole(checkpoint: Path, kind: CheckpointKind) -> bool:
    """Whether ``checkpoint`` can be resumed: every part there and whole, and a valid state."""
    checkpoint = Path(checkpoint)
    if checkpoint.suffix != kind.suffix:
        return False
    for part in kind.files(checkpoint)[:-1]:
        if not part.is_file() or kind.part_problem(part, lambda: "") is not None:
            return False
    try:
        read_state(checkpoint, kind, hint=False)
    except CheckpointError:
        return False
    return True


def newest_whole(folder: Path, kind: CheckpointKind) -> Path | None:
    """The whole checkpoint with the highest step in ``folder`` or ``folder/checkpoints``, if any."""
    states = list(Path(folder).glob(f"step_*{STATE}")) + list(Path(folder).glob(f"{FOLDER}/step_*{STATE}"))
    found = [p.with_suffix(kind.suffix) for p in states if step_of(p) >= 0]
    return next((p for p in sorted(found, key=step_of, reverse=True) if is_whole(p, kind)), None)


def newest_hint(checkpoint: Path, kind: CheckpointKind) -> str:
    """``"; the newest whole checkpoint is ..."`` for the folder of ``checkpoint`` (not counting it)."""
    folder = checkpoint.parent
    newest = newest_whole(folder, kind)
    if newest is None or newest == checkpoint:
        return f"; there is no other whole checkpoint in {folder}"
    return f"; the newest whole checkpoint is {newest} (five-towers {kind.command} --resume {newest})"


def resolve_checkpoint(path: str | Path, kind: CheckpointKind) -> Path:
    """The checkpoint ``--resume path`` names: a run folder's (or its ``checkpoints/``'s, or the folder of its
    ``config.yaml``) newest whole checkpoint; for any file of a checkpoint (a part or its state), the file that
    names it; another path as given, for :func:`checked_state` to refuse. :class:`CheckpointError` for a folder
    holding no whole checkpoint."""
    path = Path(path)
    if path.name == CONFIG_FILE and path.is_file():
        path = path.parent
    if path.is_dir():
        newest = newest_whole(path, kind)
        if newest is None:
            raise CheckpointError(f"--resume {path}: no whole checkpoint in it (a run folder holds them as "
                                  f"{FOLDER}/step_N{kind.suffix})")
        return newest
    if path.suffix in (*kind.parts[1:], STATE) and path.is_file() and step_of(path) >= 0:
        return path.with_suffix(kind.suffix)
    return path


def checked_state(checkpoint: Path, kind: CheckpointKind) -> dict[str, Any]:
    """The state of ``checkpoint`` (a name :func:`resolve_checkpoint` returned), after checking every file of
    it; a one-line error naming the file at fault: :class:`MissingCheckpointError` for a checkpoint or a file of
    it that does not exist, :class:`CheckpointError` for another path, a part that is not whole (naming the
    newest whole checkpoint where the part was cut off) or a state that is not one."""
    path = Path(checkpoint)
    if path.suffix != kind.suffix:
        named = path.with_suffix(kind.suffix)
        hint = f"; did you mean {named}?" if named.is_file() else ""
        raise CheckpointError(f"--resume {path}: not a run folder or its checkpoint "
                              f"(<run>/{FOLDER}/step_N{kind.suffix}){hint}")
    *parts, companion = kind.files(path)
    if not path.exists():
        also = (f" (its companion {companion} exists: the {kind.suffix} was moved or deleted, or its save was cut "
                "off)" if companion.exists() else "")
        raise MissingCheckpointError(f"checkpoint {path} does not exist{also}{newest_hint(path, kind)}")
    needed = "both are" if len(parts) == 1 else "all its files are"
    for part in [*parts, companion]:
        if not part.is_file():
            raise MissingCheckpointError(f"checkpoint {path} has no companion {part} ({kind.holds[part.suffix]} "
                                         f"saved beside it); {needed} needed to resume")
        if part != companion:
            problem = kind.part_problem(part, lambda: newest_hint(path, kind))
            if problem is not None:
                raise CheckpointError(problem)
    return read_state(path, kind)


# -- where a resumed run writes --------------------------------------------------------------------

def checkpoint_run_dir(checkpoint: str | Path) -> Path | None:
    """The run folder holding ``checkpoint``: ``<run>`` for ``<run>/checkpoints/step_N.<part>``, else ``None``."""
    path = Path(checkpoint)
    if path.parent.name != FOLDER:
        return None
    run = path.parent.parent
    if run.name in ("", ".", ".."):  # e.g. --resume checkpoints/step_N.zip from inside the run folder
        run = run.resolve()
    return run if run.name else None


__all__ = ["CONFIG_FILE", "FOLDER", "STATE", "CheckpointError", "CheckpointKind", "MissingCheckpointError",
           "PartProblem", "checked_state", "checkpoint_path", "checkpoint_run_dir", "is_whole", "newest_hint",
           "newest_whole", "prune_checkpoints", "read_state", "resolve_checkpoint", "step_of", "whole_zip",
           "write_checkpoint", "zip_problem"]
