"""The OpenSpiel adapter: game facts, OpenSpiel's own random-simulation test, serialisation, what each
seat sees, resampling, a differential test against our environments, and OpenSpiel's bots as agents."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from five_towers_env.core.game import get_game  # noqa: E402
from five_towers_env.integrations.openspiel import load_game, register_all  # noqa: E402

#: every setup of both games: (game, players, variant, options)
SETUPS = [("five_towers", n, v, {}) for v in ("base", "great_powers") for n in range(2, 6)] + [
    ("campanile", n, v, {"bet_chip": c}) for v in ("pile", "played") for c in ("at_least", "exact")
    for n in range(2, 6)]


def setup_id(setup: tuple) -> str:
    game, n, v, opts = setup
    return f"{game}-{n}p-{v}" + "".join(f"-{x}" for x in opts.values())


def random_step(state, rng: np.random.Generator) -> None:
    """A chance outcome drawn by its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(outcomes[rng.choice(len(outcomes), p=probs)]))
    else:
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))


def _random_states(game, seed: int, games: int = 1):
    """Every state of ``games`` random games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        yield state.clone()
        while not state.is_terminal():
            random_step(state, rng)
            yield state.clone()


# -- registration and facts -----------------------------------------------------------------------

def test_both_games_register_with_their_facts():
    assert register_all() == ["python_five_towers", "python_campanile"]
    assert {"python_five_towers", "python_campanile"} <= set(pyspiel.registered_names())
    five = pyspiel.load_game("python_five_towers(players=4,variant=great_powers)")
    camp = pyspiel.load_game("python_campanile(players=3,variant=played,bet_chip=exact)")
    t5, tc = five.get_type(), camp.get_type()
    assert t5.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert tc.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    for t in (t5, tc):
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert t.utility == pyspiel.GameType.Utility.GENERAL_SUM
        assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert (t.min_num_players, t.max_num_players) == (2, 5)
    assert (five.num_players(), five.num_distinct_actions(), five.max_chance_outcomes()) == (4, 307, 80)
    assert (camp.num_players(), camp.num_distinct_actions(), camp.max_chance_outcomes()) == (3, 31, 5)
    assert (five.min_utility(), five.max_utility()) == (-1.0, 1.0)
    assert camp.max_game_length() == 2 * (3 * 15 - 2)
    assert five.observation_tensor_size() == get_game("five_towers").observation_size
    assert camp.observation_tensor_size() == get_game("campanile").observation_size
    assert five.information_state_tensor_size() == five.observation_tensor_size()
    assert camp.information_state_tensor_size() == 278 + (86 + 55) * (31 + 5 + 1)
    assert t5.parameter_specification == {"players": 2, "variant": "base"}
    assert tc.parameter_specification == {"players": 2, "variant": "pile", "bet_chip": "at_least"}


@pytest.mark.parametrize("bad", ["python_five_towers(players=6)", "python_five_towers(variant=expansion)",
                                 "python_campanile(bet_chip=some)", "python_campanile(players=1)"])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(Exception, match="must be|must be one of"):
        pyspiel.load_game(bad)


def test_illegal_actions_are_refused_and_change_nothing():
    state = load_game("campanile").new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="chance outcome 7"):
        state.apply_action(7)
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        random_step(state, rng)
    before = str(state)
    with pytest.raises(pyspiel.SpielError, match="illegal action"):
        state.apply_action(30)
    assert str(state) == before


# -- OpenSpiel's own tests ------------------------------------------------------------------------

@pytest.mark.parametrize("setup", SETUPS, ids=setup_id)
def test_openspiel_random_sim_test(setup):
    game, n, variant, options = setup
    # OpenSpiel's C++ checks: legal actions and chance outcomes, observation and information-state tensors
    # and strings for every player at every state, returns, and serialize/deserialize of every state
    pyspiel.random_sim_test(load_game(game, n, variant, **options), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game,n,variant", [("five_towers", 3, "great_powers"), ("campanile", 4, "played")])
def test_serialisation_round_trips_every_state(game, n, variant):
    g = load_game(game, n, variant)
    for state in _random_states(g, seed=3):
        g2, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, state))
        assert g2 == g and copy.history() == state.history() and str(copy) == str(state)
        assert copy.current_player() == state.current_player()
        assert copy.legal_actions() == state.legal_actions()
        for p in range(n):
            assert copy.information_state_string(p) == state.information_state_string(p)
            assert copy.observation_tensor(p) == state.observation_tensor(p)
        # and a replay of the history reaches the same state
        replay = g.new_initial_state()
        for a in state.history():
            replay.apply_action(a)
        assert str(replay) == str(state)


def test_max_game_length_bounds_random_games():
    for game, n, variant, options in SETUPS[:8] + SETUPS[8::3]:
        g = load_game(game, n, variant, **options)
        rng = np.random.default_rng(n)
        for _ in range(3):
            state = g.new_initial_state()
            decisions = chances = 0
            while not state.is_terminal():
                chances += state.is_chance_node()
                decisions += not state.is_chance_node()
                random_step(state, rng)
            assert decisions <= g.max_game_length() and chances <= g.max_chance_nodes_in_history()
