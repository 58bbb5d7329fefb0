"""``--move-timeout`` stops every search (issue 66): the decision's deadline (five_towers_env/core/deadline.py)
is a hard stop for both games' native (C++) and Python searches, in any thread. Before it, the guard's only
means was SIGALRM, which reaches neither C++ running with the GIL released nor any thread but the main one:
a native search (or any search, outside the main thread) with a budget far beyond the timeout ran to its end.

The endless agents below are built from their classes, not through the registry, so that no range on the
settings refuses their budgets: what is measured is the stop, whatever the agent's own budget says.
"""
from __future__ import annotations

import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from test_mcts_pinned import PINNED, Recorder
from test_search import Toy

from five_towers_env.core.backend import native_built
from five_towers_env.evaluation import evaluate
from five_towers_env.evaluation.guard import GuardedAgent
from five_towers_env.games.campanile.agents.mcts import MCTSAgent as CampanileMCTS
from five_towers_env.games.five_towers.agents.mcts import MCTSAgent as FiveTowersMCTS
from five_towers_env.play import play_game

_CORES = {"five_towers": "five_towers_env.games.five_towers._native",
          "campanile": "five_towers_env.games.campanile._native"}
#: the first decision of either game has several candidates; these budgets would take hours
ENDLESS = 10**9
TIMEOUT = 1.0
#: how long a stopped decision may take all told (the timeout, the game's set-up, a busy machine)
GRACE = 15.0


def _endless_mcts(game: str):
    """A factory of ``game``'s mcts with an endless budget: every candidate searched, no race that ends early."""
    if game == "five_towers":
        return lambda seed=None: FiveTowersMCTS(seed=seed, simulations=ENDLESS, race_z=None)
    return lambda seed=None: CampanileMCTS(seed=seed, simulations=ENDLESS, search_from=99)


def _backend(monkeypatch, game: str, backend: str) -> None:
    if backend == "native":
        built, why = native_built((_CORES[game],))
        if not built:
            pytest.skip(f"the native core is not built: {why}")
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", backend)


def _evaluate_in_a_thread(agent, game: str) -> dict:
    """One game of ``agent`` against random under ``--move-timeout``, played in a thread that is not the main
    one (where SIGALRM cannot stop anything); its record."""
    box: dict = {}

    def run() -> None:
        box["result"] = evaluate([agent, "random"], num_games=1, game=game, seed=3, move_timeout=TIMEOUT,
                                 on_agent_error="forfeit", progress=False, paired=False)

    thread = threading.Thread(target=run, daemon=True)
    start = time.perf_counter()
    thread.start()
    thread.join(GRACE)
    assert not thread.is_alive(), f"the search ran on {GRACE:g} s past --move-timeout {TIMEOUT:g}"
    assert time.perf_counter() - start < GRACE
    (record,) = box["result"].records
    return record


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("backend", ["native", "python"])
@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_move_timeout_stops_mcts_in_a_worker_thread(game, backend, monkeypatch):
    _backend(monkeypatch, game, backend)
    record = _evaluate_in_a_thread(_endless_mcts(game), game)
    assert record["forfeit"] == 0 and "no action within --move-timeout 1 s" in record["error"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_move_timeout_stops_the_guided_tree_search_in_a_worker_thread(game):
    from five_towers_env.agents.guided import GuidedSearchAgent

    record = _evaluate_in_a_thread(
        lambda seed=None: GuidedSearchAgent(seed=seed, search="puct", simulations=ENDLESS, game=game), game)
    assert record["forfeit"] == 0 and "no action within --move-timeout 1 s" in record["error"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_move_timeout_stops_openspiel_bots_in_a_worker_thread(game):
    pytest.importorskip("pyspiel")
    from five_towers_env.integrations.openspiel.bots import ISMCTSAgent, MCTSAgent

    bot = MCTSAgent if game == "five_towers" else ISMCTSAgent
    record = _evaluate_in_a_thread(lambda seed=None: bot(seed=seed, simulations=ENDLESS), game)
    assert record["forfeit"] == 0 and "no action within --move-timeout 1 s" in record["error"]


ENDLESS_FILE = '''
from five_towers_env.games.five_towers.agents.mcts import MCTSAgent as FiveTowers
from five_towers_env.games.campanile.agents.mcts import MCTSAgent as Campanile


def FiveTowersEndless(seed=None):
    return FiveTowers(seed=seed, simulations=10**9, race_z=None)


def CampanileEndless(seed=None):
    return Campanile(seed=seed, simulations=10**9, search_from=99)
'''


@pytest.mark.parametrize("game, agent", [("five_towers", "FiveTowersEndless"), ("campanile", "CampanileEndless")])
def test_cli_move_timeout_stops_a_native_search_in_the_main_thread(game, agent, tmp_path):
    """``five-towers evaluate --move-timeout`` (the games in the process's main thread, where SIGALRM waits for
    the C++ search to come back) ends at the timeout with the one-line error."""
    built, why = native_built((_CORES[game],))
    if not built:
        pytest.skip(f"the native core is not built: {why}")
    path = tmp_path / "endless.py"
    path.write_text(ENDLESS_FILE)
    argv = [sys.executable, "-m", "five_towers_env.cli", "evaluate", "--game", game, "--agents",
            f"py:path={path}:{agent}", "random", "--games", "2", "--move-timeout", "1", "--no-progress"]
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("evaluate --move-timeout 1 was still running after 60 s")
    assert time.perf_counter() - start < 30
    assert done.returncode == 1, done.stderr
    assert "no action within --move-timeout 1 s" in done.stderr and "Traceback" not in done.stderr


def _first_decision(game: str):
    """The view and info of the first decision with several legal actions of a seeded game."""
    if game == "five_towers":
        from five_towers_env.games.five_towers.state import GameState

        state = GameState.new_game(2, "base", np.random.default_rng(5))
    else:
        from five_towers_env.games.campanile.state import CampanileState

        state = CampanileState.new_game(2, "pile", np.random.default_rng(5))
    seat = state.current_player
    view = state.public_view(seat)
    return view, {"view": view, "seat": seat, "legal_actions": state.legal_actions(), "game": game}


@pytest.mark.parametrize("backend", ["native", "python"])
@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_an_agent_asked_directly_under_a_deadline_answers_its_best_move_so_far(game, backend, monkeypatch):
    """The API a caller (the browser table) uses: ``decision_deadline`` around ``act``, from any thread; the
    search answers a legal move at the deadline."""
    from five_towers_env.core.deadline import decision_deadline

    _backend(monkeypatch, game, backend)
    view, info = _first_decision(game)
    agent = _endless_mcts(game)(seed=1)
    box: dict = {}

    def decide() -> None:
        start = time.perf_counter()
        with decision_deadline(0.5):
            box["action"] = agent.act(None, info)
        box["seconds"] = time.perf_counter() - start

    thread = threading.Thread(target=decide, daemon=True)
    thread.start()
    thread.join(GRACE)
    assert not thread.is_alive()
    assert box["action"] in info["legal_actions"] and 0.5 <= box["seconds"] < 3.0
    assert agent.last_values  # it searched: its best so far, not a default


def test_the_default_mcts_of_other_games_stops_at_the_deadline():
    """The game-neutral ``mcts`` (agents/flat_search.py) a game without its own gets, here on a Campanile view."""
    from five_towers_env.agents.flat_search import FlatSearchAgent
    from five_towers_env.core.deadline import decision_deadline

    _, info = _first_decision("campanile")
    agent = FlatSearchAgent(seed=1, simulations=ENDLESS, z=None)
    start = time.perf_counter()
    with decision_deadline(0.3):
        assert agent.act(None, info) in info["legal_actions"]
    assert time.perf_counter() - start < 2.0 and agent.last_values


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_the_native_search_takes_a_deadline_and_refuses_nan(game, monkeypatch):
    _backend(monkeypatch, game, "native")
    import importlib

    from five_towers_env.core.native import words_of_generator

    native = importlib.import_module(_CORES[game])
    agents = importlib.import_module(f"five_towers_env.games.{game}.agents.native")
    view, info = _first_decision(game)
    core, words = agents.core_of(view), words_of_generator(np.random.default_rng(0))
    if game == "five_towers":
        def decide(**kw):
            return native.mcts_decide(core, words, simulations=ENDLESS, race_z=None, **kw)[0]
    else:
        def decide(**kw):
            return native.mcts_decide(core, info["seat"], info["legal_actions"], words, simulations=ENDLESS,
                                      search_from=99, **kw)[0][0]
    for seconds in (0.0, -1.0, 0.3):
        start = time.perf_counter()
        assert decide(stop_after=seconds) in info["legal_actions"]
        assert time.perf_counter() - start < seconds + 2.0
    with pytest.raises(ValueError, match="stop_after"):
        decide(stop_after=math.nan)


@pytest.mark.parametrize("setup", [s for s in PINNED if s[5]][:1] + [s for s in PINNED if s[0] == "campanile"][-1:],
                         ids=lambda s: f"{s[0]}-{s[1]}-{s[2]}p-seed{s[3]}")
def test_a_deadline_not_reached_changes_no_move(setup):
    """Under a move timeout that is never reached (the deadline set, checked, never passed) mcts plays exactly
    its pinned moves, rollouts and values (tests/test_mcts_pinned.py)."""
    from five_towers_env.agents.registry import make_agent

    game, variant, players, seed, seat, settings = setup
    agents = [make_agent("heuristic", seed=100 + k, game=game) for k in range(players)]
    mcts = Recorder(make_agent("mcts", seed=seed, game=game, **dict(settings)))
    agents[seat] = GuardedAgent(mcts, "mcts", seat, 0, move_timeout=3600.0)
    play_game(agents, variant=variant, seed=seed, game=game)
    moves, rollouts, value_sum = PINNED[setup]
    assert mcts.moves == moves and mcts.rollouts == rollouts
    assert mcts.value_sum == pytest.approx(value_sum, abs=1e-5)


class _SlowToy(Toy):
    """The toy game of tests/test_search.py whose every rollout takes 10 ms."""

    def evaluate(self, state):
        time.sleep(0.01)
        return super().evaluate(state)


def test_the_python_flat_search_stops_at_its_budgets_deadline_between_two_rollouts():
    from five_towers_env.core.search import Budget, Halving, Race, flat_search

    for schedule in (Race(z=None), Halving()):
        toy = _SlowToy([0.5, 0.6, 0.4])
        start = time.perf_counter()
        result = flat_search(toy, [0, 1, 2], Budget(ENDLESS, deadline=time.monotonic() + 0.2), schedule)
        assert time.perf_counter() - start < 0.5 and 3 < result.simulations < 60 and result.best in (0, 1, 2)
        # a deadline passed already: nothing sampled, the first candidate (prior and order decide)
        assert flat_search(Toy([0.5, 0.6]), [0, 1], Budget(ENDLESS, deadline=time.monotonic() - 1), schedule
                           ).simulations == 0
    far = flat_search(Toy([0.5, 0.6, 0.4]), [0, 1, 2], Budget(30, deadline=time.monotonic() + 3600), Race(z=None))
    none = flat_search(Toy([0.5, 0.6, 0.4]), [0, 1, 2], Budget(30), Race(z=None))
    assert (far.best, far.means, far.simulations) == (none.best, none.means, none.simulations)


def test_decision_deadline_is_per_thread_nests_to_the_earlier_and_refuses_nan():
    from five_towers_env.core.deadline import current_deadline, decision_deadline, seconds_left

    assert current_deadline() is None and seconds_left() is None
    with decision_deadline(10):
        outer = current_deadline()
        assert outer is not None and 9 < seconds_left() <= 10
        with decision_deadline(100):  # a later one does not extend it
            assert current_deadline() == outer
        with decision_deadline(1):
            assert seconds_left() <= 1
        with decision_deadline(None), decision_deadline(math.inf):
            assert current_deadline() == outer
        seen: list = []
        other = threading.Thread(target=lambda: seen.append(current_deadline()))
        other.start()
        other.join()
        assert seen == [None]  # another thread's decisions are not bound by it
        assert current_deadline() == outer
    assert current_deadline() is None
    with decision_deadline(-5):
        assert seconds_left() == 0.0
    for bad in (math.nan, "1", True):
        with pytest.raises(ValueError, match="number of seconds"):
            with decision_deadline(bad):
                pass
