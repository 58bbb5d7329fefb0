"""Game outcomes: who finished ahead of whom in a game record, and the pairwise results of many records, which
the tournament's matrix and Elo, the ladder's ratings and ``rate`` are all made of.

A game record (:func:`~five_towers_env.evaluation.playing.play_job`) holds each seat's score and, when a seat
forfeited, which one. Seat ``s`` finished ahead of seat ``t`` when its score is higher; a tie counts half each
way; a seat that forfeited finished behind every other, and the others tie with each other
(:func:`finish_ahead`). A record's cluster is its deal within its group (:func:`deal_cluster`): the comparisons
of one deal are correlated, and the intervals resample or weigh them together.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def deal_cluster(record: dict[str, Any], index: int) -> tuple:
    """The cluster of a game record for the intervals: its deal within its group (a record without
    a ``deal`` is its own cluster)."""
    if "deal" in record:
        return ("deal", record.get("group", 0), record["deal"])
    return ("game", record.get("group", 0), record.get("game", index))


def finish_ahead(record: dict[str, Any], s: int, t: int) -> float:
    """1 if seat ``s`` finished ahead of seat ``t`` in the game ``record``, 1/2 for a tie, 0 behind; a seat
    that forfeited the game finished behind every other, and the others tie with each other."""
    forfeit = record.get("forfeit")
    if forfeit is not None:
        return 0.0 if s == forfeit else 1.0 if t == forfeit else 0.5
    scores = record["scores"]
    return 1.0 if scores[s] > scores[t] else 0.5 if scores[s] == scores[t] else 0.0


def pairwise_outcomes(records: Sequence[dict[str, Any]]) -> dict[tuple[int, int], tuple[list[float], list[Any]]]:
    """For each ordered pair of agents ``(a, b)`` that met: the outcome of every comparison (1 when
    ``a`` finished ahead of ``b``, 1/2 for a tie, 0 behind) and its cluster (the game's deal,
    :func:`deal_cluster`), in record order."""
    out: dict[tuple[int, int], tuple[list[float], list[Any]]] = {}
    for i, r in enumerate(records):
        lineup = r["lineup"]
        cluster = deal_cluster(r, i)
        for s, t in itertools.permutations(range(len(lineup)), 2):
            a, b = lineup[s], lineup[t]
            if a == b:
                continue
            values, clusters = out.setdefault((a, b), ([], []))
            values.append(finish_ahead(r, s, t))
            clusters.append(cluster)
    return out


def pairwise_counts(num_agents: int, records: Sequence[dict[str, Any]]) -> tuple[list[list[float]], list[list[int]]]:
    """``wins[a][b]`` (row finished ahead of column, ties 1/2) and ``n[a][b]`` comparisons."""
    wins = [[0.0] * num_agents for _ in range(num_agents)]
    n = [[0] * num_agents for _ in range(num_agents)]
    for (a, b), (values, _) in pairwise_outcomes(records).items():
        wins[a][b], n[a][b] = math.fsum(values), len(values)
    return wins, n


def comparisons(records: Sequence[dict[str, Any]], num_agents: int) -> tuple[np.ndarray, list[Any]]:
    """Per cluster (a group's deal): ``wins[c, a, b]``, how often agent ``a`` finished ahead of ``b`` (ties
    1/2; see :func:`finish_ahead`); and each cluster's group."""
    index: dict[tuple[Any, Any], int] = {}
    groups: list[Any] = []
    rows: list[np.ndarray] = []
    for r in records:
        key = (r.get("group", 0), r.get("deal", r.get("game")))
        c = index.get(key)
        if c is None:
            c = index[key] = len(rows)
            rows.append(np.zeros((num_agents, num_agents)))
            groups.append(key[0])
        lineup = r["lineup"]
        for s in range(len(lineup)):
            for t in range(len(lineup)):
                if s != t and lineup[s] != lineup[t]:
                    rows[c][lineup[s], lineup[t]] += finish_ahead(r, s, t)
    wins = np.stack(rows) if rows else np.zeros((0, num_agents, num_agents))
    return wins, groups


__all__ = ["comparisons", "deal_cluster", "finish_ahead", "pairwise_counts", "pairwise_outcomes"]
