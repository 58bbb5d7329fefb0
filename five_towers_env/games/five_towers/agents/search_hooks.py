"""5 Towers' hooks for the core search (:mod:`five_towers_env.core.search`).

* **Candidates** (:func:`round_ends`): the legal actions (base game: the build order across types,
  which changes nothing, is cut), each followed by the default policy to the end of the current
  round. That part is public and deterministic, so it is played once per candidate on the engine,
  and actions that end the round in the same position are merged into one candidate.
* **Determinisation** ``i``: a shuffle of the unseen cards and a generator for the reshuffle when
  the deck first runs out, both seeded by ``(base, i)``, so every candidate gets the same ones.
* **Play**: the candidate's round-end position, dealt again (:meth:`GameState.redeal`).
* **Rollout**: ``rollout_rounds`` more whole rounds of the default policy (:func:`.rollout.play_rounds`).
* **Evaluation** (:class:`Scoring`): the reward of the searcher in [0, 1], exactly at game end,
  else from the static evaluation (:func:`.rollout.evaluate_towers`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents.rollout import evaluate_towers, play_rounds, rollout_action
from five_towers_env.games.five_towers.cards import NUM_VALUES
from five_towers_env.games.five_towers.scoring import score_player
from five_towers_env.games.five_towers.state import GameState, Phase


def tree_actions(state: GameState, taken_before: tuple = ()) -> list[int]:
    """The legal actions worth telling apart, transpositions cut: in the base game the cards of
    one type are built before the next type's (types do not interact there), and the cards taken
    in the search (all of the hand but ``taken_before``, the cards taken before it started) are
    taken in increasing id order (the order of taking never matters)."""
    legal = state.legal_actions()
    phase = state.phase
    if phase == Phase.TAKE and len(state.hand) > len(taken_before):
        rest = list(state.hand)
        for c in taken_before:
            rest.remove(c)
        high = A.TAKE + max(rest)
        kept = [a for a in legal if a >= high]
        if kept:
            return kept
    elif phase == Phase.BUILD and not state.gp:
        first = (legal[0] - A.BUILD) // NUM_VALUES
        kept = [a for a in legal if (a - A.BUILD) // NUM_VALUES == first]
        if kept:
            return kept
    return list(legal)


def _end_key(state: GameState) -> tuple:
    """Everything about a round-end position (next round revealed) that the future depends on,
    with the revealed display and the deck merged into the unseen multiset."""
    return (tuple(state.towers), tuple(state.piles), state.start_player, state.deck_ran_out,
            tuple(sorted(state.discard)), tuple(sorted(state.deck + list(state.display))), len(state.display))


class _Reshuffle:
    """The generator of determinisation ``seed`` as its rollouts see it: ``default_rng(seed)`` after
    the permutation of ``skip`` cards that dealt the determinisation. Building a numpy generator
    costs about as much as a simulated round and most rollouts never reshuffle, so it is built
    on the engine's first ``permutation`` call only; the draws are the same either way."""

    __slots__ = ("seed", "skip", "g")

    def __init__(self, seed: tuple, skip: int) -> None:
        self.seed, self.skip = seed, skip
        self.g: np.random.Generator | None = None

    def permutation(self, x: Any) -> np.ndarray:
        """``numpy.random.Generator.permutation`` of the determinisation's generator."""
        if self.g is None:
            self.g = np.random.default_rng(self.seed)
            self.g.permutation(self.skip)
        return self.g.permutation(x)


def round_end(view: GameState, action: int, rng: np.random.Generator, beta: float) -> GameState:
    """The view after ``action`` and the default policy to the end of the round (the next display is
    revealed from the view's sorted deck: only its multiset is used; a reshuffle draws from ``rng``)."""
    s = view.clone(rng=rng)
    s.apply_action(action)
    rounds = s.rounds_played
    while not s.is_terminal() and s.rounds_played == rounds:
        s.apply_action(rollout_action(s, beta))
    return s


def round_ends(view: GameState, rng: np.random.Generator, beta: float, actions: list[int] | None = None,
               limit: int | None = None) -> tuple[list[GameState], list[list[int]]]:
    """The search's candidates: the distinct round-end positions of the actions worth telling apart,
    and the actions (in :func:`tree_actions` order) that reach each. Or, given ``actions`` (legal
    actions in the order to try them: a policy's likeliest first), theirs, stopping once ``limit``
    distinct ends are found (later actions that would have joined one of them are not tried)."""
    groups: dict[tuple, int] = {}  # round-end key -> index into ends
    ends: list[GameState] = []
    members: list[list[int]] = []
    for a in tree_actions(view, view.hand) if actions is None else actions:
        if limit is not None and len(ends) >= limit:
            break
        e = round_end(view, a, rng, beta)
        key = ("end", tuple(e.scores())) if e.is_terminal() else _end_key(e)
        j = groups.get(key)
        if j is None:
            j = groups[key] = len(ends)
            ends.append(e)
            members.append([])
        members[j].append(a)
    return ends, members


@dataclass(frozen=True)
class Scoring:
    """Per-player rewards in [0, 1]: win probability (1 sole win, 0.5 shared, 0 loss; before the end a
    soft-max over evaluated scores, ``temperature`` VP wide and wider with more game left) mixed with
    a score-margin term of weight ``margin_weight``; ``eval_weight`` scales the expected further score."""

    eval_weight: float = 1.0
    temperature: float = 3.0
    margin_weight: float = 0.2

    def rewards(self, towers: list, piles: list, gp: bool, over: bool, left: float) -> list[float]:
        """Every seat's reward of a finished game (``over``) or an evaluated position (``left``: game left)."""
        n = len(towers)
        if over:
            values = [float(score_player(towers[p], piles[p], gp)) for p in range(n)]
            best = max(values)
            winners = [p for p in range(n) if values[p] == best]
            share = 1.0 if len(winners) == 1 else 0.5
            win = [share if values[p] == best else 0.0 for p in range(n)]
        else:
            values = evaluate_towers(towers, piles, gp, left, self.eval_weight)
            m = max(values)
            temp = self.temperature * (1.0 + 1.3 * left)
            ex = [math.exp((v - m) / temp) for v in values]
            tot = sum(ex)
            win = [e / tot for e in ex]
        mw = self.margin_weight
        if mw <= 0.0:
            return win
        out = []
        for p in range(n):
            other = max(values[q] for q in range(n) if q != p)
            out.append((1.0 - mw) * win[p] + mw / (1.0 + math.exp(-(values[p] - other) / 10.0)))
        return out

    def final(self, state: GameState, seat: int) -> float:
        """``seat``'s reward of a finished game."""
        return self.rewards(state.towers, state.piles, state.gp, True, 0.0)[seat]


class _Deal:
    """Determinisation ``seed``: its shuffle of each pool size, made on first use and shared by every candidate."""

    __slots__ = ("seed", "perms")

    def __init__(self, seed: tuple) -> None:
        self.seed = seed
        self.perms: dict[int, list[int]] = {}

    def permutation(self, n: int) -> list[int]:
        """The shuffle of ``n`` unseen cards (a list: indexing with Python ints is faster than with numpy's)."""
        perm = self.perms.get(n)
        if perm is None:
            perm = self.perms[n] = np.random.default_rng(self.seed).permutation(n).tolist()
        return perm


class FiveTowersSearch:
    """The :class:`~five_towers_env.core.search.SearchGame` of one decision: candidate ``j`` is the
    round-end position ``ends[j]``; ``base`` seeds the determinisations (see the module docstring)."""

    def __init__(self, ends: list[GameState], seat: int, base: int, beta: float, rollout_rounds: int | None,
                 scoring: Scoring) -> None:
        self.ends, self.seat, self.base = ends, seat, base
        self.beta, self.rollout_rounds, self.scoring = beta, rollout_rounds, scoring
        # the cards a determinisation deals again: the revealed display is merged into the unseen
        # multiset (none for a candidate that ends the game: it is scored exactly, never played)
        self.pools: list[list[int]] = [[] if e.is_terminal() else sorted(e.deck + list(e.display)) for e in ends]

    def exact(self) -> list[float | None]:
        """The reward of each candidate that ends the game (``None`` for the others)."""
        return [self.scoring.final(e, self.seat) if e.is_terminal() else None for e in self.ends]

    def sample(self, i: int) -> _Deal:
        """Determinisation ``i``."""
        return _Deal((self.base, i))

    def play(self, j: int, deal: _Deal) -> GameState:
        """Candidate ``j``'s round-end position, dealt again by ``deal``."""
        pool = self.pools[j]
        n = len(pool)
        return self.ends[j].redeal([pool[x] for x in deal.permutation(n)], _Reshuffle(deal.seed, n))  # type: ignore[arg-type]  # a lazy Generator: permutation only

    def rollout(self, state: GameState, deal: _Deal) -> tuple[GameState, bool, float]:
        """``rollout_rounds`` more whole rounds (``None``: to the end) by the default policy; the position,
        whether the game is over and the fraction of it left."""
        over, left = play_rounds(state, self.beta, self.rollout_rounds)
        return state, over, left

    def evaluate(self, reached: tuple[GameState, bool, float]) -> float:
        """The searcher's reward of what :meth:`rollout` reached."""
        s, over, left = reached
        return self.scoring.rewards(s.towers, s.piles, s.gp, over, left)[self.seat]


__all__ = ["tree_actions", "round_end", "round_ends", "Scoring", "FiveTowersSearch"]
