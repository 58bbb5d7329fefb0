"""The games' chance models (core.chance.ChanceState), without OpenSpiel: facts, the game loop over
chance nodes, copies, and the information state's rows."""
from __future__ import annotations

import numpy as np
import pytest

from five_towers_env.core.chance import CHANCE, TERMINAL, UNSEEN
from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.game import game_names, get_game

CHANCE_GAMES = [name for name in game_names() if get_game(name).chance]


def _play(state, rng: np.random.Generator, decisions: int | None = None):
    done = 0
    while not state.is_terminal() and (decisions is None or done < decisions or state.is_chance()):
        if state.is_chance():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9 and list(outcomes) == sorted(outcomes)
            state.apply(outcomes[rng.choice(len(outcomes), p=probs)])
        else:
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])
            done += 1
    return state


def test_both_games_declare_a_chance_model_that_matches_their_spec():
    assert CHANCE_GAMES == ["five_towers", "campanile"]
    for name in CHANCE_GAMES:
        spec = get_game(name)
        model = spec.chance_state()
        assert (model.num_actions, model.observation_size) == (spec.num_actions, spec.observation_size)
    assert get_game("five_towers").chance_state().perfect_information
    assert not get_game("campanile").chance_state().perfect_information


def test_options_are_checked():
    model = get_game("campanile").chance_state()
    assert model.new(3, "pile").settings == {"bet_chip": "at_least"}
    with pytest.raises(ValueError, match="bet_chip must be one of"):
        model.new(3, "pile", bet_chip="all")
    with pytest.raises(ValueError, match="unknown option"):
        get_game("five_towers").chance_state().new(2, "base", bet_chip="exact")


@pytest.mark.parametrize("name", CHANCE_GAMES)
def test_random_games_end_with_returns_and_logged_steps(name):
    model = get_game(name).chance_state()
    rng = np.random.default_rng(1)
    for n in (2, 4):
        state = model.new(n, get_game(name).variants[-1])
        assert state.current_player() == CHANCE and state.returns() == [0.0] * n
        _play(state, rng)
        assert state.current_player() == TERMINAL and sorted(set(state.returns())) in ([-1.0, 1.0], [1.0])
        decisions = sum(p >= 0 for p, _, _ in state.steps)
        chances = sum(p == CHANCE for p, _, _ in state.steps)
        assert decisions <= model.max_game_length(n, state.variant, **state.settings)
        assert chances <= model.max_chance_nodes(n, state.variant, **state.settings)
        with pytest.raises(IllegalActionError, match="over"):
            state.apply(0)


@pytest.mark.parametrize("name", CHANCE_GAMES)
def test_illegal_steps_raise_and_change_nothing(name):
    state = get_game(name).chance_state().new(2, get_game(name).default_variant)
    with pytest.raises(IllegalActionError, match="chance outcome"):
        state.apply(10_000)
    _play(state, np.random.default_rng(0), decisions=1)
    before = (state.information_text(0), list(state.legal_actions()))
    illegal = next(a for a in range(get_game(name).num_actions) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply(illegal)
    assert (state.information_text(0), list(state.legal_actions())) == before


@pytest.mark.parametrize("name", CHANCE_GAMES)
def test_clones_are_independent(name):
    state = _play(get_game(name).chance_state().new(3, get_game(name).default_variant), np.random.default_rng(2),
                  decisions=6)
    copy = state.clone()
    _play(copy, np.random.default_rng(3))
    assert not state.is_terminal() and copy.is_terminal() and len(copy.steps) > len(state.steps)
    assert state.information_text(1) != copy.information_text(1)


def test_campanile_information_rows_hold_what_the_seat_saw():
    state = _play(get_game("campanile").chance_state().new(2, "played"), np.random.default_rng(4), decisions=3)
    width, size = state.row_size(), state.observation_size
    tensor = state.information_tensor(1)
    assert tensor.shape == (state.information_size(),) and tensor.dtype == np.float32
    for i, (player, action, seen) in enumerate(state.steps):
        row = tensor[size + i * width:size + (i + 1) * width]
        assert row[-1] == (player == CHANCE)
        assert (row[state.num_actions:state.num_actions + 5].argmax() == seen[1]) if seen[1] != UNSEEN \
            else not row[state.num_actions:state.num_actions + 5].any()
        if player >= 0:
            assert row[action] == 1 and row[:state.num_actions].sum() == 1
    assert not tensor[size + len(state.steps) * width:].any()
    # seat 1 saw its own three cards and not seat 0's
    assert [seen[1] != UNSEEN for _, _, seen in state.steps[:6]] == [False] * 3 + [True] * 3


def test_from_engine_logs_from_the_position():
    spec = get_game("five_towers")
    state = _play(spec.chance_state().new(2, "base"), np.random.default_rng(5), decisions=4)
    again = spec.chance_state().from_engine(state.engine)
    assert again.steps == [] and again.information_text(0).startswith("seat 0 from position\n")
    assert again.legal_actions() == state.legal_actions()
    assert np.array_equal(again.observation(1), state.observation(1))
