"""The command line's upper limits, and the worker count capped at the cores this process may use.

Every game of a run is laid out as a job before the first is played (its seeds, its seats): about half a
kilobyte and a fraction of a millisecond each. So a run's games are bounded:

* :data:`MAX_GAMES`: ``--games`` of ``evaluate``, ``rate`` and ``zoo``, and of ``tournament`` per group
  and in all (the groups times the games); more is refused at once, in one line, exit status 2;
* :data:`MAX_GAME_INDEX`: ``play --game-index`` (the last game an evaluation may have);
* :data:`MAX_TABLES`: ``serve --max-games`` (default :data:`DEFAULT_TABLES`);
* ``--workers`` above the cores this process may use (:func:`usable_cpus`) is capped there, with a warning,
  unless ``--force-workers`` is given (more processes than cores only share them).

``play --game-index N`` lays out game ``N`` alone (:func:`job_at`, :func:`play_agents`).

The training configs' limits are on their settings (``LIMITS`` of each settings dataclass, documented in
docs/training.md's tables); a network file's sizes are :mod:`five_towers_env.agents.npz_reader`'s.
"""
from __future__ import annotations

import argparse
import math
import os
import warnings
from collections.abc import Sequence
from typing import Any

#: the most games one command plays (a million: about 500 MB of jobs laid out before the first game)
MAX_GAMES = 1_000_000
#: the highest ``play --game-index``: the last game of the largest evaluation
MAX_GAME_INDEX = MAX_GAMES - 1
#: the most games ``five-towers serve --max-games`` keeps at once (each a few hundred kilobytes at most)
MAX_TABLES = 10_000
#: the games ``five-towers serve`` keeps at once by default; past that the one left alone longest is forgotten
DEFAULT_TABLES = 100


def _count(text: str, low: int, high: int, wanted: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None
    if not low <= n <= high:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
    return n


def games_arg(text: str) -> int:
    """``--games``: an integer from 1 to :data:`MAX_GAMES`."""
    return _count(text, 1, MAX_GAMES, f"an integer from 1 to {MAX_GAMES:,}")


def eval_games_arg(text: str) -> int:
    """``train --eval-games``: an integer from 0 (no final evaluation) to :data:`MAX_GAMES`."""
    return _count(text, 0, MAX_GAMES, f"an integer from 0 to {MAX_GAMES:,}")


def game_index_arg(text: str) -> int:
    """``play --game-index``: an integer from 0 to :data:`MAX_GAME_INDEX`."""
    return _count(text, 0, MAX_GAME_INDEX, f"an integer from 0 to {MAX_GAME_INDEX:,}")


def usable_cpus() -> int:
    """The cores this process may run on (its affinity where the system tells it, else every core)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cap_workers(args: argparse.Namespace) -> None:
    """Cap ``args.workers`` at :func:`usable_cpus`, with a warning, unless ``args.force_workers``; a Ray
    cluster elsewhere (``--ray`` other than ``local``) has its own cores, so its count is left alone."""
    workers = getattr(args, "workers", None)
    ray = getattr(args, "ray", None)
    if not workers or getattr(args, "force_workers", False) or (ray is not None and ray != "local"):
        return
    cpus = usable_cpus()
    if workers > cpus:
        warnings.warn(f"--workers {workers} is more than the {cpus} CPU{'s' if cpus > 1 else ''} this process may "
                      f"use; using {cpus} (--force-workers starts {workers} anyway)", stacklevel=2)
        args.workers = cpus


def job_at(agent_ids: Sequence[int], index: int, num_players: int, seed: int, paired: bool = True) -> Any:
    """Game ``index`` of an evaluation of ``agent_ids``: ``make_jobs(agent_ids, index + 1, ...)[-1]``
    (:mod:`five_towers_env.evaluation.jobs`), without laying out the games before it."""
    from five_towers_env.evaluation.jobs import GameJob, derive_seed, seat_lineup

    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    lineup = tuple(agent_ids[j] for j in seat_lineup(index, len(agent_ids), num_players))
    deal = index // len(agent_ids) if paired else index
    seeds = tuple(derive_seed(seed, 1, index, s) for s in range(num_players))
    return GameJob(index, 0, lineup, derive_seed(seed, 0, deal), seeds, deal)


def play_agents(specs: Sequence[Any], index: int, num_players: int, seed: int, paired: bool) -> tuple[Any, list[str],
                                                                                             list[Any]]:
    """``play --game-index``'s game: its job (:func:`job_at`), its seats' labels and agents, each under guard
    as in an evaluation (a failed decision is one line, an ``AgentError``) but a person's (``human``)."""
    from five_towers_env.evaluation.guard import GuardedAgent

    job = job_at(list(range(len(specs))), index, num_players, seed, paired)
    labels = [specs[a].label for a in job.lineup]
    agents = [specs[a].build(job.agent_seeds[s]) for s, a in enumerate(job.lineup)]
    # a person's decisions are not guarded: they take their time, and a typo is asked again
    return job, labels, [agent if getattr(agent, "interactive", False) else GuardedAgent(agent, labels[s], s, index)
                         for s, (a, agent) in enumerate(zip(job.lineup, agents))]


def tournament_games_problem(num_agents: int, num_players: int, games: int) -> str | None:
    """Why a tournament of these agents is too long (its groups times ``games`` over :data:`MAX_GAMES`), or
    None."""
    groups = math.comb(num_agents, num_players) if num_agents > num_players else 1
    if groups * games > MAX_GAMES:
        return (f"{groups:,} groups x {games:,} games is {groups * games:,} games, more than the {MAX_GAMES:,} "
                "a command plays; give fewer --games or agents")
    return None


__all__ = ["DEFAULT_TABLES", "MAX_GAMES", "MAX_GAME_INDEX", "MAX_TABLES", "cap_workers", "eval_games_arg",
           "game_index_arg", "games_arg", "job_at", "play_agents", "tournament_games_problem", "usable_cpus"]
