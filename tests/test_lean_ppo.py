"""The lean PPO loop (``ppo.loop: lean``, training/ppo/lean.py) is sb3-contrib's MaskablePPO written out.

On the same rollout, its advantages and returns are SB3's, and one update over the rollout as a single
minibatch moves the weights exactly as ``MaskablePPO.train`` does (a whole-rollout minibatch makes the
shuffling irrelevant). A run with the lean loop trains, checkpoints, resumes and exports as the SB3 loop does.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="training needs the rl extra")

import torch

from five_towers_env.training.ppo.config import load_config
from five_towers_env.training.ppo.lean import LeanLoop
from five_towers_env.training.ppo.trainer import PPOTrainer

SMOKE = "configs/ppo_smoke.yaml"


def _trainer(tmp_path, **overrides):
    cfg = load_config(SMOKE, {"out_dir": str(tmp_path), "imitation.games": 0, "subproc": False, **overrides})
    return PPOTrainer(cfg, progress=False)


@pytest.mark.parametrize("architecture", ["mlp", "typed"])
def test_one_update_moves_the_weights_as_sb3_train_does(tmp_path, architecture):
    trainer = _trainer(tmp_path, **{"ppo.architecture": architecture, "ppo.activation": "relu",
                                    "ppo.n_steps": 64, "ppo.batch_size": 128, "ppo.n_epochs": 1, "n_envs": 2})
    model = trainer.model
    lean = LeanLoop(model, trainer.venv)
    torch.manual_seed(0)
    last_values = lean._rollout(lambda infos: None)
    assert lean.rewards.any() and lean.starts[1:].any(), "the rollout should hold finished games"
    advantages, returns = lean._advantages(last_values)

    # the same rollout in SB3's buffer
    buffer = model.rollout_buffer
    buffer.reset()
    buffer.observations[:] = lean.obs
    buffer.actions[:] = lean.actions[..., None]
    buffer.rewards[:] = lean.rewards
    buffer.episode_starts[:] = lean.starts
    buffer.values[:] = lean.values
    buffer.log_probs[:] = lean.logprobs
    buffer.action_masks[:] = lean.masks.reshape(buffer.action_masks.shape)
    buffer.pos, buffer.full = buffer.buffer_size, True
    buffer.compute_returns_and_advantage(torch.as_tensor(last_values), model._last_episode_starts)
    np.testing.assert_allclose(buffer.advantages, advantages, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(buffer.returns, returns, rtol=1e-5, atol=1e-6)

    # the rollout's own log-probabilities and values are the policy's, as SB3 evaluates them
    with torch.no_grad():
        values, logp, _ = model.policy.evaluate_actions(
            torch.as_tensor(lean.obs[0]), torch.as_tensor(lean.actions[0]), action_masks=lean.masks[0])
    np.testing.assert_allclose(logp.numpy(), lean.logprobs[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values.squeeze(-1).numpy(), lean.values[0], rtol=1e-5, atol=1e-5)

    # plain SGD for both: the step is the (clipped) gradient times the rate, so the comparison sees the losses'
    # gradients themselves (Adam's first step, about lr x sign(g), would magnify float noise in tiny ones)
    model.policy.optimizer = torch.optim.SGD(model.policy.parameters(), lr=1.0)
    model.lr_schedule = lambda progress: 1.0  # both loops set the rate from it before the update
    twin = copy.copy(model)  # the same settings, its own policy and optimiser (a deep copy keeps them paired)
    twin.policy = copy.deepcopy(model.policy)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.train()  # SB3: one epoch, one minibatch of the whole rollout
    lean.model, lean.policy = twin, twin.policy  # the lean update, on the same rollout
    lean._update(advantages, returns)
    for (name, a), b, b0 in zip(model.policy.named_parameters(), twin.policy.parameters(), before):
        sb3_step, lean_step = (a.detach() - b0).numpy(), (b.detach() - b0).numpy()
        assert np.abs(lean_step).max() > 0, f"{name} did not move"
        # a step is read back as a difference of weights: a few of the weights' ulps of rounding
        ulps = 4 * float(np.spacing(np.float32(np.abs(b0.numpy()).max())))
        np.testing.assert_allclose(lean_step, sb3_step, rtol=1e-3, atol=max(ulps, 1e-4 * np.abs(sb3_step).max()),
                                   err_msg=name)
    trainer.venv.close()


def test_a_lean_run_checkpoints_resumes_and_exports(tmp_path):
    trainer = _trainer(tmp_path, **{"ppo.loop": "lean", "total_timesteps": 1024, "checkpoint_every": 512,
                                    "eval_every": 512})
    result = trainer.run()
    assert result.network.is_file() and int(trainer.model.num_timesteps) == 1024
    checkpoints = sorted((tmp_path / "ppo_smoke" / "checkpoints").glob("step_*.zip"))
    assert [c.name for c in checkpoints] == ["step_1024.zip", "step_512.zip"]
    cfg, checkpoint = PPOTrainer.resume_config(checkpoints[1], {"total_timesteps": 1536})
    again = PPOTrainer(cfg, resume=checkpoint, progress=False)
    assert again.cfg.ppo.loop == "lean" and int(again.model.num_timesteps) == 512
    again.run()
    assert int(again.model.num_timesteps) == 1536
    rows = (tmp_path / "ppo_smoke" / "eval_log.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps") and rows[-1].startswith("1536,")
