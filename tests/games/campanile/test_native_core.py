"""The native (C++) Campanile core against the Python reference engine: the same fields, draws,
legal actions, scores and observations (float32, bit for bit). Skipped when ``_native`` is not built."""
from __future__ import annotations

import numpy as np
import pytest

N = pytest.importorskip("five_towers_env.games.campanile._native")

from five_towers_env.core.native import words_of_generator  # noqa: E402
from five_towers_env.games.campanile import actions as A  # noqa: E402
from five_towers_env.games.campanile.native_state import fields_of, from_python, to_python  # noqa: E402
from five_towers_env.games.campanile.observation import OBS_SIZE, encode  # noqa: E402
from five_towers_env.games.campanile.state import CampanileState  # noqa: E402

SETUPS = [(n, v, b) for n in (2, 3, 4, 5) for v in ("pile", "played") for b in ("at_least", "exact")]


def fields(core) -> dict:
    f = dict(core.fields())
    f["rng_words"] = tuple(f["rng_words"])
    return f


def pair(n: int, variant: str, bet_chip: str, seed: int):
    """The same new game on both engines."""
    py = CampanileState.new_game(n, variant, np.random.default_rng(seed), bet_chip=bet_chip)
    core = N.new_game(n, variant, bet_chip, words_of_generator(np.random.default_rng(seed)))
    return py, core


def played_pairs(seed: int, stop_every: int = 1):
    """(py, core) at every ``stop_every``-th decision of random games over every setup (one game each)."""
    for i, (n, variant, bet_chip) in enumerate(SETUPS):
        py, core = pair(n, variant, bet_chip, seed + i)
        mover = np.random.default_rng(seed + 100 + i)
        k = 0
        while True:
            if k % stop_every == 0 or py.is_terminal():
                yield py, core
            if py.is_terminal():
                break
            legal = py.legal_actions()
            a = legal[int(mover.integers(len(legal)))]
            py.apply_action(a)
            assert core.apply_action(a) is True
            k += 1


def test_sizes_match_python():
    assert N.NUM_ACTIONS == A.NUM_ACTIONS == 31
    assert N.OBS_SIZE == OBS_SIZE == 278


def test_new_game_draws_like_python():
    for n, variant, bet_chip in SETUPS:
        rng = np.random.default_rng(11)
        py = CampanileState.new_game(n, variant, rng, bet_chip=bet_chip)
        core = N.new_game(n, variant, bet_chip, words_of_generator(np.random.default_rng(11)))
        assert fields(core) == fields_of(py)  # the deal, and the generator after it
        assert core.variant == variant and core.bet_chip == bet_chip and core.num_players == n


def test_games_match_python_step_by_step():
    for py, core in played_pairs(1):
        assert core.legal_actions() == py.legal_actions()
        assert (core.phase, core.phase_name, core.current_player) == (py.phase, py.phase_name, py.current_player)
        assert core.is_terminal() == py.is_terminal()
        assert core.scores() == py.scores()
        assert fields(core) == fields_of(py)
        for seat in range(py.num_players):
            assert np.array_equal(core.observe(seat), encode(py, seat))


def test_fields_round_trip_mid_game():
    for k, (_py, core) in enumerate(played_pairs(2, stop_every=7)):
        again = N.from_fields(core.fields())
        assert fields(again) == fields(core)
        assert again.legal_actions() == core.legal_actions()
        if k % 3 == 0:
            for seat in range(core.num_players):
                assert np.array_equal(again.observe(seat), core.observe(seat))


def test_to_python_and_from_python_are_inverse():
    for py, core in played_pairs(3, stop_every=5):
        back = to_python(core)
        assert isinstance(back, CampanileState)
        assert fields_of(back) == fields_of(py) == fields(core)
        assert back.rng is not py.rng  # independent
        assert fields(from_python(py)) == fields(core)
        assert fields(from_python(back)) == fields(core)
        if not back.is_terminal():  # the converted state plays on like the original
            a = back.legal_actions()[-1]
            back.apply_action(a)
            twin = core.clone()
            assert twin.apply_action(a)
            assert fields_of(back) == fields(twin)


def test_illegal_actions_are_refused_and_change_nothing():
    for py, core in played_pairs(4, stop_every=3):
        before = fields(core)
        legal = set(core.legal_actions())
        for a in [-(2**31), -1, 0, 14, 15, 16, 30, 31, 1000, 2**31 - 1]:
            if a not in legal:
                assert core.apply_action(a) is False
        assert fields(core) == before
        assert core.legal_actions() == py.legal_actions()
    assert core.is_terminal()
    assert core.legal_actions() == [] and all(core.apply_action(a) is False for a in range(N.NUM_ACTIONS))


def test_public_view_and_determinize_match_python():
    for k, (py, core) in enumerate(played_pairs(5, stop_every=4)):
        seat = k % py.num_players
        assert fields(core.public_view(seat)) == fields_of(py.public_view(seat))
        d_py = py.determinize(seat, np.random.default_rng(k))
        d_core = core.determinize(seat, words_of_generator(np.random.default_rng(k)))
        assert fields(d_core) == fields_of(d_py)
        for s in range(py.num_players):
            assert np.array_equal(d_core.observe(s), encode(d_py, s))
        assert np.array_equal(d_core.observe(seat), core.observe(seat))  # nothing hidden shows


def test_bad_input_raises_instead_of_crashing():
    py, core = pair(3, "pile", "at_least", 0)
    for seat in (-1, 3, 99):
        with pytest.raises(IndexError):
            core.observe(seat)
        with pytest.raises(IndexError):
            core.public_view(seat)
    with pytest.raises(ValueError):
        N.new_game(6, "pile", "at_least", words_of_generator(np.random.default_rng(0)))
    with pytest.raises(ValueError):
        N.new_game(2, "tower", "at_least", words_of_generator(np.random.default_rng(0)))
    with pytest.raises(ValueError):
        N.new_game(2, "pile", "most", words_of_generator(np.random.default_rng(0)))
    good = core.fields()
    for key, value in [("hands", [(0, 0, 0, 0, 0)] * 3), ("piles", [[0], [7], [1]]), ("phase", 2),
                       ("current_player", 3), ("bets", [((5, 1),), (), (), (), ()]),
                       ("revealed", [(4, 4), (), ()]), ("played_storeys", 2), ("hands", [(), (0, 1, 2), (0, 1, 2)])]:
        with pytest.raises(ValueError):
            N.from_fields({**good, key: value})
    bad = dict(good)
    del bad["turns"]
    with pytest.raises(ValueError):
        N.from_fields(bad)
    py.rng = None
    with pytest.raises(ValueError):
        from_python(py)


def test_random_playouts_run():
    _, core = pair(4, "played", "exact", 0)
    assert N.random_playouts(core, 20, 0) > 20 * 10
    decisions, seconds = N._bench_random_games(2, "pile", "at_least", 20, 0, True)
    assert decisions > 20 * 10 and seconds >= 0
