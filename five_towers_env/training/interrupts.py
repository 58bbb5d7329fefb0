"""Ctrl-C and SIGTERM during training, the same for both trainers.

:func:`sigterm_as_interrupt` makes SIGTERM (``kill``, a job scheduler's stop) end a run as Ctrl-C does: a
``KeyboardInterrupt`` carrying the signal's number. A trainer stopped that way raises
:class:`TrainingInterrupted`, naming the checkpoint to resume from; ``five-towers train`` and
``five-towers expert`` print :func:`interrupted_message` and exit with ``128 + signum`` (130 for
Ctrl-C, 143 for SIGTERM).
"""
from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped by Ctrl-C (or SIGTERM: ``signum``). ``checkpoint``: the one to resume from, saved on
    the way out (``saved``) or the last one the run wrote; ``None`` if there is none."""

    def __init__(self, checkpoint: Path | None, signum: int = signal.SIGINT, saved: bool = True) -> None:
        super().__init__(f"interrupted: {'saved' if saved else 'last'} checkpoint {checkpoint}")
        self.checkpoint, self.signum, self.saved = checkpoint, int(signum), saved


class _Terminated(KeyboardInterrupt):
    signum = signal.SIGTERM


def signal_number(interrupt: BaseException) -> int:
    """The signal that raised ``interrupt`` (a ``KeyboardInterrupt``): SIGTERM through :func:`sigterm_as_interrupt`,
    else SIGINT."""
    return int(getattr(interrupt, "signum", signal.SIGINT))


@contextlib.contextmanager
def _sigterm(action: Any) -> Iterator[None]:
    """Within the block, SIGTERM runs ``action``; outside the main thread, where signals cannot be handled,
    nothing changes."""
    try:
        previous = signal.signal(signal.SIGTERM, action)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def sigterm_as_interrupt() -> contextlib.AbstractContextManager[None]:
    """Within the block, SIGTERM raises a ``KeyboardInterrupt`` (with ``signum``) as Ctrl-C does."""
    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    return _sigterm(handler)


def default_sigterm() -> contextlib.AbstractContextManager[None]:
    """Within the block, SIGTERM takes its default action. Worker processes forked here inherit it: a worker
    that gets SIGTERM before it has set up its own signal handling ends, rather than running the trainer's
    handler."""
    return _sigterm(signal.SIG_DFL)


def interrupted_message(command: str, checkpoint: Path | None, saved: bool) -> str:
    """What ``five-towers <command>`` prints when stopped: the checkpoint saved (or the newest there is) and
    how to resume from it."""
    if checkpoint is None:
        return "interrupted: no checkpoint saved; none to resume from"
    what = "saved checkpoint" if saved else "no checkpoint saved; the newest is"
    return f"interrupted: {what} {checkpoint}; resume with five-towers {command} --resume {checkpoint}"


__all__ = ["TrainingInterrupted", "default_sigterm", "interrupted_message", "sigterm_as_interrupt", "signal_number"]
