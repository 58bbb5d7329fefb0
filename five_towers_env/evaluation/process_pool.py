"""Games played over a local 'spawn' process pool, a few jobs to a task (the backend for ``workers > 1``; Ray
is the other, :mod:`~five_towers_env.evaluation.distributed`). Every game's seeds come from its job, never from
the worker that plays it, so the records are those of one process."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from typing import Any

from five_towers_env.core.game import get_game
from five_towers_env.evaluation.jobs import GameJob, chunked
from five_towers_env.evaluation.playing import PlayOptions, play_chunk
from five_towers_env.evaluation.specs import AgentSpec


def pool_records(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], game: str,
                 options: PlayOptions, workers: int, chunk_size: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(job index, record)`` of every job, played over a 'spawn' process pool, as chunks finish."""
    chunks = chunked(len(jobs), workers, chunk_size)
    spec = get_game(game)  # the spec travels to the workers, which may not know the game by name
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=get_context("spawn")) as pool:
        pending = {pool.submit(play_chunk, list(specs), variant, [jobs[i] for i in c], spec, options): c
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


__all__ = ["pool_records"]
