"""The deadline of the decision being made, per thread: a hard stop that every built-in search obeys.

Whoever asks an agent for a move under a time limit sets it around the call::

    with decision_deadline(seconds):
        action = agent.act(observation, info)

The evaluation's guard does (:class:`~five_towers_env.evaluation.guard.GuardedAgent`, ``--move-timeout``),
and so may any other caller, from any thread: the deadline belongs to the thread that set it, so agents
thinking in several threads at once each have their own. The built-in search agents read it when they start
a decision and hand it to their search, which checks it between two rollouts (or two batches of network
evaluations) and, once it has passed, stops and answers its best move so far, whatever the agent's own
``simulations`` or ``time_limit`` say: the Python searches as :func:`current_deadline` (the ``deadline`` of
:class:`~five_towers_env.core.search.Budget` and of :func:`~five_towers_env.core.guided_search.guided_search`),
the native ones as :func:`seconds_left` (the ``stop_after`` argument of each game's compiled ``mcts_decide``,
checked by ``core/native/deadline.hpp``). OpenSpiel's bots cannot answer early: they raise
:class:`DeadlinePassed`. A ``py:`` agent may read :func:`seconds_left` to keep within it.

A move answered at the deadline came too late all the same: the guard counts it as timed out (the deadline
makes the search give control back, it does not grant more time). Without a deadline nothing changes: a search
runs exactly as it would have, same moves, same generator.
"""
from __future__ import annotations

import math
import numbers
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()  # .at: the time.monotonic() instant of this thread's deadline, or None


class DeadlinePassed(RuntimeError):
    """An agent stopped at the decision's deadline without a move to answer (see the module docstring)."""


def current_deadline() -> float | None:
    """This thread's deadline as a :func:`time.monotonic` instant, or None where there is none."""
    at: float | None = getattr(_local, "at", None)
    return at


def seconds_left() -> float | None:
    """Seconds until this thread's deadline (0 once it has passed), or None where there is none."""
    at = current_deadline()
    return None if at is None else max(0.0, at - time.monotonic())


def passed(at: float | None) -> bool:
    """Whether the deadline ``at`` (a :func:`time.monotonic` instant, None: none) has passed; a search reads
    :func:`current_deadline` once and asks this between its rollouts."""
    return at is not None and time.monotonic() >= at


@contextmanager
def decision_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, this thread's decisions stop ``seconds`` from now (None or infinity: no deadline).
    Nested, the earlier deadline holds. ``ValueError`` for NaN or a value that is not a number."""
    if seconds is None:
        yield
        return
    if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or math.isnan(seconds):
        raise ValueError(f"a decision deadline must be a number of seconds (or None), got {seconds!r}")
    seconds = float(seconds)
    previous = current_deadline()
    at = time.monotonic() + seconds if math.isfinite(seconds) else None
    if at is None or (previous is not None and previous <= at):
        at = previous
    _local.at = at
    try:
        yield
    finally:
        _local.at = previous


__all__ = ["DeadlinePassed", "current_deadline", "decision_deadline", "passed", "seconds_left"]
