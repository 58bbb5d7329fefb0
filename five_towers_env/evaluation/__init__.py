"""Evaluating agents: seeded, seat-rotated matches (:func:`evaluate`) and round-robin tournaments
(:func:`round_robin`) with Wilson intervals adjusted for the correlation of games sharing a deal
(:func:`cluster_rate`), Elo and (optionally) OpenSkill ratings."""
from five_towers_env.evaluation.match import (
    AgentSpec,
    EvaluationResult,
    evaluate,
    parse_agent_spec,
    resolve_specs,
    seat_lineup,
)
from five_towers_env.evaluation.stats import (
    ClusteredRate,
    bradley_terry,
    cluster_rate,
    cluster_wilson_interval,
    elo_ratings,
    wilson_interval,
)
from five_towers_env.evaluation.tournament import TournamentResult, round_robin

__all__ = ["AgentSpec", "EvaluationResult", "TournamentResult", "evaluate", "round_robin", "parse_agent_spec",
           "resolve_specs", "seat_lineup", "wilson_interval", "cluster_rate", "cluster_wilson_interval",
           "ClusteredRate", "bradley_terry", "elo_ratings"]
