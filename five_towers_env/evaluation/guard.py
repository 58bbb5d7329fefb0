"""Agents under guard: every decision an evaluation asks for is timed and checked.

A :class:`GuardedAgent` wraps an agent for one game. A decision that raises, returns something that is
not an action id, returns an id that is not legal, or runs past ``move_timeout`` seconds becomes an
:class:`AgentError`: one line naming the agent, its seat, the game number, what it returned and the
legal actions. The runner then either records the game as forfeited by that seat or stops the run
(``on_error="forfeit"`` or ``"stop"``, :mod:`five_towers_env.evaluation.playing`).

The time limit is also the decision's deadline (:func:`~five_towers_env.core.deadline.decision_deadline`),
a hard stop every built-in search obeys, in Python and in C++, in any thread: the search gives control back
at the deadline with its best move so far. Python code is interrupted as well with ``SIGALRM`` where that is
possible (Unix, the process's main thread, which is where the runner's workers play), which stops an agent
that never looks at the deadline (a ``py:`` agent that sleeps); a decision that ran past the limit anyway is
caught when it returns. Either way a move that came at or after the deadline counts as timed out.
"""
from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from five_towers_env.core.agent import Agent, legal_actions
from five_towers_env.core.deadline import DeadlinePassed, decision_deadline

#: what the run does when an agent fails: the game is lost by that seat, or the run stops
ON_ERROR = ("stop", "forfeit")


class AgentError(RuntimeError):
    """An agent failed a decision (raised, bad or illegal action, too slow); the message is one line."""

    def __init__(self, message: str, seat: int, agent: str, kind: str) -> None:
        super().__init__(message)
        self.seat, self.agent, self.kind = seat, agent, kind

    def __reduce__(self) -> tuple[Any, ...]:
        # sent back whole from worker processes and Ray tasks (an exception pickles only its message by default)
        return (type(self), (str(self), self.seat, self.agent, self.kind))


class _Timeout(BaseException):
    """Raised into a decision by the alarm; a BaseException, so an agent's ``except Exception`` lets it through."""


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _legal_text(legal: list[int], limit: int = 12) -> str:
    shown = ", ".join(map(str, legal[:limit]))
    return f"[{shown}{', ...' if len(legal) > limit else ''}] ({len(legal)} legal)"


def as_action(value: Any) -> int | None:
    """``value`` as an action id if it is one (a Python or numpy integer, or a 0-d or 1-element integer
    array); None otherwise (a float, a string, a bool, ``None``, a vector)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.size == 1 and np.issubdtype(value.dtype, np.integer):
        return int(value.reshape(()))
    return None


@contextmanager
def _alarm(seconds: float | None) -> Iterator[None]:
    """Raise :class:`_Timeout` into the block after ``seconds`` (main thread on Unix; otherwise nothing)."""
    usable = (seconds is not None and math.isfinite(seconds) and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))  # type: ignore[arg-type]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


class GuardedAgent:
    """Wraps an agent for one game: counts its decisions and thinking seconds, and turns a failed
    decision into an :class:`AgentError` (see the module docstring)."""

    def __init__(self, agent: Agent, label: str, seat: int, game_number: int,
                 move_timeout: float | None = None) -> None:
        self.agent = agent
        self.label, self.seat, self.game_number = label, seat, game_number
        self.name = getattr(agent, "name", type(agent).__name__)
        self.move_timeout = move_timeout
        self.moves = 0
        self.seconds = 0.0
        self.last_info: dict[str, Any] | None = None

    def _fail(self, kind: str, what: str, legal: list[int]) -> AgentError:
        message = (f"agent {self.label} (seat {self.seat}) in game {self.game_number}: {what}; "
                   f"legal actions {_legal_text(legal)}")
        return AgentError(message, self.seat, self.label, kind)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The wrapped agent's action, checked (an :class:`AgentError` if it fails)."""
        self.last_info = info
        legal = legal_actions(observation, info)
        t = time.perf_counter()
        try:
            with _alarm(self.move_timeout), decision_deadline(self.move_timeout):
                value = self.agent.act(observation, info)
        except (_Timeout, DeadlinePassed):
            limit = "its decision deadline" if self.move_timeout is None else f"--move-timeout {self.move_timeout:g} s"
            raise self._fail("timeout", f"no action within {limit}", legal) from None
        except Exception as exc:  # the agent's own bug: reported, never a traceback that ends the run unasked
            raise self._fail("raised", f"raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                             .rstrip(": "), legal) from exc
        finally:
            elapsed = time.perf_counter() - t
            self.seconds += elapsed
            self.moves += 1
        if self.move_timeout is not None and elapsed > self.move_timeout:
            raise self._fail("timeout", f"no action within --move-timeout {self.move_timeout:g} s "
                                        f"(answered after {elapsed:.3f} s)", legal)
        action = as_action(value)
        if action is None:
            raise self._fail("malformed", f"returned {_short(value)}, not an action id", legal)
        if action not in legal:
            raise self._fail("illegal", f"returned {action}, not a legal action", legal)
        return action

    def public_scores(self) -> list[int] | None:
        """The scores of the last position this agent was shown (its public view), if it was shown one."""
        view = (self.last_info or {}).get("view")
        scores = getattr(view, "scores", None)
        return [int(x) for x in scores()] if callable(scores) else None


__all__ = ["AgentError", "GuardedAgent", "ON_ERROR", "as_action"]
