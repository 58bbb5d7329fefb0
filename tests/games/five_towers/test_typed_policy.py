"""The ``typed`` policy network: its index tables, its numpy replay and a smoke run with it."""
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers import typed_layout as TL
from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, TYPES
from five_towers_env.games.five_towers.observation import OBS_SIZE, OFFSETS
from five_towers_env.training.ppo.config import ConfigError, config_from_dict, load_config

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_type_slices_partition_the_observation_by_type():
    assert sorted(np.concatenate([TL.TYPE_INDEX.ravel(), TL.GLOBAL_INDEX]).tolist()) == list(range(OBS_SIZE))
    display, _ = OFFSETS["display"]
    for t, name in enumerate(TYPES):
        rows = set(TL.TYPE_INDEX[t].tolist())
        assert set(range(display + t * NUM_VALUES, display + (t + 1) * NUM_VALUES)) <= rows
        for seat in range(5):
            start, size = OFFSETS[f"seat{seat}.{name}.top"]
            assert set(range(start, start + size)) <= rows
            pile, _ = OFFSETS[f"seat{seat}.teardown"]
            assert pile + t * NUM_VALUES in rows and pile + ((t + 1) % NUM_TYPES) * NUM_VALUES not in rows
    phase, size = OFFSETS["phase"]
    assert set(range(phase, phase + size)) <= set(TL.GLOBAL_INDEX.tolist())


def test_action_order_sends_each_card_action_to_its_types_head():
    order = TL.ACTION_ORDER
    assert sorted(set(order.tolist())) == sorted(order.tolist()) and order.max() < TL.OUTPUT_SIZE
    for a in range(A.NUM_ACTIONS):
        name = A.action_name(a)
        slot = int(order[a])
        if slot < TL.GLOBAL_SLOTS:
            assert name.startswith(("bid", "pass", "stop", "no "))
        else:
            t = (slot - TL.GLOBAL_SLOTS) // TL.TYPE_SLOTS
            assert TYPES[t] in name, (name, TYPES[t])


def test_config_accepts_only_known_architectures():
    assert config_from_dict({"ppo": {"architecture": "typed"}}).ppo.architecture == "typed"
    with pytest.raises(ConfigError, match="ppo.architecture"):
        config_from_dict({"ppo": {"architecture": "transformer"}})


@pytest.fixture(scope="module")
def typed_run(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.trainer import PPOTrainer

    out = tmp_path_factory.mktemp("typed")
    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {"out_dir": str(out), "ppo.architecture": "typed",
                                                   "imitation.games": 2})
    trainer = PPOTrainer(cfg, progress=False)
    return cfg, trainer, trainer.run().network


def test_numpy_replay_matches_the_torch_network(typed_run):
    import torch
    from sb3_contrib import MaskablePPO

    from five_towers_env.agents.network_file import export_policy
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.wrappers import SingleAgentGymEnv

    cfg, trainer, _ = typed_run
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints

    ckpt = run_checkpoints(cfg.run_dir)[-1][1]
    model = MaskablePPO.load(ckpt, device="cpu")
    assert type(model.policy).__name__ == "TypedPolicy"
    with torch.no_grad():  # move the small output layers off their near-zero start
        for p in model.policy.action_net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    agent = PolicyAgent(export_policy(model, cfg.run_dir / "perturbed.npz"))
    assert agent.architecture == "typed"
    env = SingleAgentGymEnv("five_towers", num_players=3, variant="great_powers", opponents="random")
    obs, _ = env.reset(seed=3)
    seen = []
    for _ in range(40):
        seen.append(obs)
        with torch.no_grad():
            expected = model.policy.action_net(torch.as_tensor(obs[None])).numpy()[0]
        assert np.allclose(agent.logits(obs), expected, atol=1e-4)
        mask = env.action_masks()
        obs, _, done, _, _ = env.step(agent.act({"observation": obs, "action_mask": mask}, {}))
        if done:
            obs, _ = env.reset()
    batch = np.stack(seen)  # the vectorised batch path must agree with the network too
    with torch.no_grad():
        expected = model.policy.action_net(torch.as_tensor(batch)).numpy()
    assert agent.logits(batch).shape == expected.shape
    assert np.allclose(agent.logits(batch), expected, atol=1e-4)


@pytest.mark.parametrize("num_players, variant", [(2, "base"), (4, "great_powers")])
def test_typed_policy_plays_legal_games(typed_run, num_players, variant):
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.play import play_game

    from agent_checks import LegalityChecker

    _, _, policy = typed_run
    agents = [make_agent("ppo", seed=1, path=str(policy))]
    agents += [make_agent("ppo", seed=s, path=str(policy), deterministic=False) for s in range(num_players - 1)]
    seated = [LegalityChecker(a) for a in agents]
    result = play_game(seated, variant=variant, seed=5)
    # every seat was asked and every move of the game passed the legality check
    assert all(c.decisions > 0 for c in seated) and sum(c.decisions for c in seated) == result["steps"]


def test_typed_run_resumes(typed_run):
    from five_towers_env.training.ppo.checkpoints import resume_config
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg, _, _ = typed_run
    ckpt = cfg.run_dir / "checkpoints" / "step_1024.zip"
    again = PPOTrainer(resume_config(ckpt), resume=ckpt, progress=False)
    assert type(again.model.policy).__name__ == "TypedPolicy" and again.model.num_timesteps == 1024


def test_shipped_policy_versions():
    from five_towers_env.agents.registry import make_agent_from_text
    from five_towers_env.core.game import get_game

    spec = get_game("five_towers")
    assert spec.policy_versions(2, "base") == [1, 2]
    current, first = make_agent_from_text("ppo"), make_agent_from_text("ppo:version=1")
    assert current.path == make_agent_from_text("ppo:version=2").path == spec.policy_path(2, "base")
    assert first.path.name == "ppo_2p_base_v1.npz" and first.path != current.path
    with pytest.raises(ValueError, match="no shipped policy version 7; versions: 1, 2"):
        make_agent_from_text("ppo:version=7")
    with pytest.raises(ValueError, match="not both"):
        make_agent_from_text(f"ppo:version=1,path={first.path}")
