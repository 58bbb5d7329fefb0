"""Determinised flat Monte Carlo search, for every game: each game's ``mcts`` agent plugs in hooks.

A decision with hidden information is searched by **sampling**: determinisation ``i`` draws what
the searcher cannot see (and the randomness of the rollouts), every surviving candidate is played
in it and rolled out by the game's default policy, and the position reached is scored for the
searcher. The rewards are aggregated at the root, per candidate; there is no tree.

* **Common random numbers.** Determinisation ``i`` is shared by all candidates, so they are
  compared on the same hidden cards and the same rollout luck: the differences between candidates
  are measured paired, with far less noise than independent samples would leave.
* **A race between candidates**, one of two schedules: :class:`Race` (successive elimination:
  after ``min_samples`` determinisations a candidate is dropped once its paired mean difference to
  the best is more than ``z`` standard errors below zero; the budget may be rollouts or seconds) or
  :class:`Halving` (successive halving: the rollout budget is split into rounds and after each
  round the worse half is dropped).
* **The best score wins**: a candidate's mean reward plus its ``prior`` (a game's static value of
  it, if any); equal scores go to the candidate listed first.
* **A policy's prior** (:class:`ActionPrior`, optional): a network's action probabilities keep only
  the ``top_k`` most likely candidates and give each the prior ``weight * log(p / p_best)``, so the
  rollouts are spent where the policy looks and the policy breaks near-ties.

A game supplies a :class:`SearchGame`: ``sample(i)`` (what sample ``i`` shares: a determinisation),
``play(candidate, det)`` (the candidate's position in it), ``rollout(state, det)`` (on with the
default policy, to the end or a horizon) and ``evaluate(reached)`` (the searcher's reward of what
the rollout reached, about [0, 1]). A candidate whose reward is known without sampling (a move
that ends the game) is given as ``exact`` and never sampled. All randomness is the game's, so the
same hooks give the same choice (unless the budget is in seconds).

**A deadline** (the budget's ``deadline``: a game's agent passes the decision's, from
:func:`five_towers_env.core.deadline.current_deadline`, set by whoever asked for the move, e.g.
``--move-timeout``) is a hard stop whatever the budget: the search stops between two rollouts once it has
passed and answers the best candidate so far. Without one, nothing changes.

This module imports no game.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

C = TypeVar("C")  # a candidate (what the game plays in a determinisation)

#: a paired difference must clear its confidence bound by this much (equal rewards never race out)
_RACE_SLACK = 1e-12


class SearchGame(Protocol):
    """A game's hooks for :func:`flat_search` (candidates, determinisations and positions are the game's own types)."""

    def sample(self, i: int) -> Any:
        """Sample ``i``: the hidden information drawn again (and the rollout randomness) every candidate shares."""
        ...

    def play(self, candidate: Any, det: Any) -> Any:
        """A fresh position: ``candidate`` played in determinisation ``det``."""
        ...

    def rollout(self, state: Any, det: Any) -> Any:
        """What ``state`` reaches when the game's default policy plays on (to the end or a horizon),
        in the form :meth:`evaluate` takes."""
        ...

    def evaluate(self, reached: Any) -> float:
        """The searcher's reward of what a rollout reached (about [0, 1])."""
        ...


@dataclass(frozen=True)
class Budget:
    """``simulations`` rollouts, or ``time_limit`` seconds from ``start`` (then at least ``min_simulations``);
    either way nothing after ``deadline`` (a :func:`time.monotonic` instant, None: none), a hard stop."""

    simulations: int = 400
    time_limit: float | None = None
    min_simulations: int = 8
    start: float = field(default_factory=time.perf_counter)
    deadline: float | None = None

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def left(self, sims: int) -> bool:
        """Whether another determinisation may start after ``sims`` rollouts."""
        if self.passed():
            return False
        if self.time_limit is not None:
            return sims < self.min_simulations or time.perf_counter() - self.start < self.time_limit
        return sims < self.simulations


@dataclass(frozen=True)
class Race:
    """Successive elimination: after ``min_samples`` determinisations, drop a candidate once its paired
    mean difference to the best exceeds ``z`` standard errors (``z=None``: never drop)."""

    z: float | None = 2.0
    min_samples: int = 8


@dataclass(frozen=True)
class Halving:
    """Successive halving: ``ceil(log2(candidates))`` rounds sharing the rollout budget evenly, the
    worse half (by score, at least two kept) dropped after every round but the last."""


@dataclass(frozen=True)
class ActionPrior:
    """A policy's say in a flat search: ``probabilities(observation)`` gives every action's probability
    (an array indexed by action id, zero where illegal); a candidate's probability is the sum over the
    actions it stands for."""

    probabilities: Callable[[Any], Any]
    top_k: int = 4
    weight: float = 0.02

    def candidates(self, members: Sequence[Sequence[int]], probs: Sequence[float]) -> tuple[list[int], list[float]]:
        """The ``top_k`` most likely candidates (indices into ``members``, in their order) and their priors,
        ``weight * log(p / p_best)``."""
        p = [sum(float(probs[a]) for a in acts) for acts in members]
        ranked = sorted(range(len(p)), key=lambda j: (-p[j], j))[:max(1, self.top_k)]
        keep = sorted(ranked)
        best = max(p[j] for j in keep)
        if best <= 0.0:  # the policy gives the candidates nothing: it has no say
            return keep, [0.0] * len(keep)
        return keep, [self.weight * math.log(max(p[j], 1e-9) / best) for j in keep]


@dataclass
class SearchResult(Generic[C]):
    """What :func:`flat_search` found: the ``best`` index, each candidate's mean reward (``None``:
    never sampled) and the rollouts run."""

    best: int
    means: list[float | None]
    simulations: int

    def choice(self, candidates: Sequence[C]) -> C:
        """The chosen candidate."""
        return candidates[self.best]


class _Tally:
    """The rewards of every candidate, one per determinisation it was played in."""

    def __init__(self, n: int, exact: Sequence[float | None] | None, prior: Sequence[float] | None,
                 deadline: float | None = None) -> None:
        self.samples: list[list[float]] = [[] for _ in range(n)]
        self.exact: list[float | None] = list(exact) if exact is not None else [None] * n
        self.prior: list[float] = list(prior) if prior is not None else [0.0] * n
        self.deadline = deadline  # the decision's (a time.monotonic() instant), None: none
        self.cut = False  # a sample stopped at the deadline: the samples are uneven, the search ends

    def sample(self, game: SearchGame, alive: Sequence[int], candidates: Sequence, i: int) -> int:
        """Play determinisation ``i`` for every live candidate that needs sampling; return the rollouts run.
        Once the deadline has passed it stops between two candidates and sets ``cut``."""
        det = game.sample(i)
        play, rollout, evaluate = game.play, game.rollout, game.evaluate  # bound once: this is the hot loop
        exact, samples, deadline = self.exact, self.samples, self.deadline
        runs = 0
        for j in alive:
            if exact[j] is None:
                if deadline is not None and time.monotonic() >= deadline:
                    self.cut = True
                    break
                samples[j].append(evaluate(rollout(play(candidates[j], det), det)))
                runs += 1
        return runs

    def mean(self, j: int) -> float | None:
        """Candidate ``j``'s exact reward, else its mean reward (``None``: no samples)."""
        if self.exact[j] is not None:
            return self.exact[j]
        s = self.samples[j]
        return sum(s) / len(s) if s else None

    def score(self, j: int) -> float:
        """What the candidates are ranked by: the mean reward (0 unsampled) plus the prior."""
        m = self.mean(j)
        return (0.0 if m is None else m) + self.prior[j]

    def rewards(self, j: int, n: int) -> list[float]:
        """Candidate ``j``'s rewards in the first ``n`` determinisations (an exact reward in each)."""
        exact = self.exact[j]
        return [exact] * n if exact is not None else self.samples[j]


def flat_search(game: SearchGame, candidates: Sequence[C], budget: Budget,
                schedule: Race | Halving = Race(), exact: Sequence[float | None] | None = None,
                prior: Sequence[float] | None = None) -> SearchResult[C]:
    """Search ``candidates`` (at least one) over determinisations shared by all of them (see the module docstring)."""
    if not candidates:
        raise ValueError("flat_search needs at least one candidate")
    tally = _Tally(len(candidates), exact, prior, budget.deadline)
    if isinstance(schedule, Halving):
        alive, sims = _halving(game, candidates, budget, tally)
    else:
        alive, sims = _race(game, candidates, budget, schedule, tally)
    best = max(alive, key=tally.score)  # max keeps the first of equals
    return SearchResult(best, [tally.mean(j) for j in range(len(candidates))], sims)


def _race(game: SearchGame, candidates: Sequence, budget: Budget, race: Race, tally: _Tally) -> tuple[list[int], int]:
    """Successive elimination; returns the surviving candidates (in their order) and the rollouts run."""
    alive = list(range(len(candidates)))
    sims = i = 0
    while len(alive) > 1 and any(tally.exact[j] is None for j in alive) and budget.left(sims):
        sims += tally.sample(game, alive, candidates, i)
        i += 1
        if tally.cut:
            break
        if race.z is not None and i >= race.min_samples:
            alive = _eliminate(tally, alive, i, race.z)
    return alive, sims


def _eliminate(tally: _Tally, alive: list[int], n: int, z: float) -> list[int]:
    """Drop the candidates clearly worse than the best, paired over the ``n`` shared determinisations."""
    score = {j: sum(tally.rewards(j, n)) / n + tally.prior[j] for j in alive}
    best = max(alive, key=lambda j: score[j])
    top = tally.rewards(best, n)
    keep = []
    for j in alive:
        if j != best:
            diffs = [x - y for x, y in zip(top, tally.rewards(j, n), strict=True)]
            d = sum(diffs) / n
            var = sum([(x - d) ** 2 for x in diffs]) / max(1, n - 1)
            if d + (tally.prior[best] - tally.prior[j]) > z * math.sqrt(var / n) + _RACE_SLACK:
                continue
        keep.append(j)
    return keep


def _halving(game: SearchGame, candidates: Sequence, budget: Budget, tally: _Tally) -> tuple[list[int], int]:
    """Successive halving over ``budget.simulations`` rollouts; returns the survivors (best first after
    a cut, the given order before) and the rollouts run."""
    alive = list(range(len(candidates)))
    rounds = max(1, math.ceil(math.log2(len(alive))))
    left = budget.simulations
    sims = i = 0
    for r in range(rounds):
        per = max(1, (left // (rounds - r)) // len(alive))  # determinisations this round
        for _ in range(per):
            runs = tally.sample(game, alive, candidates, i)
            i += 1
            sims += runs
            left -= len(alive)
            if tally.cut:
                return alive, sims
        if len(alive) > 2 and r < rounds - 1:
            alive.sort(key=lambda j: -tally.score(j))  # stable: equal scores keep the given order
            alive = alive[:max(2, (len(alive) + 1) // 2)]
    return alive, sims


__all__ = ["SearchGame", "Budget", "Race", "Halving", "ActionPrior", "SearchResult", "flat_search"]
