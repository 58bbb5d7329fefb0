"""Games played as Ray tasks, on a cluster or a local Ray instance (the ``ray`` extra; the local process pool is
the other backend, :mod:`~five_towers_env.evaluation.process_pool`).

``--ray auto`` joins the cluster this machine belongs to (``ray start`` was run), ``--ray ADDRESS`` the
one at that address, ``--ray local`` starts a Ray instance on this machine with ``--workers`` CPUs (how
the tests run it). Every game's seeds come from its job, never from the worker that plays it, so a run
gives the same records on Ray as in one process. The cluster's nodes need this package installed, at the
same version, as every worker imports it.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from five_towers_env.core.game import get_game
from five_towers_env.evaluation.jobs import GameJob, chunked
from five_towers_env.evaluation.playing import PlayOptions, play_chunk
from five_towers_env.evaluation.specs import AgentSpec

#: how ``--ray`` names a local instance rather than a cluster's address
LOCAL = "local"
INSTALL_HINT = 'pip install -e ".[ray]"'


def import_ray() -> Any:
    """The ``ray`` module, or an ``ImportError`` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"--ray needs Ray: {INSTALL_HINT}") from None
    return ray


def connect(address: str, workers: int) -> bool:
    """Make sure Ray is running for this process: join ``address`` or start a local instance with ``workers``
    CPUs. Returns whether it was started here (and so is to be shut down when the run ends)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address == LOCAL:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=True, configure_logging=False)
    else:
        ray.init(address=address, include_dashboard=False, configure_logging=False)
    return True


def ray_records(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], game: str, options: PlayOptions,
                address: str, workers: int, chunk_size: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(job index, record)`` of every job, played as Ray tasks of a few games each, as tasks finish."""
    ray = import_ray()
    started = connect(address, workers)
    try:
        cpus = int(ray.cluster_resources().get("CPU", workers)) or 1
        chunks = chunked(len(jobs), cpus, chunk_size)
        task = ray.remote(num_cpus=1, max_retries=0)(play_chunk)
        spec = get_game(game)  # the spec travels with the task: a worker may not know the game by name
        shared = ray.put(list(specs))
        pending = {task.remote(shared, variant, [jobs[i] for i in c], spec, options): c for c in chunks}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    idx = pending.pop(ref)
                    try:
                        records = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        cause = getattr(exc, "cause", None)  # the agent's error, not Ray's wrapper around it
                        if isinstance(cause, Exception):
                            raise cause from None
                        raise
                    yield from zip(idx, records)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()


__all__ = ["INSTALL_HINT", "LOCAL", "connect", "import_ray", "ray_records"]
