"""The greedy and heuristic agents' decisions in C++ (``native/agents.cpp``, ``native/heuristic.cpp``), for
:class:`~.greedy.GreedyAgent` and :class:`~.heuristic.HeuristicAgent`.

Where the native core is active (``SPEC.backend() == "native"``) the two agents decide in C++, on the compiled
state of a native view or on the view converted (:func:`core_of`); the port makes the same moves and the same
random draws as the Python code for every seed and position (tests/games/five_towers/test_five_towers_native_agents.py).
The Python code stays the reference: it decides under ``FIVE_TOWERS_ENGINE=python``, for an agent whose
``native`` attribute is False, and wherever the native call cannot be made (each function here then answers
None). :func:`mcts_search` runs :class:`~.mcts.MCTSAgent`'s whole search in C++ (``native/search.cpp``: the
same candidates, determinisations, rollouts and rewards, so the same move, values and generator).
The compiled module also offers batched calls: ``greedy_actions(states, rng_words)`` and
``heuristic_actions(states, **params)`` (on copies of the states, the GIL released) for the player on move in
each native state; :func:`greedy_group`
and :func:`heuristic_group` play them for the agents' ``act_group`` (the Gymnasium vector environment's games,
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
from five_towers_env.games.five_towers import SPEC
from five_towers_env.games.five_towers.state import GameState

#: the generator words a converted view is given: neither agent draws from a view's generator
_VIEW_WORDS = tuple(words_of_generator(np.random.default_rng(0)))
#: the view's attributes the compiled state is built from (``native_state.python_fields`` without the copies)
_FIELDS = ("num_players", "variant", "deck", "discard", "display", "towers", "piles", "start_player", "deck_ran_out",
           "rounds_played", "phase", "current_player", "bids", "bid_turn", "high_bid", "builder", "target", "hand",
           "taken", "took_tree", "paid", "torn", "sand_end")
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
    if type(view) is not GameState:
        return None
    fields = {name: getattr(view, name) for name in _FIELDS}  # plain ints, lists and tuples: no copies
    fields["rng_words"] = _VIEW_WORDS
    try:
        return _native().from_fields(fields)
    except _REFUSED:
        return None


def greedy_action(view: Any, seat: int, legal: Sequence[int], rng: np.random.Generator) -> int | None:
    """:class:`~.greedy.GreedyAgent`'s choice among ``legal`` in C++, drawing a tie from ``rng`` as the Python
    code does (``rng`` is advanced the same way), or None where the Python code decides."""
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


def heuristic_action(view: Any, seat: int, legal: Sequence[int], params: dict[str, float]) -> int | None:
    """:class:`~.heuristic.HeuristicAgent`'s choice among ``legal`` in C++ with its ``params``, or None where
    the Python code decides."""
    core = core_of(view)
    if core is None:
        return None
    try:
        return int(_native().heuristic_action(core, seat, list(legal), **params))
    except _REFUSED:
        return None


def mcts_search(agent: Any, view: Any, probs: Sequence[float] | None) -> int | None:
    """:meth:`~.mcts.MCTSAgent.search` in C++ (the GIL released): the same move, ``last_simulations`` and
    ``last_values``, with ``agent.rng`` advanced as the Python search advances it; None where the Python code
    searches (see :func:`core_of`, or an agent whose generator is not numpy's default). This thread's decision
    deadline (:mod:`five_towers_env.core.deadline`) goes in as ``stop_after``, a hard stop in C++."""
    core = core_of(view)
    if core is None:
        return None
    guided = agent.policy is not None and probs is not None
    try:
        words = words_of_generator(agent.rng)
        race = agent.race
        action, sims, actions, values, after = _native().mcts_decide(
            core, words, simulations=agent.simulations, time_limit=agent.time_limit,
            min_simulations=agent.min_simulations, rollout_rounds=agent.rollout_rounds, beta=agent.beta,
            eval_weight=agent.scoring.eval_weight, temperature=agent.scoring.temperature,
            margin_weight=agent.scoring.margin_weight, race_z=race.z, min_samples=race.min_samples,
            probs=np.asarray(probs, dtype=np.float64) if guided else None,
            top_k=agent.policy.top_k if guided else 4, weight=agent.policy.weight if guided else 0.02,
            stop_after=seconds_left())
    except _REFUSED:
        return None
    set_generator_words(agent.rng, after)
    agent.last_simulations = int(sims)
    agent.last_values = {int(a): float(v) for a, v in zip(actions, values, strict=True)}
    return int(action)


def greedy_group(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray | None:
    """:class:`~.greedy.GreedyAgent`'s ``act_group``: ``agents[j]``'s choice in game ``rows[j]``, in one compiled
    call (``greedy_actions``) on the games' public views, each tie drawn from the agent's own generator, left as
    its ``act`` leaves it; rows sharing a generator (one agent in several games) go into successive calls, so
    that it draws for them in row order. None where ``act`` decides instead: the native core not active, an
    agent with ``native`` False, a generator not numpy's default, games without compiled states."""
    views = _views(agents, games, rows)
    return None if views is None else drawing_group(agents, views, _native().greedy_actions, _REFUSED)


def heuristic_group(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray | None:
    """:class:`~.heuristic.HeuristicAgent`'s ``act_group``: ``agents[j]``'s choice in game ``rows[j]``, one
    compiled call (``heuristic_actions``) per set of parameters on the games' public views (the agent draws
    nothing). None where ``act`` decides instead (see :func:`greedy_group`)."""
    views = _views(agents, games, rows)
    return None if views is None else weighted_group(agents, views, _weights, _native().heuristic_actions, _REFUSED)


def _weights(agent: Any) -> dict[str, Any]:
    """The heuristic's settings that its compiled call takes, by name."""
    return dict(agent.params)


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
    return importlib.import_module("five_towers_env.games.five_towers._native")


__all__ = ["core_of", "mcts_search", "greedy_action", "greedy_group", "heuristic_action", "heuristic_group"]
