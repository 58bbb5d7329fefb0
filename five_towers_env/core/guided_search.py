"""Network-guided search for every game: determinised PUCT trees evaluated by a policy-value network.

This is the search of expert iteration (``guided`` agents, and the teacher when training them).
A decision with hidden information is searched over ``determinisations`` samples of what the
searcher cannot see (the state's ``view.determinize(seat, rng)``, drawn from the public view
only). Each determinisation is a game without hidden information, searched by its own tree:

* **Selection** by PUCT: at a node where seat ``m`` moves, the child maximising
  ``Q_m + c_puct * P * sqrt(N) / (1 + n)``, where ``Q_m`` is the child's mean value for ``m``
  (unvisited: the node's own value for ``m``, "first-play urgency"), ``P`` the network's prior
  and ``N``, ``n`` the visit counts of the node and the child.
* **Evaluation** by the network: a new leaf's observation (its mover's own, as the environment
  would show it) gives the prior of its legal actions (soft-max of the masked logits) and the
  expected reward share of every seat. A finished game is scored exactly: a sole winner 1, a
  ``k``-way shared win ``1/k`` each, the others 0.
* **Forced moves** (a single legal action) are played on the way to a new node, which is always a
  real choice or a finished game: they cost no network evaluation.
* **Lockstep batching**: the trees advance together, one leaf each per step, and all their leaves
  are evaluated in one network pass (numpy matrix products are far cheaper per row in a batch).
* **Decision**: the root visit counts are summed over the trees; the most visited action wins
  (ties: the larger summed value).
* **What the network learns from** (:meth:`GuidedResult.improved_policy`): the root prior improved
  by the search's action values, ``softmax(log P + (c_visit + max N) * c_scale * Q)``, where an
  unvisited action's ``Q`` is the root's value ("completed" values, as in Gumbel MuZero). With a few
  dozen simulations the visit shares mostly repeat the prior (flattened by the noise); this target
  moves the prior only where the search measured a difference. ``visit_policy`` gives the shares.

There is no rollout. A game supplies a :class:`GuidedGame`; the network is any callable
``(observations, masks) -> (logits, values)`` (see :class:`~five_towers_env.agents.guided.PolicyValueNet`).
All randomness comes from the generator passed in. A ``deadline`` (the decision's, from
:func:`five_towers_env.core.deadline.current_deadline`) is a hard stop: once it has passed no further step
starts, and the visits so far decide. This module imports no game.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from five_towers_env.core.state import win_shares

#: ``(observations (B, obs), masks (B, actions)) -> (logits (B, actions), values (B, players))``;
#: ``values[b, k]`` is the expected reward share of the seat ``k`` places after row ``b``'s observer
Evaluator = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class GuidedGame(Protocol):
    r"""A game's hooks for :func:`guided_search`; its states are :class:`~five_towers_env.core.state.State`\ s."""

    num_actions: int

    def observe(self, state: Any, seat: int) -> np.ndarray:
        """``seat``'s flat observation of ``state``."""
        ...

    def child(self, state: Any, action: int) -> Any:
        """A new state: ``state`` with ``action`` applied (``state`` unchanged)."""
        ...


@dataclass(frozen=True)
class PUCT:
    """Settings of :func:`guided_search`: ``simulations`` network evaluations per decision, spread
    over ``determinisations`` trees; ``c_puct`` the exploration weight; ``noise`` the weight of
    Dirichlet(``alpha``) noise mixed into the root priors (self-play only; 0 at play)."""

    simulations: int = 64
    determinisations: int = 8
    c_puct: float = 1.0
    noise: float = 0.0
    alpha: float = 0.3


class _Node:
    """A position of one tree: its legal actions, their priors, visit counts and value sums (for the mover)."""

    __slots__ = ("state", "mover", "actions", "prior", "visits", "totals", "children", "value", "n")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.mover = int(state.current_player)
        self.actions: list[int] = []
        self.prior = np.zeros(0)
        self.visits = np.zeros(0)
        self.totals = np.zeros(0)
        self.children: list[_Node | None] = []
        self.value: np.ndarray | None = None  # every seat's value; None until evaluated
        self.n = 0

    def expand(self, logits: np.ndarray, value: np.ndarray) -> None:
        """Set the priors of the legal actions (soft-max of their logits) and the node's value."""
        self.actions = list(self.state.legal_actions())
        x = logits[self.actions]
        p = np.exp(x - x.max())
        self.prior = p / p.sum()
        self.visits = np.zeros(len(self.actions))
        self.totals = np.zeros(len(self.actions))
        self.children = [None] * len(self.actions)
        self.value = value

    def select(self, c_puct: float) -> int:
        """The index of the child PUCT picks."""
        fpu = float(self.value[self.mover]) if self.value is not None else 0.5
        q = np.where(self.visits > 0, self.totals / np.maximum(self.visits, 1), fpu)
        u = q + c_puct * self.prior * math.sqrt(self.n + 1) / (1.0 + self.visits)
        return int(np.argmax(u))


def _value(node: _Node) -> np.ndarray:
    """An evaluated node's value for every seat."""
    if node.value is None:
        raise RuntimeError("the node has not been evaluated")
    return node.value


def _relative_to_absolute(values: np.ndarray, observer: int) -> np.ndarray:
    """Values listed from the observer on (``values[k]``: seat ``observer + k``) by seat number."""
    n = len(values)
    return values[(np.arange(n) - observer) % n]


class _Tree:
    """One determinisation's tree."""

    def __init__(self, state: Any) -> None:
        self.root = _Node(state)

    def descend(self, game: GuidedGame, c_puct: float) -> tuple[list[tuple[_Node, int]], _Node]:
        """Follow PUCT from the root to a node not evaluated yet (or a finished game); the path
        as ``(node, child index)`` pairs, and that node (created here, its state a copy)."""
        path: list[tuple[_Node, int]] = []
        node = self.root
        while node.value is not None and not node.state.is_terminal():
            i = node.select(c_puct)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                state = game.child(node.state, node.actions[i])
                while not state.is_terminal() and len(state.legal_actions()) == 1:
                    state = game.child(state, state.legal_actions()[0])  # a forced move costs no evaluation
                child = node.children[i] = _Node(state)
                return path, child
            node = child
        return path, node


def _backup(path: list[tuple[_Node, int]], leaf: _Node, value: np.ndarray) -> None:
    """Add ``value`` (by seat) to every node and edge on the path."""
    leaf.n += 1
    for node, i in path:
        node.n += 1
        node.visits[i] += 1
        node.totals[i] += value[node.mover]


@dataclass
class GuidedResult:
    """What :func:`guided_search` found: the root's ``actions``, their summed ``visits``, mean
    ``values`` for the searcher (0 unvisited), the network's ``prior`` (before noise) and ``root_value``
    for the searcher (both averaged over the trees), the chosen ``action`` and the evaluations run."""

    actions: list[int]
    visits: np.ndarray
    values: np.ndarray
    prior: np.ndarray
    root_value: float
    action: int
    evaluations: int

    def _spread(self, shares: np.ndarray, num_actions: int) -> np.ndarray:
        out = np.zeros(num_actions, dtype=np.float32)
        out[self.actions] = shares
        return out

    def visit_policy(self, num_actions: int) -> np.ndarray:
        """The visit shares as a distribution over all action ids."""
        total = self.visits.sum()
        shares = self.visits / total if total > 0 else np.full(len(self.actions), 1.0 / len(self.actions))
        return self._spread(shares, num_actions)

    def improved_policy(self, num_actions: int, c_visit: float = 50.0, c_scale: float = 1.0) -> np.ndarray:
        """The prior improved by the completed action values (see the module docstring), over all action ids."""
        q = np.where(self.visits > 0, self.values, self.root_value)
        x = np.log(np.maximum(self.prior, 1e-12)) + (c_visit + self.visits.max()) * c_scale * q
        p = np.exp(x - x.max())
        return self._spread(p / p.sum(), num_actions)


def guided_search(game: GuidedGame, view: Any, seat: int, net: Evaluator, settings: PUCT,
                  rng: np.random.Generator, deadline: float | None = None) -> GuidedResult:
    """Search ``seat``'s decision in ``view`` (see the module docstring); ``view`` holds nothing
    the seat may not see, and it is never modified. ``deadline``: a :func:`time.monotonic` instant after
    which no step starts (None: none)."""
    trees = [_Tree(view.determinize(seat, rng)) for _ in range(max(1, settings.determinisations))]
    evaluations = _evaluate(game, net, [([], t.root) for t in trees])
    prior = np.mean([t.root.prior for t in trees], axis=0)
    root_value = float(np.mean([_value(t.root)[seat] for t in trees]))
    if settings.noise > 0:
        for t in trees:
            root = t.root
            eta = rng.dirichlet([settings.alpha] * len(root.actions))
            root.prior = (1 - settings.noise) * root.prior + settings.noise * eta
    steps = max(1, math.ceil((settings.simulations - len(trees)) / len(trees)))
    for _ in range(steps):
        if deadline is not None and time.monotonic() >= deadline:
            break
        pending = []
        for t in trees:
            path, leaf = t.descend(game, settings.c_puct)
            if leaf.state.is_terminal():
                _backup(path, leaf, np.asarray(win_shares(leaf.state)))
            else:
                pending.append((path, leaf))
        if pending:
            evaluations += _evaluate(game, net, pending)
    return _decide(trees, prior, root_value, evaluations)


def _evaluate(game: GuidedGame, net: Evaluator, pending: list[tuple[list[tuple[_Node, int]], _Node]]) -> int:
    """Evaluate the pending leaves in one network pass, expand them and back their values up."""
    obs = np.stack([game.observe(leaf.state, leaf.mover) for _, leaf in pending])
    masks = np.zeros((len(pending), game.num_actions), dtype=bool)
    for row, (_, leaf) in enumerate(pending):
        masks[row, leaf.state.legal_actions()] = True
    logits, values = net(obs, masks)
    for row, (path, leaf) in enumerate(pending):
        value = _relative_to_absolute(np.asarray(values[row], dtype=np.float64), leaf.mover)
        leaf.expand(np.asarray(logits[row], dtype=np.float64), value)
        _backup(path, leaf, value)
    return len(pending)


def _decide(trees: list[_Tree], prior: np.ndarray, root_value: float, evaluations: int) -> GuidedResult:
    """Sum the root visits over the trees and pick the most visited action."""
    actions = trees[0].root.actions
    visits = np.zeros(len(actions))
    totals = np.zeros(len(actions))
    for t in trees:
        if t.root.actions != actions:  # pragma: no cover - the searcher's own legal actions are known to it
            raise RuntimeError("determinisations disagree on the searcher's legal actions")
        visits += t.root.visits
        totals += t.root.totals
    values = np.where(visits > 0, totals / np.maximum(visits, 1), 0.0)
    best = max(range(len(actions)), key=lambda j: (visits[j], values[j]))
    return GuidedResult(list(actions), visits, values, prior, root_value, int(actions[best]), evaluations)


__all__ = ["GuidedGame", "PUCT", "GuidedResult", "Evaluator", "guided_search"]
