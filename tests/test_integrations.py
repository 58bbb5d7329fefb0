"""Stock third-party code, unchanged, against the environments: SB3's ``make_vec_env`` with the id
string (it asks for ``render_mode="rgb_array"``), fixed-shape infos (Tianshou's buffers stack
them), ids usable from a fresh process, and masks reachable through Gymnasium's wrappers."""
from __future__ import annotations

import copy
import multiprocessing
import random
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers import env as make_aec_env
from five_towers_env.games.five_towers import raw_env
from five_towers_env.games.five_towers.aec import INFO_KEYS as AEC_INFO_KEYS
from five_towers_env.games.five_towers.picture import picture_shape
from five_towers_env.wrappers import GYM_ENV_ID, SingleAgentGymEnv
from five_towers_env.wrappers.single_agent import INFO_KEYS as GYM_INFO_KEYS

ROOT = Path(__file__).resolve().parents[1]
PREFIXED_ID = "five_towers_env:" + GYM_ENV_ID
START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"  # fork starts fast
SETUPS = [(2, "base"), (3, "great_powers"), (4, "base"), (5, "great_powers")]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture
def one_torch_thread():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def signature(value) -> tuple:
    """What must not change from step to step: the type, the shape and the dtype (any str is one)."""
    a = np.asarray(value)
    return type(value).__name__, a.shape, "str" if a.dtype.kind == "U" else a.dtype.str


def signatures(info: dict, keys) -> dict:
    return {k: signature(info[k]) for k in keys}


# -- render_mode="rgb_array" ----------------------------------------------------------------

@pytest.mark.parametrize("n,variant", SETUPS)
def test_rgb_array_aec_shape_changes_and_hides_the_deck(n, variant):
    e = raw_env(num_players=n, variant=variant, render_mode="rgb_array")
    assert "rgb_array" in e.metadata["render_modes"] and e.metadata["render_fps"] == 1
    e.reset(seed=n)
    rng = random.Random(n)
    nprng = np.random.default_rng(n)
    frames = []
    while True:
        img = e.render()
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape == picture_shape(n)
        nprng.shuffle(e.game.deck)
        assert np.array_equal(e.render(), img), "the picture depends on the deck order"
        frames.append(img)
        if e.game.is_terminal():
            break
        e.step(rng.choice(e.legal_actions()))
    assert len(frames) > 10
    changed = sum(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))
    assert changed >= len(frames) // 2, "most moves change the picture"
    # two deals draw differently
    other = raw_env(num_players=n, variant=variant, render_mode="rgb_array")
    other.reset(seed=n + 100)
    e.reset(seed=n)
    assert not np.array_equal(e.render(), other.render())


def test_rgb_array_draws_towers_turn_and_winners():
    e = raw_env(num_players=2, render_mode="rgb_array")
    pos = {"num_players": 2, "variant": "base", "start_player": 1, "display": ["candy-3", "tree-7", "sand-9"],
           "players": [{"towers": {"candy": [15, 9, 0]}}, {"towers": {"sand": [12]}, "teardown": ["scrap-5"]}]}
    e.reset(seed=0, options={"position": copy.deepcopy(pos)})
    img = e.render()
    pos["players"][0]["towers"]["candy"] = [15, 9]  # not topped: the cap goes (and a card less)
    e.reset(seed=0, options={"position": copy.deepcopy(pos)})
    untopped = e.render()
    assert not np.array_equal(img, untopped) and (img != untopped).any(axis=2).sum() > 2 * 12
    e.reset(seed=0, options={"position": dict(copy.deepcopy(pos), start_player=0)})  # the other seat to act
    assert not np.array_equal(untopped, e.render())
    # the end of a game: the winners' bars, not the turn bar
    e.reset(seed=0, options={"position": copy.deepcopy(pos)})
    rng = random.Random(0)
    while not e.game.is_terminal():
        e.step(rng.choice(e.legal_actions()))
    assert e.render().shape == img.shape


def test_rgb_array_single_agent_and_gymnasium_make():
    env = SingleAgentGymEnv("five_towers", num_players=3, render_mode="rgb_array")
    blank = env.render()  # before reset: a blank frame of the same shape
    assert blank.shape == picture_shape(3) and blank.dtype == np.uint8 and not blank.any()
    env.reset(seed=1)
    first = env.render()
    assert first.shape == picture_shape(3) and first.any()
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert not np.array_equal(env.render(), first)
    made = gymnasium.make(GYM_ENV_ID, num_players=3, render_mode="rgb_array")
    made.reset(seed=1)
    assert np.array_equal(made.render(), first)
    with pytest.raises(ValueError, match="rgb_array"):
        SingleAgentGymEnv("five_towers", render_mode="svg")


@pytest.mark.parametrize("n,variant", [(2, "base"), (5, "great_powers")])
def test_pettingzoo_tests_with_every_render_mode(n, variant, capsys):
    render_test(lambda render_mode=None: make_aec_env(num_players=n, variant=variant, render_mode=render_mode))
    render_test(lambda render_mode=None: raw_env(num_players=n, variant=variant, render_mode=render_mode))
    api_test(make_aec_env(num_players=n, variant=variant, render_mode="rgb_array"), num_cycles=40)
    seed_test(lambda: make_aec_env(num_players=n, variant=variant, render_mode="rgb_array"), num_cycles=40)


@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
def test_check_env_with_render_modes(render_mode):
    check_env(gymnasium.make(GYM_ENV_ID, num_players=3, render_mode=render_mode))
    check_env(SingleAgentGymEnv("five_towers", num_players=2, observation="dict", render_mode=render_mode))


@pytest.mark.parametrize("vec_env", ["DummyVecEnv", "SubprocVecEnv"])
def test_make_vec_env_with_the_id_string_renders(vec_env):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common import vec_env as vec
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = {"start_method": START_METHOD} if vec_env == "SubprocVecEnv" else None
    venv = make_vec_env(GYM_ENV_ID, n_envs=2, seed=0, vec_env_cls=getattr(vec, vec_env), vec_env_kwargs=kwargs)
    try:
        assert venv.get_attr("render_mode") == ["rgb_array", "rgb_array"]
        venv.reset()
        frame = venv.render()  # SB3 tiles the envs' pictures
        h, w, _ = picture_shape(2)
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert frame.shape[0] >= h and frame.shape[1] >= w
    finally:
        venv.close()


# -- fixed-shape infos ----------------------------------------------------------------------

def _aec_game(n: int, variant: str, seed: int):
    """Play one random game on the AEC env; yield every agent's info at every step."""
    e = make_aec_env(num_players=n, variant=variant)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        yield e, agent, info
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


#: a seed of a tied random game for each setup (searched: any other tie would do)
TIE_SEEDS = {(2, "base"): 165, (3, "great_powers"): 1, (4, "base"): 5, (5, "great_powers"): 25}


@pytest.mark.parametrize("n,variant", SETUPS)
def test_aec_infos_keep_keys_shapes_and_dtypes_through_a_tie(n, variant):
    expected = None
    ties = games = 0
    for seed in [TIE_SEEDS[n, variant], *range(400)]:  # the known tie first; else search on
        games += 1
        for e, _agent, _ in _aec_game(n, variant, seed):
            raw = e.unwrapped
            for a, info in raw.infos.items():
                assert tuple(info) == AEC_INFO_KEYS, info
                sig = signatures(info, AEC_INFO_KEYS)
                expected = expected or sig
                assert sig == expected, (info, expected)
                assert info["scores"].shape == info["winners"].shape == (n,)
                if raw.game.is_terminal():
                    i = raw.agent_name_mapping[a]
                    assert np.flatnonzero(info["winners"]).tolist() == raw.winners()
                    assert info["scores"].tolist() == raw.scores() and info["score"] == raw.scores()[i]
                else:
                    assert info["score"] == 0 and not info["scores"].any() and not info["winners"].any()
        ties += len(raw.winners()) > 1
        if ties and games >= 3:
            break
    assert ties, "no tied game found"
    assert expected["scores"] == ("ndarray", (n,), np.dtype(np.int64).str)
    assert expected["winners"] == ("ndarray", (n,), "|b1") and expected["score"][0] == "int"


@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_single_agent_infos_keep_keys_shapes_and_dtypes(observation):
    env = gymnasium.make(GYM_ENV_ID, num_players=3, observation=observation)
    expected = None
    ties = 0
    for seed in range(300):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            assert tuple(info) == GYM_INFO_KEYS, info
            sig = signatures(info, GYM_INFO_KEYS)
            expected = expected or sig
            assert sig == expected, (info, expected)
            mask = env.get_wrapper_attr("action_masks")()
            assert info["action_mask"].dtype == np.int8 and np.array_equal(info["action_mask"].astype(bool), mask)
            if observation == "dict":
                assert np.array_equal(obs["action_mask"], info["action_mask"])
            if info["phase"] == "game_over":
                break
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            assert terminated == (info["phase"] == "game_over")
        game = env.unwrapped.game
        assert np.flatnonzero(info["winners"]).tolist() == game.winners() and not info["action_mask"].any()
        assert info["scores"].tolist() == game.scores() and info["score"] == game.scores()[info["learner_seat"]]
        assert reward == (1.0 if info["winners"][info["learner_seat"]] else -1.0)
        ties += int(info["winners"].sum()) > 1
        if ties:
            break
    assert ties, "no tied game found"
    # an illegal action ends the episode with the same keys, shapes and dtypes
    _, info = env.reset(seed=0)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert terminated and info["illegal_action"] is True and signatures(info, GYM_INFO_KEYS) == expected
    assert not info["action_mask"].any()


@pytest.mark.parametrize("vec_env", ["DummyVecEnv", "SubprocVecEnv"])
def test_sb3_vec_env_infos_fixed_through_tied_games(vec_env):
    """SB3 vectorised envs from the id string, stepped by a random learner until a game ties:
    every info value keeps its shape and dtype (SB3 adds keys of its own: ignored here)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common import vec_env as vec
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = {"start_method": START_METHOD} if vec_env == "SubprocVecEnv" else None
    venv = make_vec_env(GYM_ENV_ID, n_envs=2, seed=8, env_kwargs={"num_players": 3},
                        vec_env_cls=getattr(vec, vec_env), vec_env_kwargs=kwargs)
    rng = np.random.default_rng(8)
    try:
        venv.reset()
        infos = list(venv.reset_infos)
        expected = signatures(infos[0], GYM_INFO_KEYS)
        ties = episodes = 0
        for _ in range(3000):
            for info in infos:
                assert set(GYM_INFO_KEYS) <= set(info), info
                assert signatures(info, GYM_INFO_KEYS) == expected, info
            masks = get_action_masks(venv)  # env_method("action_masks") through the wrappers
            assert np.array_equal(masks, np.stack([i["action_mask"] for i in infos]).astype(bool))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, _, dones, infos = venv.step(actions)
            for done, info in zip(dones, infos):
                if done:
                    episodes += 1
                    ties += int(info["winners"].sum()) > 1
                    # the final info; the next episode's mask is in reset_infos
                    assert info["phase"] == "game_over" and not info["action_mask"].any()
                    assert len(np.flatnonzero(info["winners"])) >= 1
            infos = [venv.reset_infos[i] if d else info for i, (d, info) in enumerate(zip(dones, infos))]
            if ties and episodes >= 4:
                break
        assert ties, "no tied game in the steps run"
    finally:
        venv.close()


# -- masks through Gymnasium's wrappers ---------------------------------------------------------

def test_action_masks_through_gymnasium_make():
    env = gymnasium.make(GYM_ENV_ID, num_players=2)
    obs, info = env.reset(seed=3)
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.dtype == bool and mask.shape == (A.NUM_ACTIONS,) and mask.any()
    assert info["action_mask"].dtype == np.int8 and np.array_equal(info["action_mask"], mask.astype(np.int8))
    _, _, _, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert np.array_equal(info["action_mask"], env.get_wrapper_attr("action_masks")().astype(np.int8))


@pytest.mark.parametrize("vec_env", ["DummyVecEnv", "SubprocVecEnv"])
def test_maskable_ppo_with_make_vec_env_id_string(vec_env, one_torch_thread):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common import vec_env as vec
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = {"start_method": START_METHOD} if vec_env == "SubprocVecEnv" else None
    venv = make_vec_env(GYM_ENV_ID, n_envs=2, seed=0, vec_env_cls=getattr(vec, vec_env), vec_env_kwargs=kwargs)
    try:
        assert is_masking_supported(venv)
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                            policy_kwargs={"net_arch": [32]}, device="cpu")
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        obs = venv.reset()
        for _ in range(20):
            masks = get_action_masks(venv)
            actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
            assert masks[np.arange(2), actions].all()
            obs, _, _, _ = venv.step(actions)
    finally:
        venv.close()


# -- ids from a fresh process -------------------------------------------------------------------

FRESH_PROCESS = """
import sys

import gymnasium
import numpy as np
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

ID = "five_towers_env:five_towers_env/FiveTowers-v0"

if __name__ == "__main__":
    assert "five_towers_env" not in sys.modules
    env = gymnasium.make(ID, num_players=3)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.get_wrapper_attr("action_masks")().any() or terminated
    venv = make_vec_env(ID, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv, vec_env_kwargs={"start_method": "spawn"})
    try:
        venv.reset()
        for _ in range(30):
            masks = np.stack(venv.env_method("action_masks"))
            _, _, _, infos = venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
            assert all(i["action_mask"].dtype == np.int8 for i in infos)
        assert venv.get_attr("render_mode") == ["rgb_array", "rgb_array"]
    finally:
        venv.close()
    print("fresh process ok")
"""


def test_ids_from_a_fresh_process_and_spawned_workers(tmp_path):
    pytest.importorskip("stable_baselines3")
    script = tmp_path / "fresh.py"
    script.write_text(textwrap.dedent(FRESH_PROCESS))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "fresh process ok" in done.stdout
