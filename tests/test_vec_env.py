"""The batched training environments (``training/ppo/vec_env.py``) against SB3's own vector envs.

``SelfPlayVecEnv`` must give exactly what ``DummyVecEnv`` over ``Monitor(ShapedReward(env))`` gives
(observations, rewards, dones, episode statistics, automatic resets) when no opponent decides in
batches, and ``ProcessVecEnv`` exactly what ``SelfPlayVecEnv`` gives; a snapshot opponent must decide
through ``act_batch``; batched evaluation games must end as the same games played one at a time.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from five_towers_env.core.game import game_names
from five_towers_env.training.ppo.pool import PoolSampler
from five_towers_env.training.ppo.reward import ShapedReward, shape_reward
from five_towers_env.training.ppo.vec_env import ProcessVecEnv, SelfPlayVecEnv, one_blas_thread
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

GAMES = [g for g in ("five_towers", "campanile") if g in game_names()]
MIX = [("random", 1.0), ("greedy", 1.0), ("heuristic", 1.0)]


def _games(game: str, count: int, entries=MIX) -> list[SingleAgentGymEnv]:
    sampler = PoolSampler(entries, 1, game=game)
    return [SingleAgentGymEnv(game, num_players=2, opponent_sampler=sampler) for _ in range(count)]


def _rollout(venv, steps: int, seed: int = 0):
    """Observations, rewards, dones and finished episodes' (return, length) of ``steps`` random legal steps."""
    rng = np.random.default_rng(seed)
    venv.seed(7)
    out = [venv.reset()]
    episodes = []
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        out += [obs, rewards, dones]
        episodes += [(round(i["episode"]["r"], 9), i["episode"]["l"]) for i in infos if "episode" in i]
        for info, done in zip(infos, dones):
            if done:
                out.append(info["terminal_observation"])
    return out, episodes


@pytest.mark.parametrize("game", GAMES)
def test_selfplay_vec_env_is_dummy_vec_env(game):
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    dummy = DummyVecEnv([lambda env=env: Monitor(ShapedReward(env, 0.05)) for env in _games(game, 3)])
    ours = SelfPlayVecEnv(_games(game, 3), shape_reward(0.05))
    (a, ep_a), (b, ep_b) = _rollout(dummy, 150), _rollout(ours, 150)
    assert len(ep_a) >= 3 and ep_a == ep_b
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
def test_process_vec_env_is_selfplay_vec_env(game):
    import functools

    ours = SelfPlayVecEnv(_games(game, 4), shape_reward(0.0))
    makers = [functools.partial(_in_process, game, 2) for _ in range(2)]
    probe = _games(game, 1)[0]
    split = ProcessVecEnv(makers, [2, 2], probe.observation_space, probe.action_space)
    try:
        (a, ep_a), (b, ep_b) = _rollout(ours, 120), _rollout(split, 120)
        assert split.has_attr("action_masks")
        assert split.map(_square, [(2,), (3,), (4,)]) == [4, 9, 16]
    finally:
        split.close()
    assert ep_a == ep_b and len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def _in_process(game: str, count: int) -> SelfPlayVecEnv:
    return SelfPlayVecEnv(_games(game, count), shape_reward(0.0))


def _square(x: int) -> int:
    return x * x


def test_snapshot_opponents_decide_in_batches(tmp_path):
    from five_towers_env.agents.policy import PolicyAgent

    calls = []
    original = PolicyAgent.act_batch

    def counting(self, observations, masks, **kwargs):
        calls.append(len(observations))
        return original(self, observations, masks, **kwargs)

    PolicyAgent.act_batch = counting
    try:
        shipped = str(PolicyAgent().path)
        venv = SelfPlayVecEnv(_games("five_towers", 6, [("snapshot:" + shipped, 1.0)]))
        _, episodes = _rollout(venv, 60)
    finally:
        PolicyAgent.act_batch = original
    assert calls and max(calls) > 1  # several games asked the one network at once
    assert sum(calls) >= 60  # every opponent decision went through it


def test_pool_snapshots_decide_in_one_pass_per_batch():
    """Training's snapshot opponents run a batch through the network in one pass (``batch_invariant`` False):
    their logits are the row-by-row ones up to rounding, so a deterministic policy picks the same moves."""
    from five_towers_env.agents.policy import PolicyAgent

    shipped = str(PolicyAgent().path)
    sampler = PoolSampler([("snapshot:" + shipped, 1.0)], 1, game="five_towers")
    snapshot = sampler(np.random.default_rng(0))[0]
    assert isinstance(snapshot, PolicyAgent) and not snapshot.batch_invariant
    exact = PolicyAgent(shipped, game="five_towers")
    rng = np.random.default_rng(1)
    obs = (rng.random((24, exact.obs_size)) < 0.1).astype(np.float32)
    masks = rng.random((24, exact.num_actions)) < 0.3
    batched = PolicyAgent(shipped, game="five_towers", batch_invariant=False)
    assert np.allclose(batched.network.forward(obs)[0], exact.logits(obs), rtol=1e-4, atol=1e-4)
    assert (batched.act_batch(obs, masks) == exact.act_batch(obs, masks)).all()


def test_pool_snapshots_of_several_networks_decide_in_one_stacked_pass(tmp_path):
    """A round's snapshot opponents of several networks (training's pool) go through one stacked pass: each
    network's logits as its own batched pass gives them up to rounding, the same deterministic moves, the
    same draws for sampled ones; batch-invariant agents keep their own path."""
    from types import SimpleNamespace

    from five_towers_env.agents.network_file import read_network, stacked_logits, write_network
    from five_towers_env.agents.policy import PolicyAgent, load_network

    shipped = read_network(PolicyAgent().path)
    rng = np.random.default_rng(2)
    paths = []
    for k in range(3):  # three snapshots: the shipped weights moved apart
        arrays = {name: (w + rng.normal(0, 0.05, w.shape)).astype(np.float32) for name, w in shipped.arrays.items()}
        paths.append(write_network(tmp_path / f"s{k}.npz", "typed", arrays, dict(shipped.meta)))
    nets = [load_network(p, hint="five_towers") for p in paths]
    obs = (rng.random((3, 7, nets[0].obs_size)) < 0.1).astype(np.float32)
    batches = [obs[0], obs[1, :2], obs[2, :1]]  # batches of different sizes, padded inside
    stacked = stacked_logits(nets, batches)
    assert stacked is not None and [s.shape for s in stacked] == [(7, nets[0].num_actions), (2, nets[0].num_actions),
                                                                  (1, nets[0].num_actions)]
    for net, batch, logits in zip(nets, batches, stacked):
        assert np.allclose(logits, net.forward(batch)[0], rtol=1e-4, atol=1e-4)
    assert stacked_logits(nets[:1], batches[:1]) is None  # one network: its own pass

    rows = 12
    all_obs = (rng.random((rows, nets[0].obs_size)) < 0.1).astype(np.float32)
    masks = (rng.random((rows, nets[0].num_actions)) < 0.3).astype(np.int8)
    masks[:, 0] = 1
    games = SimpleNamespace(game="five_towers", num_players=2, variant="base",
                            observations=lambda r: (all_obs[list(r)], masks[list(r)]))

    def seated(deterministic, batch_invariant, seed):
        return [PolicyAgent(paths[j % 3], game="five_towers", deterministic=deterministic,
                            batch_invariant=batch_invariant, seed=seed + j) for j in range(rows)]

    calls = []
    original = PolicyAgent.act_batch
    PolicyAgent.act_batch = lambda self, *a, **k: calls.append(1) or original(self, *a, **k)
    try:
        one_pass = PolicyAgent.act_group(seated(True, False, 0), games, list(range(rows)))
        assert not calls  # every group went through the stacked pass
        exact = PolicyAgent.act_group(seated(True, True, 0), games, list(range(rows)))
        assert len(calls) == 3  # batch-invariant: one act_batch per network
        sampled = PolicyAgent.act_group(seated(False, False, 5), games, list(range(rows)))
    finally:
        PolicyAgent.act_batch = original
    assert (one_pass == exact).all()
    each = [original(a, all_obs[j:j + 1], masks[j:j + 1])[0] for j, a in enumerate(seated(False, True, 5))]
    assert list(sampled) == each  # each game's generator draws once, as alone


def test_batched_evaluation_plays_the_same_games():
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.training.ppo.eval_games import play_games

    agent = PolicyAgent()

    class OneAtATime:  # the same agent without act_batch: played game by game
        name = "ppo"

        def act(self, observation, info):
            return agent.act(observation, info)

    batched = play_games(agent, 2, "base", "greedy", 12, seed=5, game="five_towers", batch=5)
    single = play_games(OneAtATime(), 2, "base", "greedy", 12, seed=5, game="five_towers")
    assert batched == single


def test_one_blas_thread_finds_numpy_blas():
    import sys

    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"].lower()
    if not sys.platform.startswith("linux") or not ("openblas" in blas or "mkl" in blas):
        pytest.skip(f"reads /proc/self/maps and knows OpenBLAS and MKL (numpy has {blas})")
    assert one_blas_thread()


def test_imitation_games_in_parts_are_the_whole():
    from five_towers_env.training.ppo.config import load_config
    from five_towers_env.training.ppo.imitation import collect_in_parts, collect_teacher_games
    from five_towers_env.training.ppo.pool import OpponentPool

    cfg = load_config(Path(__file__).resolve().parent.parent / "configs" / "ppo_smoke.yaml", {"imitation.games": 5})
    pool = OpponentPool(cfg.pool, cfg.num_players, cfg.game)
    whole = collect_teacher_games(cfg, pool.sampler(), seed=3)
    parts = collect_in_parts(lambda function, jobs: [function(*job) for job in jobs], 3, cfg, pool.sampler(), 3)
    assert whole.keys() == parts.keys() and len(whole["action"]) > 50
    for key in whole:
        np.testing.assert_array_equal(whole[key], parts[key], err_msg=key)


def _final_info(winners: list[bool], scores: list[int], seat: int = 0) -> dict:
    return {"phase": "game_over", "learner_seat": seat, "scores": np.array(scores), "winners": np.array(winners)}


def test_a_shared_win_is_a_share_in_the_outcome_and_with_tie_reward_share_in_the_reward():
    """The logged outcome counts a k-way shared win as 1/k (as every evaluation does); the reward keeps the
    environment's +1 for it under ``full`` and gives 2/k - 1 under ``share``; sole wins and losses agree."""
    tie3, sole, loss = _final_info([True, True, True], [9, 9, 9]), _final_info([True, False], [9, 5]), \
        _final_info([False, True, False], [5, 9, 7])
    for info, env_reward, full, share, win in [(tie3, 1.0, 1.0, -1 / 3, 1 / 3), (sole, 1.0, 1.08, 1.08, 1.0),
                                               (loss, -1.0, -1.08, -1.08, 0.0)]:
        assert shape_reward(0.02, "full")(env_reward, True, dict(info)) == pytest.approx(full)
        assert shape_reward(0.02, "share")(env_reward, True, out := dict(info)) == pytest.approx(share)
        assert out["episode_outcome"]["win"] == pytest.approx(win)
    two = _final_info([True, False, True], [9, 4, 9])
    assert shape_reward(0.0, "share")(1.0, True, dict(two)) == 0.0
    assert shape_reward(0.0, "share")(0.0, False, dict(two)) == 0.0  # mid-game steps are left alone
    with pytest.raises(ValueError, match="ties must be one of full, share"):
        shape_reward(0.0, "half")
