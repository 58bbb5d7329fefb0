"""Where the agents of ``five-towers serve`` think: each decision in a thread of its own, never on the server's
event loop, at most :data:`MAX_THINKING` at once, each waited for at most the setup's ``move_timeout``.

A Python thread cannot be stopped from outside. So a decision that runs past its timeout is *abandoned*: the
request that asked for it is answered at once (its game stops, or its hint fails, as the table's rules say),
and its slot is free for the next decision. The thread runs on until the agent returns, counted apart; only if
:data:`MAX_ABANDONED` such threads are still running is a new decision refused (503), so that an agent that
never returns cannot take the machine's threads one game at a time. The table that asked keeps its own
agent busy until the thread really ends (``done``), so no agent object is ever asked two things at once.

:func:`decide` is the one place a worker thread calls an agent: a per-thread deadline that native searches obey
(so that they return their best move by the timeout instead of being abandoned) belongs there.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any

from five_towers_env.core.deadline import decision_deadline
from five_towers_env.web.tables import RequestError

#: decisions (agents' moves and hints) thinking at once; a request past that is refused (503) until one is done
MAX_THINKING = 8
#: abandoned decisions (past their timeout, their thread still running) past which new ones are refused (503)
MAX_ABANDONED = 64

log = logging.getLogger("five_towers_env.web")


def decide(agent: Any, observation: Any, info: Any, seconds: float) -> Any:
    """``agent.act(observation, info)``, run in a worker thread that is waited for ``seconds``.

    The decision's deadline (:func:`~five_towers_env.core.deadline.decision_deadline`, ``seconds`` from now, this
    thread's) stops the built-in searches, native ones included, in time, so their thread ends and frees its place;
    an agent that ignores it is abandoned by :class:`Thinkers` when ``seconds`` have passed."""
    with decision_deadline(seconds):
        return agent.act(observation, info)


class _Decision:
    """One decision's place in the count: thinking (holds a slot), abandoned, or finished."""

    __slots__ = ("abandoned", "finished")

    def __init__(self) -> None:
        self.abandoned = False
        self.finished = False


class Thinkers:
    """Runs decisions in daemon threads (one that never returns does not keep the server from stopping) and
    waits for them without blocking the event loop; see the module docstring."""

    def __init__(self, limit: int = MAX_THINKING, abandoned_limit: int = MAX_ABANDONED) -> None:
        self.limit, self.abandoned_limit = limit, abandoned_limit
        self._lock = threading.Lock()
        self.thinking = 0  # decisions holding a slot
        self.abandoned = 0  # decisions past their timeout whose thread still runs

    def _take(self) -> _Decision:
        with self._lock:
            if self.abandoned >= self.abandoned_limit:
                raise RequestError(503, f"{self.abandoned} agents ran past --move-timeout and have not returned: "
                                        "no more decisions until they do (or the server restarts)")
            if self.thinking >= self.limit:
                raise RequestError(503, f"{self.limit} agents are thinking already: try again in a moment")
            self.thinking += 1
            return _Decision()

    def _finish(self, decision: _Decision) -> None:
        with self._lock:
            decision.finished = True
            if decision.abandoned:
                self.abandoned -= 1
            else:
                self.thinking -= 1

    def _abandon(self, decision: _Decision, what: str) -> None:
        with self._lock:
            if decision.finished or decision.abandoned:
                return
            decision.abandoned = True
            self.thinking -= 1
            self.abandoned += 1
            count = self.abandoned
        log.warning("%s ran past --move-timeout: its thread is left to finish (%d such now)", what, count)

    async def run(self, work: Callable[[], Any], timeout: float, done: Callable[[], None] | None = None,
                  what: str = "an agent") -> Any:
        """``work()``'s result, or its exception; ``asyncio.TimeoutError`` after ``timeout`` seconds, its slot
        then freed (the thread runs on; ``done``, which must be quick and safe from any thread, is called in it
        whenever ``work`` ends; ``what`` names the decision in the server's log)."""
        decision = self._take()
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()

        def settle(outcome: tuple[Any, BaseException | None]) -> None:
            if not future.done():
                future.set_result(outcome)

        def think() -> None:
            try:
                outcome: tuple[Any, BaseException | None] = (work(), None)
            except BaseException as exc:  # whatever the agent raised is reported on the loop, not here
                outcome = (None, exc)
            finally:
                self._finish(decision)
                if done is not None:  # here, not on the loop: it frees the agent even if nobody waits any more
                    done()
            try:
                loop.call_soon_threadsafe(settle, outcome)
            except RuntimeError:  # the server stopped meanwhile: nobody waits for the answer
                pass

        try:
            threading.Thread(target=think, name="five-towers-agent", daemon=True).start()
        except BaseException:  # no thread could be started: the slot is not held by anything
            self._finish(decision)
            raise
        try:
            result, error = await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            self._abandon(decision, what)
            raise
        if isinstance(error, Exception):
            raise error
        if error is not None:  # an exit or an interrupt raised inside an agent stops that decision, not the server
            raise RuntimeError(reason(error))
        return result


def reason(exc: BaseException) -> str:
    """``exc`` as one line: its type and message."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["MAX_ABANDONED", "MAX_THINKING", "Thinkers", "decide", "reason"]
