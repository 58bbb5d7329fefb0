"""Running games, the layer above the jobs (:mod:`~five_towers_env.evaluation.jobs`) and the backends: the jobs
of a run played in this process, over a 'spawn' process pool (:mod:`~five_towers_env.evaluation.process_pool`) or
on a Ray cluster (:mod:`~five_towers_env.evaluation.distributed`), each agent under guard
(:mod:`~five_towers_env.evaluation.playing`) and each game journalled (:mod:`~five_towers_env.evaluation.journal`);
see :mod:`five_towers_env.evaluation.match` for the conventions.
"""
from __future__ import annotations

import os
import pickle
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.evaluation.distributed import ray_records
from five_towers_env.evaluation.jobs import GameJob
from five_towers_env.evaluation.journal import Journal, game_key
from five_towers_env.evaluation.journal_check import FORFEIT_KEYS, RECORD_KEYS
from five_towers_env.evaluation.playing import PlayOptions, play_job
from five_towers_env.evaluation.process_pool import pool_records
from five_towers_env.evaluation.specs import AgentSpec


def check_setups(specs: Sequence[AgentSpec], num_players: int, variant: str) -> None:
    """Let every agent that can tell (a ``check_setup(num_players, variant)`` method) warn, once and in
    this process, if it was not made for this setup (a policy trained for another player count)."""
    for spec in specs:
        check = getattr(spec.build(0), "check_setup", None)
        if callable(check):
            check(num_players, variant)


class _Progress:
    """tqdm when installed, else a plain counter on stderr (at most ~2 updates a second)."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.total, self.desc, self.n = total, desc, 0
        self.bar = None
        self.enabled = enabled
        self._last = 0.0
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self._print(force=True)
        else:
            self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def _print(self, force: bool = False) -> None:
        if sys.stderr.isatty():  # one line, rewritten at most twice a second
            now = time.monotonic()
            if force or now - self._last >= 0.5:
                self._last = now
                sys.stderr.write(f"\r{self.desc}: {self.n}/{self.total} games")
                sys.stderr.flush()
        else:  # a log: a line per 10%
            step = self.n * 10 // max(self.total, 1)
            if force or step > self._last:
                self._last = step
                sys.stderr.write(f"{self.desc}: {self.n}/{self.total} games\n")
                sys.stderr.flush()

    def update(self, n: int) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.enabled:
            self._print(force=self.n >= self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and sys.stderr.isatty():
            sys.stderr.write("\n")
            sys.stderr.flush()


def resolve_workers(workers: int | None) -> int:
    """Worker processes to use: ``None`` or 0 means every CPU; a negative count is an error."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)):
        raise TypeError(f"workers must be an integer >= 0 (0: every CPU), got {workers!r}")
    if workers < 0:
        raise ValueError(f"workers must be >= 0 (0: every CPU), got {workers}")
    return int(workers) or (os.cpu_count() or 1)


def _filled(records: list[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Every job's record, each one played by now."""
    out = [r for r in records if r is not None]
    if len(out) != len(records):
        raise RuntimeError("a job finished without a record")
    return out


def journal_line(record: dict[str, Any], job: GameJob, labels: Sequence[str]) -> dict[str, Any]:
    """A played game's record as the journal keeps it: with its seats' agent labels and seeds, which find
    it again in a later run (:func:`~five_towers_env.evaluation.journal.game_key`)."""
    out = {k: v for k, v in record.items() if k not in ("group", "game", "lineup")}
    return {**out, "agents": [labels[a] for a in job.lineup], "agent_seeds": list(job.agent_seeds)}


def _from_journal(line: dict[str, Any], job: GameJob) -> dict[str, Any]:
    """A journal line (checked by :mod:`~five_towers_env.evaluation.journal_check`) as this run's record of
    ``job``: its group, game number, deal and lineup are this run's, never the line's."""
    kept = [k for k in RECORD_KEYS + FORFEIT_KEYS if k in line and k not in ("agents", "agent_seeds", "deal",
                                                                               "deal_seed")]
    return {"group": job.group, "game": job.index, "deal": job.deal, "deal_seed": job.deal_seed,
            "lineup": list(job.lineup), **{k: line[k] for k in kept}}


def _journalled(journal: Journal, job: GameJob, labels: Sequence[str]) -> dict[str, Any] | None:
    """The journal's record of ``job`` as this run's record, or None (not there, or dropped as not this game)."""
    key = game_key(job.deal_seed, job.agent_seeds, [labels[a] for a in job.lineup])
    line = journal.get(key)
    if line is None:
        return None
    if line["deal"] != job.deal:
        journal.reject(key, f"its game is deal {job.deal} of this run, not deal {line['deal']}")
        return None
    return _from_journal(line, job)


def _unpicklable(specs: Sequence[AgentSpec]) -> str | None:
    """Why ``specs`` cannot be sent to worker processes (a lambda, a local function), or None."""
    try:
        pickle.dumps(list(specs))
    except Exception as exc:  # PicklingError, AttributeError, TypeError: all mean "cannot travel"
        return f"{type(exc).__name__}: {exc}"
    return None


def run_jobs(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], workers: int | None = 1,
             progress: bool = True, desc: str = "games", chunk_size: int | None = None,
             *, game: str, options: PlayOptions = PlayOptions(),  # noqa: B008 (frozen: immutable)
             journal: Journal | None = None, ray: str | None = None) -> list[dict[str, Any]]:
    """Play ``jobs`` of ``game`` and return their records in job order: in this process when ``workers == 1``,
    else over a 'spawn' process pool, or as Ray tasks when ``ray`` names a cluster (``"auto"``, an address, or
    ``"local"``: a local instance with ``workers`` CPUs); the records do not depend on which.

    With a ``journal`` the games it holds are not played again, and each game played is appended to it as
    it finishes. A factory that cannot be pickled plays in this process, with a warning (Ray sends it by
    cloudpickle). ``options`` says what an agent's failed decision costs (:class:`PlayOptions`)."""
    workers = resolve_workers(workers)
    labels = [s.label for s in specs]
    if jobs:
        check_setups(specs, len(jobs[0].lineup), variant)
    records: list[dict[str, Any] | None] = [None] * len(jobs)
    todo: list[int] = []
    for i, job in enumerate(jobs):
        record = _journalled(journal, job, labels) if journal is not None else None
        if record is not None:
            records[i] = record
        else:
            todo.append(i)
    if ray is None and workers > 1 and len(todo) > 1:
        why = _unpicklable(specs)
        if why is not None:
            warnings.warn(f"an agent cannot be sent to worker processes ({why}); playing in this process instead "
                          "(give a top-level function or class, or a registry name, to play in parallel)",
                          stacklevel=2)
            workers = 1
    bar = _Progress(len(jobs), desc, progress)
    bar.update(len(jobs) - len(todo))
    try:
        pending = [jobs[i] for i in todo]
        if ray is not None:
            played = ray_records(specs, variant, pending, game, options, ray, workers, chunk_size)
        elif workers == 1 or len(pending) <= 1:
            played = ((j, play_job(specs, variant, job, game, options)) for j, job in enumerate(pending))
        else:
            played = pool_records(specs, variant, pending, game, options, workers, chunk_size)
        for j, record in played:
            i = todo[j]
            records[i] = record
            if journal is not None:
                journal.append(journal_line(record, jobs[i], labels))
            bar.update(1)
        return _filled(records)
    finally:
        bar.close()
        if journal is not None:
            journal.close()


__all__ = ["check_setups", "journal_line", "resolve_workers", "run_jobs"]
