"""Evaluating agents: seeded, seat-rotated matches (:func:`evaluate`) and round-robin tournaments
(:func:`round_robin`) with Wilson intervals adjusted for the correlation of games sharing a deal
(:func:`cluster_rate`), Elo and (optionally) OpenSkill ratings.

The modules are layered, each importing only modules of its own layer or below (tests/test_import_graph.py):

1. jobs and seeds (:mod:`~five_towers_env.evaluation.jobs`), playing a job
   (:mod:`~five_towers_env.evaluation.playing`), and what they stand on: agent specs, the agent guard, the
   journal's schema, game outcomes, statistics, writing files;
2. the backends: the local process pool (:mod:`~five_towers_env.evaluation.process_pool`) and Ray
   (:mod:`~five_towers_env.evaluation.distributed`);
3. the runner and the journal (:mod:`~five_towers_env.evaluation.runner`,
   :mod:`~five_towers_env.evaluation.journal`), summaries and the ladder's ratings model;
4. the products: :mod:`~five_towers_env.evaluation.match`, :mod:`~five_towers_env.evaluation.tournament`,
   :mod:`~five_towers_env.evaluation.ladder`, :mod:`~five_towers_env.evaluation.rate`,
   :mod:`~five_towers_env.evaluation.zoo`.

Importing this package imports none of them: each name below is loaded from the module that defines it
on first use.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from five_towers_env.evaluation.jobs import seat_lineup
    from five_towers_env.evaluation.match import evaluate
    from five_towers_env.evaluation.specs import AgentSpec, parse_agent_spec, resolve_specs
    from five_towers_env.evaluation.stats import (
        ClusteredRate,
        bradley_terry,
        cluster_rate,
        cluster_wilson_interval,
        elo_ratings,
        wilson_interval,
    )
    from five_towers_env.evaluation.summary import EvaluationResult
    from five_towers_env.evaluation.tournament import TournamentResult, round_robin

#: each public name and the module (of this package) that defines it
_DEFINED_IN = {
    "AgentSpec": "specs", "parse_agent_spec": "specs", "resolve_specs": "specs",
    "EvaluationResult": "summary",
    "TournamentResult": "tournament", "round_robin": "tournament",
    "evaluate": "match",
    "seat_lineup": "jobs",
    "ClusteredRate": "stats", "bradley_terry": "stats", "cluster_rate": "stats", "cluster_wilson_interval": "stats",
    "elo_ratings": "stats", "wilson_interval": "stats",
}

__all__ = ["AgentSpec", "EvaluationResult", "TournamentResult", "evaluate", "round_robin", "parse_agent_spec",
           "resolve_specs", "seat_lineup", "wilson_interval", "cluster_rate", "cluster_wilson_interval",
           "ClusteredRate", "bradley_terry", "elo_ratings"]

#: the package's modules, reachable as attributes (``five_towers_env.evaluation.match``) once first used
_MODULES = ("distributed", "guard", "jobs", "journal", "journal_check", "ladder", "match", "outcomes", "playing",
            "process_pool", "rate", "ratings", "report", "runner", "specs", "stats", "summary", "tournament", "zoo")


def __getattr__(name: str) -> Any:
    module = _DEFINED_IN.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value  # looked up once
        return value
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | set(_MODULES))
