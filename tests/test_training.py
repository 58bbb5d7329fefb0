"""Self-play training: config validation, the opponent pool, policy export / loading, a smoke run."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.training.config_base import write_settings
from five_towers_env.training.ppo.config import (
    ConfigError,
    TrainConfig,
    config_from_dict,
    config_to_dict,
    load_config,
)

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
#: the PPO configs (the expert-iteration ones, method: expert_iteration, are tested in test_expert.py)
PPO_CONFIGS = sorted(p for p in CONFIGS.glob("*.yaml") if "method: expert_iteration" not in p.read_text())


# -- config ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", PPO_CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load_and_round_trip(path, tmp_path):
    cfg = load_config(path)
    write_settings(tmp_path / "again.yaml", config_to_dict(cfg))
    assert load_config(tmp_path / "again.yaml") == cfg


def test_config_files_cover_the_required_runs():
    configs = {p.stem: load_config(p) for p in PPO_CONFIGS}
    kinds = {(c.num_players, c.variant) for c in configs.values()}
    assert (2, "base") in kinds and (4, "base") in kinds and any(v == "great_powers" for _, v in kinds)
    assert "ppo_smoke" in configs and "ppo_selfplay_2p" in configs


def test_every_setting_is_documented_and_in_the_readme():
    import dataclasses

    from five_towers_env.training.config_base import field_docs
    from five_towers_env.training.ppo import config as config_module

    for cls in (config_module.TrainConfig, config_module.PPOSettings, config_module.PoolSettings,
                config_module.ImitationSettings):
        docs = field_docs(cls)
        assert set(docs) == {f.name for f in dataclasses.fields(cls)}, f"{cls.__name__}: undocumented settings"
    readme = (CONFIGS.parent / "docs" / "training.md").read_text()
    start = readme.index("<!-- settings-table:start -->") + len("<!-- settings-table:start -->")
    end = readme.index("<!-- settings-table:end -->")
    assert readme[start:end].strip() == config_module.settings_table().strip(), \
        "docs/training.md settings table is stale"


@pytest.mark.parametrize("data, message", [
    ({"num_player": 2}, "unknown key(s) num_player"),
    ({"ppo": {"learning_rat": 0.1}}, "unknown key(s) ppo.learning_rat"),
    ({"pool": {"baselines": {"randm": 1.0}}}, "unknown agent 'randm'"),
    ({"num_players": 7}, "num_players: must be 2..5"),
    ({"num_players": "2"}, "num_players: expected int"),
    ({"variant": "foo"}, "variant: must be one of"),
    ({"total_timesteps": 0}, "total_timesteps: must be >= 1"),
    ({"tie_reward": "half"}, "tie_reward: must be one of full, share"),
    ({"ppo": {"net_arch": [64, "x"]}}, "ppo.net_arch[1]: expected int"),
    ({"ppo": {"activation": "gelu"}}, "ppo.activation"),
    ({"ppo": {"batch_size": 4096, "n_steps": 16}, "n_envs": 2}, "exceeds the rollout size"),
    ({"ppo": 3}, "ppo.: expected a mapping"),
    ({"pool": {"baselines": {"random": -1.0}}}, "weight must be >= 0"),
    ({"pool": {"baselines": {}}}, "positive total weight"),
    ({"eval_opponents": ["nobody"]}, "eval_opponents: unknown agent"),
    ({"subproc": "yes"}, "subproc: expected bool"),
])
def test_bad_configs_are_rejected_with_the_key_named(data, message):
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert message in str(err.value)


def test_bad_yaml_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- a list\n")
    with pytest.raises(ConfigError, match="must be a mapping"):
        load_config(bad)
    bad.write_text("seed: 1\nbogus: 2\n")
    with pytest.raises(ConfigError, match=r"bad.yaml: unknown key\(s\) bogus"):
        load_config(bad)


def test_overrides_and_defaults(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: 3\n")
    cfg = load_config(path, {"ppo.n_epochs": 2, "total_timesteps": 10})
    assert cfg.seed == 3 and cfg.ppo.n_epochs == 2 and cfg.total_timesteps == 10
    assert cfg.ppo.learning_rate == TrainConfig().ppo.learning_rate
    assert config_from_dict(config_to_dict(cfg)) == cfg


# -- pool -----------------------------------------------------------------------------------

def test_pool_sampler_weights_and_pickling():
    import pickle

    from five_towers_env.training.ppo.pool import PoolSampler

    sampler = PoolSampler([("random", 3.0), ("greedy", 1.0), ("heuristic", 0.0)], num_opponents=3, game="five_towers")
    draws = [d for _ in range(400) for d in sampler(np.random.default_rng(_))]
    assert set(draws) == {"random", "greedy"}
    assert 0.65 < draws.count("random") / len(draws) < 0.85
    same_seat = PoolSampler([("random", 1.0), ("greedy", 1.0)], num_opponents=3, per_seat=False, game="five_towers")
    assert all(len(set(same_seat(np.random.default_rng(s)))) == 1 for s in range(20))
    clone = pickle.loads(pickle.dumps(sampler))
    assert clone(np.random.default_rng(5)) == sampler(np.random.default_rng(5))
    with pytest.raises(ValueError):
        PoolSampler([("random", 0.0)], 1, game="five_towers")


def test_pool_snapshots_share_their_weight_and_are_capped(tmp_path):
    from five_towers_env.training.ppo.config import PoolSettings
    from five_towers_env.training.ppo.pool import SNAPSHOT, OpponentPool

    settings = PoolSettings(baselines={"random": 1.0}, snapshot_weight=1.0, recency=2.0, max_snapshots=2)
    pool = OpponentPool(settings, 2, "five_towers")
    assert pool.entries() == [("random", 1.0)]
    for k in range(3):
        pool.add_snapshot(tmp_path / f"s{k}.npz")
    entries = dict(pool.entries())
    assert list(entries) == ["random", SNAPSHOT + str(tmp_path / "s1.npz"), SNAPSHOT + str(tmp_path / "s2.npz")]
    s1, s2 = SNAPSHOT + str(tmp_path / "s1.npz"), SNAPSHOT + str(tmp_path / "s2.npz")
    assert entries[s2] == pytest.approx(2 * entries[s1])
    pool.save(tmp_path / "pool.json")
    other = OpponentPool(pool.settings, 2, "five_towers")
    other.load(tmp_path / "pool.json")
    assert other.snapshots == pool.snapshots


# -- training, export and the policy agent (need torch and sb3-contrib) ---------------------

@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.trainer import PPOTrainer

    out = tmp_path_factory.mktemp("runs")
    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {"out_dir": str(out)})
    trainer = PPOTrainer(cfg, progress=False)
    policy = trainer.run().network
    return cfg, trainer, policy


def test_smoke_training_saves_everything(smoke_run):
    cfg, trainer, policy = smoke_run
    run = cfg.run_dir
    assert trainer.model.num_timesteps >= cfg.total_timesteps
    assert policy == run / "policy.npz" and policy.exists()
    assert load_config(run / "config.yaml") == cfg
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    ckpts = [path for _, path in run_checkpoints(run)]
    assert ckpts and all(c.with_suffix(".json").exists() for c in ckpts)
    assert not list(run.rglob("*.partial-*"))  # every save renamed into place
    log = (run / "eval_log.csv").read_text().splitlines()
    assert log[0].startswith("timesteps,wall_s,win_rate_vs_random") and len(log) >= 3
    assert (run / "learning_curve.png").stat().st_size > 1000
    assert list((run / "tb").glob("events.out.tfevents.*"))
    with open(run / "tb" / "progress.csv") as f:  # the CSV twin of the TensorBoard scalars
        logged = list(csv.DictReader(f))
    rates = [float(r["throughput/steps_per_s"]) for r in logged if r.get("throughput/steps_per_s")]
    assert rates and all(rate > 0 for rate in rates) and any(r.get("throughput/eval_s") for r in logged)
    assert trainer.pool.snapshots, "the smoke config promotes snapshots (promote_win_rate ~ 0)"


def test_exported_policy_matches_the_sb3_policy(smoke_run):
    from sb3_contrib import MaskablePPO

    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.wrappers import SingleAgentGymEnv

    from agent_checks import check_export_matches_sb3

    cfg, trainer, policy = smoke_run
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    ckpt = run_checkpoints(cfg.run_dir)[-1][1]
    model = MaskablePPO.load(ckpt, device="cpu")
    agent = PolicyAgent(policy)
    obs = check_export_matches_sb3(model, agent, SingleAgentGymEnv("five_towers", num_players=2, opponents="random"),
                                   lambda e: {})
    assert PolicyAgent(ckpt).logits(obs).shape == (307,)  # a .zip checkpoint loads too


def test_a_checkpoint_is_converted_once_per_process_and_file_version(smoke_run, monkeypatch):
    """An evaluation builds its agents again for every game: a ``.zip`` is loaded through sb3 once, not
    once per game (seconds each), and again only when the file changes."""
    import os
    from collections import OrderedDict

    from five_towers_env.agents import network_file
    from five_towers_env.agents import policy as policy_module
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    cfg, _, _ = smoke_run
    ckpt = run_checkpoints(cfg.run_dir)[-1][1]
    converted = []
    convert = network_file._convert_checkpoint
    monkeypatch.setattr(network_file, "_convert_checkpoint", lambda path: converted.append(path) or convert(path))
    monkeypatch.setattr(network_file, "_CHECKPOINTS", {})
    monkeypatch.setattr(policy_module, "_NETWORKS", OrderedDict())  # the agents' shared networks: none loaded yet
    first, second = PolicyAgent(ckpt), PolicyAgent(ckpt)
    assert len(converted) == 1
    assert first.network.meta == second.network.meta and first.path == second.path == ckpt
    stat = ckpt.stat()
    os.utime(ckpt, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    PolicyAgent(ckpt)
    assert len(converted) == 2, "a checkpoint written again is read again"


@pytest.mark.parametrize("num_players, variant", [(2, "base"), (3, "great_powers"), (5, "base")])
def test_trained_policy_plays_legal_games(smoke_run, num_players, variant):
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.play import play_game

    from agent_checks import LegalityChecker

    _, _, policy = smoke_run
    agents = [make_agent("ppo", seed=1, path=str(policy))]
    agents += [make_agent("random", seed=s) for s in range(num_players - 1)]
    agents.append(make_agent("ppo", seed=2, path=str(policy), deterministic=False))
    seated = [LegalityChecker(a) for a in agents[:num_players - 1] + [agents[-1]]]
    result = play_game(seated, variant=variant, seed=4)
    # every move of the game, both policies' included, passed the legality check
    assert seated[0].decisions > 0 and seated[-1].decisions > 0
    assert sum(c.decisions for c in seated) == result["steps"]


def test_resume_continues_the_run(smoke_run):
    from five_towers_env.training.ppo.checkpoints import resume_config
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg, trainer, _ = smoke_run
    ckpt = cfg.run_dir / "checkpoints" / "step_1024.zip"
    resumed_cfg = resume_config(ckpt)
    assert resumed_cfg == cfg
    again = PPOTrainer(resumed_cfg, resume=ckpt, progress=False)
    assert again.model.num_timesteps == 1024
    assert len(again.eval_rows) == 2  # the untrained policy and step 1024
    again.run()
    assert again.model.num_timesteps >= cfg.total_timesteps
    assert len(again.eval_rows) == 3


def test_policy_agent_rejects_missing_and_mismatched_files(tmp_path):
    from five_towers_env.agents.policy import PolicyAgent

    with pytest.raises(FileNotFoundError):
        PolicyAgent(tmp_path / "nope.npz")
    bad = tmp_path / "bad.npz"
    np.savez(bad, format=1, activation="relu", layers=1, meta="{}", w0=np.zeros((307, 10), np.float32),
             b0=np.zeros(307, np.float32))
    with pytest.raises(ValueError, match="do not match"):
        PolicyAgent(bad)


def test_cli_train_smoke(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.cli import main

    code = main(["train", "--config", str(CONFIGS / "ppo_smoke.yaml"), "--no-progress", "--eval-games", "4",
                 "--set", f"out_dir={tmp_path}", "total_timesteps=1024", "eval_every=1024"])
    out = capsys.readouterr().out
    assert code == 0
    assert "against the baselines" in out and "greedy" in out
    assert main(["train", "--config", str(CONFIGS / "ppo_smoke.yaml"), "--set", "bogus=1"]) == 2
    assert "unknown key(s) bogus" in capsys.readouterr().err


def test_final_evaluation_defaults_to_the_runs_worker_processes(monkeypatch):
    """After training the game workers' cores are free: the final table uses as many processes by default
    (capped at the CPUs), and one where the run played in its own process."""
    from types import SimpleNamespace

    from five_towers_env.cli import train

    monkeypatch.setattr(train, "usable_cpus", lambda: 2)
    assert train.final_eval_workers(SimpleNamespace(subproc=True, env_workers=2)) == 2
    assert train.final_eval_workers(SimpleNamespace(subproc=True, env_workers=8)) == 2
    assert train.final_eval_workers(SimpleNamespace(subproc=False, env_workers=2)) == 1
    monkeypatch.setattr(train, "usable_cpus", lambda: 1)
    assert train.final_eval_workers(SimpleNamespace(subproc=True, env_workers=2)) == 1


def test_cli_repeated_set_flags_accumulate():
    from five_towers_env.cli import build_parser

    args = build_parser().parse_args(["train", "--config", "c.yaml", "--set", "out_dir=/tmp/x",
                                      "--set", "final_eval_games=0", "seed=3"])
    assert args.set == [("out_dir", "/tmp/x"), ("final_eval_games", 0), ("seed", 3)]


def test_shipped_policy_plays_with_numpy_alone():
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.core.game import get_game
    from five_towers_env.play import play_game

    shipped = get_game("five_towers").policy_path(2, "base")
    assert shipped.exists() and shipped.stat().st_size < 5_000_000
    agent = make_agent("ppo", seed=0)
    assert isinstance(agent, PolicyAgent) and agent.meta["num_players"] == 2
    result = play_game([agent, make_agent("random", seed=1)], variant="base", seed=9)
    assert result["winners"] == [0], result["scores"]  # seeded: the shipped policy beats random play here


class _Fixed:
    """An agent that always answers the same action (to see who was asked)."""

    def __init__(self, action: int) -> None:
        self.action, self.name = action, f"fixed{action}"

    def act(self, observation, info):
        return self.action


def test_phase_mix_routes_each_phase_to_its_agent():
    from five_towers_env.games.five_towers.diagnosis import BUILDER_PHASES, PhaseMixAgent, mix_label

    mix = PhaseMixAgent(_Fixed(1), _Fixed(2), {"bid"})
    assert mix.act({}, {"phase": "bid"}) == 1
    assert [mix.act({}, {"phase": p}) for p in ("take", "teardown", "build", "recover")] == [2, 2, 2, 2]
    assert mix_label(frozenset()) == "teacher only"
    assert mix_label(frozenset({"take"}) | BUILDER_PHASES) == "take + teardown/build/recover"


def test_phase_ablation_of_the_shipped_policy():
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.games.five_towers.diagnosis import phase_ablation, play_mix

    rows = phase_ablation(games=4, seed=3)
    assert [r["policy decides"] for r in rows] == ["teacher only", "bid", "take", "teardown/build/recover",
                                                   "take + teardown/build/recover", "all (policy alone)"]
    assert all(r["games"] == 4 for r in rows)
    # the ends of the table are the two agents unmixed, on the same seeded games: the teacher alone
    # (the heuristic) and the policy alone
    assert rows[0]["win_rate"] == play_mix(make_agent("heuristic", seed=3), "heuristic", 4, 3)
    assert rows[-1]["win_rate"] == play_mix(make_agent("ppo"), "heuristic", 4, 3)
    assert rows[0]["win_rate"] != rows[-1]["win_rate"]  # seeded: 0.25 and 0.75, so the policy did decide
