"""The RLlib integration (``five_towers_env.integrations.rllib``): the turn-based MultiAgentEnv, the
action-masking RLModule, and a short local self-play PPO run that must learn to beat random.

Needs the ``rllib`` extra (RLlib pins its own gymnasium, so it lives in its own environment):
``bash .ci/rllib.sh`` builds one and runs this file.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("ray", reason="needs the rllib extra: pip install -e '.[rllib]' (or run bash .ci/rllib.sh)")
pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]' (or run bash .ci/rllib.sh)")
torch = pytest.importorskip("torch", reason="needs torch (CPU build: see README)")

from five_towers_env.games.five_towers.actions import NUM_ACTIONS  # noqa: E402
from five_towers_env.games.five_towers.observation import OBS_SIZE  # noqa: E402
from five_towers_env.integrations import rllib as R  # noqa: E402

#: the evaluation seed of the learning test (a regression check, not a measurement)
EVAL_SEED = 11
EVAL_GAMES = 60


@pytest.mark.parametrize("game, num_players", [("five_towers", 2), ("five_towers", 4), ("campanile", 3)])
def test_env_keeps_turns_masks_and_final_rewards(game, num_players):
    env = R.GameMultiAgentEnv({"game": game, "num_players": num_players})
    obs, infos = env.reset(seed=3)
    rng = np.random.default_rng(0)
    space = env.observation_spaces["player_0"]
    steps = 0
    while True:
        (agent, o), = obs.items()  # only the seat on move observes
        assert agent == env.aec.agent_selection
        assert space.contains(o)
        legal = np.flatnonzero(o[R.MASK_KEY])
        assert sorted(legal.tolist()) == sorted(env.aec.legal_actions())
        obs, rewards, terminateds, truncateds, infos = env.step({agent: int(rng.choice(legal))})
        steps += 1
        assert not truncateds["__all__"]
        if terminateds["__all__"]:
            break
        assert rewards == {agent: 0.0}  # nothing before the end
    winners = env.aec.winners()
    assert set(obs) == set(rewards) == set(env.possible_agents)  # every seat: last observation and reward
    assert all(terminateds[a] for a in env.possible_agents)
    assert rewards == {a: (1.0 if i in winners else -1.0) for i, a in enumerate(env.possible_agents)}
    assert all(not o[R.MASK_KEY].any() for o in obs.values())  # nobody is on move any more
    assert steps > 20


def test_env_passes_game_settings_to_the_game_which_rejects_unknown_ones():
    env = R.GameMultiAgentEnv({"game": "campanile", "num_players": 3, "variant": "played", "bet_chip": "exact"})
    assert (env.aec.variant, env.aec.bet_chip, env.num_actions) == ("played", "exact", env.spec.num_actions)
    assert R.GameMultiAgentEnv({"reward": "margin"}).aec.reward_mode == "margin"  # 5 Towers, the default game
    with pytest.raises(TypeError, match="players"):
        R.GameMultiAgentEnv({"players": 3})
    with pytest.raises(ValueError, match="no 'margin' reward"):
        R.GameMultiAgentEnv({"game": "campanile", "reward": "margin"})


def test_module_masks_logits_for_every_forward_pass():
    env = R.GameMultiAgentEnv({"num_players": 2})
    space = env.observation_spaces["player_0"]
    module = R.ActionMaskingTorchRLModule(observation_space=space, action_space=env.action_spaces["player_0"],
                                          model_config={"fcnet_hiddens": [32]})
    assert module.observation_space == space  # a spec made from the module rebuilds it with the mask
    obs = torch.rand(3, space[R.OBS_KEY].shape[0])
    mask = torch.zeros(3, NUM_ACTIONS)
    mask[0, 5] = 1
    mask[1, [7, 200]] = 1  # row 2: all zero (a finished game's observation)
    batch = {"obs": {R.OBS_KEY: obs, R.MASK_KEY: mask}}
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(dict(batch))["action_dist_inputs"]
        assert (logits[mask == 0] == R.MASKED_LOGIT).all()
        probs = torch.softmax(logits, -1).detach()
        assert torch.isfinite(probs).all()
        assert probs[0, 5] == 1 and probs[1, [7, 200]].sum() == pytest.approx(1.0)
        assert torch.allclose(probs[2], torch.full((NUM_ACTIONS,), 1.0 / NUM_ACTIONS))
    values = module.compute_values(dict(batch))
    assert values.shape == (3,) and torch.isfinite(values).all()
    assert R.RLlibAgent(module).act({"observation": obs[1].numpy(), "action_mask": mask[1].numpy()}, {}) in (7, 200)


def test_masked_random_module_plays_legal_actions():
    env = R.GameMultiAgentEnv({"num_players": 2})
    module = R.MaskedRandomRLModule(observation_space=env.observation_spaces["player_0"],
                                    action_space=env.action_spaces["player_0"], model_config={"seed": 0})
    mask = np.zeros((50, NUM_ACTIONS), dtype=np.float32)
    mask[:, [3, 9, 100]] = 1
    actions = module.forward_exploration({"obs": {R.OBS_KEY: np.zeros((50, OBS_SIZE), np.float32), R.MASK_KEY: mask}})
    assert set(actions["actions"].tolist()) == {3, 9, 100}


def test_pool_mapping_gives_each_game_one_lineup():
    mapping = R.PoolMapping(3, ["random", "snapshot_0"], [0.5, 0.5], self_play_prob=0.3)
    lineups = [mapping.lineup(f"episode-{i}") for i in range(400)]
    assert all(mapping.lineup(f"episode-{i}") == lineups[i] for i in range(400))  # stable per episode
    self_play = [lu for lu in lineups if lu == ["main"] * 3]
    assert 0.2 < len(self_play) / 400 < 0.4
    assert all(lu.count("main") == 1 for lu in lineups if lu not in self_play)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_selfplay_ppo_learns_to_beat_random(local_ray, tmp_path):
    """A short local run (20 iterations of 2,000 env steps, no remote env runners) must beat random
    clearly, and show that it learned: masking alone already makes the *greedy* untrained policy beat
    random (0.6-0.95 over these games, depending on the initial weights), so learning is checked on
    the *sampled* policy, which starts as uniform play over the legal actions (about 0.57)."""
    torch.set_num_threads(1)  # small networks on few cores: extra threads only add overhead

    # -- the README snippet --
    from five_towers_env.integrations.rllib import (
        evaluate_module,
        learner_module,
        load_module,
        selfplay_ppo_config,
        train_selfplay,
    )

    config = selfplay_ppo_config(num_players=2, num_env_runners=0, train_batch_size=2000, minibatch_size=250,
                                 seed=int(os.environ.get("FIVE_TOWERS_RLLIB_SEED", 0)))
    algo = config.build_algo()
    before = evaluate_module(learner_module(algo), "random", num_games=EVAL_GAMES, seed=EVAL_SEED,
                             deterministic=False)
    train_selfplay(algo, iterations=20, snapshot_every=5)
    module = learner_module(algo)
    greedy = evaluate_module(module, "random", num_games=EVAL_GAMES, seed=EVAL_SEED)
    sampled = evaluate_module(module, "random", num_games=EVAL_GAMES, seed=EVAL_SEED, deterministic=False)
    print(f"win rate against random: greedy {greedy['win_rate']:.3f}, "
          f"sampled {sampled['win_rate']:.3f} (untrained sampled {before['win_rate']:.3f})")
    # -- end of snippet --

    checkpoint = algo.save_to_path(str(tmp_path / "checkpoint"))
    algo.stop()
    assert greedy["win_rate"] >= 0.8, greedy
    assert sampled["win_rate"] >= 0.75, sampled
    assert sampled["win_rate"] >= before["win_rate"] + 0.15, (before, sampled)
    reloaded = evaluate_module(load_module(checkpoint), "random", num_games=EVAL_GAMES, seed=EVAL_SEED)
    assert reloaded["win_rate"] == greedy["win_rate"]  # the checkpoint holds the trained weights
