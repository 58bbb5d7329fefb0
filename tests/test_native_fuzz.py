"""Bad input never crashes the interpreter: random calls to every game's native API.

At least 100,000 calls in all (``FIVE_TOWERS_FUZZ_CALLS`` per game, default 50,000 for each of the two
games): actions of any int (legal, illegal, out of range, huge, negative) and of other types, steps after
the end, seats out of range, output arrays of the wrong dtype, shape or layout, generator words of any
value, vector environments given bad arrays, and ``from_fields`` given damaged fields. Every call either
works or raises a Python exception of the expected kinds, and an illegal action leaves the state as it was
(its fields unchanged). CI runs this file again on a build with AddressSanitizer and UBSan (.ci/sanitize.sh).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from five_towers_env.core.backend import native_built
from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.game import get_game, load

pytestmark = pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}")

CALLS = int(os.environ.get("FIVE_TOWERS_FUZZ_CALLS", "50000"))
#: what a bad call may raise at the boundary (never a crash, never another kind)
EXPECTED = (ValueError, TypeError, IndexError, OverflowError, KeyError, RuntimeError)
SETTINGS = {"five_towers": (["base", "great_powers"], {}), "campanile": (["pile", "played"], {"bet_chip": "exact"})}


def _odd_int(rng: np.random.Generator) -> object:
    return rng.choice(np.array([-1, -2, 10**6, 2**31, -(2**31) - 1, 2**63, -(2**70), 307, 10**4], dtype=object))


def _damaged(fields: dict, rng: np.random.Generator) -> dict:
    out = dict(fields)
    key = list(out)[int(rng.integers(len(out)))]
    choice = int(rng.integers(6))
    value = out[key]
    if choice == 0:
        out[key] = _odd_int(rng)
    elif choice == 1:
        out[key] = "nonsense"
    elif choice == 2:
        out.pop(key)
    elif choice == 3 and isinstance(value, (list, tuple)) and value:
        out[key] = list(value)[:-1]
    elif choice == 4 and isinstance(value, (list, tuple)):
        out[key] = [*list(value), _odd_int(rng)]
    else:
        out[key] = None
    return out


@pytest.mark.parametrize("name", list(SETTINGS))
def test_random_calls_never_crash(name):
    spec = get_game(name)
    engine = load(spec.native_engine.partition(":")[0] + ":core_module")
    new_game = load(spec.native_engine)
    variants, options = SETTINGS[name]
    rng = np.random.default_rng(2026)
    state = new_game(3, variants[0], np.random.default_rng(0), **options)
    core = state.core
    raised = 0
    for call in range(CALLS):
        kind = int(rng.integers(14))
        try:
            if kind <= 3:  # mostly legal moves, so that games run to their ends
                legal = core.legal_actions()
                if legal and rng.random() < 0.9:
                    assert core.apply_action(int(legal[int(rng.integers(len(legal)))]))
                else:
                    before = core.fields()
                    a = int(rng.integers(-5, engine.NUM_ACTIONS + 5))
                    if a not in legal:
                        assert not core.apply_action(a)
                        assert core.fields() == before
            elif kind == 4:
                before = core.fields()
                with pytest.raises((IllegalActionError, TypeError, ValueError)):
                    odd = _odd_int(rng) if rng.random() < 0.7 else ["bid 3", None, [1]][int(rng.integers(3))]
                    state.apply_action(odd)
                assert core.fields() == before
            elif kind == 5:
                core.observe(int(rng.integers(-3, 8)))
            elif kind == 6:
                shape = (engine.OBS_SIZE + int(rng.integers(-1, 2)),)
                dtype = [np.float32, np.float64, np.int8][int(rng.integers(3))]
                core.observe(int(rng.integers(0, 3)), np.zeros(shape, dtype=dtype))
            elif kind == 7:
                out = np.zeros((engine.NUM_ACTIONS, 2), dtype=np.int8)[:, 0]  # not contiguous
                core.mask(out if rng.random() < 0.5 else np.zeros(engine.NUM_ACTIONS, dtype=np.int8))
            elif kind == 8:
                core.public_view(int(rng.integers(-2, 6)))
            elif kind == 9:
                words = [int(x) for x in rng.integers(0, 2**63, size=6)]
                words[int(rng.integers(6))] = int(_odd_int(rng))
                core.determinize(int(rng.integers(-1, 4)), words)
            elif kind == 10:
                core.set_rng_words([int(x) for x in rng.integers(0, 2**63, size=6)])
                core.scores()
            elif kind == 11:
                engine.from_fields(_damaged(core.fields(), rng))
            elif kind == 12:
                core = core.clone() if rng.random() < 0.5 else core.public_view(0)
            else:
                if core.is_terminal() or rng.random() < 0.02:
                    variant = variants[int(rng.integers(len(variants)))]
                    state = new_game(int(rng.integers(2, 6)), variant, np.random.default_rng(call), **options)
                    core = state.core
        except EXPECTED:
            raised += 1
    assert raised > CALLS // 50  # the bad calls were made, and refused


@pytest.mark.parametrize("name", list(SETTINGS))
def test_vector_env_refuses_bad_arrays(name):
    from five_towers_env.core.vector_env import VectorGameEnv

    variants, options = SETTINGS[name]
    env = VectorGameEnv(name, 4, 2, variants[0], **options)
    core = env._core
    rng = np.random.default_rng(0)
    bad_arrays = [np.zeros(3, dtype=np.float32), np.zeros((4, 2), dtype=np.float64), np.zeros(4, dtype=np.int64), None,
                  np.zeros(0, dtype=np.uint8)]
    for _ in range(2000):
        args = [bad_arrays[int(rng.integers(len(bad_arrays)))] for _ in range(4)]
        with pytest.raises(EXPECTED):
            core.step(*args)
        with pytest.raises(EXPECTED):
            core.write(*args[:3])
    with pytest.raises(EXPECTED):
        core.state(10)
    with pytest.raises(EXPECTED):
        core.reset(np.zeros(3, dtype=np.uint64))
    for _ in range(300):  # random actions, mostly legal: the games run on through their resets
        acts = np.where(rng.random(4) < 0.9, -1, rng.integers(-3, 400, size=4))
        try:
            env.step(acts)
        except ValueError:
            pass
