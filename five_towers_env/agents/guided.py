"""Agents of a policy-value network trained by expert iteration: ``net`` and ``guided`` (numpy only).

A policy-value network file is a network file (:mod:`.network_file`: the ``mlp`` or ``typed``
actor) with a **value head** added: ``value.w0``/``value.b0`` (a ReLU layer reading the actor's
last features: the MLP's last hidden layer, the typed network's trunk) and ``value.w1``/``value.b1``
(one logit per seat, counted from the observer on). The soft-max of those logits is every seat's
expected reward share (a sole win 1, a ``k``-way shared win ``1/k``), as the observer sees it.

* ``net``: the bare network, one forward pass per move: the most likely legal action.
* ``guided``: :func:`~five_towers_env.core.guided_search.guided_search` with this network, over
  determinisations of the agent's public view (``simulations`` network evaluations per decision).

Both load the network the game ships (``GameSpec.shipped_networks``) unless given ``path=``.
Neither reads anything but the agent's observation and ``info["view"]``; the search draws what
is hidden from the view with the agent's own generator.
"""
from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.core.blas import blas_threads
from five_towers_env.core.game import GameSpec, get_game
from five_towers_env.core.guided_search import PUCT, GuidedResult, guided_search


def shipped_network(game: str | None) -> Path:
    """The policy-value network the game ships (its first setup); ``ValueError`` if none."""
    spec = get_game(game)
    path = spec.network_path()
    if path is None or not path.exists():
        raise ValueError(f"{spec.title} ships no policy-value network (expert iteration); give path=... "
                         "(a network trained by five-towers expert, runs/<name>/network.npz)")
    return path


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class PolicyValueNet:
    """A policy-value network file's forward pass: ``(observations, masks) -> (logits, values)``.

    ``values[b, k]`` is the expected reward share of the seat ``k`` places after row ``b``'s observer."""

    def __init__(self, path: str | Path | None = None, game: str | None = None) -> None:
        self.policy = PolicyAgent(path if path is not None else shipped_network(game), game=game)
        self.network = self.policy.network
        if self.network.num_players is None:
            raise ValueError(f"{self.policy.path} has no value head (a ppo policy?): the guided search needs "
                             "a policy-value network trained by expert iteration")
        self.num_players = self.network.num_players
        self.game = self.policy.game
        self.meta = self.policy.meta

    def features(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and the features the value head reads, for a batch of observations."""
        return self.network.forward(obs)

    def __call__(self, obs: np.ndarray, masks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(B, actions)`` and value shares ``(B, players)`` of a batch of observations."""
        logits, feats = self.features(np.asarray(obs, dtype=np.float32))
        return logits, _softmax(self.network.value_logits(feats))


class NetworkAgent(PolicyAgent):
    """The bare policy-value network (``"net"``): one forward pass per move, the most likely legal
    action (or sampled, ``deterministic=False``). ``path``: a network file; default: the shipped one."""

    def __init__(self, path: str | Path | None = None, seed: int | None = None, deterministic: bool = True,
                 name: str = "net", game: str | None = None) -> None:
        super().__init__(path if path is not None else shipped_network(game), seed=seed,
                         deterministic=deterministic, name=name, game=game)


class _SpecHooks:
    """A game's :class:`~five_towers_env.core.guided_search.GuidedGame` from its spec.

    A tree's positions share their determinisation's generator when the engine's ``clone`` takes
    one (``clone(rng=...)``): a tree is one sample of the hidden information, and copying the
    generator for every new node took a quarter of the search's time."""

    def __init__(self, spec: GameSpec) -> None:
        self.num_actions = spec.num_actions
        self.observe = spec.observer()
        self._shares_rng: bool | None = None

    def child(self, state: Any, action: int) -> Any:
        """``state`` with ``action`` applied, in a copy."""
        if self._shares_rng is None:
            self._shares_rng = "rng" in inspect.signature(state.clone).parameters and hasattr(state, "rng")
        new = state.clone(rng=state.rng) if self._shares_rng else state.clone()
        new.apply_action(action)
        return new


class GuidedSearchAgent:
    """Network-guided search (``"guided"``; see :mod:`five_towers_env.core.guided_search`).

    Args:
        path: a policy-value network file; default: the one the game ships.
        seed: seed of the agent's generator (determinisations, root noise).
        simulations: network evaluations per decision, over all trees.
        determinisations: trees, each on its own sample of the hidden information.
        c_puct: PUCT's exploration weight.
        noise: weight of Dirichlet noise on the root priors (self-play exploration; 0 to play).
        game: the game it plays (``make_agent`` fills it in).
    """

    def __init__(self, path: str | Path | None = None, seed: int | None = None, simulations: int = 64,
                 determinisations: int = 8, c_puct: float = 1.0, noise: float = 0.0, name: str = "guided",
                 game: str | None = None) -> None:
        if simulations < 1 or determinisations < 1:
            raise ValueError(f"guided: simulations and determinisations must be at least 1, got "
                             f"{simulations!r} and {determinisations!r}")
        self.net = PolicyValueNet(path, game=game)
        self.spec = get_game(self.net.game)
        self.hooks = _SpecHooks(self.spec)
        self.settings = PUCT(int(simulations), int(determinisations), float(c_puct), float(noise))
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.last: GuidedResult | None = None  # the last search (for training and tools)

    def seed(self, seed: int | None) -> None:
        """Re-seed the agent's generator."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search from ``info["view"]`` (never the true state) and return a legal action id."""
        view = info["view"]
        seat = int(info.get("seat", view.current_player))
        if view.num_players != self.net.num_players:
            raise ValueError(f"guided: {self.net.policy.path.name} values {self.net.num_players}-player games; "
                             f"this game has {view.num_players} players")
        self.net.policy.check_setup(view.num_players, view.variant)
        legal = list(view.legal_actions())
        self.last = None
        if len(legal) == 1:
            return int(legal[0])
        with blas_threads(1):  # small batches: one thread is fastest, and never stalls on a busy machine
            self.last = guided_search(self.hooks, view, seat, self.net, self.settings, self.rng)
        return self.last.action


__all__ = ["PolicyValueNet", "NetworkAgent", "GuidedSearchAgent", "shipped_network"]
