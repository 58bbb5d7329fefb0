"""5 Towers' search in C++ (native/plans.cpp, rollout.cpp, search.cpp, core/native/flat_search.hpp) searches
as the Python code does.

Seeded games over every setup (2-5 players x ``base``/``great_powers``), random legal moves; at positions with
a choice the seat's public view is searched twice, by :class:`MCTSAgent` on the Python path (``native = False``)
and on the native path, from generators seeded alike. Both must choose the same move, report the same
``last_simulations`` and ``last_values`` (every candidate action's mean reward, compared as floats: the port
keeps the Python code's order of operations) and leave the agent's generator in the same state. Settings vary:
the default rollout horizon and to the end of the game, no race, no margin term, and the ``guided`` agent's
rollout search (a policy's prior over its ``top_k`` likeliest candidates). The default policy and the
round-level rollout are compared on their own too, the native state against the Python one field by field.

``FIVE_TOWERS_SEARCH_GAMES`` sets the games per setup for a soak (default 2).
"""
from __future__ import annotations

import importlib
import json
import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.native import words_of_generator
from five_towers_env.core.search import ActionPrior
from five_towers_env.games.five_towers.agents import native
from five_towers_env.games.five_towers.agents.mcts import MCTSAgent
from five_towers_env.games.five_towers.agents.rollout import play_rounds, rollout_action
from five_towers_env.games.five_towers.position import save_position
from five_towers_env.games.five_towers.state import GameState, Phase

_MODULE = "five_towers_env.games.five_towers._native"
_BUILT, _WHY = native_built((_MODULE,))
pytestmark = pytest.mark.skipif(not _BUILT, reason=f"the 5 Towers native core is not built: {_WHY}")

SETUPS = [(n, v) for n in (2, 3, 4, 5) for v in ("base", "great_powers")]
GAMES_PER_SETUP = int(os.environ.get("FIVE_TOWERS_SEARCH_GAMES", "2"))
#: the agent settings compared (a few decisions each per game: the Python search is slow)
SETTINGS = [
    {"simulations": 48},
    {"simulations": 40, "rollout_rounds": None},
    {"simulations": 40, "race_z": None, "margin_weight": 0.0, "beta": 0.3, "eval_weight": 0.7},
]


@pytest.fixture(autouse=True)
def _native_backend(monkeypatch):
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")


def _core():
    return importlib.import_module(_MODULE)


def _positions(n: int, variant: str, seed: int, every: int):
    """Every ``every``-th position with a choice of one seeded game of random legal moves."""
    rng = np.random.default_rng(seed)
    state = GameState.new_game(n, variant, np.random.default_rng(seed + 1))
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) > 1 and step % every == 0:
            yield state
        state.apply_action(legal[int(rng.integers(len(legal)))])
        step += 1


class _RandomPolicy:
    """A policy's probabilities, drawn per observation: any prior will do for comparing the two searches."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation) -> np.ndarray:
        p = self.rng.random(307).astype(np.float32)
        p[self.rng.random(307) < 0.3] = 0.0  # ties at zero, as a masked network gives
        return p


def _searched(agent: MCTSAgent, view: GameState, probs) -> tuple:
    action = agent.search(view, probs)
    return action, agent.last_simulations, agent.last_values, words_of_generator(agent.rng)


def _compare(view: GameState, seed: int, settings: dict, probs=None, top_k: int = 4) -> None:
    agents = []
    for on in (False, True):
        policy = ActionPrior(lambda obs: probs, top_k=top_k) if probs is not None else None
        agent = MCTSAgent(seed=seed, policy=policy, **settings)
        agent.native = on
        agents.append(agent)
    python = _searched(agents[0], view, probs)
    compiled = _searched(agents[1], view, probs)
    assert compiled == python, (f"settings {settings}, top_k {top_k}: python {python[:2]} native {compiled[:2]}\n"
                                f"position: {json.dumps(save_position(view))}")


@pytest.mark.parametrize("n,variant", SETUPS)
def test_native_search_matches_python(n, variant):
    compared = 0
    for g in range(GAMES_PER_SETUP):
        for k, state in enumerate(_positions(n, variant, 100 * g + n, every=5)):
            view = state.public_view(state.current_player)
            _compare(view, seed=1000 * g + k, settings=SETTINGS[k % len(SETTINGS)])
            compared += 1
    assert compared >= GAMES_PER_SETUP * 3


@pytest.mark.parametrize("n,variant", [(2, "base"), (3, "great_powers"), (5, "great_powers")])
def test_native_guided_rollout_search_matches_python(n, variant):
    policy = _RandomPolicy(n)
    for k, state in enumerate(_positions(n, variant, 7 + n, every=7)):
        view = state.public_view(state.current_player)
        _compare(view, seed=k, settings={"simulations": 40}, probs=policy(None), top_k=1 + k % 4)


@pytest.mark.parametrize("n,variant", SETUPS)
def test_native_default_policy_and_rollout_match_python(n, variant):
    N = _core()
    for k, state in enumerate(_positions(n, variant, 31 + n, every=2)):
        beta = 0.2 + 0.1 * (k % 5)
        core = native.core_of(state.public_view(state.current_player))
        assert N.rollout_action(core, beta) == rollout_action(state, beta), json.dumps(save_position(state))
        if state.phase == Phase.BID and state.bid_turn == 0:  # a round start: the rollout from it
            words = words_of_generator(np.random.default_rng(k))
            py = state.clone(rng=np.random.default_rng(k))
            compiled = N.from_fields({**{f: getattr(py, f) for f in native._FIELDS}, "rng_words": words})
            rounds = None if k % 3 == 0 else 1 + k % 4
            assert N.play_rounds(compiled, beta, rounds) == play_rounds(py, beta, rounds)
            fields = compiled.fields()
            for name in native._FIELDS:
                assert fields[name] == getattr(py, name), name
            assert tuple(fields["rng_words"]) == tuple(words_of_generator(py.rng))


def test_native_search_refuses_bad_input():
    N = _core()
    state = GameState.new_game(2, "base", np.random.default_rng(0))
    core = native.core_of(state.public_view(0))
    words = words_of_generator(np.random.default_rng(0))
    with pytest.raises(ValueError, match="simulations"):
        N.mcts_decide(core, words, simulations=0)
    with pytest.raises(ValueError, match="probs"):
        N.mcts_decide(core, words, probs=[0.5] * 3)
    with pytest.raises(ValueError, match="probs"):
        N.mcts_decide(core, words, probs=[0.5] * 307, top_k=0)
    with pytest.raises(ValueError, match="round start"):
        mid = state.clone()
        mid.apply_action(mid.legal_actions()[0])
        N.play_rounds(native.core_of(mid.public_view(0)), 0.45, 1)
