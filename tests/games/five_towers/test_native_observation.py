"""The native (C++) observation equals the Python ``encode``, bit for bit.

Seeded random games of every setup (2..5 players, base and Great Powers) are played side by side on
the reference engine and the native core; at every step every seat's native observation (both the
returned array and the one written into a caller's buffer) must equal ``observation.encode`` exactly
(``np.array_equal``: the same float32 bits, the same zeros). Skipped when the native module is not built.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

native = pytest.importorskip("five_towers_env.games.five_towers._native")

from five_towers_env.games.five_towers.native_engine import new_core  # noqa: E402
from five_towers_env.games.five_towers.observation import OBS_SIZE, encode  # noqa: E402
from five_towers_env.games.five_towers.state import VARIANTS, GameState  # noqa: E402

SETUPS = [(n, v) for n in range(2, 6) for v in VARIANTS]
GAMES = 8  # per setup: each game runs to its end (every phase, the reshuffle, game over)


def _games(n: int, variant: str, seed: int) -> Iterator[tuple[GameState, Any]]:
    """Yield (python state, native core) after every move of one seeded random game, end included."""
    moves = np.random.default_rng(seed)
    start = int(moves.integers(n))
    py = GameState.new_game(n, variant, np.random.default_rng(seed + 1), start_player=start)
    core = new_core(n, variant, np.random.default_rng(seed + 1), start)
    while True:
        yield py, core
        if py.is_terminal():
            assert core.is_terminal()
            return
        legal = py.legal_actions()
        assert core.legal_actions() == legal
        a = legal[int(moves.integers(len(legal)))]
        py.apply_action(a)
        assert core.apply_action(a)


def test_obs_size() -> None:
    assert native.OBS_SIZE == OBS_SIZE == 2116


@pytest.mark.parametrize(("n", "variant"), SETUPS)
def test_observation_matches_python(n: int, variant: str) -> None:
    out = np.full(OBS_SIZE, np.nan, dtype=np.float32)  # a reused buffer: every value must be overwritten
    steps = 0
    for g in range(GAMES):
        for py, core in _games(n, variant, seed=1000 * n + 100 * VARIANTS.index(variant) + g):
            steps += 1
            for seat in range(n):
                want = encode(py, seat)
                got = core.observe(seat)
                assert got.dtype == np.float32 and got.shape == (OBS_SIZE,)
                if not np.array_equal(got, want):
                    bad = np.flatnonzero(got != want)[:8]
                    pytest.fail(f"game {g} step {steps} seat {seat} phase {py.phase_name}: offsets {bad.tolist()} "
                                f"native {got[bad].tolist()} python {want[bad].tolist()}")
                core.observe(seat, out)
                assert np.array_equal(out, want)
    assert steps > 10 * GAMES


@pytest.mark.parametrize("n", range(2, 6))
def test_seat_out_of_range(n: int) -> None:
    core = new_core(n, "great_powers", np.random.default_rng(n))
    for seat in (-1, n, 5, -(2**31)):
        with pytest.raises(IndexError):
            core.observe(seat)
        with pytest.raises(IndexError):
            core.observe(seat, np.zeros(OBS_SIZE, dtype=np.float32))
