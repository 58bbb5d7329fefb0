"""The OpenSpiel adapter hides what it must: each seat's observation and information state depend only
on what that seat has seen, and Campanile's resample_from_infostate draws uniformly among the states
the seat cannot tell apart, with a history that leads there."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from five_towers_env.integrations.openspiel import load_game  # noqa: E402

from test_openspiel import random_step  # noqa: E402


def _play_to(game, seed: int, decisions: int):
    """A random game's state after ``decisions`` player decisions (or at its end)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    done = 0
    while not state.is_terminal() and (state.is_chance_node() or done < decisions):
        done += not state.is_chance_node()
        random_step(state, rng)
    return state


def _view(state, p: int) -> tuple:
    return (state.observation_string(p), tuple(state.observation_tensor(p)), state.information_state_string(p),
            tuple(state.information_state_tensor(p)))


@pytest.mark.parametrize("n,variant,bet_chip", [(2, "pile", "at_least"), (3, "played", "exact"),
                                                (5, "pile", "exact")])
def test_campanile_views_ignore_what_the_seat_cannot_see(n, variant, bet_chip):
    """Permuting every card hidden from a seat (resample_from_infostate) leaves its views unchanged,
    while the hidden cards do change, and so does some other seat's view."""
    game = load_game("campanile", n, variant, bet_chip=bet_chip)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    changed = other_changed = 0
    for seed in range(8):
        state = _play_to(game, seed, decisions=4 * seed)
        if state.is_terminal():
            continue
        for p in range(n):
            other = state.resample_from_infostate(p, sampler)
            assert _view(other, p) == _view(state, p)
            changed += str(other) != str(state)
            q = (p + 1) % n
            other_changed += _view(other, q) != _view(state, q)
    assert changed > 10 and other_changed > 10


def test_campanile_information_state_keeps_the_seats_own_cards_and_nothing_else():
    state = _play_to(load_game("campanile", 3, "pile"), seed=1, decisions=0)
    text = [state.information_state_string(p) for p in range(3)]
    core = state.core
    for p in range(3):
        own = "".join("ABCDE"[t] for t in core.engine.hands[p])
        assert f"seat {p} holds {own}" in state.observation_string(p)
        dealt = text[p].splitlines()[-1].split()[:9]  # the three hands, seat 0 first, as seat p saw them
        assert sorted(c for c in dealt[3 * p:3 * p + 3]) == sorted(own)
        assert all(c == "?" for i, c in enumerate(dealt) if not 3 * p <= i < 3 * p + 3)


def test_five_towers_views_ignore_the_deck_order():
    """5 Towers hides only the deck's order, and nothing in the adapter depends on it: from two deck
    orders of one position, every view and the next display's chance outcomes are the same."""
    game = load_game("five_towers", 3, "great_powers")
    rng = np.random.default_rng(0)
    for seed in range(6):
        state = _play_to(game, seed, decisions=15 * seed)
        if state.is_terminal() or state.is_chance_node():
            continue
        engine = state.core.engine
        one = game.state_from_engine(engine.determinize(0, rng))
        two = game.state_from_engine(engine.determinize(0, rng))
        assert one.core.engine.deck != two.core.engine.deck or len(engine.deck) < 2
        for p in range(3):
            assert _view(one, p) == _view(two, p)
            assert state.observation_tensor(p) == one.observation_tensor(p)
        while not one.is_chance_node() and not one.is_terminal():  # finish the round the same way in both
            a = one.legal_actions()[0]
            one.apply_action(a)
            two.apply_action(a)
        assert one.is_terminal() or one.chance_outcomes() == two.chance_outcomes()


def test_resampled_states_have_histories_that_lead_to_them():
    game = load_game("campanile", 4, "played")
    state = _play_to(game, seed=5, decisions=30)
    sampler = pyspiel.UniformProbabilitySampler(1, 0.0, 1.0)
    for _ in range(5):
        other = state.resample_from_infostate(state.current_player(), sampler)
        replay = game.new_initial_state()
        for a in other.history():
            replay.apply_action(a)
        assert str(replay) == str(other)
        assert [(x.player, x.action) for x in other.full_history() if x.player >= 0] == \
            [(x.player, x.action) for x in state.full_history() if x.player >= 0]


def test_resampling_is_uniform_over_the_hidden_cards():
    """At the first decision of a 2-player game, seat 0 sees its 3 cards and the 3 face-up ones; the
    other hand's cards are a uniform draw from the other 39 - 3 unseen cards: compare the frequency
    of each style in it with its share of the unseen cards."""
    game = load_game("campanile", 2, "pile")
    state = _play_to(game, seed=2, decisions=0)
    engine = state.core.engine
    unseen = engine.unseen_counts(0)
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    counts: Counter = Counter()
    draws = 600
    for _ in range(draws):
        other = state.resample_from_infostate(0, sampler)
        counts.update(other.core.engine.hands[1])
    total = sum(unseen)
    for style in range(5):
        expected = 3 * draws * unseen[style] / total
        sd = (3 * draws * unseen[style] / total * (1 - unseen[style] / total)) ** 0.5 * 1.6  # 3 cards: not independent
        assert abs(counts[style] - expected) < 4 * sd + 1, (style, counts, unseen)


def test_five_towers_chance_outcomes_are_the_unseen_cards():
    state = load_game("five_towers", 2, "base").new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 80 and abs(sum(p for _, p in outcomes) - 1) < 1e-12
    state.apply_action(outcomes[0][0])
    assert len(state.chance_outcomes()) == 79 and state.action_to_string(-1, outcomes[1][0]).startswith("turn ")
