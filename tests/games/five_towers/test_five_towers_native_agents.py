"""5 Towers' greedy and heuristic agents in C++ (native/agents.cpp, native/heuristic.cpp) make the Python agents' moves.

Seeded games over every setup (2-5 players x ``base``/``great_powers``), every seat played by the agent under
test: at every position with a choice, three deciders must agree on the action, and for ``greedy`` (which
draws its ties) on the generator's state after it:

* the Python reference (the agent class with ``native = False``) on the seat's public view;
* the agent class on the native path (``FIVE_TOWERS_ENGINE=native``), which converts that view;
* the compiled call (``_native.greedy_action`` / ``heuristic_action``) on the real native game, hidden
  deck order and all, kept in lockstep with the Python game (so the agents read nothing hidden, and the
  batched calls on native games decide as the Python agents do).

The first position where they differ fails the test, printed as a position (``save_position``). One move in
five is a random legal one, so the games reach positions the agents would not steer into. 40 games per
setup, 320 per agent (under a minute on two cores); ``FIVE_TOWERS_AGENT_GAMES`` sets the games per setup for
a soak.
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.native import words_of_generator
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents import native
from five_towers_env.games.five_towers.agents.greedy import GreedyAgent
from five_towers_env.games.five_towers.agents.heuristic import HeuristicAgent
from five_towers_env.games.five_towers.position import save_position
from five_towers_env.games.five_towers.state import GameState, Phase

_MODULE = "five_towers_env.games.five_towers._native"
_BUILT, _WHY = native_built((_MODULE,))
pytestmark = pytest.mark.skipif(not _BUILT, reason=f"the 5 Towers native core is not built: {_WHY}")

SETUPS = [(n, v) for n in (2, 3, 4, 5) for v in ("base", "great_powers")]
GAMES_PER_SETUP = int(os.environ.get("FIVE_TOWERS_AGENT_GAMES", "40"))
RANDOM_MOVES = 0.2  # the share of moves played at random instead of the agents' agreed move


@pytest.fixture(autouse=True)
def _native_backend(monkeypatch):
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")


def _core_module():
    import importlib

    return importlib.import_module(_MODULE)


def _position(state: GameState, seat: int, legal: list[int], answers: dict) -> str:
    return (f"seat {seat}, legal {legal}, answers {answers}\n"
            f"position: {json.dumps(save_position(state))}")


def _python(agent):
    agent.native = False
    return agent


def _values(agent: HeuristicAgent, view: GameState, seat: int, legal: list[int]) -> list[float]:
    """The Python agent's value of each id in ``legal`` (-inf where its search does not reach it), as
    ``_native.heuristic_values`` gives them."""
    scored = dict(agent.scored_actions(view, seat, legal))
    return [scored.get(a, -math.inf) for a in legal]


def _play(agent_name: str, n: int, variant: str, games: int, seed0: int = 0, params: dict | None = None) -> int:
    """Play ``games`` games in lockstep (see the module docstring); the positions compared."""
    N = _core_module()
    params = params or {}
    compared = 0
    for g in range(seed0, seed0 + games):
        state = GameState.new_game(n, variant, np.random.default_rng(g))
        core = N.new_game(n, variant, words_of_generator(np.random.default_rng(g)))
        mover = np.random.default_rng(10_000 + g)
        if agent_name == "greedy":
            reference = [_python(GreedyAgent(seed=100 * g + p)) for p in range(n)]
            on_view = [GreedyAgent(seed=100 * g + p) for p in range(n)]
            words = [words_of_generator(np.random.default_rng(100 * g + p)) for p in range(n)]
        else:
            reference = [_python(HeuristicAgent(**params)) for _ in range(n)]
            on_view = [HeuristicAgent(**params) for _ in range(n)]
        while not state.is_terminal():
            seat = state.current_player
            legal = state.legal_actions()
            assert core.legal_actions() == legal
            if len(legal) > 1:
                info = {"game": "five_towers", "seat": seat, "legal_actions": list(legal),
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
                    answers["compiled on game"] = N.heuristic_action(core, seat, legal, **params)
                if len(set(answers.values())) != 1:
                    detail = ""
                    if agent_name == "heuristic":
                        detail = (f"\npython values: {_values(reference[seat], info['view'], seat, legal)}"
                                  f"\nnative values: {N.heuristic_values(core, seat, legal, **params)}")
                    pytest.fail(f"{agent_name} ({n}p {variant}, game {g}) differs at\n"
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
@pytest.mark.parametrize(("n", "variant"), SETUPS, ids=[f"{n}p-{v}" for n, v in SETUPS])
def test_native_agent_makes_the_python_moves(agent_name, n, variant):
    assert _play(agent_name, n, variant, GAMES_PER_SETUP) > 0


#: other weights, ints among them (Python then computes some values in ints: the same numbers)
PARAMS = [{"chain_weight": 0.0}, {"zero_weight": 1.7, "pair_weight": 0.0},
          {"recover_relief": 1.0, "opponent_weight": 0.0}, {"chain_weight": 2, "opponent_weight": 3},
          {"chain_weight": 1.3, "zero_weight": 0.05, "pair_weight": 2.5, "recover_relief": 0.6, "opponent_weight": 0.4}]


@pytest.mark.parametrize("params", PARAMS, ids=[",".join(f"{k}={v}" for k, v in p.items()) for p in PARAMS])
def test_heuristic_params_and_values(params):
    """Other weights give the same moves, and every action's value is the Python value bit for bit."""
    N = _core_module()
    for i, (n, variant) in enumerate(SETUPS[::3]):
        assert _play("heuristic", n, variant, 1, seed0=500 + 10 * i, params=params) > 0
        state = GameState.new_game(n, variant, np.random.default_rng(i))
        mover = np.random.default_rng(i)
        agent = _python(HeuristicAgent(**params))
        phases = set()
        while not state.is_terminal():
            seat, legal = state.current_player, state.legal_actions()
            view = state.public_view(seat)
            assert N.heuristic_values(native.core_of(view), seat, legal, **params) == _values(agent, view, seat, legal)
            phases.add(int(state.phase))
            state.apply_action(legal[int(mover.integers(len(legal)))])
        assert {int(Phase.BID), int(Phase.TAKE), int(Phase.BUILD)} <= phases


def _positions(count: int) -> list[GameState]:
    """Positions with a choice from seeded games with random moves, every setup."""
    out = []
    for g, (n, variant) in enumerate(SETUPS * count):
        state = GameState.new_game(n, variant, np.random.default_rng(g))
        mover = np.random.default_rng(g)
        for _ in range(int(mover.integers(1, 120))):
            legal = state.legal_actions()
            if state.is_terminal():
                break
            state.apply_action(legal[int(mover.integers(len(legal)))])
        if not state.is_terminal():
            out.append(state)
    return out


def _from_python(state: GameState):
    from five_towers_env.games.five_towers.native_state import from_python

    return from_python(state)


def test_batched_calls_match_single_calls():
    N = _core_module()
    states = _positions(5)
    cores = [_from_python(s) for s in states]
    assert {int(s.phase) for s in states} >= {int(Phase.BID), int(Phase.TAKE), int(Phase.BUILD)}
    words = [words_of_generator(np.random.default_rng(i)) for i in range(len(cores))]
    actions, after = N.greedy_actions(cores, words)
    for core, state, w, a, w2 in zip(cores, states, words, actions, after):
        single, drawn = N.greedy_action(core, state.current_player, state.legal_actions(), w)
        assert (single, tuple(drawn if drawn is not None else w)) == (a, tuple(w2))
    assert N.heuristic_actions(cores) == [N.heuristic_action(c, s.current_player, s.legal_actions())
                                          for c, s in zip(cores, states)]
    weights = PARAMS[-1]
    assert N.heuristic_actions(cores, **weights) == [N.heuristic_action(c, s.current_player, s.legal_actions(),
                                                                        **weights) for c, s in zip(cores, states)]
    with pytest.raises(ValueError):
        N.greedy_actions(cores, words[:-1])


def _take_phase_state() -> GameState:
    state = GameState.new_game(2, "base", np.random.default_rng(3))
    while state.phase != Phase.TAKE:
        state.apply_action(max(state.legal_actions()) if state.phase == Phase.BID else state.legal_actions()[0])
    return state


def test_bad_inputs_raise_and_the_agent_falls_back():
    N = _core_module()
    state = _take_phase_state()
    core = _from_python(state)
    words = words_of_generator(np.random.default_rng(0))
    illegal = next(a for a in range(A.NUM_ACTIONS) if a not in state.legal_actions())
    for legal in ([], [illegal], [A.NUM_ACTIONS], [-1], state.legal_actions() * 200):
        with pytest.raises(ValueError):
            N.greedy_action(core, 0, legal, words)
        with pytest.raises(ValueError):
            N.heuristic_action(core, 0, legal)
    with pytest.raises(IndexError):
        N.heuristic_action(core, 7, state.legal_actions())
    with pytest.raises(TypeError):
        N.heuristic_action(core, 0, state.legal_actions(), chain_weight="high")
    seat = state.current_player
    finished = GameState.new_game(2, "base", np.random.default_rng(1))
    while not finished.is_terminal():
        finished.apply_action(finished.legal_actions()[0])
    with pytest.raises(ValueError):
        N.heuristic_actions([core, _from_python(finished)])
    # ids the native call refuses: the Python path decides (greedy raises the engine's error; the heuristic's
    # search skips an id it does not reach, on both paths)
    info = {"seat": seat, "legal_actions": [illegal, state.legal_actions()[0]], "view": state.public_view(seat)}
    with pytest.raises(Exception) as native_error:
        GreedyAgent(seed=1).act(None, dict(info))
    with pytest.raises(Exception) as python_error:
        _python(GreedyAgent(seed=1)).act(None, dict(info))
    assert type(native_error.value) is type(python_error.value)
    assert HeuristicAgent().act(None, dict(info)) == _python(HeuristicAgent()).act(None, dict(info))


def test_python_engine_switch_decides_in_python(monkeypatch):
    state = _take_phase_state()
    seat = state.current_player
    view = state.public_view(seat)
    assert native.core_of(view) is not None
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")
    assert native.core_of(view) is None
    info = {"seat": seat, "legal_actions": state.legal_actions(), "view": view}
    assert native.greedy_action(view, seat, info["legal_actions"], np.random.default_rng(0)) is None
    assert native.heuristic_action(view, seat, info["legal_actions"], HeuristicAgent().params) is None
    assert GreedyAgent(seed=2).act(None, dict(info)) == _python(GreedyAgent(seed=2)).act(None, dict(info))
    assert HeuristicAgent().act(None, dict(info)) == _python(HeuristicAgent()).act(None, dict(info))


def test_native_state_views_and_other_generators():
    """A native view decides on its own core; a generator that is not PCG64 leaves greedy to Python."""
    from five_towers_env.games.five_towers.native_engine import from_python

    state = _take_phase_state()
    seat = state.current_player
    nview = from_python(state.public_view(seat))
    assert native.core_of(nview) is nview.core
    other = np.random.Generator(np.random.MT19937(4))
    assert native.greedy_action(state.public_view(seat), seat, state.legal_actions(), other) is None
    assert native.heuristic_action(nview, seat, state.legal_actions(), HeuristicAgent().params) == \
        _python(HeuristicAgent()).act(None, {"seat": seat, "legal_actions": state.legal_actions(),
                                             "view": state.public_view(seat)})
