"""Files written whole or not at all: every file a command writes goes through here.

A file is written under a temporary name in its own folder (``.<name>.partial-<pid><suffix>``,
which keeps the suffix so that libraries choosing a format by it still do), flushed and
fsynced, then renamed over its final name, and the folder is fsynced. A process killed at any
moment leaves the final name holding either the previous version or the new one, never half of
either; at worst a ``.partial-`` file stays behind, which no reader looks for.

    with atomic_open(path, "w") as f:        # a file object, for writers that take one
        f.write(text)
    with atomic_path(path) as temp:          # a path, for writers that take a file name
        figure.savefig(temp)
    write_text(path, text); write_bytes(path, data); write_json(path, obj)
    save_figure(figure, path, dpi=110)       # a matplotlib figure, in the format the suffix names
    with atomic_paths(a, b) as (temp_a, temp_b):  # files published together: ``a`` renamed first
        ...

Exempt: TensorBoard's event files and SB3's ``progress.csv`` under a run's ``tb/``, which their
writers append to as a run goes (a reader of a cut-off event file drops the last record), and an evaluation's
journal, appended a line per game (:func:`open_append`: never through a symbolic link).

No write goes through a symbolic link to a place outside the folder named: a rename replaces a link at the
final name with the file itself, and :func:`open_append` refuses a link (:class:`LinkRefused`).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

PARTIAL = ".partial-"  # in every temporary name: never a name a reader asks for


def folder_problem(folder: str | Path) -> str | None:
    """Why files cannot be written into ``folder`` (made if missing), or ``None``. The one check every command
    makes before it writes: it makes nothing, but tries a scratch file in the nearest folder that exists,
    since permission bits do not tell (root, read-only mounts, /proc)."""
    folder = Path(folder)
    if not str(folder).strip():
        return "an empty path"
    try:
        existing = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    except OSError as exc:  # a name too long, a loop of links
        return f"{folder} cannot be made: {exc.strerror or exc}"
    if not existing.is_dir():
        return (f"{folder} is a file, not a folder" if existing == folder
                else f"{existing} (in {folder}) is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return f"{folder} cannot be written: {exc.strerror or exc}" + ("" if existing == folder else f" ({existing})")
    return None


def file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as a file: empty, a folder, not a regular file (a device), a name too long,
    or in a folder :func:`folder_problem` refuses."""
    if not str(path).strip():
        return "an empty path"
    try:
        if Path(path).is_dir():
            return f"{path} is a folder"
        if Path(path).exists() and not Path(path).is_file():  # a device, a pipe: never replaced by a file
            return f"{path} is not a regular file"
        if len(Path(path).name.encode()) > 255:
            return f"{path}: the file name is too long"
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return folder_problem(Path(path).parent)


class LinkRefused(ValueError):
    """A file a command appends to is a symbolic link (which would send its lines elsewhere); one line."""


def link_problem(path: str | Path) -> str | None:
    """Why ``path`` may not be appended to: it is a symbolic link (dangling or not), or ``None``."""
    if os.path.islink(path):
        return (f"{path} is a symbolic link: files are written only inside the folder you named, never through "
                "a link; remove the link or name another folder")
    return None


def open_append(path: str | Path, mode: str = "a") -> IO[Any]:
    """``open(path, mode)`` for appending (``"a"``, or ``"r+"`` positioned by the caller), made if missing,
    refusing a symbolic link at ``path`` (:class:`LinkRefused`), also one made after a check (``O_NOFOLLOW``)."""
    problem = link_problem(path)
    if problem:
        raise LinkRefused(problem)
    flags = {"a": os.O_WRONLY | os.O_APPEND | os.O_CREAT, "r+": os.O_RDWR}[mode]
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        if os.path.islink(path):  # ELOOP: a link made since the check
            raise LinkRefused(link_problem(path) or str(exc)) from None
        raise
    return os.fdopen(fd, mode)


def partial_name(path: Path) -> Path:
    """The temporary name ``path`` is written under: hidden, marked, this process's, same suffix."""
    return path.with_name(f".{path.stem}{PARTIAL}{os.getpid()}{path.suffix}")


def sync_folder(folder: Path) -> None:
    """fsync ``folder`` so that a rename inside it survives a crash (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows cannot open folders: the rename still happened
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_file(temp: Path) -> None:
    with open(temp, "rb+") as f:  # data on disk before the rename makes it visible
        os.fsync(f.fileno())


@contextmanager
def atomic_paths(*paths: str | Path) -> Iterator[list[Path]]:
    """Yield a temporary path for each of ``paths``; when the block ends without an error, all are
    fsynced, then renamed over their final names in the order given (so a reader that looks for the
    last one finds the others in place: a checkpoint's ``.json`` before its ``.zip``)."""
    finals = [Path(p) for p in paths]
    for final in finals:
        final.parent.mkdir(parents=True, exist_ok=True)
    temps = [partial_name(final) for final in finals]
    try:
        yield temps
        for temp in temps:
            _fsync_file(temp)
        for temp, final in zip(temps, finals):
            os.replace(temp, final)
        for folder in dict.fromkeys(final.parent for final in finals):
            sync_folder(folder)
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)  # left only by an error (or Ctrl-C) mid-write


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s content to; on success it replaces ``path``."""
    with atomic_paths(path) as (temp,):
        yield temp


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """``open(path, mode)`` that publishes the file whole when the block ends without an error."""
    if not mode.startswith("w"):
        raise ValueError(f"atomic_open writes a new file: mode {mode!r} is not a 'w' mode")
    with atomic_path(path) as temp, open(temp, mode, **kwargs) as f:
        yield f


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; return ``path``."""
    with atomic_open(path, "wb") as f:
        f.write(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; return ``path``."""
    with atomic_open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return Path(path)


def write_json(path: str | Path, obj: Any, indent: int | None = 2) -> Path:
    """Write ``obj`` as JSON (with a final newline) to ``path`` atomically; return ``path``."""
    return write_text(path, json.dumps(obj, indent=indent) + "\n")


def save_figure(figure: Any, path: str | Path, **kwargs: Any) -> Path:
    """``figure.savefig`` to ``path`` atomically, in the format ``path``'s suffix names (PNG without
    one: the file is written under exactly ``path``, no suffix added); return ``path``."""
    path = Path(path)
    with atomic_path(path) as temp:
        figure.savefig(temp, format=path.suffix[1:].lower() or "png", **kwargs)
    return path
