"""Campanile's hooks for the core search (:mod:`five_towers_env.core.search`).

* **Determinisation** ``i``: the cards hidden from the searcher dealt again from the PUBLIC view
  (``view.determinize(seat, rng)``) and ``_NOISE`` uniform numbers that drive every rollout of it,
  both drawn from the agent's generator, in that order: every candidate gets the same ones.
* **Play**: the candidate's moves (a play and its bet, or a bet) on a copy of the determinisation.
* **Rollout**: the fast default policy (:func:`rollout_action`) through the engine's ``clone`` /
  ``apply_action``, to the end of the game or ``rollout_turns`` turns.
* **Evaluation** (:meth:`CampanileSearch.evaluate`): at the end, 1 for a sole win, ``1/j`` for a
  ``j``-way shared win and 0 otherwise, plus ``margin_weight`` times the score margin over 20; a
  rollout cut short is scored by the heuristic's evaluation, a logistic of its soft score margin.
"""
from __future__ import annotations

import math

import numpy as np

from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.agents.heuristic import Evaluator, final_reward, turns_left
from five_towers_env.games.campanile.rules import score_towers
from five_towers_env.games.campanile.state import CampanileState, Phase

_PLAY = int(Phase.PLAY)
_NOISE = 128  # uniform numbers drawn per determinisation and shared by its rollouts


def rollout_action(state: CampanileState, u: float, bet_rate: float, lead_rate: float = 0.0) -> int:
    """The default policy's action in ``state`` for a uniform number ``u`` in [0, 1).

    Play: when a pile holds its last card, a play that takes it and wins (or ties) at once, else a
    play that keeps the game going; otherwise a random legal play (with chance ``lead_rate`` one that
    raises a tower the mover leads). Bet (when ``u < bet_rate``): the smallest chip that puts the mover
    first (else second) under a tower that would take a flag now, preferring the higher flag;
    otherwise ``no bet``. Cheap on purpose: it reads the engine's cached legal list, flag order
    and stake table."""
    legal = state.legal_actions()
    m = len(legal)
    if m == 1:
        return legal[0]
    if state.phase == _PLAY:
        ending = [i + 1 for i, p in enumerate(state.piles) if len(p) == 1]
        if ending:  # the mover may end the game (C3.3): do it if that wins, else keep it going
            me = state.current_player
            for k in ending:
                for a in legal:
                    if (a - A.PLAY) % 3 == k - 1:
                        h2 = list(state.heights)
                        h2[(a - A.PLAY) // 3] += k
                        sc = score_towers(h2, state.bets, state.num_players)
                        if sc[me] == max(sc):
                            return a
            going = [a for a in legal if (a - A.PLAY) % 3 + 1 not in ending]
            if going:
                return going[int(u * len(going))]
        if u < lead_rate:  # raise a tower the mover leads, if it holds one
            table = state.stake_table()
            me = state.current_player
            leading = [a for a in legal if _leads(table, me, (a - A.PLAY) // 3)]
            if leading:
                return leading[int(u / lead_rate * len(leading))]
        return legal[int(u * m)]
    if u >= bet_rate:
        return A.NO_BET
    order = state.flag_order()
    table = state.stake_table()
    me = state.current_player
    best, best_key = A.NO_BET, None
    for a in legal[1:]:
        t, v = divmod(a - A.BET, 3)
        rank = order.index(t)
        if rank >= 4:
            continue
        mine = table[me][t][0]
        others = sorted((row[t][0] for p, row in enumerate(table) if p != me), reverse=True)
        top = others[0] if others else 0
        second = others[1] if len(others) > 1 else 0
        if mine > top:
            continue  # already first
        if mine + v > top:
            gain = 2  # takes the lead
        elif mine + v > second >= mine:
            gain = 1  # takes second place
        else:
            continue
        key = (gain, -rank, -v)
        if best_key is None or key > best_key:
            best, best_key = a, key
    return best


def _leads(table: list, me: int, t: int) -> bool:
    """Whether ``me`` has the largest stake under tower ``t`` (ties not counted)."""
    mine = table[me][t][0]
    return mine > 0 and all(row[t][0] < mine for p, row in enumerate(table) if p != me)


class CampanileSearch:
    """The :class:`~five_towers_env.core.search.SearchGame` of one decision of ``seat`` from ``view``:
    a candidate is a tuple of action ids; ``ev`` scores a rollout cut short (see the module docstring)."""

    def __init__(self, view: CampanileState, seat: int, rng: np.random.Generator, ev: Evaluator,
                 rollout_turns: int | None, bet_rate: float, lead_rate: float, temperature: float,
                 margin_weight: float) -> None:
        self.view, self.seat, self.rng, self.ev = view, seat, rng, ev
        self.rollout_turns, self.bet_rate, self.lead_rate = rollout_turns, bet_rate, lead_rate
        self.temperature, self.margin_weight = temperature, margin_weight

    def sample(self, i: int) -> tuple[CampanileState, list[float]]:
        """The next determinisation and its rollouts' uniform numbers (drawn in order: ``i`` is implied)."""
        det = self.view.determinize(self.seat, self.rng)
        return det, self.rng.random(_NOISE).tolist()

    def play(self, moves: tuple[int, ...], det: tuple[CampanileState, list[float]]) -> CampanileState:
        """A copy of the determinisation with ``moves`` played."""
        s = det[0].clone()
        for a in moves:
            s.apply_action(a)
        return s

    def rollout(self, s: CampanileState, det: tuple[CampanileState, list[float]]) -> CampanileState:
        """``s`` played on by the default policy, driven by the determinisation's uniform numbers."""
        noise = det[1]
        depth = self.rollout_turns
        stop = s.turns + depth if depth is not None else 1 << 30
        i = 0
        bet_rate, lead_rate = self.bet_rate, self.lead_rate
        while not s.done and s.turns < stop:
            s.apply_action(rollout_action(s, noise[i % _NOISE], bet_rate, lead_rate))
            i += 1
        return s

    def evaluate(self, s: CampanileState) -> float:
        """The searcher's reward in about [0, 1]: exact at the end, else a logistic of the soft margin."""
        ev = self.ev
        if s.done:
            scores = s.scores()
            return final_reward(scores, self.seat) + self.margin_weight * ev.margin(scores) / 20.0
        left = turns_left([len(p) for p in s.piles])
        x = ev.margin(ev.soft_points(s.heights, s.bets, left, min(1.0, left / 25.0))) / self.temperature
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))


__all__ = ["rollout_action", "CampanileSearch"]
