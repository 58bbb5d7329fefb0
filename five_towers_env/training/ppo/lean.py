"""PPO's rollouts and updates in one readable loop (``ppo.loop: lean``), on the model sb3-contrib builds.

:class:`LeanLoop` does what ``MaskablePPO.learn`` does, the same algorithm step for step (CleanRL's
``ppo.py`` with action masks), written out:

1. **Rollout.** ``n_steps`` times: one forward pass of the policy over the ``n_envs`` games' observations
   (the actor's masked logits, the critic's values), an action sampled per game, ``venv.step``; observation,
   mask, action, log-probability, value, reward and episode start are written into preallocated arrays.
2. **Advantages.** GAE(``gamma``, ``gae_lambda``) from the rollout's rewards and values, bootstrapped from
   the value of the observation after the last step; the returns are advantages plus values.
3. **Update.** ``n_epochs`` passes over the rollout in shuffled minibatches of ``batch_size``: the clipped
   surrogate on per-minibatch normalised advantages, the value's squared error, the masked policy's
   entropy bonus, gradients clipped to ``max_grad_norm``, one Adam step each.

What it leaves out is what a masked self-play run does not use and costs time per step: distribution
objects built at every step and minibatch, the rollout buffer's copies and reshapes, the callback's per-step
Python, argument validation. The network, optimiser, counters and logger stay the model's own
(``model.policy``, ``model.policy.optimizer``, ``model.num_timesteps``, ``model.logger``), so a run's
checkpoints, exported policies, imitation warm start and resume are the same with either loop, and a run may
switch loops between chunks. The draws come from the torch generator the model's seed set, as SB3's do,
but not in the same order: the two loops train to the same kind of policy, not to the same weights.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from five_towers_env.training.ppo.networks import skip_zero_columns

#: the logit a masked action gets (sb3-contrib's MaskableCategorical uses the same)
MASKED = -1e8


def _mlp(layers: torch.nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """``layers(x)`` with the first linear layer over ``x``'s non-zero columns only (exact, see
    :func:`~five_towers_env.training.ppo.networks.skip_zero_columns`)."""
    for i, layer in enumerate(layers):
        x = skip_zero_columns(layer, x) if i == 0 and isinstance(layer, torch.nn.Linear) else layer(x)
    return x


class LeanLoop:
    """Trains ``model`` (a ``MaskablePPO``) on ``venv`` (an SB3 ``VecEnv`` whose ``action_masks()`` gives the
    learners' masks); see the module docstring. ``threads``: torch threads ``(during rollouts, during
    updates)``; ``on_step(steps_done, infos)`` is called after every vector step (progress, episode logs)."""

    def __init__(self, model: Any, venv: Any, threads: tuple[int, int] | None = None) -> None:
        self.model, self.venv, self.threads = model, venv, threads
        self.policy = model.policy
        from stable_baselines3.common.torch_layers import FlattenExtractor

        flat = isinstance(self.policy.pi_features_extractor, FlattenExtractor)
        if not flat or len(venv.observation_space.shape) != 1:
            raise ValueError("the lean loop trains on flat observations (a FlattenExtractor policy); use ppo.loop: sb3")
        n, steps = venv.num_envs, model.n_steps
        obs_size = int(np.prod(venv.observation_space.shape))
        actions = int(venv.action_space.n)
        self.obs = np.zeros((steps, n, obs_size), dtype=np.float32)
        self.masks = np.zeros((steps, n, actions), dtype=bool)
        self.actions = np.zeros((steps, n), dtype=np.int64)
        self.logprobs = np.zeros((steps, n), dtype=np.float32)
        self.values = np.zeros((steps, n), dtype=np.float32)
        self.rewards = np.zeros((steps, n), dtype=np.float32)
        self.starts = np.zeros((steps, n), dtype=np.float32)

    # -- the network --------------------------------------------------------------------------

    def _forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked log-probabilities ``(batch, actions)`` and values ``(batch,)``: the policy's own layers, as its
        ``forward`` and ``evaluate_actions`` use them (a flat observation is its own feature vector), with the
        first layer of each network skipping the columns that are zero in the whole batch and the typed
        actor's :meth:`~five_towers_env.training.ppo.networks.TypedActor.fast_forward`: the same numbers up to
        float rounding, for about half the work."""
        policy = self.policy
        extractor = policy.mlp_extractor
        latent_pi = _mlp(extractor.policy_net, obs)
        latent_vf = _mlp(extractor.value_net, obs)
        head = policy.action_net
        logits = head.fast_forward(latent_pi) if hasattr(head, "fast_forward") else head(latent_pi)
        logits = logits.masked_fill(~mask, MASKED)
        return F.log_softmax(logits, dim=-1), policy.value_net(latent_vf).squeeze(-1)

    # -- 1. rollout ---------------------------------------------------------------------------

    def _rollout(self, on_step: Any) -> np.ndarray:
        """Fill the rollout arrays; returns the values of the observation after the last step."""
        model, venv = self.model, self.venv
        if model._last_obs is None:  # a new model, or one just loaded: its games start afresh
            model._last_obs = venv.reset()
            model._last_episode_starts = np.ones(venv.num_envs, dtype=bool)
        self.policy.set_training_mode(False)
        with torch.no_grad():
            for t in range(model.n_steps):
                self.obs[t] = model._last_obs
                self.masks[t] = venv.action_masks()
                self.starts[t] = model._last_episode_starts
                logp, value = self._forward(torch.from_numpy(self.obs[t]), torch.from_numpy(self.masks[t]))
                action = torch.multinomial(logp.exp(), 1).squeeze(1)
                self.actions[t] = action.numpy()
                self.logprobs[t] = logp.gather(1, action[:, None]).squeeze(1).numpy()
                self.values[t] = value.numpy()
                obs, rewards, dones, infos = venv.step(self.actions[t])
                self.rewards[t] = rewards
                model._last_obs, model._last_episode_starts = obs, dones
                model.num_timesteps += venv.num_envs
                on_step(infos)
            _, last_values = self._forward(torch.as_tensor(model._last_obs, dtype=torch.float32),
                                           torch.from_numpy(venv.action_masks().astype(bool)))
        return last_values.numpy()

    # -- 2. advantages ------------------------------------------------------------------------

    def _advantages(self, last_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """GAE advantages and returns (``compute_returns_and_advantage`` of SB3's rollout buffer)."""
        gamma, lam = self.model.gamma, self.model.gae_lambda
        steps = self.model.n_steps
        advantages = np.zeros_like(self.rewards)
        last = np.zeros_like(last_values)
        next_values = last_values
        next_nonterminal = 1.0 - self.model._last_episode_starts.astype(np.float32)
        for t in reversed(range(steps)):
            if t < steps - 1:
                next_values, next_nonterminal = self.values[t + 1], 1.0 - self.starts[t + 1]
            delta = self.rewards[t] + gamma * next_values * next_nonterminal - self.values[t]
            last = delta + gamma * lam * next_nonterminal * last
            advantages[t] = last
        return advantages, advantages + self.values

    # -- 3. update ----------------------------------------------------------------------------

    def _update(self, advantages: np.ndarray, returns: np.ndarray) -> dict[str, float]:
        model, policy = self.model, self.policy
        clip = float(model.clip_range(model._current_progress_remaining))
        for group in policy.optimizer.param_groups:  # a constant schedule, as SB3 sets it before each update
            group["lr"] = model.lr_schedule(model._current_progress_remaining)
        flat = {"obs": self.obs.reshape(-1, self.obs.shape[-1]), "mask": self.masks.reshape(-1, self.masks.shape[-1]),
                "action": self.actions.reshape(-1), "logprob": self.logprobs.reshape(-1),
                "adv": advantages.reshape(-1), "ret": returns.reshape(-1)}
        tensors = {key: torch.from_numpy(value) for key, value in flat.items()}
        total = len(flat["action"])
        policy.set_training_mode(True)
        sums = np.zeros(5)
        batches = 0
        for _ in range(model.n_epochs):
            order = torch.randperm(total)
            for start in range(0, total, model.batch_size):
                idx = order[start:start + model.batch_size]
                logp_all, values = self._forward(tensors["obs"][idx], tensors["mask"][idx])
                logp = logp_all.gather(1, tensors["action"][idx, None]).squeeze(1)
                adv = tensors["adv"][idx]
                if len(idx) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                ratio = torch.exp(logp - tensors["logprob"][idx])
                policy_loss = -torch.min(adv * ratio, adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                value_loss = F.mse_loss(tensors["ret"][idx], values)
                # over the legal actions only (a masked action's p log p is 0, not 0 x -1e8), as MaskableCategorical
                p_log_p = torch.where(tensors["mask"][idx], logp_all.exp() * logp_all, torch.zeros_like(logp_all))
                entropy = -p_log_p.sum(-1).mean()
                loss = policy_loss - model.ent_coef * entropy + model.vf_coef * value_loss
                policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
                policy.optimizer.step()
                with torch.no_grad():
                    clipped = ((ratio - 1).abs() > clip).float().mean()
                    approx_kl = ((ratio - 1) - (logp - tensors["logprob"][idx])).mean()
                sums += [policy_loss.item(), value_loss.item(), entropy.item(), clipped.item(), approx_kl.item()]
                batches += 1
            model._n_updates += 1
        means = sums / max(batches, 1)
        return dict(zip(("policy_gradient_loss", "value_loss", "entropy", "clip_fraction", "approx_kl"), means))

    # -- the loop -----------------------------------------------------------------------------

    def learn(self, steps: int, on_step: Any = None) -> None:
        """Train at least ``steps`` more learner decisions: whole rollouts of ``n_steps * n_envs``."""
        model = self.model
        target = model.num_timesteps + steps
        on_step = on_step or (lambda infos: None)
        while model.num_timesteps < target:
            if self.threads:
                torch.set_num_threads(self.threads[0])
            t0 = time.perf_counter()
            last_values = self._rollout(on_step)
            t1 = time.perf_counter()
            if self.threads:
                torch.set_num_threads(self.threads[1])
            stats = self._update(*self._advantages(last_values))
            t2 = time.perf_counter()
            for key, value in stats.items():
                model.logger.record(f"train/{key}", value)
            model.logger.record("train/n_updates", model._n_updates)
            model.logger.record("time/rollout_s", t1 - t0)
            model.logger.record("time/update_s", t2 - t1)
            model.logger.dump(model.num_timesteps)


class LeanProgress:
    """What the SB3 loop's :func:`~five_towers_env.training.ppo.trainer.episode_callback` does, for the lean loop
    (``ppo.loop: lean``), called after every vector step with its ``infos``: the learner's game outcomes into the
    model's logger, and the progress bar."""

    def __init__(self, model: Any, total: int, progress: bool, note: str = "") -> None:
        self.model, self.total = model, total
        self.bar = None
        if progress:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=min(int(model.num_timesteps), total), unit="step", desc="training",
                            dynamic_ncols=True, mininterval=2.0, smoothing=0.05)
            if note:
                self.bar.set_postfix_str(note, refresh=False)

    def __call__(self, infos: list[dict[str, Any]]) -> None:
        for info in infos:
            for key, value in info.get("episode_outcome", {}).items():
                self.model.logger.record_mean(f"episode/{key}", value)
        if self.bar is not None:
            self.bar.update(max(0, min(int(self.model.num_timesteps), self.total) - self.bar.n))

    def close_bar(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


__all__ = ["LeanLoop", "LeanProgress", "MASKED"]
