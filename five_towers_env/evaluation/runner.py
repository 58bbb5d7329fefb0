"""Running games: seeds derived from the run seed, the seat rotation, and playing the jobs in this
process or over a 'spawn' process pool (see :mod:`five_towers_env.evaluation.match` for the conventions).
"""
from __future__ import annotations

import math
import os
import sys
import time
import warnings
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from five_towers_env.core.agent import Agent, SetupWarning
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, register_game
from five_towers_env.core.state import shares_of
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

class TimedAgent:
    """Wraps an agent, counting its decisions and the seconds it spends choosing."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.moves = 0
        self.seconds = 0.0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        t = time.perf_counter()
        action = self.agent.act(observation, info)
        self.seconds += time.perf_counter() - t
        self.moves += 1
        return action


def play_job(specs: Sequence[AgentSpec], variant: str, job: GameJob, game: str = DEFAULT_GAME) -> dict[str, Any]:
    """Play one job of ``game``; return its record (scores, winners, win shares, margins, steps, timing)."""
    agents = [TimedAgent(specs[a].build(job.agent_seeds[s])) for s, a in enumerate(job.lineup)]
    t0 = time.perf_counter()
    result = play_game(agents, variant=variant, seed=job.deal_seed, game=game)
    wall = time.perf_counter() - t0
    scores = [int(x) for x in result["scores"]]
    winners = [int(w) for w in result["winners"]]
    share = shares_of(winners, len(scores))
    margins = [sc - max(scores[:s] + scores[s + 1:]) for s, sc in enumerate(scores)]
    return {"group": job.group, "game": job.index, "deal": job.deal, "deal_seed": job.deal_seed,
            "lineup": list(job.lineup),
            "scores": scores, "winners": winners, "win_share": share, "margins": margins,
            "steps": int(result["steps"]), "moves": [a.moves for a in agents],
            "think_seconds": [a.seconds for a in agents], "wall_seconds": wall}


def _play_chunk(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob],
                game: str | GameSpec = DEFAULT_GAME) -> list[dict[str, Any]]:
    # top level, so 'spawn' workers can import it; run_jobs has already said what a worker would
    # repeat about an agent's setup
    warnings.simplefilter("ignore", SetupWarning)
    if isinstance(game, GameSpec):  # a game registered in the parent only (imported, not a plugin)
        game = register_game(game).name
    return [play_job(specs, variant, job, game) for job in jobs]


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


def run_jobs(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], workers: int | None = 1,
             progress: bool = True, desc: str = "games", chunk_size: int | None = None,
             game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    """Play ``jobs`` of ``game`` (in this process when ``workers == 1``, else over a 'spawn' process
    pool); return their records in job order."""
    workers = resolve_workers(workers)
    if jobs:
        check_setups(specs, len(jobs[0].lineup), variant)
    bar = _Progress(len(jobs), desc, progress)
    records: list[dict[str, Any] | None] = [None] * len(jobs)
    try:
        if workers == 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                records[i] = play_job(specs, variant, job, game)
                bar.update(1)
            return _filled(records)
        if chunk_size is None:
            chunk_size = max(1, min(25, math.ceil(len(jobs) / (workers * 8))))
        chunks = [list(range(i, min(i + chunk_size, len(jobs)))) for i in range(0, len(jobs), chunk_size)]
        specs = list(specs)
        with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=get_context("spawn")) as pool:
            spec = get_game(game)  # the spec travels to the workers, which may not know the game by name
            pending = {pool.submit(_play_chunk, specs, variant, [jobs[i] for i in c], spec): c for c in chunks}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        idx = pending.pop(fut)
                        for i, rec in zip(idx, fut.result()):
                            records[i] = rec
                        bar.update(len(idx))
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise
        return _filled(records)
    finally:
        bar.close()


__all__ = ["GameJob", "TimedAgent", "check_setups", "derive_seed", "make_jobs", "play_job", "resolve_workers",
           "run_jobs", "seat_lineup"]
