"""One run of a ``five-towers`` command: what it was given and which folders it wrote.

``main()`` makes one :class:`Invocation` and hands it to the subcommand. A subcommand that writes result
files into a folder says so (:meth:`Invocation.wrote`); ``provenance.json`` goes into each such folder
when the command ends (:mod:`five_towers_env.provenance`), or at once as well for a training run, which
may be stopped midway.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from five_towers_env.provenance import command_line, write_provenance


class Invocation:
    """The command line a command was started with (``argv``, ``None`` for ``sys.argv``), its start time,
    and the folders it wrote."""

    def __init__(self, argv: Sequence[str] | None, started: float | None = None) -> None:
        self.argv = None if argv is None else list(argv)
        self.command = command_line(None if argv is None else ["five-towers", *argv])
        self.started = time.time() if started is None else started
        self.folders: dict[Path, bool] = {}  # folder -> whether its file keeps earlier invocations

    def wrote(self, folder: str | Path, now: bool = False, keep_earlier: bool = False) -> None:
        """Record that this command wrote result files into ``folder``. ``now``: write its
        ``provenance.json`` now as well; ``keep_earlier``: a resumed run, whose file keeps the earlier
        invocations' command lines."""
        self.folders[Path(folder)] = keep_earlier
        if now:
            self.write_provenances([Path(folder)])

    def write_provenances(self, folders: list[Path] | None = None) -> None:
        """Write ``provenance.json`` into the folders written (or ``folders``); a folder that cannot take
        it is a warning, not a failure."""
        for folder in self.folders if folders is None else folders:
            try:
                write_provenance(folder, command=self.command, started=self.started,
                                 keep_earlier=self.folders.get(folder, False))
            except OSError as exc:
                print(f"five-towers: warning: {folder / 'provenance.json'} not written: {exc}", file=sys.stderr)


__all__ = ["Invocation"]
