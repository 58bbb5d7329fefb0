"""Campanile training: the single-agent Gymnasium env, config validation per game, the policy's game,
and a smoke self-play run whose policy plays Campanile games (torch / sb3-contrib tests skip without them)."""
from __future__ import annotations

import inspect
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from five_towers_env.games.campanile import ENV_ID as CAMPANILE_GYMNASIUM_ID
from five_towers_env.games.five_towers.state import IllegalActionError
from five_towers_env.training.ppo.config import ConfigError, baselines, config_from_dict, load_config
from five_towers_env.wrappers import GYM_ENV_ID, SingleAgentGymEnv
from five_towers_env.wrappers.single_agent import INFO_KEYS

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
CAMPANILE_OBS, CAMPANILE_ACTIONS = 278, 31


def play(env: gymnasium.Env, seed: int, policy_seed: int = 0) -> list[tuple]:
    """One episode with random legal learner actions, checking the mask at every decision."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    traj = [(obs, info)]
    while True:
        unwrapped = env.unwrapped
        mask = env.get_wrapper_attr("action_masks")()
        game = unwrapped.game
        # the learner is on move, and the mask is exactly its legal actions, in info too
        assert game.current_player == unwrapped.learner_seat and not game.is_terminal()
        assert np.flatnonzero(mask).tolist() == sorted(game.legal_actions())
        assert np.array_equal(info["action_mask"], mask.astype(np.int8))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        traj.append((obs, reward, terminated, truncated, info))
        assert not truncated
        if terminated:
            return traj
        assert reward == 0.0


def same(a, b) -> bool:
    equivalence = gymnasium.utils.env_checker.data_equivalence
    exact = {"exact": True} if "exact" in inspect.signature(equivalence).parameters else {}  # gymnasium < 1.0
    return equivalence(a, b, **exact)


# -- the Gymnasium environment --------------------------------------------------------------

def test_check_env_and_registration():
    # check_env plays action_space.sample(), mostly illegal: the default "penalize" mode ends the episode
    check_env(SingleAgentGymEnv("campanile", num_players=3))
    check_env(gymnasium.make(CAMPANILE_GYMNASIUM_ID).unwrapped)
    check_env(gymnasium.make(CAMPANILE_GYMNASIUM_ID, num_players=4, variant="played"))
    env = gymnasium.make(CAMPANILE_GYMNASIUM_ID)
    assert isinstance(env.unwrapped, SingleAgentGymEnv) and env.unwrapped.game_name == "campanile"
    assert env.observation_space == gymnasium.spaces.Box(0.0, 1.0, (CAMPANILE_OBS,), np.float32)
    assert env.action_space == gymnasium.spaces.Discrete(CAMPANILE_ACTIONS)
    # the same name as the PettingZoo id, in Gymnasium's own registry; 5 Towers keeps its id
    assert CAMPANILE_GYMNASIUM_ID == "five_towers_env/Campanile-v0"
    assert gymnasium.spec(GYM_ENV_ID).kwargs == {"game": "five_towers"}  # one single-agent class, the game a setting


@pytest.mark.parametrize("num_players, variant", [(2, "pile"), (3, "played"), (5, "pile")])
def test_episode_masks_infos_and_rewards(num_players, variant):
    env = SingleAgentGymEnv("campanile", num_players=num_players, variant=variant, opponents="greedy")
    traj = play(env, seed=num_players)
    obs, info = traj[0]
    assert env.observation_space.contains(obs) and set(info) == set(INFO_KEYS)
    for step in traj[1:]:
        assert env.observation_space.contains(step[0]) and set(step[4]) == set(INFO_KEYS)
    _, reward, _, _, info = traj[-1]
    seat = info["learner_seat"]
    assert info["phase"] == "game_over" and info["scores"].dtype == np.int64 and info["winners"].dtype == bool
    assert info["scores"].shape == info["winners"].shape == (num_players,)
    assert reward == (1.0 if info["winners"][seat] else -1.0) and info["score"] == info["scores"][seat]
    assert not env.action_masks().any() and not info["action_mask"].any()
    # the opponents are Campanile's own agents, built through the registry with game="campanile"
    assert all(type(o).__module__.startswith("five_towers_env.games.campanile.agents") for o in env.opponents)


def test_learner_only_sees_its_own_turns_and_opponents_get_campanile_info():
    seen = []

    class Recorder:
        name = "recorder"

        def act(self, observation, info):
            seen.append((info["game"], info["seat"]))
            return int(info["legal_actions"][0])

    env = SingleAgentGymEnv("campanile", num_players=3, opponents=[Recorder(), Recorder()], learner_seat=1)
    play(env, seed=3)
    assert seen and {g for g, _ in seen} == {"campanile"} and {s for _, s in seen} == {0, 2}
    assert env.learner_info()["game"] == "campanile" and env.learner_info()["seat"] == 1


def test_seeds_reproduce():
    def run(seed, policy_seed=7):
        env = gymnasium.make(CAMPANILE_GYMNASIUM_ID, num_players=3, opponents=["heuristic", "random"])
        traj = play(env, seed, policy_seed)
        return env.unwrapped.learner_seat, traj

    seat_a, a = run(11)
    seat_b, b = run(11)
    assert seat_a == seat_b and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    others = [run(s)[1] for s in (12, 13, 14)]
    assert any(len(t) != len(a) or not same(t[0], a[0]) for t in others)
    # one env object reset again with the same seed replays the game (opponents re-seeded)
    env = SingleAgentGymEnv("campanile", num_players=2, opponents="heuristic")
    t1, t2 = play(env, 4), play(env, 4)
    assert len(t1) == len(t2) and all(same(x, y) for x, y in zip(t1, t2))


def test_illegal_actions_and_game_specific_options():
    env = SingleAgentGymEnv("campanile", illegal_action="raise")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    assert env.action_masks().any()  # nothing changed
    env = SingleAgentGymEnv("campanile")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(ValueError, match="Campanile has no observation 'dict'; its observations: 'flat'"):
        SingleAgentGymEnv("campanile", observation="dict")  # the game's spec names no such wrapper
    with pytest.raises(TypeError, match="explicit"):
        SingleAgentGymEnv("campanile", explicit=True)  # a setting of 5 Towers' raw_env: Campanile's rejects it
    with pytest.raises(ValueError, match="no 'margin' reward"):
        SingleAgentGymEnv("campanile", reward="margin")
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentGymEnv("campanile", render_mode="video")
    picture = SingleAgentGymEnv("campanile", render_mode="rgb_array")
    picture.reset(seed=1)
    assert picture.render().ndim == 3
    with pytest.raises(ValueError, match="variant"):
        SingleAgentGymEnv("campanile", variant="base")
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentGymEnv("chess")
    text = SingleAgentGymEnv("campanile", render_mode="ansi", bet_chip="exact")
    text.reset(seed=1)
    assert "Campanile" in text.render()


# -- config --------------------------------------------------------------------------------

def test_campanile_configs_load():
    cfg = load_config(CONFIGS / "ppo_campanile_2p.yaml")
    assert (cfg.game, cfg.num_players, cfg.variant, cfg.ppo.architecture) == ("campanile", 2, "pile", "mlp")
    assert set(cfg.pool.baselines) == {"random", "greedy", "heuristic"} and cfg.pool.snapshot_weight > 0
    assert cfg.run_dir == Path("runs") / "ppo_campanile_2p"
    assert load_config(CONFIGS / "ppo_campanile_smoke.yaml").game == "campanile"
    # a config naming the game but no variant gets the game's default
    assert config_from_dict({"game": "campanile"}).variant == "pile"
    assert config_from_dict({}).variant == "base" and config_from_dict({}).game == "five_towers"
    assert baselines("campanile") == ("random", "greedy", "heuristic", "mcts")


@pytest.mark.parametrize("data, message", [
    ({"game": "chess"}, "game: must be one of five_towers, campanile"),
    ({"game": "campanile", "variant": "base"}, "variant: must be one of pile, played for Campanile"),
    ({"game": "five_towers", "variant": "pile"}, "variant: must be one of base, great_powers"),
    ({"game": "campanile", "num_players": 6}, "num_players: must be 2..5"),
    ({"game": "campanile", "ppo": {"architecture": "typed"}}, "ppo.architecture: Campanile has no typed network"),
    ({"game": "campanile", "pool": {"baselines": {"ppo": 1.0}}}, "pool.baselines: unknown agent 'ppo'"),
    ({"game": "campanile", "eval_opponents": ["human"]}, "eval_opponents: unknown agent 'human'"),
    ({"game": "campanile", "imitation": {"teacher": "nobody"}}, "imitation.teacher: unknown agent 'nobody'"),
    ({"game": 3}, "game: expected str"),
])
def test_bad_campanile_configs_are_rejected(data, message):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert message in str(err.value)


# -- training, the exported policy and its game (need torch and sb3-contrib) ----------------

@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.trainer import PPOTrainer

    out = tmp_path_factory.mktemp("runs")
    cfg = load_config(CONFIGS / "ppo_campanile_smoke.yaml", {"out_dir": str(out)})
    start = time.perf_counter()
    trainer = PPOTrainer(cfg, progress=False)
    policy = trainer.run().network
    return cfg, trainer, policy, time.perf_counter() - start


def test_smoke_training_runs_end_to_end(smoke_run):
    cfg, trainer, policy, seconds = smoke_run
    assert seconds < 60, f"the Campanile smoke run took {seconds:.0f} s"  # about 13 s on an idle 2-core machine
    assert trainer.model.num_timesteps >= cfg.total_timesteps
    assert trainer.model.observation_space.shape == (CAMPANILE_OBS,)
    assert policy == cfg.run_dir / "policy.npz" and policy.exists()
    assert load_config(cfg.run_dir / "config.yaml") == cfg
    assert trainer.pool.snapshots, "the smoke config promotes snapshots (promote_win_rate ~ 0)"
    log = (cfg.run_dir / "eval_log.csv").read_text().splitlines()
    assert log[0].startswith("timesteps,wall_s,win_rate_vs_random") and len(log) >= 3
    import json

    state = json.loads(next(cfg.run_dir.glob("checkpoints/step_*.json")).read_text())
    assert state["config"]["game"] == "campanile"


def test_policy_plays_campanile_games(smoke_run):
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.play import play_game

    cfg, _, policy, _ = smoke_run
    agent = PolicyAgent(policy)
    assert agent.game == "campanile" and agent.meta["game"] == "campanile" and agent.meta["variant"] == "pile"
    assert (agent.obs_size, agent.num_actions) == (CAMPANILE_OBS, CAMPANILE_ACTIONS)

    class Checked:
        """Asserts every decision of the wrapped agent is legal."""

        def __init__(self, inner) -> None:
            self.inner, self.name, self.decisions = inner, inner.name, 0

        def act(self, observation, info):
            a = self.inner.act(observation, info)
            assert isinstance(a, int) and a in info["legal_actions"] and observation["action_mask"][a] == 1
            self.decisions += 1
            return a

    for num_players, variant in [(2, "pile"), (3, "played")]:
        ppo = Checked(make_agent("ppo", seed=1, path=str(policy), game="campanile"))
        sampled = Checked(make_agent("ppo", seed=2, path=str(policy), game="campanile", deterministic=False))
        others = [make_agent("heuristic", seed=s, game="campanile") for s in range(num_players - 2)]
        result = play_game([ppo, sampled] + others, variant=variant, seed=5, game="campanile")
        assert ppo.decisions > 0 and sampled.decisions > 0 and len(result["scores"]) == num_players


def test_exported_policy_matches_the_sb3_policy(smoke_run):
    from sb3_contrib import MaskablePPO

    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    from agent_checks import check_export_matches_sb3

    cfg, _, policy, _ = smoke_run
    ckpt = run_checkpoints(cfg.run_dir)[-1][1]
    model = MaskablePPO.load(ckpt, device="cpu")
    agent = PolicyAgent(policy)
    obs = check_export_matches_sb3(model, agent, SingleAgentGymEnv("campanile", opponents="random"),
                                   lambda e: e.learner_info())
    zipped = PolicyAgent(ckpt)  # a .zip checkpoint loads too, and knows its game from its sizes
    assert zipped.game == "campanile" and zipped.logits(obs).shape == (CAMPANILE_ACTIONS,)


def test_policy_refuses_the_other_game(smoke_run):
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.core.game import get_game
    from five_towers_env.play import play_game
    from five_towers_env.training.ppo.pool import PoolSampler

    _, _, policy, _ = smoke_run
    shipped = get_game("five_towers").policy_path(2, "base")
    with pytest.raises(ValueError, match="Campanile policy .* cannot play 5 Towers"):
        PolicyAgent(policy, game="five_towers")
    with pytest.raises(ValueError, match="cannot play 5 Towers"):
        make_agent("ppo", path=str(policy))  # 5 Towers' registry: game="five_towers" is filled in
    with pytest.raises(ValueError, match="5 Towers policy .* cannot play Campanile"):
        make_agent("ppo", game="campanile", path=str(shipped))  # 5 Towers' shipped policy
    assert PolicyAgent(shipped).game == "five_towers"  # a file without a "game" entry: its sizes tell
    agent = PolicyAgent(policy)
    with pytest.raises(ValueError, match="cannot play 5 Towers"):
        play_game([agent, make_agent("random", seed=0)], seed=0)  # info names the game
    five = SingleAgentGymEnv("five_towers")
    obs, _ = five.reset(seed=0)
    with pytest.raises(ValueError, match="observations of 278 values"):
        agent.act({"observation": obs, "action_mask": five.action_masks()}, {})  # no game in info: the size tells
    sampler = PoolSampler([("snapshot:" + str(policy), 1.0)], 1, game="five_towers")
    with pytest.raises(ValueError, match="cannot play 5 Towers"):
        sampler(np.random.default_rng(0))
    assert isinstance(PoolSampler([("snapshot:" + str(policy), 1.0)], 1, game="campanile")(
        np.random.default_rng(0))[0], PolicyAgent)


def test_cli_train_campanile_smoke(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.cli import main

    code = main(["train", "--config", str(CONFIGS / "ppo_campanile_smoke.yaml"), "--no-progress",
                 "--eval-games", "4", "--set", f"out_dir={tmp_path}", "total_timesteps=1024", "eval_every=1024",
                 "imitation.games=0"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "against the baselines (campanile, 2 players, pile" in out and "greedy" in out
    assert (tmp_path / "ppo_campanile_smoke" / "final_eval.json").exists()
