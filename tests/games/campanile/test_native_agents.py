"""Campanile's greedy and heuristic agents in C++ (native/agents.cpp) make the Python agents' moves.

Seeded games over every setup (2-5 players x ``pile``/``played`` x ``at_least``/``exact`` chips), every seat
played by the agent under test: at every position with a choice, three deciders must agree on the action,
and for ``greedy`` (which draws its ties) on the generator's state after it:

* the Python reference (the agent class with ``native = False``) on the seat's public view;
* the agent class on the native path (``FIVE_TOWERS_ENGINE=native``), which converts that view;
* the compiled call (``_native.greedy_action`` / ``heuristic_action``) on the real native game, hidden
  cards and all, kept in lockstep with the Python game (so the agents read nothing hidden, and the batched
  calls on native games decide as the Python agents do).

The first position where they differ fails the test, printed as a position (``save_position``). One move in
five is a random legal one, so the games reach positions the agents would not steer into. 125 games per
setup, 2,000 per agent; ``FIVE_TOWERS_AGENT_GAMES`` sets the games per setup for a soak.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.native import words_of_generator
from five_towers_env.games.campanile.agents import GreedyAgent, HeuristicAgent, heuristic, native
from five_towers_env.games.campanile.position import save_position
from five_towers_env.games.campanile.state import CampanileState

_MODULE = "five_towers_env.games.campanile._native"
_BUILT, _WHY = native_built((_MODULE,))
pytestmark = pytest.mark.skipif(not _BUILT, reason=f"the Campanile native core is not built: {_WHY}")

SETUPS = [(n, v, b) for n in (2, 3, 4, 5) for v in ("pile", "played") for b in ("at_least", "exact")]
GAMES_PER_SETUP = int(os.environ.get("FIVE_TOWERS_AGENT_GAMES", "125"))
RANDOM_MOVES = 0.2  # the share of moves played at random instead of the agents' agreed move


@pytest.fixture(autouse=True)
def _native_backend(monkeypatch):
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")


def _core_module():
    import importlib

    return importlib.import_module(_MODULE)


def _position(state: CampanileState, seat: int, legal: list[int], answers: dict) -> str:
    return (f"seat {seat}, legal {legal}, answers {answers}\n"
            f"position: {json.dumps(save_position(state))}")


def _python(agent):
    agent.native = False
    return agent


def _play(agent_name: str, n: int, variant: str, bet_chip: str, games: int, seed0: int = 0,
          weights: dict | None = None) -> int:
    """Play ``games`` games in lockstep (see the module docstring); the positions compared."""
    N = _core_module()
    weights = weights or {}
    compared = 0
    for g in range(seed0, seed0 + games):
        state = CampanileState.new_game(n, variant, np.random.default_rng(g), bet_chip=bet_chip)
        core = N.new_game(n, variant, bet_chip, words_of_generator(np.random.default_rng(g)))
        mover = np.random.default_rng(10_000 + g)
        if agent_name == "greedy":
            reference = [_python(GreedyAgent(seed=100 * g + p)) for p in range(n)]
            on_view = [GreedyAgent(seed=100 * g + p) for p in range(n)]
            words = [words_of_generator(np.random.default_rng(100 * g + p)) for p in range(n)]
        else:
            reference = [_python(HeuristicAgent(**weights)) for _ in range(n)]
            on_view = [HeuristicAgent(**weights) for _ in range(n)]
        while not state.is_terminal():
            seat = state.current_player
            legal = state.legal_actions()
            assert core.legal_actions() == legal
            if len(legal) > 1:
                info = {"game": "campanile", "seat": seat, "legal_actions": list(legal),
                        "view": state.public_view(seat)}
                answers = {"python": reference[seat].act(None, dict(info)),
                           "class on view": on_view[seat].act(None, dict(info))}
                if agent_name == "greedy":
                    answers["compiled on game"], after = N.greedy_action(core, seat, legal, words[seat])
                    words[seat] = after if after is not None else words[seat]
                    rngs = {"python": tuple(words_of_generator(reference[seat].rng)),
                            "class on view": tuple(words_of_generator(on_view[seat].rng)),
                            "compiled on game": tuple(words[seat])}
                    if len(set(rngs.values())) != 1:
                        pytest.fail("the generators differ after the decision at\n"
                                    + _position(state, seat, legal, answers) + f"\n{rngs}")
                else:
                    answers["compiled on game"] = N.heuristic_action(core, seat, legal, **weights)
                if len(set(answers.values())) != 1:
                    detail = ""
                    if agent_name == "heuristic":
                        view = info["view"]
                        detail = (f"\npython values: {heuristic.scored_actions(view, seat, legal, reference[seat])}"
                                  f"\nnative values: {N.heuristic_values(core, seat, legal, **weights)}")
                    pytest.fail(f"{agent_name} ({n}p {variant} {bet_chip}, game {g}) differs at\n"
                                + _position(state, seat, legal, answers) + detail)
                compared += 1
                action = answers["python"]
                if mover.random() < RANDOM_MOVES:
                    action = legal[int(mover.integers(len(legal)))]
            else:
                action = legal[0]
            state.apply_action(action)
            assert core.apply_action(action)
    return compared


@pytest.mark.parametrize("agent_name", ["greedy", "heuristic"])
@pytest.mark.parametrize(("n", "variant", "bet_chip"), SETUPS, ids=[f"{n}p-{v}-{b}" for n, v, b in SETUPS])
def test_native_agent_makes_the_python_moves(agent_name, n, variant, bet_chip):
    assert _play(agent_name, n, variant, bet_chip, GAMES_PER_SETUP) > 0


WEIGHTS = [{"danger": False}, {"card_weight": 0.0}, {"contest": 0.0, "end_weight": 5.0}, {"spread": 0.0},
           {"spread": 2.5, "contest": 1.3, "chip_cost": 0.0, "card_weight": 0.7}]


@pytest.mark.parametrize("weights", WEIGHTS, ids=[",".join(w) for w in WEIGHTS])
def test_heuristic_weights_and_values(weights):
    """Other weights give the same moves, and every action's value is the Python value bit for bit."""
    N = _core_module()
    for i, (n, variant, bet_chip) in enumerate(SETUPS[::3]):
        assert _play("heuristic", n, variant, bet_chip, 3, seed0=500 + 10 * i, weights=weights) > 0
        state = CampanileState.new_game(n, variant, np.random.default_rng(i), bet_chip=bet_chip)
        mover = np.random.default_rng(i)
        agent = HeuristicAgent(**weights)
        while not state.is_terminal():
            seat, legal = state.current_player, state.legal_actions()
            view = state.public_view(seat)
            python = [v for v, _ in heuristic.scored_actions(view, seat, legal, agent)]
            assert N.heuristic_values(native.core_of(view), seat, legal, **weights) == python
            state.apply_action(legal[int(mover.integers(len(legal)))])


def test_batched_calls_match_single_calls():
    N = _core_module()
    cores, states = [], []
    for g, (n, variant, bet_chip) in enumerate(SETUPS * 4):
        state = CampanileState.new_game(n, variant, np.random.default_rng(g), bet_chip=bet_chip)
        mover = np.random.default_rng(g)
        for _ in range(int(mover.integers(1, 60))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[int(mover.integers(len(legal)))])
        if not state.is_terminal():
            states.append(state)
            cores.append(_from_python(state))
    words = [words_of_generator(np.random.default_rng(i)) for i in range(len(cores))]
    actions, after = N.greedy_actions(cores, words)
    for core, state, w, a, w2 in zip(cores, states, words, actions, after):
        single, drawn = N.greedy_action(core, state.current_player, state.legal_actions(), w)
        assert (single, tuple(drawn if drawn is not None else w)) == (a, tuple(w2))
    assert N.heuristic_actions(cores) == [N.heuristic_action(c, s.current_player, s.legal_actions())
                                          for c, s in zip(cores, states)]
    with pytest.raises(ValueError):
        N.greedy_actions(cores, words[:-1])


def _from_python(state: CampanileState):
    from five_towers_env.games.campanile.native_state import from_python

    return from_python(state)


def test_bad_inputs_raise_and_the_agent_falls_back():
    N = _core_module()
    state = CampanileState.new_game(2, "pile", np.random.default_rng(3))
    core = _from_python(state)
    words = words_of_generator(np.random.default_rng(0))
    for legal in ([], [15], [99], list(range(70))):
        with pytest.raises(ValueError):
            N.greedy_action(core, 0, legal, words)
        with pytest.raises(ValueError):
            N.heuristic_action(core, 0, legal)
    with pytest.raises(IndexError):
        N.heuristic_action(core, 7, state.legal_actions())
    # ids the native call refuses: the Python path decides (and raises the engine's error)
    info = {"seat": 0, "legal_actions": [15, 16], "view": state.public_view(0)}
    with pytest.raises(Exception) as native_error:
        GreedyAgent(seed=1).act(None, dict(info))
    with pytest.raises(Exception) as python_error:
        _python(GreedyAgent(seed=1)).act(None, dict(info))
    assert type(native_error.value) is type(python_error.value)


def test_python_engine_switch_decides_in_python(monkeypatch):
    state = CampanileState.new_game(3, "played", np.random.default_rng(5))
    view = state.public_view(0)
    assert native.core_of(view) is not None
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")
    assert native.core_of(view) is None
    info = {"seat": 0, "legal_actions": state.legal_actions(), "view": view}
    assert native.greedy_action(view, 0, info["legal_actions"], np.random.default_rng(0)) is None
    assert GreedyAgent(seed=2).act(None, dict(info)) == _python(GreedyAgent(seed=2)).act(None, dict(info))
    assert HeuristicAgent().act(None, dict(info)) == _python(HeuristicAgent()).act(None, dict(info))


def test_native_state_views_and_other_generators():
    """A native view decides on its own core; a generator that is not PCG64 leaves greedy to Python."""
    from five_towers_env.games.campanile.native_engine import from_python

    state = CampanileState.new_game(4, "pile", np.random.default_rng(8))
    nview = from_python(state.public_view(1))
    assert native.core_of(nview) is nview.core
    other = np.random.Generator(np.random.MT19937(4))
    assert native.greedy_action(state.public_view(0), 0, state.legal_actions(), other) is None
