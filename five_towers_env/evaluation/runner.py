"""Running games: seeds derived from the run seed, the seat rotation, and playing the jobs in this
process, over a 'spawn' process pool or on a Ray cluster, each agent under guard and each game journalled
(see :mod:`five_towers_env.evaluation.match` for the conventions).
"""
from __future__ import annotations

import math
import os
import pickle
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from five_towers_env.core.agent import SetupWarning
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, register_game
from five_towers_env.core.state import shares_of
from five_towers_env.evaluation.distributed import ray_records
from five_towers_env.evaluation.guard import ON_ERROR, AgentError, GuardedAgent
from five_towers_env.evaluation.journal import Journal, game_key
from five_towers_env.evaluation.journal_check import FORFEIT_KEYS, MAX_TEXT, RECORD_KEYS
from five_towers_env.evaluation.specs import AgentSpec
from five_towers_env.play import play_game


def derive_seed(*keys: int) -> int:
    """A 63-bit seed derived deterministically from non-negative integer ``keys``."""
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def seat_lineup(index: int, num_agents: int, num_players: int) -> tuple[int, ...]:
    """Agent index in each seat for game ``index``: seat ``s`` gets agent ``(s + index) mod num_agents``."""
    r = index % num_agents
    return tuple((s + r) % num_agents for s in range(num_players))


@dataclass(frozen=True)
class GameJob:
    """One game to play: which spec sits in each seat and the seeds to use."""

    index: int                     # game number within its group
    group: int                     # group (pairing) number; 0 for a plain evaluation
    lineup: tuple[int, ...]        # spec index per seat
    deal_seed: int
    agent_seeds: tuple[int, ...]   # per seat
    deal: int = 0                  # deal number within its group (index // k when paired, else index)


def make_jobs(agent_ids: Sequence[int], num_games: int, num_players: int, seed: int, key: Sequence[int] = (),
              paired: bool = True, group: int = 0) -> list[GameJob]:
    """Seat-rotated, seeded jobs for ``num_games`` games among the specs ``agent_ids``."""
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    k = len(agent_ids)
    jobs = []
    for i in range(num_games):
        lineup = tuple(agent_ids[j] for j in seat_lineup(i, k, num_players))
        deal = i // k if paired else i
        deal_seed = derive_seed(seed, *key, 0, deal)
        agent_seeds = tuple(derive_seed(seed, *key, 1, i, s) for s in range(num_players))
        jobs.append(GameJob(i, group, lineup, deal_seed, agent_seeds, deal))
    return jobs


# -- playing ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayOptions:
    """How a run treats its agents: ``on_error`` (``"stop"`` the run or ``"forfeit"`` the game when an agent
    fails a decision, :mod:`~five_towers_env.evaluation.guard`) and ``move_timeout`` (seconds per decision,
    None: no limit)."""

    on_error: str = "stop"
    move_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {self.on_error!r}")
        if self.move_timeout is not None and not self.move_timeout > 0:
            raise ValueError(f"move_timeout must be a positive number of seconds, got {self.move_timeout!r}")


def _forfeit_record(agents: Sequence[GuardedAgent], error: AgentError) -> dict[str, Any]:
    """The result of a game its seat ``error.seat`` forfeited: the other seats share the win; scores are
    those of the last position the failing agent was shown (0 where it was shown none)."""
    n = len(agents)
    scores = agents[error.seat].public_scores() or [0] * n
    winners = [s for s in range(n) if s != error.seat]
    message = str(error)  # cut to what a journal line may hold, so a resumed run's record is the same
    message = message if len(message) <= MAX_TEXT else message[: MAX_TEXT - 3] + "..."
    return {"scores": scores, "winners": winners, "steps": sum(a.moves for a in agents),
            "forfeit": error.seat, "error": message}


def play_job(specs: Sequence[AgentSpec], variant: str, job: GameJob, game: str = DEFAULT_GAME,
             options: PlayOptions = PlayOptions()) -> dict[str, Any]:
    """Play one job of ``game``; return its record (scores, winners, win shares, margins, steps, timing;
    ``forfeit`` and ``error`` when a seat forfeited it). An agent's failed decision raises
    :class:`~five_towers_env.evaluation.guard.AgentError` unless ``options.on_error`` is ``"forfeit"``."""
    agents = [GuardedAgent(specs[a].build(job.agent_seeds[s]), specs[a].label, s, job.index, options.move_timeout)
              for s, a in enumerate(job.lineup)]
    t0 = time.perf_counter()
    try:
        result = play_game(agents, variant=variant, seed=job.deal_seed, game=game)
    except AgentError as error:
        if options.on_error != "forfeit":
            raise
        result = _forfeit_record(agents, error)
    wall = time.perf_counter() - t0
    scores = [int(x) for x in result["scores"]]
    winners = [int(w) for w in result["winners"]]
    share = shares_of(winners, len(scores))
    margins = [sc - max(scores[:s] + scores[s + 1:]) for s, sc in enumerate(scores)]
    record = {"group": job.group, "game": job.index, "deal": job.deal, "deal_seed": job.deal_seed,
              "lineup": list(job.lineup),
              "scores": scores, "winners": winners, "win_share": share, "margins": margins,
              "steps": int(result["steps"]), "moves": [a.moves for a in agents],
              "think_seconds": [a.seconds for a in agents], "wall_seconds": wall}
    if "forfeit" in result:
        record.update(forfeit=result["forfeit"], error=result["error"])
    return record


def _play_chunk(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob],
                game: str | GameSpec = DEFAULT_GAME, options: PlayOptions = PlayOptions()) -> list[dict[str, Any]]:
    # top level, so 'spawn' workers and Ray tasks can import it; run_jobs has already said what a worker
    # would repeat about an agent's setup
    warnings.simplefilter("ignore", SetupWarning)
    if isinstance(game, GameSpec):  # a game registered in the parent only (imported, not a plugin)
        game = register_game(game).name
    return [play_job(specs, variant, job, game, options) for job in jobs]


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
             game: str = DEFAULT_GAME, options: PlayOptions = PlayOptions(), journal: Journal | None = None,
             ray: str | None = None) -> list[dict[str, Any]]:
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


def chunked(n: int, workers: int, chunk_size: int | None) -> list[list[int]]:
    """``range(n)`` in chunks, about eight per worker (at most 25 jobs each) unless ``chunk_size`` is given."""
    if chunk_size is None:
        chunk_size = max(1, min(25, math.ceil(n / (workers * 8))))
    return [list(range(i, min(i + chunk_size, n))) for i in range(0, n, chunk_size)]


def pool_records(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], game: str,
                 options: PlayOptions, workers: int, chunk_size: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(job index, record)`` of every job, played over a 'spawn' process pool, as chunks finish."""
    chunks = chunked(len(jobs), workers, chunk_size)
    spec = get_game(game)  # the spec travels to the workers, which may not know the game by name
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=get_context("spawn")) as pool:
        pending = {pool.submit(_play_chunk, list(specs), variant, [jobs[i] for i in c], spec, options): c
                   for c in chunks}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    idx = pending.pop(fut)
                    yield from zip(idx, fut.result())
        finally:
            for fut in pending:
                fut.cancel()


__all__ = ["GameJob", "PlayOptions", "check_setups", "chunked", "derive_seed", "journal_line", "make_jobs",
           "play_job", "pool_records", "resolve_workers", "run_jobs", "seat_lineup"]
