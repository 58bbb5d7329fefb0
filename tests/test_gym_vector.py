"""The Gymnasium vector environment on the native core (``gymnasium.make_vec(..., "vector_entry_point")``):
one learner seat per game, the opponents inside ``step()``, masks in ``infos``, same-step autoreset."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import five_towers_env  # noqa: F401  (registers the ids)
from five_towers_env.core.agent import RandomAgent
from five_towers_env.core.backend import native_built
from five_towers_env.core.game import get_game

pytestmark = [pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}"),
              pytest.mark.skipif(not hasattr(gymnasium.vector, "AutoresetMode"),
                                 reason="gymnasium < 1.0: no vector entry points")]

IDS = [get_game(name).gymnasium_id for name in ("five_towers", "campanile")]


def _make(gid: str, n: int = 6, **kwargs):
    return gymnasium.make_vec(gid, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)


def _pick(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def _check_rows(env, obs: np.ndarray, infos: dict) -> None:
    """Every game waits on its learner, whose observation and mask the rows are."""
    inner = env.unwrapped if hasattr(env, "unwrapped") else env
    for i in range(inner.num_envs):
        state = inner.env.state(i)
        seat = int(infos["learner_seat"][i])
        assert state.current_player == seat and not state.is_terminal()
        assert np.array_equal(obs[i], state.observe(seat))
        assert np.flatnonzero(infos["action_mask"][i]).tolist() == state.legal_actions()


@pytest.mark.parametrize("gid", IDS)
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_every_game_waits_on_its_learner(gid, opponents):
    env = _make(gid, opponents=opponents)
    assert type(env).__name__ == "GymVectorEnv" and env.metadata["autoreset_mode"].name == "SAME_STEP"
    obs, infos = env.reset(seed=4)
    assert obs.shape == (6, *env.single_observation_space.shape) and obs.dtype == np.float32
    assert infos["learner_seat"].tolist() == [0, 1, 0, 1, 0, 1]
    _check_rows(env, obs, infos)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150 if opponents == "random" else 40):
        obs, reward, terminated, truncated, infos = env.step(_pick(rng, infos["action_mask"]))
        assert not truncated.any()
        assert set(np.unique(reward[terminated])) <= {-1.0, 1.0} and not reward[~terminated].any()
        if terminated.any():
            assert infos["_final_obs"].tolist() == terminated.tolist()
            assert infos["final_obs"].shape == obs.shape
            ended += int(terminated.sum())
        _check_rows(env, obs, infos)
    assert ended > 0 or opponents != "random"


@pytest.mark.parametrize("gid", IDS)
def test_same_seed_same_games(gid):
    runs = []
    for _ in range(2):
        env = _make(gid, opponents="random")
        obs, infos = env.reset(seed=11)
        rng = np.random.default_rng(3)
        trace = [obs.copy()]
        for _ in range(60):
            obs, reward, terminated, _, infos = env.step(_pick(rng, infos["action_mask"]))
            trace += [obs.copy(), reward.copy(), terminated.copy()]
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


def test_the_learners_game_is_the_seeded_game():
    """reset(seed=s) deals game i from default_rng(s + i): the learner's first observation is that game's."""
    spec = get_game("campanile")
    env = _make(spec.gymnasium_id, n=3, learner_seat=0)
    obs, infos = env.reset(seed=40)
    for i in range(3):
        state = spec.new_state(2, seed=40 + i)  # seat 0 moves first in Campanile
        assert np.array_equal(obs[i], state.observe(0))


def test_bad_actions_and_settings_are_refused():
    env = _make(IDS[0], n=2)
    obs, infos = env.reset(seed=0)
    bad = np.array([int(np.flatnonzero(infos["action_mask"][0])[0]), 306 if not infos["action_mask"][1][306] else 0])
    with pytest.raises(ValueError, match="game 1"):
        env.step(bad)
    _check_rows(env, obs, infos)  # nothing moved
    with pytest.raises(ValueError, match="learner_seat"):
        _make(IDS[0], learner_seat=2)
    with pytest.raises(ValueError, match="opponents"):
        _make(IDS[0], num_players=3, opponents=["random"])
    with pytest.raises(RuntimeError, match="reset"):
        _make(IDS[0]).step(np.zeros(6, dtype=np.int64))


def test_agent_objects_as_opponents():
    env = _make(IDS[1], n=4, num_players=3, opponents=[RandomAgent(seed=1), "heuristic"])
    obs, infos = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, reward, terminated, _, infos = env.step(_pick(rng, infos["action_mask"]))
    _check_rows(env, obs, infos)
