"""``mcts`` for any game: the flat determinised search with default hooks, through the engine only.

A game that names no ``mcts`` of its own gets this one (:class:`~five_towers_env.core.game.GameSpec`).
Each decision runs :func:`five_towers_env.core.search.flat_search` over the legal actions with:

* **samples**: sample ``i`` is ``view.determinize(seat, rng_i)``: what the seat cannot see drawn
  again from its public view (never the true state), shared by every candidate with the rollout
  randomness (common random numbers);
* **play**: a copy of the sample with the candidate applied;
* **rollout**: uniformly random legal moves to the end of the game;
* **reward**: the seat's win share of the finished game (1 a sole win, ``1/k`` a ``k``-way shared one);
* **schedule**: a race between the candidates (successive elimination).

A game refines it by naming its own ``mcts`` (better rollouts, candidates, evaluation), as 5 Towers and
Campanile do. Same seed and same observations give the same moves.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.agent import legal_actions
from five_towers_env.core.deadline import current_deadline
from five_towers_env.core.search import Budget, Race, flat_search
from five_towers_env.core.setting_ranges import Range
from five_towers_env.core.state import State, win_shares


class _Hooks:
    """The default :class:`~five_towers_env.core.search.SearchGame` of one decision."""

    def __init__(self, view: State, seat: int, seed: int) -> None:
        self.view, self.seat, self.seed = view, seat, seed

    def sample(self, i: int) -> tuple[State, int]:
        """The hidden information drawn again, and the seed of sample ``i``'s rollouts."""
        rng = np.random.default_rng([self.seed, i, 0])
        return self.view.determinize(self.seat, rng), int(rng.integers(2**63))

    def play(self, candidate: int, det: tuple[State, int]) -> State:
        """A copy of the sample with ``candidate`` applied."""
        state = det[0].clone()
        state.apply_action(candidate)
        return state

    def rollout(self, state: State, det: tuple[State, int]) -> State:
        """``state`` played on by uniformly random legal moves to the end."""
        rng = np.random.default_rng(det[1])
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        return state

    def evaluate(self, reached: State) -> float:
        """The seat's win share of the finished game."""
        return win_shares(reached)[self.seat]


class FlatSearchAgent:
    """Flat Monte Carlo over determinisations of the public view, random rollouts (see the module docstring).

    Args:
        seed: seed of the agent's generator (samples and rollouts).
        simulations: rollouts per decision, over all candidates.
        z: the race's elimination threshold in standard errors (``None``: never drop a candidate).
        min_samples: samples before the race may drop a candidate.
        name: the agent's display name.

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`). What a rollout
    costs is the game's (random moves to the end through its engine): ``--move-timeout`` bounds a slow game's
    decisions.
    """

    SETTING_RANGES = {"simulations": Range(1, 100_000), "z": Range(0, 100), "min_samples": Range(1, 100_000)}

    def __init__(self, seed: int | None = None, simulations: int = 400, z: float | None = 2.0,
                 min_samples: int = 8, name: str = "mcts") -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.simulations = int(simulations)
        self.race = Race(z=z, min_samples=int(min_samples))
        self.last_values: dict[int, float] = {}  # mean reward of each action the last search sampled

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search the legal actions from ``info["view"]`` and return the best."""
        legal = legal_actions(observation, info)
        self.last_values = {}
        if len(legal) == 1:
            return int(legal[0])
        view, seat = info["view"], int(info["seat"])
        hooks = _Hooks(view, seat, int(self.rng.integers(2**63)))
        result = flat_search(hooks, legal, Budget(self.simulations, deadline=current_deadline()), self.race)
        self.last_values = {int(a): mean for a, mean in zip(legal, result.means) if mean is not None}
        return int(result.choice(legal))


__all__ = ["FlatSearchAgent"]
