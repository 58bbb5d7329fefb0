"""Campanile's search in C++ (native/mcts.cpp, search_hooks.cpp, core/native/flat_search.hpp) decides as the
Python code does.

Seeded games over every setup (2-5 players x ``pile``/``played`` x ``at_least``/``exact`` chips), random legal
moves; at positions with a choice the mover's public view is decided twice, by :class:`MCTSAgent` on the Python
path (``native = False``) and on the native path, from generators seeded alike. Both must choose the same
action, report the same ``last_values`` (every candidate's mean reward, compared as floats: the port keeps the
Python code's order of operations), leave the agent's generator in the same state and plan the same bet; after
a planned play both are asked the bet phase of that turn too. Settings vary: the defaults (a search only near
the end), a search from the start, every candidate with rollouts cut short (the heuristic's evaluation), a
prior and the lead rule, other evaluation weights. The ranking (``scored_turns``) and the default policy
(``rollout_action``) are compared on their own too.

``FIVE_TOWERS_SEARCH_GAMES`` sets the games per setup for a soak (default 6).
"""
from __future__ import annotations

import importlib
import json
import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.native import words_of_generator
from five_towers_env.games.campanile.agents import HeuristicAgent, native
from five_towers_env.games.campanile.agents.heuristic import scored_turns
from five_towers_env.games.campanile.agents.mcts import MCTSAgent
from five_towers_env.games.campanile.agents.search_hooks import rollout_action
from five_towers_env.games.campanile.position import save_position
from five_towers_env.games.campanile.state import CampanileState, Phase

_MODULE = "five_towers_env.games.campanile._native"
_BUILT, _WHY = native_built((_MODULE,))
pytestmark = pytest.mark.skipif(not _BUILT, reason=f"the Campanile native core is not built: {_WHY}")

SETUPS = [(n, v, b) for n in (2, 3, 4, 5) for v in ("pile", "played") for b in ("at_least", "exact")]
GAMES_PER_SETUP = int(os.environ.get("FIVE_TOWERS_SEARCH_GAMES", "6"))
#: the agent settings compared (a few decisions each per game: the Python search is slow)
SETTINGS = [
    {},
    {"simulations": 40},
    {"simulations": 40, "search_from": 99},
    {"simulations": 30, "search_from": 99, "candidates": 0, "rollout_turns": 6, "prior": 0.5, "lead_rate": 0.3},
    {"simulations": 24, "search_from": 99, "candidates": 4, "rollout_turns": 2, "bet_rate": 0.8, "temperature": 3.0,
     "margin_weight": 0.0, "spread": 0.7, "contest": 0.4, "chip_cost": 0.5, "lead_rate": 0.6},
]


@pytest.fixture(autouse=True)
def _native_backend(monkeypatch):
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")


def _core():
    return importlib.import_module(_MODULE)


def _positions(n: int, variant: str, bet_chip: str, seed: int, every: int):
    """Every ``every``-th position with a choice of one seeded game of random legal moves (the last few turns
    all: the search is sharpest, and the default policy's end rule busiest, there)."""
    rng = np.random.default_rng(seed)
    state = CampanileState.new_game(n, variant, np.random.default_rng(seed + 1), bet_chip=bet_chip)
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1 and (step % every == 0 or min(len(p) for p in state.piles) <= 2):
            yield state
        state.apply_action(legal[int(rng.integers(len(legal)))])
        step += 1


def _decided(agent: MCTSAgent, view: CampanileState, seat: int) -> tuple:
    legal = view.legal_actions()
    action = agent.act(None, {"view": view, "seat": seat, "legal_actions": list(legal)})
    return action, agent.last_values, words_of_generator(agent.rng), agent._plan


def _compare(state: CampanileState, seed: int, settings: dict) -> bool:
    """Both paths' decisions at ``state`` (and at the bet phase after a planned play); whether they searched."""
    seat = state.current_player
    agents = []
    for on in (False, True):
        agent = MCTSAgent(seed=seed, **settings)
        agent.native = on
        agents.append(agent)
    view = state.public_view(seat)
    python, compiled = (_decided(a, view, seat) for a in agents)
    where = f"settings {settings}, seed {seed}\nposition: {json.dumps(save_position(state))}"
    assert compiled == python, f"python {python}\nnative {compiled}\n{where}"
    searched = bool(python[1])
    if python[3] is not None:  # a planned bet: the bet phase of this turn, from the plan
        after = state.clone()
        after.apply_action(python[0])
        if not after.is_terminal() and len(after.legal_actions()) > 1:
            view = after.public_view(seat)
            python, compiled = (_decided(a, view, seat) for a in agents)
            assert compiled == python, f"bet phase: python {python}\nnative {compiled}\n{where}"
    return searched


@pytest.mark.parametrize("n,variant,bet_chip", SETUPS)
def test_native_search_matches_python(n, variant, bet_chip):
    compared = searched = 0
    for g in range(GAMES_PER_SETUP):
        for k, state in enumerate(_positions(n, variant, bet_chip, 100 * g + 10 * n + len(variant), every=9)):
            settings = SETTINGS[k % len(SETTINGS)]
            searched += _compare(state, seed=1000 * g + k, settings=settings)
            compared += 1
    assert searched >= 3 * GAMES_PER_SETUP, (compared, searched)


@pytest.mark.parametrize("n,variant,bet_chip", SETUPS)
def test_native_ranking_and_default_policy_match_python(n, variant, bet_chip):
    N = _core()
    weights = [{}, {"spread": 0.7, "contest": 0.4, "chip_cost": 0.5, "card_weight": 0.0, "end_weight": 5.0,
                    "danger": False}]
    u_rng = np.random.default_rng(n)
    for k, state in enumerate(_positions(n, variant, bet_chip, 31 + n, every=1)):
        core = native.core_of(state.public_view(state.current_player))
        where = json.dumps(save_position(state))
        if state.phase == Phase.PLAY:
            w = weights[k % 2]
            seat = state.current_player
            assert N.scored_turns(core, seat, **w) == scored_turns(state, seat, HeuristicAgent(**w)), where
        for u in [*u_rng.random(6).tolist(), 0.0, 0.999999]:
            bet_rate, lead_rate = (0.5, 0.0) if k % 2 else (0.8, 0.4)
            assert N.rollout_action(core, u, bet_rate, lead_rate) == rollout_action(state, u, bet_rate, lead_rate), \
                (u, where)


def test_native_search_refuses_bad_input():
    N = _core()
    state = CampanileState.new_game(2, "pile", np.random.default_rng(0))
    core = native.core_of(state.public_view(0))
    words = words_of_generator(np.random.default_rng(0))
    legal = state.legal_actions()
    with pytest.raises(ValueError, match="simulations"):
        N.mcts_decide(core, 0, legal, words, simulations=0)
    with pytest.raises(ValueError, match="player on move"):
        N.mcts_decide(core, 1, legal, words)
    with pytest.raises(ValueError, match="not legal"):
        N.mcts_decide(core, 0, [30], words)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        N.rollout_action(core, 1.0, 0.5)
    with pytest.raises(ValueError, match="play phase"):
        mid = state.clone()
        mid.apply_action(legal[0])
        N.scored_turns(native.core_of(mid.public_view(0)), 0)
