"""Training games on the native core (``vector_env: native``, training/ppo/native_games.py).

They give the trainer what the Python pipeline's vector environment gives: the shaped reward from the final
scores, ``episode_outcome`` and Monitor's ``episode`` in a finished game's info, the masks, and new opponents
when the pool grows; and a run trains, checkpoints and resumes on them with either PPO loop.
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


def test_vector_env_is_python_or_native():
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
