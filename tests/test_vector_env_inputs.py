"""What the native vector environments and the native generators' calls accept from a caller.

- **Actions are ints.** ``VectorGameEnv.step``, the Gymnasium vector env's ``step`` (both opponent paths) and
  the raw ``_native.VectorEnv.step`` / ``learner_step`` take integer arrays and sequences of Python or numpy
  ints; a float (0.9 was played as 0), a string ("1" was played as 1), a bool, inf or NaN is refused as an
  illegal action is (``ValueError``), and no game moves. So is a uint64 id above int64 (it wrapped to -1,
  RANDOM) and, for the Gymnasium env's learner, a negative id (RANDOM / SKIP are no learner's moves).
- **Generator words.** ``rng_words`` of the wrong length raise ``ValueError`` (it was a RuntimeError
  "Unable to cast"), a non-int ``TypeError``, in every native call that takes them.
- **Size.** ``num_envs`` above :data:`~five_towers_env.core.vector_env.MAX_ENVS` (now 2**18), or beyond the
  available memory, is refused in one line before anything is allocated.
- **Close.** A closed environment refuses further steps with ``RuntimeError`` (the Gymnasium one kept stepping).
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

from five_towers_env.core import vector_env
from five_towers_env.core.backend import native_built
from five_towers_env.core.game import get_game, load
from five_towers_env.core.vector_env import VectorGameEnv

pytestmark = pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}")

GAMES = ["five_towers", "campanile"]
NOT_INTS = [[0.9, 0.0], np.array([0.9, 1.0]), ["1", "1"], np.array(["1", "1"]), [True, 1], np.array([True, False]),
            [float("inf"), 1], [float("nan"), 1], np.array([np.nan, 1.0]), [None, 1], [1.0, 1],
            np.array([2**64 - 1, 0], dtype=np.uint64), [1, 2**70]]


def _module(game: str):
    return load(get_game(game).native_engine.partition(":")[0] + ":core_module")


def _fields(env: VectorGameEnv) -> list[dict]:
    return [s.fields() for s in env.native_states(range(env.num_envs), view=False)]


def _legal(mask: np.ndarray) -> list[int]:
    return [int(np.flatnonzero(row)[-1]) for row in mask]


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_refuses_actions_that_are_not_ints(game):
    env = VectorGameEnv(game, num_envs=2)
    env.reset(3)
    before = _fields(env)
    for bad in NOT_INTS:
        with pytest.raises(ValueError, match=r"^illegal action .* in game [01] \(.*no game was stepped\)$"):
            env.step(bad)
        assert _fields(env) == before, f"{bad!r} moved a game"
    legal = _legal(env.mask)
    env.step([np.int16(legal[0]), legal[1]])  # numpy and Python ints
    assert _fields(env) != before
    env.step(np.array(_legal(env.mask), dtype=np.uint16))  # any integer dtype


@pytest.mark.parametrize("game", GAMES)
def test_raw_vector_env_refuses_actions_that_are_not_ints(game):
    module = _module(game)
    env = VectorGameEnv(game, num_envs=2)
    core = env._core
    rewards, done, scores = np.zeros((2, 5), np.float32), np.zeros(2, np.uint8), np.zeros((2, 5), np.int32)
    reward, final_obs = np.zeros(2, np.float32), np.zeros((2, module.OBS_SIZE), np.float32)
    learner = np.array([env.seat[0], env.seat[1]], dtype=np.int32)
    before = _fields(env)
    for bad in NOT_INTS:
        with pytest.raises(ValueError, match=r"^illegal action .* in game [01] \("):
            core.step(bad, rewards, done, scores)
        with pytest.raises(ValueError, match=r"^illegal action .* in game [01] \("):
            core.learner_step(bad, learner, reward, done, final_obs)
        assert _fields(env) == before, f"{bad!r} moved a game"
    core.step([module.RANDOM, np.int64(module.SKIP)], rewards, done, scores)


@pytest.mark.parametrize("opponents", ["random", "greedy"])
@pytest.mark.parametrize("game", GAMES)
def test_gym_vector_env_refuses_actions_that_are_not_learner_ids(game, opponents):
    gymnasium = pytest.importorskip("gymnasium")
    if not hasattr(gymnasium.vector, "AutoresetMode"):
        pytest.skip("gymnasium < 1.0: no vector entry points")
    env = gymnasium.make_vec(get_game(game).gymnasium_id, num_envs=2, vectorization_mode="vector_entry_point",
                             opponents=opponents)
    _, infos = env.reset(seed=5)
    inner = env.unwrapped.env
    before = _fields(inner)
    legal = _legal(infos["action_mask"])
    for bad in [*NOT_INTS, [legal[0], -1], [-2, legal[1]]]:
        with pytest.raises(ValueError, match=r"^illegal action .* in game [01] \("):
            env.step(bad)
        assert _fields(inner) == before, f"{bad!r} moved a game"
    env.step(np.array(legal, dtype=np.int16).reshape(2, 1))  # an integer column, as some learners give


@pytest.mark.parametrize("game", GAMES)
def test_rng_words_of_the_wrong_length_or_type_are_refused(game):
    module = _module(game)
    state = _module(game).from_fields(load(get_game(game).native_engine.replace(":new_game", ":new_core"))(
        2, get_game(game).default_variant, np.random.default_rng(0)).fields())
    new_game = ((lambda w: module.new_game(2, "base", w)) if game == "five_towers"
                else (lambda w: module.new_game(2, "pile", "exact", w)))
    calls = {
        "determinize": lambda w: state.determinize(0, w),
        "set_rng_words": lambda w: state.set_rng_words(w),
        "new_game": new_game,
        "greedy_action": lambda w: module.greedy_action(state, state.current_player, state.legal_actions(), w),
        "greedy_actions": lambda w: module.greedy_actions([state], [w]),
        "from_fields": lambda w: module.from_fields({**state.fields(), "rng_words": w}),
    }
    for call in calls.values():
        for words in ([1, 2, 3], list(range(7)), [1, 2, 3, 4, 5, -1], [1, 2, 3, 4, 5, 2**64]):
            with pytest.raises(ValueError, match="rng_words"):
                call(words)
        for words in ("abcdef", None, [1, 2, 3, 4, 5, 1.5]):
            with pytest.raises((TypeError, ValueError), match="rng_words"):
                call(words)
        call(np.arange(6, dtype=np.uint64))  # numpy words do
        call(state.rng_words())


def test_num_envs_above_the_maximum_is_refused():
    assert vector_env.MAX_ENVS == 2**18
    with pytest.raises(ValueError, match=r"^num_envs must be an integer from 1 to 262,144"):
        VectorGameEnv("campanile", num_envs=2**18 + 1)
    module = _module("campanile")
    template = VectorGameEnv("campanile", num_envs=1)._core.state(0)
    with pytest.raises(ValueError, match="num_envs must be 1..262144"):
        module.VectorEnv(template, 2**18 + 1)


@pytest.mark.parametrize("game", GAMES)
def test_num_envs_beyond_the_available_memory_is_refused(game, monkeypatch):
    monkeypatch.setattr(vector_env, "available_memory", lambda: 50_000_000)
    with pytest.raises(ValueError) as refused:
        VectorGameEnv(game, num_envs=200_000)
    message = str(refused.value)
    assert "\n" not in message and "num_envs=200,000 needs about" in message and "use fewer games" in message
    VectorGameEnv(game, num_envs=16)  # what fits is made
    gymnasium = pytest.importorskip("gymnasium")
    if hasattr(gymnasium.vector, "AutoresetMode"):  # the Gymnasium env keeps more per game: refused sooner
        per_game = vector_env.game_bytes(_module(game))
        with pytest.raises(ValueError, match="GymVectorEnv: num_envs="):
            gymnasium.make_vec(get_game(game).gymnasium_id, num_envs=50_000_000 // per_game - 10,
                               vectorization_mode="vector_entry_point")


def test_available_memory_reads_the_machine():
    available = vector_env.available_memory()
    assert available is None or available > 0
    if sys.platform.startswith("linux"):  # /proc/meminfo's MemAvailable
        assert available is not None


@pytest.mark.parametrize("game", GAMES)
def test_a_closed_environment_refuses_to_step(game):
    env = VectorGameEnv(game, num_envs=2)
    env.close()
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step([-1, -1])
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(1)
    gymnasium = pytest.importorskip("gymnasium")
    if not hasattr(gymnasium.vector, "AutoresetMode"):
        return
    gym_env = gymnasium.make_vec(get_game(game).gymnasium_id, num_envs=2, vectorization_mode="vector_entry_point")
    _, infos = gym_env.reset(seed=1)
    gym_env.close()
    with pytest.raises(RuntimeError, match="closed"):
        gym_env.step(_legal(infos["action_mask"]))
