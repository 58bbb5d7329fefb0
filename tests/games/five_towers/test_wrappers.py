"""The single-agent Gymnasium environment, the dict observation wrapper and SB3 integration."""
from __future__ import annotations

import inspect
import multiprocessing
import pickle
import re

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from five_towers_env.core.agent import RandomAgent
from five_towers_env.games.five_towers import raw_env
from five_towers_env.games.five_towers.dict_observation import dict_layout_table, dict_observation_space, encode_dict
from five_towers_env.games.five_towers.dict_wrapper import DictObservationWrapper, dict_env
from five_towers_env.games.five_towers.observation import OBS_SIZE, OFFSETS, encode
from five_towers_env.games.five_towers.state import IllegalActionError
from five_towers_env.wrappers import GYM_ENV_ID, SingleAgentGymEnv, make_env, register_gymnasium

TO_ACT = OFFSETS["to_act"][0]
START_METHODS = multiprocessing.get_all_start_methods()
# PettingZoo's api_test checks a nested Dict observation from 1.24.4 on (before, it reads obs["observation"].dtype)
OLD_API_TEST = tuple(int(p) for p in re.findall(r"\d+", pettingzoo.__version__)[:3]) < (1, 24, 4)

SETUPS = [(2, "base"), (3, "great_powers"), (4, "base"), (5, "great_powers")]


class FirstLegal:
    """Deterministic opponent that records the seats it was asked to play."""

    def __init__(self, name: str = "first") -> None:
        self.name = name
        self.seats: list[int] = []

    def act(self, observation, info) -> int:
        self.seats.append(info["seat"])
        return int(info["legal_actions"][0])


def play(env: gymnasium.Env, seed: int, policy_seed: int = 0):
    """Play one episode with random legal learner actions; return the trajectory."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    traj = [(obs, info)]
    while True:
        mask = env.get_wrapper_attr("action_masks")()
        assert mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        traj.append((obs, reward, terminated, truncated, info))
        assert not truncated
        if terminated:
            return traj


# -- Gymnasium environment ------------------------------------------------------------------

@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_check_env(observation):
    # check_env plays action_space.sample(), mostly illegal: the default "penalize" mode ends the episode
    check_env(SingleAgentGymEnv("five_towers", num_players=3, observation=observation))
    check_env(gymnasium.make(GYM_ENV_ID, observation=observation).unwrapped)
    check_env(gymnasium.make(GYM_ENV_ID, observation=observation))


def test_register_is_idempotent_and_make_works():
    register_gymnasium()
    register_gymnasium()
    env = gymnasium.make(GYM_ENV_ID, num_players=3, opponents=["random", "random"])
    obs, info = env.reset(seed=3)
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
    assert info["phase"] == "bid" and env.unwrapped.num_players == 3
    _, reward, terminated, _, info = play(env, seed=3)[-1]
    assert terminated and reward == (1.0 if info["winners"][info["learner_seat"]] else -1.0)


@pytest.mark.parametrize("num_players,variant", SETUPS)
def test_game_against_random_ends_with_win_loss(num_players, variant):
    env = SingleAgentGymEnv("five_towers", num_players=num_players, variant=variant)
    for seed in range(3):
        traj = play(env, seed)
        _, reward, terminated, _, info = traj[-1]
        assert terminated and reward in (-1.0, 1.0)
        assert all(step[1] == 0.0 for step in traj[1:-1])
        seat = info["learner_seat"]
        assert info["phase"] == "game_over" and info["score"] == info["scores"][seat]
        assert reward == (1.0 if info["winners"][seat] else -1.0)
        with pytest.raises(RuntimeError):
            env.step(0)


def test_margin_reward():
    env = SingleAgentGymEnv("five_towers", num_players=3, reward="margin", learner_seat=2)
    _, reward, _, _, info = play(env, seed=5)[-1]
    s = info["scores"]
    assert reward == s[2] - max(s[0], s[1])


def test_learner_never_sees_opponent_turns():
    opponents = [FirstLegal("a"), FirstLegal("b"), FirstLegal("c")]
    env = SingleAgentGymEnv("five_towers", num_players=4, opponents=opponents, explicit=True)
    for seed in range(4):
        for o in opponents:
            o.seats.clear()
        traj = play(env, seed)
        seat = env.learner_seat
        for step in traj[:-1]:  # every non-final observation: the learner (relative seat 0) is to act
            obs = step[0]
            assert obs[TO_ACT] == 1.0 and not obs[TO_ACT + 1:TO_ACT + 5].any()
        for i, o in enumerate(opponents):  # opponent i sits i + 1 seats to the learner's left
            assert o.seats and set(o.seats) == {(seat + i + 1) % 4}


def test_learner_seat_fixed_and_random():
    env = SingleAgentGymEnv("five_towers", num_players=3, learner_seat=1)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {1}
    env = SingleAgentGymEnv("five_towers", num_players=3)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(30)} == {0, 1, 2}
    with pytest.raises(ValueError):
        SingleAgentGymEnv("five_towers", num_players=3, learner_seat=3)


@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_determinism_from_seed(observation):
    def run(seed):
        env = SingleAgentGymEnv("five_towers", num_players=3, variant="great_powers", observation=observation,
                               opponents=["random", RandomAgent(seed=99)])
        traj = play(env, seed, policy_seed=7)
        return env.learner_seat, traj

    equivalence = gymnasium.utils.env_checker.data_equivalence
    exact = {"exact": True} if "exact" in inspect.signature(equivalence).parameters else {}  # gymnasium < 1.0: allclose

    def same(a, b):
        return equivalence(a, b, **exact)

    seat_a, a = run(11)
    seat_b, b = run(11)
    assert seat_a == seat_b and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    # a different seed gives a different game
    others = [run(s) for s in (12, 13)]
    assert any(len(t) != len(a) or not same(t[0], a[0]) for _, t in others)
    # the same env object reset again with the same seed replays the game (opponent rngs re-seeded)
    env = SingleAgentGymEnv("five_towers", num_players=3, opponents=[RandomAgent(1), RandomAgent(2)])
    t1, t2 = play(env, 4), play(env, 4)
    assert len(t1) == len(t2) and all(same(x, y) for x, y in zip(t1, t2))


def test_set_opponents_swaps():
    env = SingleAgentGymEnv("five_towers", num_players=3)
    env.reset(seed=0)
    assert [o.name for o in env.opponents] == ["random", "random"]
    new = [FirstLegal("x"), FirstLegal("y")]
    env.set_opponents(new)
    play(env, seed=1)
    assert env.opponents == new and all(o.seats for o in new)
    # a pool sampler, drawn from the env's generator: reproducible per seed
    pool = [FirstLegal(f"p{i}") for i in range(4)]

    def sampler(rng):
        return [pool[i] for i in rng.choice(len(pool), size=2)]

    env.set_opponents(sampler=sampler)

    def drawn(seed):
        env.reset(seed=seed)
        return tuple(o.name for o in env.opponents)

    names = [drawn(s) for s in range(8)]
    assert names == [drawn(s) for s in range(8)] and len(set(names)) > 1
    with pytest.raises(ValueError):
        env.set_opponents(["random"])  # 3 players need 2 opponents
    with pytest.raises(ValueError):
        env.set_opponents()



@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_opponents_with_settings_are_built_with_them(game):
    from five_towers_env.wrappers import SingleAgentGymEnv

    env = SingleAgentGymEnv(game, opponents=["mcts:simulations=7"])
    env.reset(seed=0)
    assert type(env.opponents[0]).__name__ == "MCTSAgent" and env.opponents[0].simulations == 7
    play(env, seed=1)


@pytest.mark.parametrize("bad, words", [("mcts:simulatons=5", "no setting 'simulatons'"),
                                        ("mcts:simulations=many", "simulations must be an integer"),
                                        ("nobody", "unknown agent 'nobody'")])
def test_bad_opponent_specs_fail_at_construction_not_reset(bad, words):
    from five_towers_env.agents.registry import AgentSettingError

    with pytest.raises(AgentSettingError, match=re.escape(words)):
        SingleAgentGymEnv("five_towers", opponents=[bad])
    env = SingleAgentGymEnv("five_towers")
    with pytest.raises(AgentSettingError, match=re.escape(words)):
        env.set_opponents([bad])

def test_illegal_learner_action():
    env = SingleAgentGymEnv("five_towers", num_players=2, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    assert env.action_masks().any()  # nothing changed: the episode goes on
    env.step(int(np.flatnonzero(env.action_masks())[0]))

    env = SingleAgentGymEnv("five_towers", num_players=2)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not env.action_masks().any()
    with pytest.raises(ValueError):
        SingleAgentGymEnv("five_towers", illegal_action="ignore")


# -- dict observations ------------------------------------------------------------------------

@pytest.mark.skipif(OLD_API_TEST, reason="PettingZoo < 1.24.4: api_test cannot check a nested Dict observation")
@pytest.mark.parametrize("num_players,variant", SETUPS)
def test_dict_wrapper_api_test(num_players, variant):
    api_test(DictObservationWrapper(raw_env(num_players=num_players, variant=variant)), num_cycles=200)
    api_test(dict_env(num_players=num_players, variant=variant), num_cycles=200)


@pytest.mark.parametrize("num_players,variant", SETUPS)
def test_dict_observations_in_space_and_match_flat(num_players, variant):
    env = DictObservationWrapper(raw_env(num_players=num_players, variant=variant))
    space = dict_observation_space()
    rng = np.random.default_rng(0)
    for seed in range(1):
        env.reset(seed=seed)
        game = env.unwrapped.game
        while not game.is_terminal():
            for agent in env.agents:
                obs = env.observe(agent)
                assert obs in env.observation_space(agent) and obs in space
                seat = env.unwrapped.agent_name_mapping[agent]
                flat = encode(game, seat)
                assert sum(v.size for k, v in obs.items() if k != "action_mask") == flat.size
                assert obs["action_mask"].any() == (seat == game.current_player)
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        # final position, from seat 0's view: the towers and scores line up with the engine
        obs = encode_dict(game, 0)
        for t, tower in enumerate(game.towers[0]):
            assert obs["towers"][0, t].sum() == len(tower)
        assert obs["present"].sum() == num_players and obs["phase"][5] == 1.0


def test_dict_layout_table_documents_every_key():
    table = dict_layout_table()
    for key, sub in dict_observation_space().spaces.items():
        assert f"`{key}` | {tuple(sub.shape)}" in table


# -- Stable-Baselines3 ------------------------------------------------------------------------

@pytest.fixture
def one_torch_thread():
    """Tiny networks: one thread is fastest, and avoids oversubscribing a busy machine."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_env_factory_pickles():
    env_fn = pickle.loads(pickle.dumps(make_env(1, seed=0, num_players=3, opponents=["random", RandomAgent(2)])))
    env = env_fn()
    assert isinstance(env, SingleAgentGymEnv) and env.game_name == "five_towers" and env.num_players == 3
    env2 = pickle.loads(pickle.dumps(env))
    assert np.array_equal(env2.action_masks(), env.action_masks())


def test_vec_envs_step_with_masks(one_torch_thread):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    rng = np.random.default_rng(0)
    for cls, obs_mode in ((DummyVecEnv, "flat"), (SubprocVecEnv, "flat"), (DummyVecEnv, "dict")):
        fns = [make_env(i, seed=0, num_players=3, observation=obs_mode) for i in range(2)]
        # "fork" starts in well under a second; the default start method re-imports torch in each worker
        venv = cls(fns, start_method="fork" if "fork" in START_METHODS else None) if cls is SubprocVecEnv else cls(fns)
        try:
            venv.reset()
            episodes = 0
            for _ in range(150):
                masks = get_action_masks(venv)
                assert masks.shape == (2, 307) and masks.any(axis=1).all()
                actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
                _, rewards, dones, infos = venv.step(actions)
                for r, d, info in zip(rewards, dones, infos):
                    if d:
                        episodes += 1
                        assert r == (1.0 if info["winners"][info["learner_seat"]] else -1.0), info
                    else:
                        assert r == 0.0
            assert episodes > 0
            venv.env_method("set_opponents", ["random", RandomAgent(3)], indices=[0])
        finally:
            venv.close()


def test_maskable_ppo_short_run(one_torch_thread):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([make_env(i, seed=1, num_players=2) for i in range(2)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [64]}, device="cpu")
    model.learn(total_timesteps=256)
    env = SingleAgentGymEnv("five_towers", num_players=2, opponents="random")
    obs, _ = env.reset(seed=5)
    done = False
    while not done:
        mask = get_action_masks(env)
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, reward, done, _, info = env.step(int(action))
    assert reward == (1.0 if info["winners"][info["learner_seat"]] else -1.0)
    venv.close()
