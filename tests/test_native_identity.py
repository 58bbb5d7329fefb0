"""The native cores give the same games as the Python reference engines, step for step.

For every game with a native core and every setup (players x variants x the game's options), seeded
games with uniformly random legal moves are played on both engines in lockstep from the same seed, and
at every step the two must agree on the seat on move, the phase, the legal actions and the mask, the
scores, the end, the observation of the seat on move (every seat's for the first games of each setup),
and at the end the winners and returns (:func:`five_towers_env.core.native.identity.play_lockstep`). The
games per setup: ``FIVE_TOWERS_IDENTITY_GAMES`` (a few dozen in the suite; CI's .ci/identity.sh plays 1,000
per setup, and tools/native_identity.py the 20,000-game soak recorded in results/native_identity/).

Also here: the same seed deals the same game through ``GameSpec.new_state`` on both backends, the
switch (``FIVE_TOWERS_ENGINE``), conversions both ways at random points, and the batched vector
environment against single games.
"""
from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.game import get_game, load
from five_towers_env.core.native.identity import Mismatch, play_lockstep

pytestmark = pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}")

GAMES_PER_SETUP = int(os.environ.get("FIVE_TOWERS_IDENTITY_GAMES", "24"))
ALL_SEATS_GAMES = min(GAMES_PER_SETUP, int(os.environ.get("FIVE_TOWERS_IDENTITY_ALL_SEATS", "2000")))
#: the games' own settings beyond players and variant, each with every value
OPTIONS = {"five_towers": [{}], "campanile": [{"bet_chip": "at_least"}, {"bet_chip": "exact"}]}


def _setups() -> list[tuple[str, int, str, dict]]:
    out = []
    for name, options in OPTIONS.items():
        spec = get_game(name)
        seats = range(spec.min_players, spec.max_players + 1)
        for n, variant, opts in itertools.product(seats, spec.variants, options):
            out.append((name, n, variant, opts))
    return out


SETUPS = _setups()


def _id(setup: tuple) -> str:
    name, n, variant, opts = setup
    return f"{name}-{n}p-{variant}" + "".join(f"-{v}" for v in opts.values())


def _pair(name: str, n: int, variant: str, opts: dict, seed: int):
    spec = get_game(name)
    python = load(spec.engine)(n, variant, np.random.default_rng(seed), **opts)
    native = load(spec.native_engine)(n, variant, np.random.default_rng(seed), **opts)
    return spec, python, native


@pytest.mark.parametrize("setup", SETUPS, ids=[_id(s) for s in SETUPS])
def test_random_games_are_identical(setup):
    name, n, variant, opts = setup
    decisions = sum(play_lockstep(name, n, variant, opts, seed, seed < ALL_SEATS_GAMES).decisions
                    for seed in range(GAMES_PER_SETUP))
    assert decisions >= GAMES_PER_SETUP * 10


def test_a_difference_is_caught(monkeypatch):
    """The check can fail: a native core whose scores are off by one is named at the first step."""
    from five_towers_env.core.native.wrapper import NativeState

    monkeypatch.setattr(NativeState, "scores", lambda self: [s + 1 for s in self.core.scores()])
    with pytest.raises(Mismatch, match="seed 3 step 0: scores"):
        play_lockstep("campanile", 2, "pile", {"bet_chip": "at_least"}, 3)


@pytest.mark.parametrize("setup", SETUPS, ids=[_id(s) for s in SETUPS])
def test_conversions_at_random_points(setup):
    """A native state turned into a Python one (and back) mid-game plays on identically."""
    name, n, variant, opts = setup
    spec = get_game(name)
    native_module = load(spec.native_engine.partition(":")[0] + ":from_python")
    for seed in range(6):
        _, py, nat = _pair(name, n, variant, opts, 500 + seed)
        moves = np.random.default_rng(seed)
        while not py.is_terminal():
            if moves.random() < 0.1:
                mirror = nat.to_python()
                assert mirror.legal_actions() == py.legal_actions()
                back = native_module(mirror)
                assert back.legal_actions() == nat.legal_actions()
                assert np.array_equal(back.observe(py.current_player), nat.observe(py.current_player))
                nat = back  # play on from the round trip
            legal = py.legal_actions()
            a = legal[int(moves.integers(len(legal)))]
            py.apply_action(a)
            nat.apply_action(a)
        assert nat.scores() == py.scores()


@pytest.mark.parametrize("name", list(OPTIONS))
def test_new_state_deals_the_same_game_on_both_backends(name, monkeypatch):
    spec = get_game(name)
    states = {}
    for backend in ("python", "native"):
        monkeypatch.setenv("FIVE_TOWERS_ENGINE", backend)
        assert spec.backend() == backend
        states[backend] = spec.new_state(3, seed=123)
        assert states[backend].backend == backend
    py, nat = states["python"], states["native"]
    assert nat.to_python().__dict__.keys() >= {"num_players"}
    assert spec.position_of(nat) == spec.position_of(py)


def test_forcing_a_backend(monkeypatch):
    import five_towers_env
    from five_towers_env.core import backend

    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")
    assert five_towers_env.engine_backend() == "python"
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")
    assert five_towers_env.engine_backend() == "native"
    monkeypatch.delenv("FIVE_TOWERS_ENGINE")
    assert five_towers_env.engine_backend() == "native"
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "rust")
    with pytest.raises(ValueError, match="must be 'native' or 'python'"):
        five_towers_env.engine_backend()
    # a core that did not build: native asked for is an error that says why
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "native")
    monkeypatch.setattr(backend, "native_built", lambda modules=None: (False, "no compiler"))
    with pytest.raises(backend.NativeUnavailableError, match="no compiler"):
        five_towers_env.engine_backend()


@pytest.mark.parametrize("setup", [s for s in SETUPS if s[1] in (2, 4)], ids=[_id(s) for s in SETUPS if s[1] in (2, 4)])
def test_vector_env_plays_the_games_the_single_engine_plays(setup):
    """Game i of the vector env, reset with seed s, is the game default_rng(s + i) deals, move for move."""
    from five_towers_env.core.vector_env import VectorGameEnv

    name, n, variant, opts = setup
    spec = get_game(name)
    env = VectorGameEnv(name, 4, n, variant, explicit=True, **opts)
    obs, mask, seat = env.reset(seed=77)
    singles = [load(spec.native_engine)(n, variant, np.random.default_rng(77 + i), **opts) for i in range(4)]
    pythons = [load(spec.engine)(n, variant, np.random.default_rng(77 + i), **opts) for i in range(4)]
    moves = np.random.default_rng(1)
    finished = 0
    for _ in range(400):
        for i, (s, p) in enumerate(zip(singles, pythons)):
            assert seat[i] == p.current_player
            assert np.flatnonzero(mask[i]).tolist() == p.legal_actions()
            assert np.array_equal(obs[i], s.observe(p.current_player))
        acts = np.array([p.legal_actions()[int(moves.integers(len(p.legal_actions())))] for p in pythons])
        obs, mask, seat, rewards, done = env.step(acts)
        for i, p in enumerate(pythons):
            p.apply_action(int(acts[i]))
            singles[i].apply_action(int(acts[i]))
            if p.is_terminal():
                assert done[i]
                assert rewards[i, :n].tolist() == p.returns()
                assert env.scores[i, :n].tolist() == p.scores()
                finished += 1
                # the next game continues the finished one's generator, as the AEC env's unseeded reset
                pythons[i] = load(spec.engine)(n, variant, p.rng, **opts)
                singles[i] = load(spec.native_engine)(n, variant, singles[i].rng, **opts)
            else:
                assert not done[i]
    assert finished >= 1


def test_vector_env_refuses_bad_actions_and_changes_nothing():
    from five_towers_env.core.vector_env import VectorGameEnv

    env = VectorGameEnv("five_towers", 3, 2)
    obs, mask, seat = env.reset(seed=5)
    before = obs.copy()
    acts = np.array([int(np.flatnonzero(mask[i])[0]) for i in range(3)])
    acts[1] = 306 if not mask[1, 306] else 0
    with pytest.raises(ValueError, match="game 1"):
        env.step(acts)
    assert np.array_equal(env.obs, before)
    with pytest.raises(ValueError, match="integer ids"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError):
        env.reset(seed=-1)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_bad_actions_raise_what_the_python_engine_raises(name):
    """Out of range, wrongly typed, illegal now, or after the end: the same error type and message on both
    backends, and neither state changes."""
    spec = get_game(name)
    _, py, nat = _pair(name, 3, spec.default_variant, {}, 9)
    moves = np.random.default_rng(0)

    def outcome(state, action):
        try:
            state.apply_action(action)
        except Exception as exc:  # the type and the message are what is compared
            return type(exc), str(exc)
        return None

    for step in range(10_000):
        illegal = [a for a in range(spec.num_actions) if a not in py.legal_actions()][:3]
        bad = [-1, spec.num_actions, 10**12, -(2**70), "bid 3", None, [1], *illegal]
        if step % 7 == 0 or py.is_terminal():
            for action in bad:
                before = spec.position_of(py)
                assert outcome(nat, action) == outcome(py, action), (step, action)
                assert spec.position_of(nat) == spec.position_of(py) == before
        if py.is_terminal():
            break
        legal = py.legal_actions()
        a = legal[int(moves.integers(len(legal)))]
        py.apply_action(a)
        nat.apply_action(a)
    assert py.is_terminal()
