"""Training games on the native core (``vector_env: native``, training/ppo/native_games.py).

They give the trainer what the Python pipeline's vector environment gives: the shaped reward from the final
scores, ``episode_outcome`` and Monitor's ``episode`` in a finished game's info, the masks, and new opponents
when the pool grows; and a run trains, checkpoints and resumes on them with either PPO loop. ``vector_env: auto``
(the default) chooses them where the native core is active, else the Python games; the run folder records the
choice, and a resumed run keeps it or stops in one line.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="training needs the rl extra")

from five_towers_env.core.game import get_game
from five_towers_env.training.config_base import ConfigError
from five_towers_env.training.ppo.config import load_config
from five_towers_env.training.ppo.pool import PoolSampler

SMOKE = "configs/ppo_smoke.yaml"


def _native_or_skip(game: str) -> None:
    if get_game(game).backend() != "native":
        pytest.skip("the native core is not built")


@pytest.mark.parametrize("game, setups", [("five_towers", ["2p-base", "3p-great_powers"]), ("campanile", [])])
def test_finished_games_carry_the_shaped_reward_and_their_outcome(tmp_path, game, setups):
    from five_towers_env.training.ppo.native_games import NativeGames

    _native_or_skip(game)
    overrides = {"out_dir": str(tmp_path), "game": game, "n_envs": 6, "vector_env": "native",
                 "reward_margin": 0.25, "eval_opponents": [], "pool.baselines": {"random": 1.0, "greedy": 1.0}}
    if setups:
        overrides["setups"] = setups
    else:
        overrides["variant"] = get_game(game).default_variant
    cfg = load_config(SMOKE, overrides)
    sampler = PoolSampler(list(cfg.pool.baselines.items()), cfg.num_players - 1, game=game)
    venv = NativeGames(cfg, sampler)
    assert venv.num_envs == 6 and len(venv.parts) == max(1, len(setups))
    obs = venv.reset()
    assert obs.shape == (6, get_game(game).observation_size)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        masks = venv.action_masks()
        assert masks.shape == (6, get_game(game).num_actions) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones):
            info = infos[i]
            seat, scores = info["learner_seat"], info["scores"]
            margin = int(scores[seat]) - max(int(s) for k, s in enumerate(scores) if k != seat)
            won = scores[seat] == scores.max()
            assert info["episode_outcome"]["margin"] == margin
            assert rewards[i] == pytest.approx((1.0 if won else -1.0) + 0.25 * margin)
            assert info["terminal_observation"].shape == obs[i].shape and info["episode"]["l"] >= 1
            finished += 1
        assert not any(infos[i] for i in np.flatnonzero(~dones))
    assert finished >= 6


def test_a_grown_pool_seats_its_snapshot_in_the_next_games(tmp_path):
    from five_towers_env.training.ppo.native_games import NativeGames

    _native_or_skip("campanile")
    cfg = load_config(SMOKE, {"out_dir": str(tmp_path), "game": "campanile", "variant": "pile", "n_envs": 4,
                              "vector_env": "native", "eval_opponents": []})
    venv = NativeGames(cfg, PoolSampler([("random", 1.0)], 1, game="campanile"))
    venv.reset()
    seen = set()

    def remember(rng):
        seen.add("greedy")
        return ["greedy"]

    venv.env_method("set_opponents", sampler=remember)
    rng = np.random.default_rng(1)
    for _ in range(300):
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
    assert seen == {"greedy"}
    assert all(type(a).__name__ == "GreedyAgent" for part in venv.parts for agents in part._agents for a in agents)


def test_vector_env_is_auto_python_or_native():
    with pytest.raises(ConfigError, match="vector_env: must be one of"):
        load_config(SMOKE, {"vector_env": "gpu"})


@pytest.mark.parametrize("loop", ["sb3", "lean"])
def test_a_run_on_native_games_trains_checkpoints_and_resumes(tmp_path, loop):
    from five_towers_env.training.ppo.trainer import PPOTrainer

    _native_or_skip("five_towers")
    cfg = load_config(SMOKE, {"out_dir": str(tmp_path), "imitation.games": 2, "vector_env": "native",
                              "ppo.loop": loop, "total_timesteps": 1024, "checkpoint_every": 512, "eval_every": 512})
    result = PPOTrainer(cfg, progress=False).run()
    assert result.network.is_file()
    first = tmp_path / "ppo_smoke" / "checkpoints" / "step_512.zip"
    cfg2, checkpoint = PPOTrainer.resume_config(first, {"total_timesteps": 1536})
    again = PPOTrainer(cfg2, resume=checkpoint, progress=False)
    again.run()
    assert int(again.model.num_timesteps) == 1536 and again.cfg.vector_env == "native"


# -- vector_env: auto, the default ---------------------------------------------------------------

def _not_built(monkeypatch):
    """The native core as on a machine without a compiler: its modules do not import."""
    from five_towers_env.core import backend, vector_env

    def missing(target):
        raise ImportError(f"No module named {target.partition(':')[0]!r}")

    monkeypatch.setattr(vector_env, "load", missing)  # what the native training games need
    monkeypatch.setattr(backend, "native_built", lambda modules=None: (False, "not built"))  # the engine switch
    monkeypatch.delenv("FIVE_TOWERS_ENGINE", raising=False)


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_auto_is_native_where_the_core_is_active_else_python(monkeypatch, game):
    from five_towers_env.training.ppo.config import TrainConfig
    from five_towers_env.training.ppo.trainer import PPOTrainer

    assert TrainConfig().vector_env == "auto" and TrainConfig().ppo.loop == "lean"
    overrides = {"game": game, "variant": get_game(game).default_variant}
    monkeypatch.delenv("FIVE_TOWERS_ENGINE", raising=False)
    if get_game(game).backend() == "native":
        assert load_config(SMOKE, overrides).vector_env == "native"
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")  # the package's one switch: auto follows it
    assert load_config(SMOKE, overrides).vector_env == "python"
    _not_built(monkeypatch)
    assert load_config(SMOKE, overrides).vector_env == "python"
    assert load_config(SMOKE, {**overrides, "vector_env": "native"}).vector_env == "native"  # a config to read
    with pytest.raises(ConfigError, match="vector_env: native: the batched vector environment needs the native core"):
        PPOTrainer.load_config(SMOKE, {**overrides, "vector_env": "native"})  # a run to start


@pytest.mark.parametrize("engine, games", [(None, "native"), ("python", "python")])
def test_the_run_folder_records_the_training_games_auto_chose(tmp_path, monkeypatch, engine, games):
    import yaml

    from five_towers_env.training.ppo.trainer import PPOTrainer

    if engine is None:
        _native_or_skip("five_towers")
        monkeypatch.delenv("FIVE_TOWERS_ENGINE", raising=False)
    else:
        monkeypatch.setenv("FIVE_TOWERS_ENGINE", engine)
    cfg = load_config(SMOKE, {"out_dir": str(tmp_path), "imitation.games": 0, "total_timesteps": 512,
                              "checkpoint_every": 512, "eval_every": 512, "eval_opponents": ["random"]})
    trainer = PPOTrainer(cfg, progress=False)
    assert type(trainer.venv).__name__ == {"native": "NativeGames", "python": "SelfPlayVecEnv"}[games]
    trainer.run()
    run = tmp_path / "ppo_smoke"
    assert yaml.safe_load((run / "config.yaml").read_text())["vector_env"] == games
    cfg2, checkpoint = PPOTrainer.resume_config(run)
    assert cfg2.vector_env == games and checkpoint.name == "step_512.zip"
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python" if games == "native" else "native")
    assert PPOTrainer.resume_config(run)[0].vector_env == games  # a resumed run keeps its games, whatever auto says


def test_a_native_run_resumed_without_the_core_stops_in_one_line(tmp_path, monkeypatch, capsys):
    from five_towers_env.cli import main
    from five_towers_env.training.ppo.trainer import PPOTrainer

    _native_or_skip("five_towers")
    cfg = load_config(SMOKE, {"out_dir": str(tmp_path), "imitation.games": 0, "total_timesteps": 512,
                              "checkpoint_every": 512, "eval_every": 512, "eval_opponents": ["random"]})
    assert cfg.vector_env == "native"
    PPOTrainer(cfg, progress=False).run()
    _not_built(monkeypatch)
    with pytest.raises(ConfigError) as error:
        PPOTrainer.resume_config(tmp_path / "ppo_smoke")
    message = str(error.value)
    assert "\n" not in message and "step_512.json: vector_env: native: " in message and "not built" in message
    assert "this run trained on the native core's games" in message and "--set vector_env=python" in message
    capsys.readouterr()
    assert main(["train", "--resume", str(tmp_path / "ppo_smoke"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("five-towers train: error: ") and message in err
    # what the message offers: the run goes on on the Python games, as the user asked
    assert PPOTrainer.resume_config(tmp_path / "ppo_smoke", {"vector_env": "python"})[0].vector_env == "python"


def test_a_checkpoint_from_before_the_settings_resumes_as_it_ran():
    from five_towers_env.training.ppo.config import config_from_dict, config_to_dict, stored_config

    old = config_to_dict(load_config(SMOKE))
    del old["vector_env"], old["ppo"]["loop"]
    cfg = config_from_dict(stored_config(old))
    assert (cfg.vector_env, cfg.ppo.loop) == ("python", "sb3")
    assert "vector_env" not in old  # a copy
    kept = stored_config({**old, "vector_env": "native", "ppo": {**old["ppo"], "loop": "lean"}})
    assert (kept["vector_env"], kept["ppo"]["loop"]) == ("native", "lean")
