"""Jobs and seeds, the bottom layer of evaluation: the games a run plays, each with the seeds that decide it.

Every seed derives from the run seed (:func:`derive_seed`), a group's from its agents' labels too
(:func:`group_key`), so a game is the same whichever process plays it, and adding an agent to a run does not
change the games of the others. Seats rotate (:func:`seat_lineup`); the jobs are cut into chunks for the
backends (:func:`chunked`). See :mod:`five_towers_env.evaluation.match` for the conventions.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def derive_seed(*keys: int) -> int:
    """A 63-bit seed derived deterministically from non-negative integer ``keys``."""
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def group_key(labels: Sequence[str]) -> int:
    """A stable number for a group of agent labels (part of the group's seeds)."""
    return zlib.crc32("\x1f".join(labels).encode())


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


def chunked(n: int, workers: int, chunk_size: int | None) -> list[list[int]]:
    """``range(n)`` in chunks, about eight per worker (at most 25 jobs each) unless ``chunk_size`` is given."""
    if chunk_size is None:
        chunk_size = max(1, min(25, math.ceil(n / (workers * 8))))
    return [list(range(i, min(i + chunk_size, n))) for i in range(0, n, chunk_size)]


__all__ = ["GameJob", "chunked", "derive_seed", "group_key", "make_jobs", "seat_lineup"]
