"""Several Python threads on one native vector environment, and on shared native states: the stress that
tests/test_native_threads.py runs in a subprocess (a segfault then fails the test instead of killing pytest).

    python tests/native_thread_stress.py TARGET [GAME ...]

TARGET is ``vector`` (one :class:`~five_towers_env.core.vector_env.VectorGameEnv`), ``gym`` (one
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` env, native random opponents and batched
compiled ones), ``raw`` (one ``_native.VectorEnv``) or ``states`` (the compiled agents' batched calls, which
read states with the GIL released, on states another thread keeps moving). Each thread makes
``FIVE_TOWERS_THREAD_CALLS`` calls (default 600) of a random mix of steps, resets, reads and writes; then
every game must still be a valid state (``from_fields(fields())`` round-trips, a legal move where the game is
not over) and the environment's arrays must agree with its games. ``vector`` and ``gym`` end with a
``close()`` while the other threads step, which must leave them a clear error, not a crash. Prints one
``ok`` line per game and exits 0; a damaged state fails an assertion (exit 1), a crash kills the process.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from five_towers_env.core.game import get_game, load
from five_towers_env.core.native import words_of_generator

THREADS = 4
CALLS = int(os.environ.get("FIVE_TOWERS_THREAD_CALLS", "600"))  # per thread, in all rounds
ROUNDS = 4
NUM_ENVS = 16  # the Gymnasium vector env's games
VECTOR_ENVS = 64  # VectorGameEnv's: longer native calls, more of them overlap
RAW_ENVS = 96
SHARED_STATES = 6
#: what a call may answer when another thread changed the games under it (a mask read before its step)
STALE = "illegal action"
CLOSED = "closed"


def core_module(game: str) -> Any:
    return load(get_game(game).native_engine.partition(":")[0] + ":core_module")


def template(game: str, players: int = 2) -> Any:
    spec = get_game(game)
    return load(spec.native_engine.replace(":new_game", ":new_core"))(players, spec.default_variant,
                                                                     np.random.default_rng(0))


def check_state(module: Any, state: Any) -> None:
    """A valid game: its fields round-trip through from_fields, and it has a legal move unless it is over."""
    fields = state.fields()
    assert module.from_fields(fields).fields() == fields, "from_fields(fields()) does not round-trip"
    if not state.is_terminal():
        assert state.legal_actions(), "a game in progress without a legal move"
        assert state.mask().any(), "a game in progress with an empty mask"


def legal_choices(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal id per row of ``mask``, uniformly (a row with none: RANDOM)."""
    weights = rng.random(mask.shape) * (mask != 0)
    return np.where(weights.any(axis=1), weights.argmax(axis=1), -1).astype(np.int64)


def run_threads(work: Callable[[int, np.random.Generator], int], threads: int = THREADS) -> int:
    """``work(thread, rng)`` on ``threads`` threads started together; its calls in all. A thread's
    unexpected exception is raised here."""
    errors: list[BaseException] = []
    counts = [0] * threads
    barrier = threading.Barrier(threads)

    def body(k: int) -> None:
        try:
            barrier.wait()
            counts[k] = work(k, np.random.default_rng(1000 + k))
        except BaseException as exc:  # (handed to the main thread)
            errors.append(exc)

    pool = [threading.Thread(target=body, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
    return sum(counts)


def in_rounds(work: Callable[[int, np.random.Generator], int], check: Callable[[], None]) -> int:
    """``ROUNDS`` rounds of :func:`run_threads`, ``check()`` of every game after each (a damaged game is found
    before it ends and is dealt again); the calls in all."""
    calls = 0
    for _ in range(ROUNDS):
        calls += run_threads(work)
        check()
    return calls


def tolerated(exc: ValueError, *allowed: str) -> None:
    if not any(text in str(exc) for text in allowed):
        raise exc


# -- VectorGameEnv -------------------------------------------------------------------------------------------

def stress_vector(game: str) -> int:
    from five_towers_env.core.vector_env import RANDOM, VectorGameEnv

    module = core_module(game)
    env = VectorGameEnv(game, num_envs=VECTOR_ENVS, num_players=3)

    def work(k: int, rng: np.random.Generator) -> int:
        for _ in range(CALLS // ROUNDS):
            op = rng.integers(10)
            try:
                if op < 4:
                    env.step(np.full(VECTOR_ENVS, RANDOM))
                elif op < 7:
                    env.step(legal_choices(env.mask.copy(), rng))
                elif op == 7:
                    env.reset(int(rng.integers(1000)))
                elif op == 8:
                    check_state(module, env.native_states([int(rng.integers(VECTOR_ENVS))], view=False)[0])
                else:
                    env.native_states(range(0, VECTOR_ENVS, 4))
            except ValueError as exc:
                tolerated(exc, STALE)
        return CALLS // ROUNDS

    calls = in_rounds(work, lambda: check_vector_env(module, env))
    calls += close_while_stepping(env, lambda: env.step(np.full(VECTOR_ENVS, RANDOM)))
    return calls


def check_vector_env(module: Any, env: Any) -> None:
    """Every game valid, and the arrays the environment holds are its games' (seat, mask, observation)."""
    for i, state in enumerate(env.native_states(range(env.num_envs), view=False)):
        check_state(module, state)
        seat = state.current_player
        assert env.seat[i] == seat, f"game {i}: seat array {env.seat[i]}, state {seat}"
        assert np.array_equal(env.mask[i], state.mask()), f"game {i}: the mask array is not its game's"
        assert np.array_equal(env.obs[i], state.observe(seat)), f"game {i}: the observation is not its game's"


def close_while_stepping(env: Any, step: Callable[[], Any]) -> int:
    """Three threads step ``env`` while a fourth closes it: they stop with a clear error, nothing crashes."""
    def work(k: int, rng: np.random.Generator) -> int:
        if k == 0:
            time.sleep(0.05)
            env.close()
            env.close()  # twice: harmless
            return 1
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < 20:
            calls += 1
            try:
                step()
            except ValueError as exc:
                tolerated(exc, STALE)
            except RuntimeError as exc:
                assert CLOSED in str(exc), f"not the closed environment's error: {exc!r}"
                return calls
        raise AssertionError("the closed environment kept stepping")

    return run_threads(work)


# -- the Gymnasium vector env --------------------------------------------------------------------------------

def stress_gym(game: str) -> int:
    import gymnasium

    import five_towers_env  # noqa: F401 (registers the ids)

    gym_id = {"five_towers": "five_towers_env/FiveTowers-v0", "campanile": "five_towers_env/Campanile-v0"}[game]
    module = core_module(game)
    calls = 0
    # native random opponents (five seats: the learner_step calls run long, more of them overlap), and the
    # compiled greedy agent deciding for its games in batches on their native states (slower: fewer calls)
    for opponents, players, per_thread in (("random", 5, CALLS), ("greedy", 3, CALLS // 4)):
        env = gymnasium.make_vec(gym_id, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point",
                                 opponents=opponents, num_players=players)
        env.reset(seed=1)
        inner, learners = env.unwrapped.env, env.unwrapped.learner_seats

        def work(k: int, rng: np.random.Generator, env: Any = env, calls: int = per_thread // ROUNDS) -> int:
            for _ in range(calls):
                op = rng.integers(10)
                try:
                    if op < 8:
                        *_, infos = env.step(legal_choices(env.action_masks(), rng))
                        # (a step's results are copies taken as it ended: every game waits on its learner's move)
                        assert infos["action_mask"].any(axis=1).all(), "a game returned without a legal move"
                    elif op == 8:
                        env.reset(seed=int(rng.integers(1000)))
                    else:
                        env.action_masks()
                except ValueError as exc:
                    tolerated(exc, STALE)
            return calls

        def check(inner: Any = inner, learners: np.ndarray = learners) -> None:
            check_vector_env(module, inner)
            assert np.array_equal(inner.seat, learners), "a game is not waiting on its learner"

        calls += in_rounds(work, check)
        rng = np.random.default_rng(7)
        calls += close_while_stepping(env, lambda env=env, rng=rng: env.step(legal_choices(env.action_masks(), rng)))
    return calls


# -- the raw _native.VectorEnv -------------------------------------------------------------------------------

def stress_raw(game: str) -> int:
    module = core_module(game)
    core = module.VectorEnv(template(game, 3), RAW_ENVS)
    n, obs_size, actions = RAW_ENVS, module.OBS_SIZE, module.NUM_ACTIONS
    seats = module.MAX_SEATS

    def work(k: int, rng: np.random.Generator) -> int:
        obs, mask, seat = np.zeros((n, obs_size), np.float32), np.zeros((n, actions), np.int8), np.zeros(n, np.int32)
        rewards, scores = np.zeros((n, seats), np.float32), np.zeros((n, seats), np.int32)
        done, final_obs = np.zeros(n, np.uint8), np.zeros((n, obs_size), np.float32)
        learner, reward = np.full(n, k % 3, np.int32), np.zeros(n, np.float32)
        randoms = np.full(n, module.RANDOM, np.int64)
        for _ in range(CALLS * 5):  # mostly random steps: cheap, so that the threads' calls overlap often
            op = rng.integers(100)
            try:
                if op >= 12:
                    core.step(randoms, rewards, done, scores)
                elif op < 5:
                    core.write(obs, mask, seat)
                    core.step(legal_choices(mask, rng), rewards, done, scores, seat, final_obs)
                elif op < 7:
                    core.learner_step(None, learner, reward, done, final_obs)
                elif op == 7:
                    core.reset(rng.integers(1000, size=n).astype(np.uint64))
                elif op == 8:
                    core.seed_moves(int(rng.integers(1000)))
                elif op == 9:
                    i = int(rng.integers(n))
                    state = core.state(i)
                    check_state(module, state)
                    core.set_state(i, state)
                else:
                    core.write(obs, mask, seat)
            except ValueError as exc:
                tolerated(exc, STALE)
        return CALLS * 5

    calls = run_threads(work)
    obs, mask, seat = np.zeros((n, obs_size), np.float32), np.zeros((n, actions), np.int8), np.zeros(n, np.int32)
    core.write(obs, mask, seat)
    for i in range(n):
        state = core.state(i)
        check_state(module, state)
        assert seat[i] == state.current_player and np.array_equal(mask[i], state.mask())
    return calls


# -- the compiled agents' batched calls on states another thread moves ---------------------------------------

def stress_states(game: str) -> int:
    module = core_module(game)
    new = template(game, 3)
    states = [module.from_fields(new.fields()) for _ in range(SHARED_STATES)]
    for i, s in enumerate(states):  # different positions
        for _ in range(i * 3):
            if not s.is_terminal():
                s.apply_action(s.legal_actions()[0])
    stop = threading.Event()

    def work(k: int, rng: np.random.Generator) -> int:
        calls = 0
        if k == 0:  # moves the shared states while the others read them with the GIL released
            while not stop.is_set() and calls < 200 * CALLS:
                i = int(rng.integers(len(states)))
                s = states[i]
                if s.is_terminal():
                    states[i] = module.from_fields(new.fields())
                else:
                    legal = s.legal_actions()
                    s.apply_action(legal[int(rng.integers(len(legal)))])
                calls += 1
            return calls
        for _ in range(CALLS):
            live = [s for s in states if not s.is_terminal()]
            words = [words_of_generator(np.random.default_rng(int(rng.integers(1000)))) for _ in live]
            try:
                op = rng.integers(4)
                if op == 0:
                    module.heuristic_actions(live)
                elif op == 1:
                    module.greedy_actions(live, words)
                elif live:
                    view = live[int(rng.integers(len(live)))]
                    if game == "five_towers":
                        module.mcts_decide(view, words[0], simulations=16, rollout_rounds=1)
                    else:
                        module.mcts_decide(view, view.current_player, view.legal_actions(), words[0], simulations=16)
            except ValueError as exc:  # a state finished between the listing and the call
                tolerated(exc, "finished game", "game is over", "not legal", "searcher must be", "legal must hold")
            calls += 1
        return calls

    readers_left = [THREADS - 1]
    lock = threading.Lock()

    def readers_then_stop(k: int, rng: np.random.Generator) -> int:
        try:
            return work(k, rng)
        finally:
            if k != 0:
                with lock:
                    readers_left[0] -= 1
                    if not readers_left[0]:
                        stop.set()

    calls = run_threads(readers_then_stop)
    for s in states:
        check_state(module, s)
    return calls


TARGETS = {"vector": stress_vector, "gym": stress_gym, "raw": stress_raw, "states": stress_states}


def main(argv: list[str]) -> int:
    target, games = argv[0], argv[1:] or ["five_towers", "campanile"]
    sys.setswitchinterval(1e-5)  # switch threads often: more interleavings in the Python wrappers
    for game in games:
        start = time.perf_counter()
        calls = TARGETS[target](game)
        print(f"ok {target} {game}: {calls} calls in {time.perf_counter() - start:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
