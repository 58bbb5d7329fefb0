"""Playing jobs: one job's game played, every agent under guard, into its record (:func:`play_job`), and a
chunk of jobs (:func:`play_chunk`), what each backend runs: this process, a worker of the process pool
(:mod:`~five_towers_env.evaluation.process_pool`) or a Ray task (:mod:`~five_towers_env.evaluation.distributed`).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from five_towers_env.core.agent import SetupWarning
from five_towers_env.core.game import GameSpec, register_game
from five_towers_env.core.state import shares_of
from five_towers_env.evaluation.guard import ON_ERROR, AgentError, GuardedAgent
from five_towers_env.evaluation.jobs import GameJob
from five_towers_env.evaluation.journal_check import MAX_TEXT
from five_towers_env.evaluation.specs import AgentSpec
from five_towers_env.play import play_game


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


def play_job(specs: Sequence[AgentSpec], variant: str, job: GameJob, game: str,
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


def play_chunk(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob],
               game: str | GameSpec, options: PlayOptions = PlayOptions()) -> list[dict[str, Any]]:
    """The records of ``jobs``, in order, played where this is called: a worker process or a Ray task (it is
    top level, so either can import it). ``game`` may be a spec, which a worker that does not know the game by
    name registers. The run has already said what a worker would repeat about an agent's setup."""
    warnings.simplefilter("ignore", SetupWarning)
    if isinstance(game, GameSpec):  # a game registered in the parent only (imported, not a plugin)
        game = register_game(game).name
    return [play_job(specs, variant, job, game, options) for job in jobs]


__all__ = ["PlayOptions", "play_chunk", "play_job"]
