"""Agents of a policy-value network trained by expert iteration: ``net`` and ``guided`` (numpy only).

A policy-value network file is a network file (:mod:`.network_file`: the ``mlp`` or ``typed``
actor) with a **value head** added: ``value.w0``/``value.b0`` (a ReLU layer reading the actor's
last features: the MLP's last hidden layer, the typed network's trunk) and ``value.w1``/``value.b1``
(one logit per seat, counted from the observer on). The soft-max of those logits is every seat's
expected reward share (a sole win 1, a ``k``-way shared win ``1/k``), as the observer sees it.

* ``net``: the bare network, one forward pass per move: the most likely legal action.
* ``guided``: a search this network guides: :func:`~five_towers_env.core.guided_search.guided_search`
  over determinisations of the agent's public view (``search=puct``), or the game's rollout search
  over the network's most likely candidates (``search=rollouts``); see :class:`GuidedSearchAgent`.

Both load the network the game ships (``GameSpec.shipped_networks``) unless given ``path=``.
Neither reads anything but the agent's observation and ``info["view"]``; the search draws what
is hidden from the view with the agent's own generator.
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.core.agent import AgentBase, path_setting_files
from five_towers_env.core.deadline import current_deadline
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.guided_search import PUCT, GuidedResult, guided_search
from five_towers_env.core.search import ActionPrior
from five_towers_env.core.setting_ranges import PROBABILITY, OneOf, Range, SettingRange, range_problem
from five_towers_env.numerics import blas_threads


def shipped_network(game: str) -> Path:
    """The policy-value network ``game`` ships (its first setup); ``ValueError`` if none."""
    spec = get_game(game)
    path = spec.network_path()
    if path is None or not path.exists():
        raise ValueError(f"{spec.title} ships no policy-value network (expert iteration); give path=... "
                         "(a network trained by five-towers expert, runs/<name>/network.npz)")
    return path


def network_files(settings: Mapping[str, Any], game: GameSpec, num_players: int, variant: str) -> list[Path] | None:
    """The policy-value network file ``net`` or ``guided`` with ``settings`` plays in the setup: ``path``, else
    the one ``game`` ships for the setup; ``None`` if it ships none."""
    if settings.get("path") is not None:
        return path_setting_files(settings)
    path = game.network_path(num_players, variant)
    return None if path is None else [Path(path)]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class PolicyValueNet:
    """A policy-value network file's forward pass: ``(observations, masks) -> (logits, values)``.

    ``values[b, k]`` is the expected reward share of the seat ``k`` places after row ``b``'s observer."""

    def __init__(self, path: str | Path | None = None, game: str | None = None) -> None:
        game_name = DEFAULT_GAME if game is None else game  # a public agent class: 5 Towers unless told
        self.policy = PolicyAgent(path if path is not None else shipped_network(game_name), game=game)
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

    @classmethod
    def files(cls, settings: Mapping[str, Any], game: GameSpec, num_players: int,
              variant: str) -> list[Path] | None:
        """The network file it plays in the setup (:func:`network_files`)."""
        return network_files(settings, game, num_players, variant)

    SETTING_RANGES: ClassVar[dict[str, SettingRange]] = {}  # no numbers (ppo's version is not one of its settings)

    def __init__(self, path: str | Path | None = None, seed: int | None = None, deterministic: bool = True,
                 name: str = "net", game: str | None = None) -> None:
        game_name = DEFAULT_GAME if game is None else game  # a public agent class: 5 Towers unless told
        super().__init__(path if path is not None else shipped_network(game_name), seed=seed,
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


#: the guided search's settings where neither the agent's settings nor its network file's ``meta["guided"]``
#: give them
GUIDED_DEFAULTS: dict[str, Any] = {"search": "puct", "simulations": 64, "determinisations": 8, "c_puct": 1.0,
                                   "top_k": 4, "prior_weight": 0.02}
SEARCHES = ("puct", "rollouts")
#: the most ``simulations``: 2,000 network evaluations (``puct``) took about 1 s per decision with the shipped
#: networks, on a loaded 2-core machine (Campanile's 1,000 about 0.5 s); ``rollouts`` is the game's ``mcts``,
#: whose own bounds are higher
MAX_SIMULATIONS = 10_000
#: the most ``determinisations`` (every tree costs at least two network evaluations; expert iteration's limit)
MAX_DETERMINISATIONS = 1_024


class GuidedSearchAgent(AgentBase):
    """Network-guided search (``"guided"``), one of two kinds (``search``):

    * ``puct``: :func:`~five_towers_env.core.guided_search.guided_search`, a tree per determinisation
      whose leaves the network evaluates (``simulations`` network evaluations per decision);
    * ``rollouts``: the game's own rollout search (its ``mcts`` agent, ``simulations`` rollouts) over
      the network's ``top_k`` most likely candidates only, each with the prior ``prior_weight * log(p /
      p_best)`` (:class:`~five_towers_env.core.search.ActionPrior`): the policy picks where to look, the
      rollouts judge; for a game whose ``mcts`` takes a ``policy``.

    A setting left out comes from the network file's ``meta["guided"]`` (the settings a shipped network was
    measured with), else from :data:`GUIDED_DEFAULTS`.

    Args:
        path: a policy-value network file; default: the one the game ships.
        seed: seed of the agent's generator (determinisations, root noise, rollouts).
        search: ``puct`` or ``rollouts``.
        simulations: network evaluations (``puct``) or rollouts (``rollouts``) per decision.
        determinisations: ``puct``'s trees, each on its own sample of the hidden information.
        c_puct: ``puct``'s exploration weight.
        noise: weight of Dirichlet noise on ``puct``'s root priors (self-play exploration; 0 to play).
        top_k: ``rollouts``: the candidates searched, the network's most likely.
        prior_weight: ``rollouts``: the weight of a candidate's log-probability beside its mean reward.
        game: the game it plays (``make_agent`` fills it in).

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`), checked by the
    agent registry and, for those the network file gives, when the agent is built.
    """

    pool_opponent = False  # it plays a trained network
    SETTING_RANGES: ClassVar[dict[str, SettingRange]] = {
        "search": OneOf(*SEARCHES), "simulations": Range(1, MAX_SIMULATIONS),
        "determinisations": Range(1, MAX_DETERMINISATIONS),
        "c_puct": Range(0, 100, low_open=True),  # 0 would leave the network's prior out of the tree's choice
        "noise": PROBABILITY,  # the share of Dirichlet noise in the root's prior
        "top_k": Range(1, 1_000), "prior_weight": Range(0, 100),
    }

    @classmethod
    def files(cls, settings: Mapping[str, Any], game: GameSpec, num_players: int,
              variant: str) -> list[Path] | None:
        """The network file it plays in the setup (:func:`network_files`)."""
        return network_files(settings, game, num_players, variant)

    def __init__(self, path: str | Path | None = None, seed: int | None = None, search: str | None = None,
                 simulations: int | None = None, determinisations: int | None = None, c_puct: float | None = None,
                 noise: float = 0.0, top_k: int | None = None, prior_weight: float | None = None,
                 name: str = "guided", game: str | None = None) -> None:
        self.net = PolicyValueNet(path, game=game)
        given = {"search": search, "simulations": simulations, "determinisations": determinisations,
                 "c_puct": c_puct, "top_k": top_k, "prior_weight": prior_weight}
        stored = self.net.meta.get("guided", {}) if isinstance(self.net.meta.get("guided"), dict) else {}
        cfg = {**GUIDED_DEFAULTS, **stored, **{k: v for k, v in given.items() if v is not None}}
        self._check_stored({key: cfg[key] for key in GUIDED_DEFAULTS if given[key] is None and key in stored})
        if cfg["search"] not in SEARCHES:
            raise ValueError(f"guided: search must be one of {', '.join(SEARCHES)}, got {cfg['search']!r}")
        if int(cfg["simulations"]) < 1 or int(cfg["determinisations"]) < 1 or int(cfg["top_k"]) < 1:
            raise ValueError(f"guided: simulations, determinisations and top_k must be at least 1, got "
                             f"{cfg['simulations']!r}, {cfg['determinisations']!r} and {cfg['top_k']!r}")
        self.config = cfg
        self.spec = get_game(self.net.game)
        self.hooks = _SpecHooks(self.spec)
        self.settings = PUCT(int(cfg["simulations"]), int(cfg["determinisations"]), float(cfg["c_puct"]),
                             float(noise))
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.last: GuidedResult | None = None  # the last puct search (for training and tools)
        self.rollouts: Any = None
        if cfg["search"] == "rollouts":
            self.rollouts = self._rollout_search(seed, cfg)

    def _check_stored(self, stored: dict[str, Any]) -> None:
        """The settings the network file's ``meta["guided"]`` gives, each within its range: the registry checks
        those given to it by name (a caller in Python, such as the expert-iteration trainer, answers for its
        own)."""
        for key, value in stored.items():
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            problem = (range_problem(value, self.SETTING_RANGES[key], "a number") if number or key == "search"
                       else f"must be a number, got {value!r}")
            if problem:
                raise ValueError(f"guided: {key} (from {self.net.policy.path.name}'s meta) {problem}")

    def _rollout_search(self, seed: int | None, cfg: dict[str, Any]) -> Any:
        """The game's ``mcts`` agent with this network's prior."""
        from five_towers_env.agents.registry import agent_class

        cls = agent_class("mcts", game=self.spec.name)
        if "policy" not in inspect.signature(cls).parameters:
            raise ValueError(f"guided: {self.spec.title}'s mcts takes no policy, so search=rollouts cannot guide "
                             "it; use search=puct")
        prior = ActionPrior(self.probabilities, int(cfg["top_k"]), float(cfg["prior_weight"]))
        return cls(seed=seed, simulations=int(cfg["simulations"]), policy=prior)

    def probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The network's probability of every action (zero where illegal)."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        with blas_threads(1):
            logits = self.net.policy.logits(observation["observation"])
        logits = np.where(mask, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    @property
    def last_values(self) -> dict[int, float]:
        """``search=rollouts``: the mean reward of each candidate action of the last decision (empty after a
        single legal action, and for ``puct``, whose :attr:`last` holds its search)."""
        return dict(self.rollouts.last_values) if self.rollouts is not None else {}

    def seed(self, seed: int | None) -> None:
        """Re-seed the agent's generator."""
        self.rng = np.random.default_rng(seed)
        if self.rollouts is not None:
            self.rollouts.rng = np.random.default_rng(seed)

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
        if self.rollouts is not None:
            if observation is None:  # a caller without the environment: the view gives the same
                mask = np.zeros(self.spec.num_actions, dtype=bool)
                mask[legal] = True
                observation = {"observation": self.hooks.observe(view, seat), "action_mask": mask}
            return int(self.rollouts.act(observation, info))
        with blas_threads(1):  # small batches: one thread is fastest, and never stalls on a busy machine
            self.last = guided_search(self.hooks, view, seat, self.net, self.settings, self.rng,
                                      deadline=current_deadline())
        return self.last.action


__all__ = ["PolicyValueNet", "NetworkAgent", "GuidedSearchAgent", "network_files", "shipped_network", "GUIDED_DEFAULTS"]
