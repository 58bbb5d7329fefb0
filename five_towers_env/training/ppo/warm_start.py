"""Warm start from an exported policy: its actor's weights copied into a new ``MaskablePPO`` model.

``init_policy`` (a config setting) names an ``.npz`` written by training (``policy.npz``, a snapshot, or a
shipped policy); the new model's actor, ``mlp`` or ``typed``, must have the same shapes. The value network
has no counterpart in the file and starts untrained: ``value_warmup_steps`` then trains it alone for a
while (the actor's parameters frozen), so the first policy updates are not driven by a random critic's
advantages.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np


def actor_parameters(policy: Any) -> Iterator[Any]:
    """The parameters of a ``MaskableActorCriticPolicy``'s actor (its latent MLP and action head)."""
    yield from policy.mlp_extractor.policy_net.parameters()
    yield from policy.action_net.parameters()


def _actor_layers(policy: Any) -> list[tuple[str, Any]]:
    """``(file entry prefix, linear layer)`` of the actor, in the order
    :func:`~five_towers_env.agents.network_file.export_policy` writes them."""
    import torch.nn as nn

    if hasattr(policy.action_net, "numpy_params"):  # the typed actor names its layers itself
        from five_towers_env.core.typed_net import TYPED_LAYERS

        modules = dict(policy.action_net.named_modules())
        return [(f"typed.{name}.", modules[name]) for name in TYPED_LAYERS]
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)] + [policy.action_net]
    return [(f"{i}", layer) for i, layer in enumerate(layers)]


def load_actor(model: Any, path: str | Path) -> None:
    """Copy the actor weights of the exported policy at ``path`` into ``model`` (a ``MaskablePPO``);
    ``ValueError`` naming the first mismatch if the networks differ in kind or shape."""
    import torch

    from five_towers_env.agents.network_file import read_network

    net = read_network(path)
    arch, arrays = net.architecture, net.arrays
    layers = _actor_layers(model.policy)
    typed = layers[0][0].startswith("typed.")
    if (arch == "typed") != typed:
        raise ValueError(f"init_policy: {path} is a {arch} network; this run trains a "
                         f"{'typed' if typed else 'mlp'} one (ppo.architecture)")
    for prefix, layer in layers:
        names = (prefix + "w", prefix + "b") if typed else ("w" + prefix, "b" + prefix)
        for name, param in zip(names, (layer.weight, layer.bias)):
            if name not in arrays or arrays[name].shape != tuple(param.shape):
                got = arrays[name].shape if name in arrays else "no such entry"
                raise ValueError(f"init_policy: {path}: {name} is {got}, the run's network needs "
                                 f"{tuple(param.shape)} (ppo.net_arch)")
            with torch.no_grad():
                param.copy_(torch.as_tensor(np.asarray(arrays[name], dtype=np.float32)))
    # the optimiser's moment estimates belong to the old weights' trajectory: start them afresh
    model.policy.optimizer = model.policy.optimizer_class(model.policy.parameters(), lr=model.lr_schedule(1),
                                                          **model.policy.optimizer_kwargs)


class frozen_actor:
    """Context manager: the actor's parameters take no gradient (only the value network learns)."""

    def __init__(self, policy: Any) -> None:
        self.params = list(actor_parameters(policy))

    def __enter__(self) -> None:
        for p in self.params:
            p.requires_grad_(False)

    def __exit__(self, *exc: Any) -> None:
        for p in self.params:
            p.requires_grad_(True)
