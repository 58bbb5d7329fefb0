"""Seeded, seat-rotated matches between agents, run in parallel, summarised with confidence intervals.

``evaluate(["heuristic", "random"], num_games=1000, num_players=2, seed=0, workers=4)`` plays 1000
games and reports, for each agent, its games, wins, win rate and strict (sole-win) rate with 95%
intervals that account for the correlation of games sharing a deal, mean score, mean score margin
and mean thinking time per move.

The parts live in :mod:`~five_towers_env.evaluation.specs` (agent specs),
:mod:`~five_towers_env.evaluation.jobs` (seeds, seat rotation), :mod:`~five_towers_env.evaluation.runner`
(playing the jobs: in this process, a process pool or Ray) and :mod:`~five_towers_env.evaluation.summary`
(summaries, tables, :class:`~five_towers_env.evaluation.summary.EvaluationResult`); this module puts them
together in :func:`evaluate`, and each name is imported from the module that defines it.

Conventions (shared with :mod:`five_towers_env.evaluation.tournament`):

* **Games.** ``game="campanile"`` plays Campanile (default ``"five_towers"``): agent names are
  looked up among that game's agents (:func:`five_towers_env.agents.registry.agents_of`), the setup is
  checked by its rules, ``variant=None`` is its default variant, and the result's ``config``
  names the game.
* **Agent specs.** A registry name (``"random"``), a name with keyword settings
  (``"mcts:simulations=100,race_z=1.5"``; values are Python literals, else strings), a
  ``(name, kwargs)`` pair, an :class:`~five_towers_env.evaluation.specs.AgentSpec`, or a *factory*:
  any callable returning an :class:`~five_towers_env.core.agent.Agent`, called as
  ``factory(seed=...)`` (or ``factory()`` if it takes no ``seed``). Agents are rebuilt for every
  game with a seed derived from the run seed, so a factory must be a top-level (picklable) function
  or class to be used with ``workers > 1``.
* **Seat rotation.** With ``k`` agents and ``p`` seats, game ``i`` puts agent ``(s + i) mod k`` in
  seat ``s``. Over every ``k`` consecutive games each agent sits in each seat exactly once, so seats
  are balanced when ``num_games`` is a multiple of ``k`` (a warning says otherwise). With fewer
  agents than seats the agents are repeated (2 agents, 4 seats: A B A B / B A B A; one agent plays
  itself in every seat), and rates and means are per *seat-game* (an agent sitting twice in a game
  counts twice): a summary row's ``games`` is the number of games the agent played and
  ``n_seat_games`` the number of seats it took over them, the ``n`` of its rates. With more agents
  than seats each game seats ``p`` of them (A B / B C / C A).
* **Seeds and deals.** Game ``i`` plays deal ``i // k`` when ``paired=True`` (the default: the ``k``
  rotations of a cycle replay the same shuffle with the seats swapped, duplicate-bridge style) or
  deal ``i`` when ``paired=False``; the deal seed is derived from ``(seed, deal)`` and the agents'
  seeds from ``(seed, i, seat)``. Every game record carries its ``deal``. Results (everything
  except timings) are therefore identical for any ``workers``. Pairing balances the seats within
  each deal, so every agent meets the same cards from every seat and a reader compares like with
  like; it does not make the games independent: the games of one deal are strongly correlated (in
  2-player games the same agent often wins both seatings), and the intervals account for that.
* **Wins.** The winners are the seats sharing the top score; a ``j``-way shared win counts as
  ``1/j`` of a win for each (``win_rate``), so the wins of a game add up to 1 and a field of equal
  agents has an expected win rate of ``1 / players``. ``strict_win_rate`` counts sole wins only.
* **Intervals.** 95% Wilson intervals at the cluster-adjusted effective sample size, the clusters
  being the deals (each game its own cluster when ``paired=False``): see
  :func:`~five_towers_env.evaluation.stats.cluster_rate` for the exact method.
* **Margin** is own score minus the best score among the other seats (the environment's
  ``reward="margin"``).
* **Seconds per move** is agent thinking time over the decisions it was asked (forced single-choice
  decisions are applied by the environment and not counted).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.evaluation.jobs import make_jobs
from five_towers_env.evaluation.journal import Journal
from five_towers_env.evaluation.playing import PlayOptions
from five_towers_env.evaluation.runner import resolve_workers, run_jobs
from five_towers_env.evaluation.specs import resolve_specs
from five_towers_env.evaluation.summary import WIN_CONVENTION, EvaluationResult, seat_summary, summarize


def evaluate(agent_specs: Sequence[Any], num_games: int = 100, num_players: int | None = None,
             variant: str | None = None, seed: int = 0, workers: int | None = 1, progress: bool = True,
             paired: bool = True, game: str = DEFAULT_GAME, field: Any = None, on_agent_error: str = "stop",
             move_timeout: float | None = None, journal: str | Path | None = None,
             ray: str | None = None, discard_bad_journal_lines: bool = False) -> EvaluationResult:
    """Play ``num_games`` seat-rotated, seeded games between ``agent_specs`` and summarise them.

    Args:
        agent_specs: registry names (``"mcts:simulations=100"``), ``(name, kwargs)`` pairs,
            :class:`~five_towers_env.evaluation.specs.AgentSpec` objects or agent factories (see the module
            docstring).
        num_games: games to play (a multiple of the number of agents keeps the seats balanced).
        num_players: seats per game, 2..5 (default: the number of agents, at least 2).
        variant: one of the game's variants (5 Towers ``"base"`` / ``"great_powers"``, Campanile
            ``"pile"`` / ``"played"``); None: the game's default (the first of those).
        seed: non-negative run seed; every game's deal and agent seeds derive from it.
        workers: processes (1: in this process; ``None`` / 0: every CPU). Results do not depend on it.
        progress: show a progress bar (tqdm if installed, else a counter on stderr).
        paired: replay the same deal for the rotations of each cycle (see the module docstring).
        game: the game to play, a :mod:`five_towers_env.core.game` name.
        field: an agent spec filling every seat the agents leave (``num_players`` minus their number):
            ``evaluate(["ppo"], num_players=4, field="heuristic")`` is one ``ppo`` against three
            heuristics, the ``ppo`` seat rotated over the four seats of each deal; the field is reported
            as one agent, per seat-game.
        on_agent_error: ``"stop"``: an agent's failed decision (it raised, returned an illegal or malformed
            action, or ran past ``move_timeout``) raises
            :class:`~five_towers_env.evaluation.guard.AgentError`, one line saying what happened;
            ``"forfeit"``: that seat loses the game, the others share the win, and the game is counted in the
            agent's ``forfeits`` (:mod:`~five_towers_env.evaluation.guard`).
        move_timeout: seconds an agent may take per decision (None: no limit).
        journal: a file to append each game to as it finishes (:mod:`~five_towers_env.evaluation.journal`):
            a run stopped midway and started again with the same arguments plays only the games it lacks.
            A journal of another run, or one with a line that fails its checks, raises
            :class:`~five_towers_env.evaluation.journal_check.JournalError` (naming the line).
        discard_bad_journal_lines: drop a journal's bad lines instead, with a warning, and play their games
            again.
        ray: play on a Ray cluster: ``"auto"``, an address, or ``"local"`` (a local instance with
            ``workers`` CPUs); results are the same as in one process
            (:mod:`~five_towers_env.evaluation.distributed`).
    """
    g = get_game(game)
    specs = resolve_specs(agent_specs, g.name)
    ids = list(range(len(specs)))
    if field is not None:
        if num_players is None or num_players <= len(specs):
            raise ValueError(f"field: the agents leave no seat to fill ({len(specs)} agents, "
                             f"num_players={num_players}); give num_players above the number of agents")
        specs += resolve_specs([field], g.name)
        ids += [len(specs) - 1] * (num_players - len(ids))
    if num_players is None:
        num_players = max(2, len(specs))
    if variant is None:
        variant = g.default_variant
    g.check(num_players, variant)
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    balanced = num_games % len(ids) == 0
    if not balanced:
        warnings.warn(f"{num_games} games is not a multiple of the {len(ids)}-game seat rotation; "
                      "seats are not exactly balanced", stacklevel=2)
    jobs = make_jobs(ids, num_games, num_players, seed, paired=paired)
    t0 = time.perf_counter()
    labels = [s.label for s in specs]
    run_journal = None if journal is None else Journal(journal, {"run": "evaluate", "game": g.name,
                                                                 "variant": variant, "num_players": num_players,
                                                                 "seed": seed, "paired": paired},
                                                         discard_bad_lines=discard_bad_journal_lines)
    records = run_jobs(specs, variant, jobs, workers=workers, progress=progress, desc="evaluate", game=g.name,
                       options=PlayOptions(on_agent_error, move_timeout), journal=run_journal,
                       ray=ray)
    config = {"game": g.name, "agents": labels, "num_games": num_games, "num_players": num_players, "variant": variant,
              "seed": seed, "workers": resolve_workers(workers), "paired": paired, "balanced": balanced,
              "rotation": len(ids), "field": labels[-1] if field is not None else None,
              "equal_share": 1.0 / num_players, "wall_seconds": time.perf_counter() - t0,
              "ray": ray, "on_agent_error": on_agent_error, "move_timeout": move_timeout,
              "forfeits": sum("forfeit" in r for r in records), "win_convention": WIN_CONVENTION}
    return EvaluationResult(config, labels, summarize(labels, records), seat_summary(records), records)


__all__ = ["evaluate"]
