"""The policy-value network of expert iteration (torch), and its export to the numpy file the agents read.

Two bodies, as for ``ppo`` (:mod:`five_towers_env.agents.policy`): the ``typed`` actor of
:mod:`~five_towers_env.training.ppo.networks` (for a game that declares a typed layout, its spec's
``architectures``: weights shared
across the groups it lays out) and an ``mlp`` (ReLU hidden layers). Either one's last features (the
typed trunk, the MLP's last hidden layer) feed a value head: a ReLU layer and one logit per seat,
counted from the observer on (soft-max: every seat's expected reward share). The file written by
:meth:`PolicyValueModel.export` is a ``ppo`` policy file plus ``value.*`` arrays, so ``ppo:path=...``
plays its policy too.

A model can start from a shipped ``ppo`` policy (:meth:`PolicyValueModel.load_policy`): its
actor's weights are copied, the value head starts fresh (or from the file's own, for a policy-value
network of the same size).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
import torch.nn as nn

from five_towers_env.agents.network_file import read_network, write_network
from five_towers_env.core.typed_net import TYPED_LAYERS

VALUE_HIDDEN = 128


class PolicyValueModel(nn.Module):
    """Observation -> (action logits, value logits per seat from the observer on); ``game`` names the game
    whose layout a ``typed`` body reads (None: the default game)."""

    def __init__(self, architecture: str, obs_size: int, num_actions: int, num_players: int,
                 hidden: tuple[int, ...] = (256, 256), game: str | None = None) -> None:
        super().__init__()
        self.architecture = architecture
        if architecture == "typed":
            from five_towers_env.training.ppo.networks import TypedActor

            trunk = 256
            self.typed = TypedActor(game, trunk_hidden=trunk)
            features = trunk
        elif architecture == "mlp":
            layers: list[nn.Module] = []
            width = obs_size
            for h in hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            self.body = nn.Sequential(*layers)
            self.head = nn.Linear(width, num_actions)
            features = width
        else:
            raise ValueError(f"architecture must be 'typed' or 'mlp', got {architecture!r}")
        self.value = nn.Sequential(nn.Linear(features, VALUE_HIDDEN), nn.ReLU(), nn.Linear(VALUE_HIDDEN, num_players))
        out = self.value_layers()[1]
        nn.init.orthogonal_(out.weight, gain=0.01)
        nn.init.zeros_(out.bias)

    def value_layers(self) -> tuple[nn.Linear, nn.Linear]:
        """The value head's two linear layers."""
        return cast(nn.Linear, self.value[0]), cast(nn.Linear, self.value[2])

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Action logits ``(B, actions)`` and value logits ``(B, players)``."""
        if self.architecture == "typed":
            logits, features = self.typed.forward_features(obs)
        else:
            features = self.body(obs)
            logits = self.head(features)
        return logits, self.value(features)

    def _linears(self) -> dict[str, nn.Linear]:
        """The policy's linear layers by their exported name (``typed.<layer>`` or ``w<i>``/``b<i>`` index)."""
        if self.architecture == "typed":
            modules = dict(self.typed.named_modules())
            return {f"typed.{name}": modules[name] for name in TYPED_LAYERS}
        linears = [m for m in self.body if isinstance(m, nn.Linear)] + [self.head]
        return {str(i): m for i, m in enumerate(linears)}

    def load_policy(self, path: str | Path) -> None:
        """Copy a ``ppo`` policy file's actor into this model (same architecture and sizes), and its value head
        if it is a policy-value network with one of this model's size."""
        net = read_network(path)
        arch, arrays = net.architecture, net.arrays
        if arch != self.architecture:
            raise ValueError(f"{path}: a {arch} policy cannot start a {self.architecture} model")
        with torch.no_grad():
            for name, layer in self._linears().items():
                w, b = (arrays[f"{name}.w"], arrays[f"{name}.b"]) if name.startswith("typed.") else \
                    (arrays[f"w{name}"], arrays[f"b{name}"])
                if tuple(w.shape) != tuple(layer.weight.shape):
                    raise ValueError(f"{path}: layer {name} is {w.shape}, the model's {tuple(layer.weight.shape)}")
                layer.weight.copy_(torch.as_tensor(w))
                layer.bias.copy_(torch.as_tensor(b))
            value = self.value_layers()
            shapes = [f"value.w{i}" in arrays and tuple(arrays[f"value.w{i}"].shape) == tuple(v.weight.shape)
                      for i, v in enumerate(value)]
            if all(shapes):
                for i, layer in enumerate(value):
                    layer.weight.copy_(torch.as_tensor(arrays[f"value.w{i}"]))
                    layer.bias.copy_(torch.as_tensor(arrays[f"value.b{i}"]))

    def export(self, path: str | Path, **meta: Any) -> Path:
        """Write the network file (:mod:`five_towers_env.agents.network_file`) the ``net`` and ``guided``
        agents read, value head included (atomically)."""
        arrays: dict[str, np.ndarray] = {}
        for name, layer in self._linears().items():
            w = layer.weight.detach().cpu().numpy().astype(np.float32)
            b = layer.bias.detach().cpu().numpy().astype(np.float32)
            if name.startswith("typed."):
                arrays[f"{name}.w"], arrays[f"{name}.b"] = w, b
            else:
                arrays[f"w{name}"], arrays[f"b{name}"] = w, b
        for i, value_layer in enumerate(self.value_layers()):
            arrays[f"value.w{i}"] = value_layer.weight.detach().cpu().numpy().astype(np.float32)
            arrays[f"value.b{i}"] = value_layer.bias.detach().cpu().numpy().astype(np.float32)
        return write_network(path, self.architecture, arrays, dict(meta, value_head=True))


def policy_value_loss(model: PolicyValueModel, obs: torch.Tensor, masks: torch.Tensor, targets: torch.Tensor,
                      policy_weight: torch.Tensor, values: torch.Tensor,
                      value_weight: float) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the masked policy to the search's visit shares (rows weighted by ``policy_weight``)
    plus ``value_weight`` times the cross-entropy of the value shares to the game's outcome shares."""
    logits, value_logits = model(obs)
    logp = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)
    policy_ce = -(targets * logp).sum(-1)
    wsum = policy_weight.sum().clamp(min=1.0)
    policy_loss = (policy_ce * policy_weight).sum() / wsum
    value_loss = -(values * torch.log_softmax(value_logits, dim=-1)).sum(-1).mean()
    loss = policy_loss + value_weight * value_loss
    return loss, {"policy_loss": float(policy_loss.detach()), "value_loss": float(value_loss.detach())}


__all__ = ["PolicyValueModel", "policy_value_loss", "VALUE_HIDDEN"]
