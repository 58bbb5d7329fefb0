"""The greedy, heuristic and mcts agents' decisions in C++ (``native/agents.cpp``, ``native/mcts.cpp``), for
:class:`GreedyAgent`, :class:`HeuristicAgent` and :class:`~.mcts.MCTSAgent`.

Where the native core is active (``SPEC.backend() == "native"``) the two agents decide in C++, on the compiled
state of a native view or on the view converted (:func:`core_of`); the port makes the same moves and the same
random draws as the Python code for every seed and position (tests/games/campanile/test_native_agents.py).
The Python code stays the reference: it decides under ``FIVE_TOWERS_ENGINE=python``, for an agent whose
``native`` attribute is False, and wherever the native call cannot be made (each function here then answers
None). :func:`mcts_search` makes :class:`~.mcts.MCTSAgent`'s whole decision in C++ (``native/mcts.cpp``,
``native/search_hooks.cpp``: the same candidates, determinisations, rollouts and rewards, so the same move,
values and generator; tests/games/campanile/test_campanile_native_search.py). The compiled module also
offers batched calls: ``greedy_actions(states, rng_words)`` and ``heuristic_actions(states, **weights)`` (on
copies of the states, the GIL released) for the player on move in each native state; :func:`greedy_group` and
:func:`heuristic_group` play them for the agents' ``act_group`` (the Gymnasium vector environment's games,
every decision of a round in one call, on the games' compiled public views).
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from five_towers_env.core.agent import WaitingGames
from five_towers_env.core.backend import ENV_VAR
from five_towers_env.core.deadline import seconds_left
from five_towers_env.core.native import set_generator_words, words_of_generator
from five_towers_env.core.native.groups import drawing_group, native_views, weighted_group
from five_towers_env.games.campanile import SPEC
from five_towers_env.games.campanile.state import CampanileState

#: the generator words a converted view is given: neither agent draws from a view's generator
_VIEW_WORDS = tuple(words_of_generator(np.random.default_rng(0)))
#: the view's attributes the compiled state is built from (``native_state.fields_of`` without the copies)
_FIELDS = ("num_players", "variant", "bet_chip", "heights", "bets", "chips", "hands", "revealed", "piles", "leftover",
           "cards_played", "current_player", "phase", "played_tower", "played_storeys", "done", "turns")
#: what a native call may raise for a view or ids it cannot take (the Python path then decides, and raises
#: its own error where there is one)
_REFUSED = (ValueError, TypeError, IndexError)


def core_of(view: Any) -> Any | None:
    """The compiled state to decide on for ``view`` (a native state's own, else the Python view converted),
    or None where the Python code decides: the native core is not active, or ``view`` cannot be converted."""
    if _backend(os.environ.get(ENV_VAR)) != "native":
        return None
    core = getattr(view, "core", None)  # a native state
    if core is not None:
        return core
    if type(view) is not CampanileState:
        return None
    fields = {name: getattr(view, name) for name in _FIELDS}  # already plain ints and tuples: no copies
    fields["rng_words"] = _VIEW_WORDS
    try:
        return _native().from_fields(fields)
    except _REFUSED:
        return None


def greedy_action(view: Any, seat: int, legal: Sequence[int], rng: np.random.Generator) -> int | None:
    """:class:`GreedyAgent`'s choice among ``legal`` in C++, drawing a tie from ``rng`` as the Python code
    does (``rng`` is advanced the same way), or None where the Python code decides."""
    core = core_of(view)
    if core is None:
        return None
    try:
        words = words_of_generator(rng)  # ValueError for a generator that is not numpy's default (PCG64)
        action, after = _native().greedy_action(core, seat, list(legal), words)
    except _REFUSED:
        return None
    if after is not None:  # a tie was drawn
        set_generator_words(rng, after)
    return int(action)


def heuristic_action(view: Any, seat: int, legal: Sequence[int], agent: Any) -> int | None:
    """:class:`HeuristicAgent`'s choice among ``legal`` in C++ with ``agent``'s weights, or None where the
    Python code decides."""
    core = core_of(view)
    if core is None:
        return None
    try:
        return int(_native().heuristic_action(
            core, seat, list(legal), spread=agent.spread, contest=agent.contest, chip_cost=agent.chip_cost,
            card_weight=agent.card_weight, end_weight=agent.end_weight, danger=bool(agent.danger)))
    except _REFUSED:
        return None


def mcts_search(agent: Any, view: Any, seat: int, legal: Sequence[int]) -> tuple[int, ...] | None:
    """:class:`~.mcts.MCTSAgent`'s move after its planned bet, in C++ (the GIL released): the move it searches
    out (a play and its bet, or a bet) with ``agent.last_values`` set and ``agent.rng`` advanced as the Python
    code sets and advances them; None where the Python code decides (see :func:`core_of`, or an agent whose
    generator is not numpy's default). This thread's decision deadline (:mod:`five_towers_env.core.deadline`)
    goes in as ``stop_after``, a hard stop in C++."""
    core = core_of(view)
    if core is None:
        return None
    h = agent.heuristic
    spread, contest, chip_cost = agent.evaluator_weights
    try:
        words = words_of_generator(agent.rng)
        best, moves, means, after = _native().mcts_decide(
            core, seat, list(legal), words, simulations=agent.simulations, candidates=agent.candidates,
            rollout_turns=agent.rollout_turns, bet_rate=agent.bet_rate, lead_rate=agent.lead_rate,
            temperature=agent.temperature, margin_weight=agent.margin_weight, prior=agent.prior,
            search_from=agent.search_from, eval_spread=spread, eval_contest=contest, eval_chip_cost=chip_cost,
            spread=h.spread, contest=h.contest, chip_cost=h.chip_cost, card_weight=h.card_weight,
            end_weight=h.end_weight, danger=bool(h.danger), stop_after=seconds_left())
    except _REFUSED:
        return None
    set_generator_words(agent.rng, after)
    agent.last_values = {tuple(m): float(v) for m, v in zip(moves, means, strict=True) if v is not None}
    return tuple(best)


def greedy_group(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray | None:
    """:class:`GreedyAgent`'s ``act_group``: ``agents[j]``'s choice in game ``rows[j]``, all in one compiled call
    (``greedy_actions``) on the games' public views, each tie drawn from the agent's own generator, which is
    left as its ``act`` leaves it. Rows sharing a generator (one agent seated in several games) go into
    successive calls, so that it draws for them in row order. None where ``act`` decides instead: the native
    core not active, an agent with ``native`` False, a generator not numpy's default, games without compiled
    states."""
    views = _views(agents, games, rows)
    return None if views is None else drawing_group(agents, views, _native().greedy_actions, _REFUSED)


def heuristic_group(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray | None:
    """:class:`HeuristicAgent`'s ``act_group``: ``agents[j]``'s choice in game ``rows[j]``, one compiled call
    (``heuristic_actions``) per set of weights on the games' public views (the agent draws nothing). None where
    ``act`` decides instead (see :func:`greedy_group`)."""
    views = _views(agents, games, rows)
    return None if views is None else weighted_group(agents, views, _weights, _native().heuristic_actions, _REFUSED)


def _weights(agent: Any) -> dict[str, Any]:
    """The heuristic's settings that its compiled call takes, by name."""
    return {"spread": agent.spread, "contest": agent.contest, "chip_cost": agent.chip_cost,
            "card_weight": agent.card_weight, "end_weight": agent.end_weight, "danger": bool(agent.danger)}


def _views(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> list[Any] | None:
    """The games' compiled public views, or None where the agents' ``act`` decides (:func:`native_views`)."""
    if _backend(os.environ.get(ENV_VAR)) != "native":
        return None
    return native_views(agents, games, rows, _native().State, active=True)


@cache
def _backend(switch: str | None) -> str:
    """``SPEC.backend()`` while ``FIVE_TOWERS_ENGINE`` is ``switch`` (it answers the same as long as the switch
    stays: whether the core was built does not change in a process)."""
    return SPEC.backend()


@cache
def _native() -> Any:
    """The compiled module (imported only once the native core is known to be active)."""
    return importlib.import_module("five_towers_env.games.campanile._native")


__all__ = ["core_of", "mcts_search", "greedy_action", "greedy_group", "heuristic_action", "heuristic_group"]
