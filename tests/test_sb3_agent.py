"""SB3Agent (``five_towers_env/agents/sb3_agent.py``): Stable-Baselines3 models trained on the single-agent
env play through the agent interface and ``evaluate``, never choose an illegal action, and every bad file
is a ``ValueError`` with a one-line message naming it."""
from __future__ import annotations

import functools
import os
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="needs the rl extra: pip install -e '.[rl]'")
torch = pytest.importorskip("torch")

import gymnasium  # noqa: E402
from sb3_contrib import QRDQN, MaskablePPO  # noqa: E402
from stable_baselines3 import DQN, PPO, SAC  # noqa: E402

from five_towers_env.agents.sb3_agent import SB3Agent, load_model  # noqa: E402
from five_towers_env.core.game import get_game  # noqa: E402
from five_towers_env.evaluation.guard import AgentError  # noqa: E402
from five_towers_env.evaluation.match import evaluate  # noqa: E402
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv  # noqa: E402

SMALL = {"policy_kwargs": {"net_arch": [32]}, "seed": 0, "device": "cpu"}
PPO_SETTINGS = {"n_steps": 128, "batch_size": 64, "n_epochs": 1, **SMALL}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Tiny models, trained for a few hundred steps as the README snippet trains (or just built), saved."""
    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("sb3")
    five, campanile = SingleAgentGymEnv(opponents="random"), SingleAgentGymEnv("campanile", opponents="random")
    trained = {
        "maskable": MaskablePPO("MlpPolicy", five, **PPO_SETTINGS).learn(256),
        "ppo": PPO("MlpPolicy", five, **PPO_SETTINGS).learn(128),  # no masks in training: SB3Agent masks
        "dict": MaskablePPO("MultiInputPolicy", SingleAgentGymEnv(observation="dict"), **PPO_SETTINGS).learn(128),
        "campanile": MaskablePPO("MlpPolicy", campanile, **PPO_SETTINGS).learn(256),
        "dqn": DQN("MlpPolicy", five, buffer_size=100, learning_starts=0, **SMALL),
        "qrdqn": QRDQN("MlpPolicy", five, buffer_size=100, learning_starts=0, **SMALL),
    }
    paths = {}
    for key, model in trained.items():
        paths[key] = folder / f"{key}.zip"
        model.save(paths[key])
    return trained, paths


def agent(path, **kwargs):
    return functools.partial(SB3Agent, path=str(path), **kwargs)


@pytest.mark.parametrize("key", ["maskable", "ppo", "dict"])
def test_models_play_5_towers_in_evaluate(models, key):
    _, paths = models
    for deterministic in (True, False):
        result = evaluate([agent(paths[key], deterministic=deterministic), "random"], num_games=4, seed=3,
                          progress=False)
        assert result.agents[0]["games"] == 4


def test_a_campanile_model_plays_campanile(models):
    _, paths = models
    result = evaluate([agent(paths["campanile"], game="campanile"), "random"], num_games=4, seed=1,
                      progress=False, game="campanile")
    assert result.agents[0]["games"] == 4
    assert SB3Agent(paths["campanile"]).game == "campanile"  # without game=: the one game its sizes fit


@pytest.mark.parametrize("game, key", [("five_towers", "maskable"), ("five_towers", "ppo"),
                                       ("five_towers", "dict"), ("five_towers", "dqn"), ("five_towers", "qrdqn"),
                                       ("campanile", "campanile")])
def test_never_an_illegal_action(models, game, key):
    """Every seat an SB3Agent (sampling, so any unmasked mistake would show) over three 3-player games."""
    _, paths = models
    spec = get_game(game)
    env = spec.make_raw_env(num_players=3)
    players = [SB3Agent(paths[key], seed=s, deterministic=False) for s in range(3)]
    for seed in range(3):
        env.reset(seed=seed)
        while not env.game.is_terminal():
            seat = env.game.current_player
            observation, info = env.observe(env.possible_agents[seat]), spec.agent_info(env.game, seat)
            action = players[seat].act(observation, info)
            assert type(action) is int and action in info["legal_actions"]
            env.step(action)


def test_maskable_ppo_chooses_as_its_own_predict(models):
    trained, paths = models
    player = SB3Agent(paths["maskable"])
    env = SingleAgentGymEnv(opponents="random")
    obs, _ = env.reset(seed=2)
    for _ in range(20):
        expected, _ = trained["maskable"].predict(obs, action_masks=env.action_masks(), deterministic=True)
        aec = env._aec  # the learner's AEC observation, as an agent in its seat gets it
        action = player.act(aec.observe(aec.possible_agents[env.learner_seat]), env.learner_info())
        assert action == int(expected)
        obs, _, done, _, _ = env.step(action)
        if done:
            obs, _ = env.reset()


def test_the_dict_observation_is_the_envs(models):
    """The dict fed to a MultiInputPolicy model is the one SingleAgentGymEnv(observation="dict") shows."""
    from five_towers_env.games.five_towers.dict_wrapper import DictObservationWrapper

    _, paths = models
    player = SB3Agent(paths["dict"])
    assert player.observation == "dict"
    spec = get_game("five_towers")
    env = spec.make_raw_env(num_players=4)
    reference = DictObservationWrapper(env)
    env.reset(seed=5)
    for _ in range(40):
        seat = env.game.current_player
        name = env.possible_agents[seat]
        fed = player.model_observation(env.observe(name), spec.agent_info(env.game, seat))
        want = reference.observe(name)
        assert fed.keys() == want.keys() and all(np.array_equal(fed[k], want[k]) for k in want)
        env.step(player.act(env.observe(name), spec.agent_info(env.game, seat)))


def _save(model_class, env, path, **kwargs):
    model_class("MlpPolicy", env, device="cpu", **kwargs).save(path)
    return path


class _Sized(gymnasium.Env):
    """An env with 5 Towers' action count and a 10-value observation (a model of another game)."""

    observation_space = gymnasium.spaces.Box(-1, 1, (10,), np.float32)
    action_space = gymnasium.spaces.Discrete(get_game("five_towers").num_actions)


def _bad_files(folder):
    """(path, game, words the message must hold) for every kind of bad input."""
    (folder / "text.zip").write_text("not a zip")
    with open(folder / "arrays.zip", "wb") as f:  # a file object: savez adds no .npz
        np.savez(f, w0=np.zeros(3))
    torch.save({"w": torch.zeros(2)}, folder / "weights.zip")
    sac = _save(SAC, gymnasium.make("Pendulum-v1"), folder / "sac.zip", buffer_size=10)
    cartpole = _save(PPO, gymnasium.make("CartPole-v1"), folder / "cartpole.zip", n_steps=8, batch_size=8)
    sized = _save(PPO, _Sized(), folder / "sized.zip", n_steps=8, batch_size=8)
    return [(folder / "missing.zip", None, "no model file"), (folder, None, "is a folder"),
            (folder / "text.zip", None, "not a zip archive"), (folder / "arrays.zip", None, "another library"),
            (folder / "weights.zip", None, "another library"), (sac, None, "cannot play"),
            (cartpole, "five_towers", "2 actions"),
            (sized, "five_towers", "observations of shape (10,); 5 Towers has flat ones"),
            (sized, None, "no game has them")]


def test_bad_files_are_one_line_value_errors(models, tmp_path):
    _, paths = models
    cases = _bad_files(tmp_path) + [(paths["maskable"], "campanile", "trained for another game")]
    for path, game, words in cases:
        with pytest.raises(ValueError) as caught:
            SB3Agent(path, game=game)
        message = str(caught.value)
        assert words in message and str(path) in message and "\n" not in message, message
    player = SB3Agent(paths["maskable"])
    with pytest.raises(ValueError, match="cannot play Campanile"):
        player.act({"observation": np.zeros(2116, np.float32), "action_mask": np.ones(307, np.int8)},
                   {"game": "campanile"})
    with pytest.raises(ValueError, match="plays 5 Towers observations of 2116 values"):
        player.act({"observation": np.zeros(278, np.float32), "action_mask": np.ones(307, np.int8)}, {})
    # a 5 Towers model seated in Campanile: the run stops with the agent's error, in one line
    with pytest.raises(AgentError, match="cannot play Campanile"):
        evaluate([agent(paths["maskable"]), "random"], num_games=2, progress=False, game="campanile")


def test_missing_sb3_is_an_import_error_with_the_install_hint(models, tmp_path, monkeypatch):
    trained, _ = models
    path = tmp_path / "fresh.zip"  # not yet in the cache
    trained["ppo"].save(path)
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.save_util", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[rl\]"') as caught:
        SB3Agent(path)
    assert "\n" not in str(caught.value)


def test_a_model_is_loaded_once_per_file_version(models):
    _, paths = models
    first = load_model(paths["ppo"])
    assert load_model(paths["ppo"]) is first and SB3Agent(paths["ppo"]).model is first
    stat = paths["ppo"].stat()
    os.utime(paths["ppo"], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert load_model(paths["ppo"]) is not first  # a file saved again is read again
