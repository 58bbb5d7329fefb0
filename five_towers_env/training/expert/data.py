"""The games expert iteration learns from, and the buffer that keeps them (numpy only, no torch).

* :func:`selfplay_games`: the network-guided search plays itself (:func:`~five_towers_env.play.play_game`,
  the one game loop). Every searched decision gives a training position: the mover's observation
  and legal-action mask, the search's improved policy (the policy target, see
  :meth:`~five_towers_env.core.guided_search.GuidedResult.improved_policy`) and, once the game is
  over, every seat's reward share counted from the mover on (the value target). For variety the
  first ``temperature_moves`` decisions of each seat are sampled from that policy and Dirichlet
  noise is mixed into the root priors; later moves are the search's choice.
* :func:`teacher_games`: a search agent that reports its candidates' values (``last_values``: the
  ``mcts`` agents, ``guided:search=rollouts``, which then searches with the run's current network)
  plays itself; the policy target is the soft-max of those values over
  ``temperature`` (the teacher's choice, with near-equal candidates sharing it), optionally tilted
  towards the run's network (``prior_weight``: its log-probabilities added, so that a few noisy
  rollouts move the network's policy rather than replace it), sampled for the first
  ``temperature_moves`` decisions of each seat, and the value target the game's outcome. With
  ``network_share`` > 0, each decision outside that sampled opening is played by the run's bare
  network (its likeliest action) with that probability, the teacher still labelling it: the positions
  the network reaches by its own moves are then taught too, as in DAgger (Ross et al. 2011), not only
  those the teacher steers to.
* :func:`network_games`: the bare network plays itself, sampling its moves: quick positions whose
  outcomes teach the value head before the first search; their policy target is the network's own
  distribution, so that learning the value does not move the policy.
* :class:`ReplayBuffer`: the most recent positions, sampled uniformly for training; saved with
  each checkpoint.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.guided import GuidedSearchAgent, NetworkAgent
from five_towers_env.atomic import atomic_open
from five_towers_env.core.state import shares_of
from five_towers_env.play import play_game


@dataclass
class Positions:
    """Training positions: observations, legal masks, policy targets and weights, value targets."""

    obs: np.ndarray       # (k, obs_size) float16
    masks: np.ndarray     # (k, actions) bool
    policy: np.ndarray    # (k, actions) float16: visit shares (zeros where policy_weight is 0)
    weight: np.ndarray    # (k,) float32: 1 for a searched decision, 0 for a network move
    value: np.ndarray     # (k, players) float32: reward shares from the mover on

    def __len__(self) -> int:
        return len(self.weight)

    @staticmethod
    def concat(parts: Sequence[Positions]) -> Positions:
        """One block of all the parts' positions, in order."""
        return Positions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Positions.FIELDS))

    FIELDS = ("obs", "masks", "policy", "weight", "value")


def _shifted_logits(network: NetworkAgent, observation: dict[str, np.ndarray]) -> np.ndarray:
    """The network's logits over the legal actions, less their maximum (``-inf`` where illegal)."""
    mask = np.asarray(observation["action_mask"], dtype=bool)
    logits = np.where(mask, network.logits(observation["observation"]), -np.inf)
    return logits - logits.max()


class _Recorder:
    """An agent in one seat that plays through another and keeps what it saw and chose."""

    def __init__(self, inner: Any, num_actions: int, temperature_moves: int, rng: np.random.Generator,
                 q_scale: float = 1.0) -> None:
        self.name = inner.name
        self.inner, self.num_actions = inner, num_actions
        self.temperature_moves, self.rng, self.q_scale = temperature_moves, rng, q_scale
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]] = []
        self.decisions = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = self.inner.act(observation, info)
        result = getattr(self.inner, "last", None)
        seat = int(info["seat"])
        if isinstance(self.inner, GuidedSearchAgent):
            if result is None:  # a single legal action: nothing to learn
                return action
            target = result.improved_policy(self.num_actions, c_scale=self.q_scale)
            if self.decisions < self.temperature_moves:
                action = int(self.rng.choice(self.num_actions, p=target / target.sum()))
            self.decisions += 1
        else:  # the network's own distribution, which it sampled the action from
            p = np.exp(_shifted_logits(self.inner, observation))
            target = (p / p.sum()).astype(np.float32)
        self.rows.append((np.asarray(observation["observation"], dtype=np.float16),
                          np.asarray(observation["action_mask"], dtype=bool), target, seat))
        return action


class _TeacherRecorder:
    """A search agent in one seat whose every searched decision is a training position."""

    def __init__(self, inner: Any, num_actions: int, temperature: float, temperature_moves: int,
                 rng: np.random.Generator, network: NetworkAgent | None = None, prior_weight: float = 0.0,
                 network_share: float = 0.0) -> None:
        self.name = inner.name
        self.inner, self.num_actions, self.temperature = inner, num_actions, temperature
        self.temperature_moves, self.rng = temperature_moves, rng
        self.network, self.prior_weight, self.network_share = network, prior_weight, network_share
        self.rows: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, int]] = []
        self.decisions = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = self.inner.act(observation, info)
        log_prior = None
        if self.network is not None and self.prior_weight > 0:
            z = _shifted_logits(self.network, observation)
            log_prior = z - np.log(np.exp(z).sum())
        target = value_target(self.inner.last_values, self.num_actions, self.temperature, log_prior,
                              self.prior_weight)
        if target is not None and self.decisions < self.temperature_moves:
            action = int(self.rng.choice(self.num_actions, p=target / target.sum()))
        elif self.network_share > 0 and self.network is not None and self.rng.random() < self.network_share:
            action = int(np.argmax(_shifted_logits(self.network, observation)))
        if target is None:  # a single legal action (or one distinct outcome): nothing to learn
            return action
        self.decisions += 1
        self.rows.append((np.asarray(observation["observation"], dtype=np.float16),
                          np.asarray(observation["action_mask"], dtype=bool), target, int(info["seat"])))
        return action


def value_target(values: dict[Any, float], num_actions: int, temperature: float,
                 log_prior: np.ndarray | None = None, prior_weight: float = 0.0) -> np.ndarray | None:
    """The soft-max of a search's candidate values over ``temperature`` as a policy target over all actions
    (None for fewer than two actions valued), plus ``prior_weight`` times ``log_prior`` (log-probabilities
    over all actions) where given. A candidate is an action id or a sequence of actions (a turn) starting
    with the one decided now; an action's value is its best candidate's."""
    best: dict[int, float] = {}
    for key, v in values.items():
        a = int(key[0]) if isinstance(key, tuple) else int(key)
        best[a] = max(v, best.get(a, -np.inf))
    if len(best) < 2:
        return None
    actions = np.fromiter(best, dtype=np.int64)
    q = np.fromiter(best.values(), dtype=np.float64)
    z = q / temperature
    if log_prior is not None and prior_weight > 0:
        z = z + prior_weight * log_prior[actions]
    p = np.exp(z - z.max())
    target = np.zeros(num_actions, np.float32)
    target[actions] = p / p.sum()
    return target


def _positions(recorders: Sequence[_Recorder | _TeacherRecorder], winners: Sequence[int], num_players: int,
               num_actions: int) -> Positions:
    """The recorded rows of one game with its outcome."""
    shares = np.asarray(shares_of(winners, num_players), dtype=np.float32)
    rows = [row for r in recorders for row in r.rows]
    k = len(rows)
    obs = np.stack([r[0] for r in rows]) if k else np.zeros((0, 0), np.float16)
    masks = np.stack([r[1] for r in rows]) if k else np.zeros((0, num_actions), bool)
    policy = np.zeros((k, num_actions), np.float16)
    weight = np.zeros(k, np.float32)
    value = np.zeros((k, num_players), np.float32)
    for i, (_, _, target, seat) in enumerate(rows):
        if target is not None:
            policy[i], weight[i] = target, 1.0
        value[i] = np.roll(shares, -seat)
    return Positions(obs, masks, policy, weight, value)


def selfplay_games(network: str, game: str, num_players: int, variant: str, seeds: Sequence[int],
                   settings: dict[str, Any], temperature_moves: int,
                   q_scale: float = 1.0) -> tuple[Positions, dict[str, float]]:
    """Positions from guided-search self-play games dealt by ``seeds`` (``settings``: the agent's
    keyword settings; ``q_scale``: the improved policy's value scale); and the numbers of games and decisions."""
    from five_towers_env.core.game import get_game

    num_actions = get_game(game).num_actions
    parts = []
    decisions = 0
    for seed in seeds:
        rng = np.random.default_rng([seed, 1])
        seats = [_Recorder(GuidedSearchAgent(network, seed=int(rng.integers(1 << 62)), game=game, **settings),
                           num_actions, temperature_moves, rng, q_scale) for _ in range(num_players)]
        result = play_game(seats, variant=variant, seed=seed, game=game)
        parts.append(_positions(seats, result["winners"], num_players, num_actions))
        decisions += result["steps"]
    return Positions.concat(parts), {"games": float(len(seeds)), "decisions": float(decisions)}


def teacher_games(network: str, game: str, num_players: int, variant: str, seeds: Sequence[int], teacher: str,
                  temperature: float, temperature_moves: int, prior_weight: float = 0.0,
                  network_share: float = 0.0) -> tuple[Positions, dict[str, float]]:
    """Positions from self-play games of the search agent ``teacher`` (a registry spec) dealt by ``seeds``;
    and the numbers of games and decisions. A ``guided`` teacher without a ``path`` searches with
    ``network``, the run's current one (expert iteration with the game's rollout search as its judge:
    ``guided:search=rollouts``); ``prior_weight`` > 0 tilts the targets towards ``network``'s policy;
    ``network_share``: the probability that a decision outside the sampled opening is ``network``'s move."""
    import dataclasses

    from five_towers_env.agents.registry import agent_class
    from five_towers_env.core.game import get_game
    from five_towers_env.evaluation.specs import parse_agent_spec

    num_actions = get_game(game).num_actions
    spec = parse_agent_spec(teacher, game=game)
    searches = spec.name is not None and agent_class(spec.name, game=game) is GuidedSearchAgent
    if searches and "path" not in dict(spec.kwargs):  # a guided teacher searches with the run's network
        spec = dataclasses.replace(spec, kwargs=(*spec.kwargs, ("path", network)))
    bare = NetworkAgent(network, game=game) if prior_weight > 0 or network_share > 0 else None
    parts = []
    decisions = 0
    for seed in seeds:
        rng = np.random.default_rng([seed, 3])
        seats = [_TeacherRecorder(spec.build(seed=int(rng.integers(1 << 62))), num_actions, temperature,
                                  temperature_moves, rng, bare, prior_weight, network_share)
                 for _ in range(num_players)]
        result = play_game(seats, variant=variant, seed=seed, game=game)
        parts.append(_positions(seats, result["winners"], num_players, num_actions))
        decisions += result["steps"]
    return Positions.concat(parts), {"games": float(len(seeds)), "decisions": float(decisions)}


def network_games(network: str, game: str, num_players: int, variant: str,
                  seeds: Sequence[int]) -> tuple[Positions, dict[str, float]]:
    """Positions from games of the bare network against itself, moves sampled (policy target: its own)."""
    from five_towers_env.core.game import get_game

    num_actions = get_game(game).num_actions
    parts = []
    decisions = 0
    for seed in seeds:
        seats = [_Recorder(NetworkAgent(network, seed=seed * 8 + p, deterministic=False, game=game), num_actions,
                           0, np.random.default_rng(seed)) for p in range(num_players)]
        result = play_game(seats, variant=variant, seed=seed, game=game)
        parts.append(_positions(seats, result["winners"], num_players, num_actions))
        decisions += result["steps"]
    return Positions.concat(parts), {"games": float(len(seeds)), "decisions": float(decisions)}


class ReplayBuffer:
    """The last ``capacity`` positions (oldest dropped first), sampled uniformly."""

    def __init__(self, capacity: int) -> None:
        self.capacity = int(capacity)
        self.data: Positions | None = None

    def __len__(self) -> int:
        return 0 if self.data is None else len(self.data)

    def add(self, positions: Positions) -> None:
        """Append ``positions``, dropping the oldest beyond the capacity."""
        merged = positions if self.data is None else Positions.concat([self.data, positions])
        if len(merged) > self.capacity:
            cut = len(merged) - self.capacity
            merged = Positions(*(getattr(merged, f)[cut:] for f in Positions.FIELDS))
        self.data = merged

    def sample(self, batch: int, rng: np.random.Generator) -> Positions:
        """``batch`` positions drawn uniformly (with replacement)."""
        if self.data is None:
            raise ValueError("the replay buffer is empty")
        idx = rng.integers(len(self.data), size=batch)
        return Positions(*(getattr(self.data, f)[idx] for f in Positions.FIELDS))

    def save(self, path: str | Path) -> None:
        """Write the buffer (uncompressed ``.npz``; atomically)."""
        with atomic_open(path, "wb") as out:  # a file object: written as named, no .npz added
            if self.data is None:
                np.savez(out, empty=np.zeros(0))
            else:
                np.savez(out, **{f: getattr(self.data, f) for f in Positions.FIELDS})

    def load(self, path: str | Path) -> None:
        """Read a buffer written by :meth:`save`."""
        with np.load(path) as d:
            self.data = None if "empty" in d.files else Positions(*(d[f] for f in Positions.FIELDS))


__all__ = ["Positions", "selfplay_games", "teacher_games", "network_games", "ReplayBuffer", "value_target"]
