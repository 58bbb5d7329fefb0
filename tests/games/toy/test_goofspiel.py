"""The toy game's own tests: its rules cases (``rules_cases/*.json``), positions, codec and agent, and the
proof that the contract's game-neutral agents serve a game written outside the package: ``mcts``, ``net``
and ``guided`` on a network the expert trainer makes in the test, and OpenSpiel's ``random_sim_test``."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from goofspiel.actions import ACTION_NAMES, action_from_name, action_name
from goofspiel.aec import raw_env
from goofspiel.agents import MatchAgent
from goofspiel.position import load_position, save_position
from goofspiel.state import GoofState

from five_towers_env.core.agent import RandomAgent
from five_towers_env.core.errors import IllegalActionError, PositionError
from five_towers_env.evaluation import evaluate
from five_towers_env.play import MoveLog, play_game

CASES = sorted((Path(__file__).parent / "rules_cases").glob("*.json"))


def _check_step(env: raw_env, step: dict) -> None:
    """Take or check one step of a rules case."""
    (kind, value), = step.items()
    if kind == "act":
        env.step(env.action_from_name(value))
    elif kind == "illegal":
        before = env.position()
        with pytest.raises(IllegalActionError):
            env.step(env.action_from_name(value))
        assert env.position() == before
    elif kind == "expect":
        position = env.position()
        assert {k: position[k] for k in value} == value
    else:
        got = {"legal": env.legal_action_names, "to_act": lambda: env.agent_name_mapping[env.agent_selection],
               "done": env.game.is_terminal, "scores": env.scores, "winners": env.winners,
               "rewards": lambda: [env.rewards[a] for a in env.possible_agents]}[kind]()
        assert got == value, f"{kind}: expected {value!r}, got {got!r}"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_rules_case(path: Path) -> None:
    case = json.loads(path.read_text())
    pos = case["position"]
    env = raw_env(num_players=pos["num_players"], variant=pos["variant"])
    env.reset(options={"position": pos})
    for i, step in enumerate(case["steps"]):
        try:
            _check_step(env, step)
        except AssertionError as exc:
            raise AssertionError(f"{path.name}, step {i} {step}: {exc}") from None


def test_cases_are_found() -> None:
    assert len(CASES) >= 5


def test_action_names_round_trip() -> None:
    assert [action_from_name(action_name(a)) for a in range(len(ACTION_NAMES))] == list(range(len(ACTION_NAMES)))
    with pytest.raises(ValueError, match="e.g. 'bid 3'"):
        action_from_name("bid 6")


def test_positions_round_trip_through_random_games() -> None:
    rng = np.random.default_rng(0)
    for n in (2, 3, 4):
        state = GoofState.new_game(n, "carry", rng)
        while True:
            assert save_position(load_position(save_position(state))) == save_position(state)
            if state.is_terminal():
                break
            state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("change, words", [
    ({"num_players": 5}, "'num_players' must be an integer 2..4"),
    ({"bids": [0, 3]}, "'bids' must be made in seat order"),
    ({"bids": [5, 0]}, "seat 0's hand [1, 2, 3, 4, 5] and bid 5"),
    ({"deck": [2, 2, 1, 4]}, "'deck' holds a card twice"),
    ({"prize": 5}, "'prize' 5 does not fit the deck"),
    ({"colour": "red"}, "unknown position key(s) ['colour']"),
])
def test_bad_positions_name_the_problem(change: dict, words: str) -> None:
    pos = save_position(GoofState.new_game(2, "discard", np.random.default_rng(1))) | change
    with pytest.raises(PositionError) as exc:
        load_position(pos)
    assert words in str(exc.value)


def test_determinize_redraws_the_other_bids_and_the_deck_only() -> None:
    state = GoofState.new_game(3, "discard", np.random.default_rng(2))
    state.apply_action(4)
    state.apply_action(0)  # seats 0 and 1 have bid 5 and 1; seat 2 is on move
    rng = np.random.default_rng(3)
    draws = [state.determinize(2, rng) for _ in range(30)]
    for d in draws:
        assert d.hands[2] == state.hands[2] and d.won == state.won and d.prize == state.prize
        assert all(sorted((*d.hands[p], d.bids[p])) == [1, 2, 3, 4, 5] for p in (0, 1))
        assert sorted(d.deck) == sorted(state.deck)
    assert {d.bids[0] for d in draws} == {1, 2, 3, 4, 5} and len({tuple(d.deck) for d in draws}) > 1
    assert state.determinize(0, rng).bids[0] == 5  # a seat's own bid is never redrawn


def test_the_move_log_keeps_the_bids_face_down(registered) -> None:
    out = io.StringIO()
    result = play_game([MatchAgent(), RandomAgent(seed=1)], seed=4, game="goofspiel", watchers=[MoveLog(out=out)])
    log = out.getvalue()
    assert log.count("seat 1: bids face down") == 5 and not re.search(r"\d+\. seat \d: bid \d", log)
    assert "round 5: prize" in log and "last round: seat 0 bid" in log and result["moves"] == 10


def test_match_agent_beats_random(registered) -> None:
    result = evaluate(["match", "random"], num_games=40, seed=0, progress=False, game=registered.name)
    assert result.agents[0]["win_rate"] > 0.7


# -- the game-neutral agents, by capability ---------------------------------------------------

def test_the_flat_search_beats_random(registered) -> None:
    result = evaluate(["mcts:simulations=100", "random"], num_games=20, seed=0, progress=False, game=registered.name)
    assert result.agents[0]["win_rate"] > 0.7


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy-value network of Goofspiel from a few seconds of expert iteration, run as a user would:
    ``five-towers expert`` with the game's folder on ``PYTHONPATH`` and its name in ``FIVE_TOWERS_GAMES``."""
    pytest.importorskip("torch", reason="expert iteration needs the rl extra")
    out = tmp_path_factory.mktemp("expert")
    config = out / "goofspiel.yaml"
    config.write_text(f"name: toy\nout_dir: {out}\ngame: goofspiel\narchitecture: mlp\nhidden: [32]\n"
                      "init_policy: none\ngenerations: 1\ngames_per_generation: 4\nwarmup_games: 8\n"
                      "warmup_steps: 5\ntrain_steps: 5\neval_games: 2\neval_mcts_games: 2\nworkers: 1\n"
                      "eval_simulations: 8\ntorch_threads: 1\nsimulations: 8\ndeterminisations: 2\nbatch_size: 16\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]),
           "FIVE_TOWERS_GAMES": "goofspiel"}
    run = subprocess.run([sys.executable, "-m", "five_towers_env.cli", "expert", "--config", str(config)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    # it trains with its evaluations on: the curve has the game's teacher's columns (nothing assumes 5 Towers')
    curve = (out / "toy" / "curve.csv").read_text().splitlines()
    assert len(curve) >= 2 and "match" in curve[0] and "heuristic" not in curve[0], curve
    return out / "toy" / "network.npz"


@pytest.mark.parametrize("agent", ["net", "guided:simulations=16,determinisations=2"])
def test_the_network_agents_play_a_trained_network(registered, network: Path, agent: str) -> None:
    name, _, settings = agent.partition(":")
    text = f"{name}:path={network}" + (f",{settings}" if settings else "")
    result = evaluate([text, "random"], num_games=4, seed=1, progress=False, game=registered.name)
    assert result.agents[0]["games"] == 4


def test_openspiel_random_sim_test_and_ismcts(registered) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from five_towers_env.integrations.openspiel import load_game, register

    register(registered)
    for n, variant in ((2, "discard"), (3, "carry")):
        pyspiel.random_sim_test(load_game(registered.name, n, variant), num_sims=3, serialize=True, verbose=False)
    result = evaluate(["openspiel-ismcts:simulations=30", "random"], num_games=2, seed=2, progress=False,
                      game=registered.name)
    assert result.agents[0]["games"] == 2


def test_a_game_without_a_native_core_runs_on_python(registered, monkeypatch):
    """FIVE_TOWERS_ENGINE=native, or the native default, leaves a game with no native core on Python."""
    for forced in ("native", None):
        if forced is None:
            monkeypatch.delenv("FIVE_TOWERS_ENGINE", raising=False)
        else:
            monkeypatch.setenv("FIVE_TOWERS_ENGINE", forced)
        assert registered.backend() == "python"
        state = registered.new_state(2, seed=5)
        assert isinstance(state, GoofState) and state.backend == "python"
        assert registered.adopt(state) is state
        env = raw_env()
        env.reset(seed=5)
        assert env.game.backend == "python"
