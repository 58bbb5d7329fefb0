"""The native (C++) 5 Towers core against the Python engine: identical play, fields round trips,
conversions both ways, illegal actions refused, public views and determinisations (skipped when the
extension module is not built)."""
from __future__ import annotations

import random

import numpy as np
import pytest

_native = pytest.importorskip("five_towers_env.games.five_towers._native")

from five_towers_env.core.native import generator_from_words, words_of_generator  # noqa: E402
from five_towers_env.games.five_towers.native_state import from_python, python_fields, to_python  # noqa: E402
from five_towers_env.games.five_towers.state import GameState  # noqa: E402

SETUPS = [(n, v) for v in ("base", "great_powers") for n in range(2, 6)]


def _pair(n: int, variant: str, seed: int):
    py = GameState.new_game(n, variant, np.random.default_rng(seed))
    nat = _native.new_game(n, variant, rng_words=words_of_generator(np.random.default_rng(seed)))
    return py, nat


def _fields(nat) -> dict:
    f = nat.fields()
    f.pop("first_player")
    return f


def _same(py: GameState, nat) -> None:
    assert nat.legal_actions() == py.legal_actions()
    assert nat.phase == int(py.phase) and nat.phase_name == py.phase_name
    assert nat.current_player == py.current_player
    assert nat.is_terminal() == py.is_terminal()
    assert nat.scores() == py.scores()


@pytest.mark.parametrize("n,variant", SETUPS)
def test_random_games_match_python(n: int, variant: str) -> None:
    for seed in range(6):
        py, nat = _pair(n, variant, seed)
        rnd = random.Random(seed)
        while True:
            _same(py, nat)
            if py.is_terminal():
                break
            a = rnd.choice(py.legal_actions())
            py.apply_action(a)
            assert nat.apply_action(a)
        assert _fields(nat) == python_fields(py)
        assert tuple(nat.rng_words()) == words_of_generator(py.rng)


@pytest.mark.parametrize("n,variant", SETUPS)
def test_fields_and_conversions_round_trip(n: int, variant: str) -> None:
    for seed in range(3):
        py, nat = _pair(n, variant, 100 + seed)
        rnd = random.Random(seed)
        step = 0
        while not nat.is_terminal():
            if rnd.random() < 0.1:
                f = nat.fields()
                again = _native.from_fields(f)
                assert again.fields() == f
                assert again.legal_actions() == nat.legal_actions()
                back = to_python(nat)  # an exact, independent Python state
                assert python_fields(back) == python_fields(py) == _fields(nat)
                assert back.legal_actions() == py.legal_actions()
                assert _fields(from_python(py)) == _fields(nat)
                # both go on alike from the converted states for a few moves
                fork_py, fork_nat = back, from_python(py)
                r2 = random.Random(step)
                for _ in range(8):
                    _same(fork_py, fork_nat)
                    if fork_py.is_terminal():
                        break
                    a = r2.choice(fork_py.legal_actions())
                    fork_py.apply_action(a)
                    assert fork_nat.apply_action(a)
                assert python_fields(fork_py) == _fields(fork_nat)
            a = rnd.choice(nat.legal_actions())
            py.apply_action(a)
            nat.apply_action(a)
            step += 1


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    for n, variant in SETUPS:
        py, nat = _pair(n, variant, 7)
        rnd = random.Random(n)
        while True:
            before = nat.fields()
            legal = set(nat.legal_actions())
            for a in (-1, -(2**31), _native.NUM_ACTIONS, _native.NUM_ACTIONS + 5, 2**31 - 1):
                assert nat.apply_action(a) is False
            illegal = [a for a in range(_native.NUM_ACTIONS) if a not in legal]
            for a in rnd.sample(illegal, min(10, len(illegal))):
                assert nat.apply_action(a) is False
            assert nat.fields() == before
            assert set(nat.legal_actions()) == legal
            if nat.is_terminal():
                assert all(not nat.apply_action(a) for a in range(_native.NUM_ACTIONS))
                break
            nat.apply_action(rnd.choice(sorted(legal)))


def test_public_view_and_determinize_match_python() -> None:
    for n, variant in SETUPS:
        py, nat = _pair(n, variant, 11)
        rnd = random.Random(3)
        k = 0
        while not py.is_terminal():
            if rnd.random() < 0.05:
                seat = rnd.randrange(n)
                assert _fields(nat.public_view(seat)) == python_fields(py.public_view(seat))
                k += 1
                det_py = py.determinize(seat, np.random.default_rng(k))
                det_nat = nat.determinize(seat, words_of_generator(np.random.default_rng(k)))
                assert _fields(det_nat) == python_fields(det_py)
                # the copies play on alike
                for _ in range(5):
                    _same(det_py, det_nat)
                    if det_py.is_terminal():
                        break
                    a = det_py.legal_actions()[0]
                    det_py.apply_action(a)
                    det_nat.apply_action(a)
                assert _fields(nat) == python_fields(py)  # the originals are untouched
            a = rnd.choice(py.legal_actions())
            py.apply_action(a)
            nat.apply_action(a)


def test_construction_errors() -> None:
    words = words_of_generator(np.random.default_rng(0))
    with pytest.raises(ValueError):
        _native.new_game(1, "base", rng_words=words)
    with pytest.raises(ValueError):
        _native.new_game(6, "base", rng_words=words)
    with pytest.raises(ValueError):
        _native.new_game(3, "nope", rng_words=words)
    with pytest.raises(ValueError):
        _native.new_game(3, "base", rng_words=words, start_player=3)
    nat = _native.new_game(3, "base", rng_words=words, start_player=2)
    assert nat.current_player == 2
    py = GameState.new_game(3, "base", np.random.default_rng(0), start_player=2)
    assert python_fields(py) == _fields(nat)
    f = nat.fields()
    f["deck"] = f["deck"] + [f["deck"][0]] * 3  # more copies than the card set holds
    with pytest.raises(ValueError):
        _native.from_fields(f)
    with pytest.raises(IndexError):
        nat.observe(3)
    with pytest.raises(ValueError):
        py.rng = np.random.Generator(np.random.MT19937(0))
        from_python(py)
    fresh = _native.new_game(3, "base", rng_words=words)
    assert generator_from_words(fresh.rng_words()).bit_generator.state == \
        GameState.new_game(3, "base", np.random.default_rng(0)).rng.bit_generator.state
