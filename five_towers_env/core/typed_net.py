"""The ``typed`` policy network, game-neutral: the layout a game declares for it, and its forward pass in numpy.

A game whose observation holds several groups that play the same role in the rules (5 Towers' tower
types) declares a :class:`TypedLayout` (its spec's ``architectures["typed"]``): which observation entries
belong to each group, which are global, and where the network's output slots go among the action ids.
The network runs one shared encoder over each group's slice (plus a one-hot of the group), a trunk
over the global part and the sum and max of the group encodings, one shared head per group and a
global head; ``action_order[a]`` is the output slot of action ``a``. Training's torch module
(:class:`five_towers_env.training.ppo.networks.TypedActor`) and :class:`TypedForward` (numpy, what
:class:`~five_towers_env.agents.policy.PolicyAgent` plays) compute the same function from one layout.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: the network's linear layers in forward order (torch module paths; exported as ``typed.<name>.w/.b``)
TYPED_LAYERS = ("tenc.0", "tenc.2", "genc.0", "trunk.0", "trunk.2", "thead.0", "thead.2", "ghead")


@dataclass(frozen=True, eq=False)
class TypedLayout:
    """How the ``typed`` network reads one game's observation and writes its action logits.

    Attributes:
        type_index: ``(groups, entries)`` int array: the observation positions of each group, in one order.
        global_index: every other observation position.
        action_order: ``(num_actions,)`` int array: the output slot of each action id.
        global_slots: the global head's output slots (first in the output).
        type_slots: each group's head's output slots (after the global ones, group by group).
    """

    type_index: np.ndarray
    global_index: np.ndarray
    action_order: np.ndarray
    global_slots: int
    type_slots: int

    @property
    def num_types(self) -> int:
        """The number of groups."""
        return int(self.type_index.shape[0])

    @property
    def type_input(self) -> int:
        """A group's input to the shared encoder: its slice plus its one-hot."""
        return int(self.type_index.shape[1]) + self.num_types

    @property
    def output_size(self) -> int:
        """The network's output slots (``action_order`` picks the action ids' logits from them)."""
        return self.global_slots + self.num_types * self.type_slots


def relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0)."""
    return np.maximum(x, 0.0)


class TypedForward:
    """The ``typed`` actor's forward pass (``training/ppo/networks.py``) in numpy, for one game's ``layout``."""

    def __init__(self, layout: TypedLayout, arrays: dict[str, np.ndarray]) -> None:
        self.layout = layout
        self.w = {name: (arrays[f"typed.{name}.w"], arrays[f"typed.{name}.b"]) for name in TYPED_LAYERS}
        if self.w["tenc.0"][0].shape[1] != layout.type_input or \
                self.w["genc.0"][0].shape[1] != len(layout.global_index):
            raise ValueError("typed network sizes do not match this environment's observation")
        self.onehot = np.eye(layout.num_types, dtype=np.float32)

    def _lin(self, name: str, x: np.ndarray, batched: bool) -> np.ndarray:
        # one observation: einsum, not BLAS (see PolicyAgent.logits); a batch: BLAS pays off
        w, b = self.w[name]
        return (x @ w.T if batched else np.einsum("...i,ji->...j", x, w)) + b

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Logits for one observation or a batch ``(B, observation size)``."""
        return self.forward(obs)[0]

    def forward(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and the trunk's features (what a value head reads) for one observation or a batch."""
        batched = obs.ndim > 1
        return typed_pass(self.layout, self.onehot, obs, lambda name, x: self._lin(name, x, batched))


def typed_pass(layout: TypedLayout, onehot: np.ndarray, obs: np.ndarray,
               lin: Callable[[str, np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The ``typed`` network over ``obs`` (any leading dimensions), ``lin(name, x)`` applying layer ``name``
    to ``x``'s last axis: the one definition :class:`TypedForward` and :class:`StackedTypedForward` share."""
    groups = layout.num_types
    types = obs[..., layout.type_index]                                  # (..., groups, group input)
    per_type = np.concatenate([types, np.broadcast_to(onehot, types.shape[:-1] + (groups,))], axis=-1)
    enc = relu(lin("tenc.2", relu(lin("tenc.0", per_type))))
    glob = relu(lin("genc.0", obs[..., layout.global_index]))
    trunk = relu(lin("trunk.2", relu(lin("trunk.0", np.concatenate([glob, enc.sum(-2), enc.max(-2)], axis=-1)))))
    shared = np.broadcast_to(trunk[..., None, :], enc.shape[:-1] + trunk.shape[-1:])
    type_logits = lin("thead.2", relu(lin("thead.0", np.concatenate([enc, shared], axis=-1))))
    flat = type_logits.reshape(type_logits.shape[:-2] + (-1,))
    return np.concatenate([lin("ghead", trunk), flat], axis=-1)[..., layout.action_order], trunk


class StackedTypedForward:
    """Several ``typed`` networks of one layout and one size, each over its own batch, in one pass: every layer
    one stacked matrix product over the networks (training's pool, whose snapshot policies decide a round of
    games together, instead of one pass per snapshot). A row's logits round as the batch's shape makes them, as
    :meth:`TypedForward.forward`'s batches do."""

    def __init__(self, nets: Sequence[TypedForward]) -> None:
        first = nets[0]
        self.layout, self.onehot = first.layout, first.onehot
        if not stackable(nets):
            raise ValueError("stacked typed networks need one layout and one size")
        # (networks, inputs, outputs): x @ w.T for every network at once
        self.wt = {name: np.ascontiguousarray(np.stack([n.w[name][0].T for n in nets])) for name in TYPED_LAYERS}
        self.b = {name: np.stack([n.w[name][1] for n in nets])[:, None, :] for name in TYPED_LAYERS}

    def _lin(self, name: str, x: np.ndarray) -> np.ndarray:
        wt = self.wt[name]
        flat = x.reshape(x.shape[0], -1, x.shape[-1])
        return (np.matmul(flat, wt) + self.b[name]).reshape(x.shape[:-1] + (wt.shape[-1],))

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Logits ``(networks, rows, actions)`` for ``obs`` ``(networks, rows, observation size)``: network ``k``
        over the rows ``obs[k]``."""
        return typed_pass(self.layout, self.onehot, obs, self._lin)[0]


def stackable(nets: Sequence[TypedForward]) -> bool:
    """Whether ``nets`` share a layout and every layer's shape (so :class:`StackedTypedForward` can run them)."""
    first = nets[0]
    return all(n.layout is first.layout and all(n.w[k][0].shape == first.w[k][0].shape for k in TYPED_LAYERS)
               for n in nets[1:])


__all__ = ["TYPED_LAYERS", "StackedTypedForward", "TypedForward", "TypedLayout", "relu", "stackable", "typed_pass"]
