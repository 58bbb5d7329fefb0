"""Expert iteration's training: configs, the model and its export, the data, a smoke run and its resume."""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.training.expert.config import (
    ExpertConfig,
    build_expert_config,
    expert_settings_table,
    load_expert_config,
)
from five_towers_env.training.ppo.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[1]
EXPERT_CONFIGS = sorted(p for p in (ROOT / "configs").glob("*.yaml") if "method: expert_iteration" in p.read_text())

torch = pytest.importorskip("torch")


def test_expert_configs_load_and_cover_both_games():
    games = {load_expert_config(p).game for p in EXPERT_CONFIGS}
    assert games == {"five_towers", "campanile"}


def test_expert_configs_start_from_files_the_repository_holds():
    # a shipped network is replaced by later runs; the runs that started from it keep their start in results/
    for p in EXPERT_CONFIGS:
        init = load_expert_config(p).init_policy
        assert init in ("shipped", "none") or (ROOT / init).is_file(), f"{p.name}: init_policy {init} is missing"


def test_ppo_train_refuses_an_expert_config_by_name():
    with pytest.raises(ConfigError, match="five-towers expert --config"):
        load_config(EXPERT_CONFIGS[0])


@pytest.mark.parametrize("data, message", [
    ({"generation": 3}, r"unknown key\(s\) generation"),
    ({"generations": 0}, "generations: must be at least 1"),
    ({"num_players": 9}, "num_players/variant"),
    ({"game": "campanile", "architecture": "typed"}, "architecture: Campanile has no typed network"),
    ({"root_noise": 1.5}, "root_noise"),
    ({"simulations": "many"}, "simulations: expected int"),
    ({"hidden": [64, -1]}, "hidden: a list of positive integers"),
    ({"teacher_generations": 2}, "teacher_generations: needs a teacher"),
    ({"teacher": "mcts:simulation=9"}, "teacher: "),
    ({"teacher": "mcts", "teacher_temperature": 0}, "teacher_temperature: must be positive"),
    ({"teacher": "mcts", "teacher_prior": -1}, "teacher_prior: must be 0 or more"),
    ({"teacher": "mcts", "teacher_network_share": 1.5}, "teacher_network_share: in \\[0, 1\\]"),
])
def test_bad_settings_name_the_key(data, message):
    with pytest.raises(ConfigError, match=message):
        build_expert_config(data)


def test_every_setting_is_documented():
    docs = (ROOT / "docs" / "training.md").read_text()
    start = docs.index("<!-- expert-settings:start -->") + len("<!-- expert-settings:start -->")
    end = docs.index("<!-- expert-settings:end -->")
    assert docs[start:end].strip() == expert_settings_table().strip(), "docs/training.md expert settings are stale"


@pytest.mark.parametrize("game, architecture", [("five_towers", "typed"), ("campanile", "mlp")])
def test_export_matches_the_torch_model(game, architecture, tmp_path):
    """The numpy network the agents read computes what the torch model computes."""
    from five_towers_env.agents.guided import PolicyValueNet
    from five_towers_env.core.game import get_game
    from five_towers_env.training.expert.model import PolicyValueModel

    spec = get_game(game)
    torch.manual_seed(0)
    model = PolicyValueModel(architecture, spec.observation_size, spec.num_actions, 2, game=game)
    model.load_policy(spec.default_policy())
    with torch.no_grad():  # a value head that is not nearly constant
        model.value_layers()[1].weight.normal_(0, 0.5)
    path = model.export(tmp_path / "net.npz", game=game, num_players=2, variant=spec.default_variant)
    net = PolicyValueNet(path, game=game)
    x = np.random.default_rng(0).random((5, spec.observation_size)).astype(np.float32)
    logits, values = net(x)
    with torch.no_grad():
        t_logits, t_values = model(torch.as_tensor(x))
    np.testing.assert_allclose(logits, t_logits.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, torch.softmax(t_values, -1).numpy(), rtol=1e-4, atol=1e-5)


def test_selfplay_positions_are_consistent(tmp_path):
    """Every self-play position: a legal-only policy target summing to 1, outcome shares summing to 1,
    and the same games from the same seeds."""
    from five_towers_env.core.game import get_game
    from five_towers_env.training.expert.data import network_games, selfplay_games
    from five_towers_env.training.expert.model import PolicyValueModel

    spec = get_game("campanile")
    model = PolicyValueModel("mlp", spec.observation_size, spec.num_actions, 2)
    model.load_policy(spec.default_policy())
    path = str(model.export(tmp_path / "net.npz", game="campanile", num_players=2, variant="pile"))
    settings = {"simulations": 16, "determinisations": 2, "noise": 0.25}
    a, counts = selfplay_games(path, "campanile", 2, "pile", [3, 4], settings, 4)
    b, _ = selfplay_games(path, "campanile", 2, "pile", [3, 4], settings, 4)
    assert counts["games"] == 2 and len(a) > 20
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.policy, b.policy)
    assert np.all(a.policy[~a.masks] == 0)
    np.testing.assert_allclose(a.policy.astype(np.float32).sum(1), 1, atol=2e-3)
    np.testing.assert_allclose(a.value.sum(1), 1)
    w, _ = network_games(path, "campanile", 2, "pile", [5])
    np.testing.assert_allclose(w.policy.astype(np.float32).sum(1), 1, atol=2e-3)


def test_teacher_positions_are_its_values_softened():
    """A teacher's positions: the policy target is the soft-max of its candidates' values over the temperature
    (legal actions only, its best candidate the most likely), the value target the outcome; same seeds,
    same positions."""
    from five_towers_env.training.expert.data import teacher_games, value_target

    target = value_target({3: 0.5, 7: 0.52, 9: 0.1}, 12, 0.02)
    assert target is not None and target.argmax() == 7 and target[[3, 7, 9]].sum() == pytest.approx(1)
    assert target[3] == pytest.approx(target[7] * np.exp(-1), rel=1e-5) and value_target({3: 0.5}, 12, 0.02) is None
    a, counts = teacher_games("", "campanile", 2, "pile", [3, 4], "mcts:simulations=16", 0.05, 4)
    b, _ = teacher_games("", "campanile", 2, "pile", [3, 4], "mcts:simulations=16", 0.05, 4)
    assert counts["games"] == 2 and len(a) > 20 and np.all(a.weight == 1)
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.policy, b.policy)
    assert np.all(a.policy[~a.masks] == 0)
    np.testing.assert_allclose(a.policy.astype(np.float32).sum(1), 1, atol=2e-3)
    np.testing.assert_allclose(a.value.sum(1), 1)


def test_a_guided_teacher_searches_with_the_run_s_network(tmp_path):
    """``guided:search=rollouts`` as the teacher: its rollout values over the network's likeliest candidates
    (and the actions reaching the same round ends) are the targets, zero elsewhere; without a path it plays
    the network it is given."""
    from five_towers_env.core.game import get_game
    from five_towers_env.training.expert.data import teacher_games
    from five_towers_env.training.expert.model import PolicyValueModel

    spec = get_game("five_towers")
    torch.manual_seed(0)
    model = PolicyValueModel("typed", spec.observation_size, spec.num_actions, 2, game="five_towers")
    model.load_policy(spec.default_policy())
    path = str(model.export(tmp_path / "net.npz", game="five_towers", num_players=2, variant="base"))
    teacher = "guided:search=rollouts,simulations=24,top_k=3"
    pos, counts = teacher_games(path, "five_towers", 2, "base", [5], teacher, 0.05, 2)
    assert counts["games"] == 1 and len(pos) > 10
    support, legal = (pos.policy.astype(np.float32) > 0).sum(1), pos.masks.sum(1)
    assert np.all(pos.policy[~pos.masks] == 0) and np.all(support <= legal) and support.mean() < legal.mean()
    with pytest.raises(FileNotFoundError, match="missing.npz"):  # it plays the network given, no other
        teacher_games(str(tmp_path / "missing.npz"), "five_towers", 2, "base", [5], teacher, 0.05, 2)


def test_a_teacher_prior_tilts_the_targets_towards_the_network(tmp_path):
    """``teacher_prior``: the target is ``p ** w * exp(q / t)`` over the valued actions, normalised; the
    same games (the teacher's choices do not depend on it), targets nearer the network's policy."""
    from five_towers_env.agents.guided import NetworkAgent
    from five_towers_env.core.game import get_game
    from five_towers_env.training.expert.data import teacher_games, value_target
    from five_towers_env.training.expert.model import PolicyValueModel

    log_prior = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    target = value_target({0: 0.5, 2: 0.6}, 4, 0.1, log_prior, 1.0)
    assert target is not None and target[[1, 3]].sum() == 0
    assert target[2] / target[0] == pytest.approx(3 * np.exp(1), rel=1e-5)
    plain = value_target({0: 0.5, 2: 0.6}, 4, 0.1)
    assert np.array_equal(value_target({0: 0.5, 2: 0.6}, 4, 0.1, log_prior, 0.0), plain)

    spec = get_game("five_towers")
    torch.manual_seed(0)
    model = PolicyValueModel("typed", spec.observation_size, spec.num_actions, 2, game="five_towers")
    model.load_policy(spec.default_policy())
    path = str(model.export(tmp_path / "net.npz", game="five_towers", num_players=2, variant="base"))
    plain, _ = teacher_games(path, "five_towers", 2, "base", [6], "mcts:simulations=24", 0.02, 0)
    tilted, _ = teacher_games(path, "five_towers", 2, "base", [6], "mcts:simulations=24", 0.02, 0, prior_weight=1.0)
    assert np.array_equal(plain.obs, tilted.obs) and np.array_equal(plain.masks, tilted.masks)
    net = NetworkAgent(path, game="five_towers")

    def distance(policy):  # mean KL from the network's policy to the targets, over the valued actions
        out = []
        for obs, mask, target in zip(plain.obs, plain.masks, policy.astype(np.float64)):
            logits = np.where(mask, net.logits(obs.astype(np.float32)), -np.inf)
            p = np.exp(logits - logits.max())
            p = p[target > 0] / p[target > 0].sum()
            out.append(float((p * np.log(p / target[target > 0])).sum()))
        return np.mean(out)

    assert distance(tilted.policy) < distance(plain.policy)


def test_a_network_share_of_one_plays_the_network_s_moves_labelled_by_the_teacher(tmp_path):
    """``network_share`` 1 after an opening of 0 decisions: the game is the bare network's against itself,
    move for move, and every position still carries the teacher's target (not the network's policy)."""
    from five_towers_env.agents.guided import NetworkAgent
    from five_towers_env.core.game import get_game
    from five_towers_env.play import play_game
    from five_towers_env.training.expert.data import teacher_games
    from five_towers_env.training.expert.model import PolicyValueModel

    spec = get_game("five_towers")
    torch.manual_seed(0)
    model = PolicyValueModel("typed", spec.observation_size, spec.num_actions, 2, game="five_towers")
    model.load_policy(spec.default_policy())
    path = str(model.export(tmp_path / "net.npz", game="five_towers", num_players=2, variant="base"))
    dagger, _ = teacher_games(path, "five_towers", 2, "base", [7], "mcts:simulations=24", 0.02, 0,
                              network_share=1.0)
    taught, _ = teacher_games(path, "five_towers", 2, "base", [7], "mcts:simulations=24", 0.02, 0)
    assert not np.array_equal(dagger.obs[:len(taught)], taught.obs[:len(dagger)])  # other games than the teacher's

    seen: list[bytes] = []

    class Watched(NetworkAgent):
        def act(self, observation, info):
            seen.append(np.asarray(observation["observation"], dtype=np.float16).tobytes())
            return super().act(observation, info)

    alone = play_game([Watched(path, game="five_towers") for _ in range(2)], variant="base", seed=7, game="five_towers")
    rows = [o.tobytes() for o in dagger.obs]
    assert 10 < len(rows) <= alone["steps"] and all(r in seen for r in rows)
    assert seen.index(rows[-1]) > seen.index(rows[0])
    net = NetworkAgent(path, game="five_towers")
    own = [int(np.argmax(np.where(m, net.logits(o.astype(np.float32)), -np.inf)))
           for o, m in zip(dagger.obs, dagger.masks)]
    assert np.mean(dagger.policy.astype(np.float32).argmax(1) != own) > 0.1  # the targets are the teacher's


def test_a_policy_value_network_starts_its_value_head_too(tmp_path):
    from five_towers_env.core.game import get_game
    from five_towers_env.training.expert.model import PolicyValueModel

    spec = get_game("campanile")
    torch.manual_seed(1)
    first = PolicyValueModel("mlp", spec.observation_size, spec.num_actions, 2)
    path = first.export(tmp_path / "net.npz", game="campanile", num_players=2, variant="pile")
    second = PolicyValueModel("mlp", spec.observation_size, spec.num_actions, 2)
    second.load_policy(path)
    for a, b in zip(first.value_layers(), second.value_layers()):
        assert torch.equal(a.weight, b.weight)
    fresh = PolicyValueModel("mlp", spec.observation_size, spec.num_actions, 3)  # another size: starts fresh
    fresh.load_policy(path)
    assert fresh.value_layers()[1].weight.shape[0] == 3


def test_exported_networks_carry_the_guided_settings(tmp_path):
    """A run's ``guided`` settings travel in its networks' meta, so ``guided`` plays them by default."""
    from five_towers_env.agents import make_agent
    from five_towers_env.training.expert.trainer import ExpertTrainer

    cfg = build_expert_config({"game": "campanile", "architecture": "mlp", "out_dir": str(tmp_path),
                               "guided": "search=puct,simulations=16,determinisations=2"})
    path = ExpertTrainer(cfg)._export(tmp_path / "net.npz")
    agent = make_agent("guided", game="campanile", path=str(path))
    assert agent.config["simulations"] == 16 and agent.settings.determinisations == 2
    with pytest.raises(ConfigError, match="guided: guided has no setting 'simulation'"):
        build_expert_config({"guided": "simulation=3"})


SMOKE = ["game=campanile", "architecture=mlp", "games_per_generation=3", "warmup_games=4", "warmup_steps=3",
         "simulations=8", "determinisations=2", "train_steps=3", "batch_size=16", "eval_games=2",
         "eval_mcts_games=2", "eval_mcts=mcts:simulations=8", "workers=1", "torch_threads=1"]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", "expert", "--no-progress", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_smoke_run_resumes_to_the_same_network(tmp_path):
    """Two generations straight, and one generation then a resume for the second: the same network,
    the same curve, and a picture of it."""
    config = ROOT / "configs" / "expert_campanile_2p.yaml"
    straight = _cli("--config", str(config), "--set", f"out_dir={tmp_path}", "name=straight", "generations=2", *SMOKE)
    assert straight.returncode == 0, straight.stderr
    first = _cli("--config", str(config), "--set", f"out_dir={tmp_path}", "name=split", "generations=1", *SMOKE)
    assert first.returncode == 0, first.stderr
    again = _cli("--config", str(config), "--set", f"out_dir={tmp_path}", "name=split", "generations=1", *SMOKE)
    assert again.returncode == 2 and "holds a run already" in again.stderr
    resumed = _cli("--resume", str(tmp_path / "split"), "--set", "generations=2")
    assert resumed.returncode == 0, resumed.stderr
    with np.load(tmp_path / "straight" / "network.npz") as s, np.load(tmp_path / "split" / "network.npz") as r:
        for key in s.files:
            if key != "meta":
                np.testing.assert_array_equal(s[key], r[key], err_msg=key)

    def curve(name: str) -> list[dict]:
        with (tmp_path / name / "curve.csv").open() as f:
            return [{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(f)]

    assert curve("straight") == curve("split") and len(curve("split")) == 2
    assert (tmp_path / "split" / "curve.png").stat().st_size > 0
    assert (tmp_path / "split" / "networks" / "gen_2.npz").exists()


def test_resume_without_a_run_is_a_usage_error(tmp_path):
    result = _cli("--resume", str(tmp_path / "nothing"))
    assert result.returncode == 2 and "five-towers expert: error" in result.stderr


def test_defaults_are_valid():
    assert ExpertConfig().variant == "base"
