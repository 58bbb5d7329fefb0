"""The 5 Towers default (rollout) policy on the engine, the round-level rollout and the static evaluation.

:func:`rollout_action` plays any decision by the building plans of :mod:`.plans`;
:func:`play_rounds` plays whole rounds through the engine's unchecked path (every move comes from a
plan that builds by the placement rules); :func:`evaluate` scores a position cut short.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents.plans import (
    NEG_INF,
    NONE,
    POT,
    bid_how,
    bid_options,
    build_tower,
    chain,
    choose_bid,
    game_left,
    make_plan,
    pay_value,
    tower_room,
)
from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, SAND, SCRAP, TREE
from five_towers_env.games.five_towers.scoring import score_player
from five_towers_env.games.five_towers.state import GameState, Phase

if TYPE_CHECKING:
    from collections.abc import Sequence

_BID, _TAKE, _GAME_OVER = Phase.BID, Phase.TAKE, Phase.GAME_OVER


def evaluate(state: GameState, weight: float = 1.0) -> list[float]:
    """Static value of each seat: its score now plus ``weight`` x its expected further score."""
    return evaluate_towers(state.towers, state.piles, state.gp, game_left(state), weight)


#: expected further score per unit of game left (least squares over ~150k round starts of the
#: default policy's self-play, 2 and 4 players): weight of tower room (and its decline as the game
#: runs out), per missing tower, per open tower, per main-tower card, per torn-down card.
#: Great Powers: towers are worth more (sand at both ends, tree payments) and torn-down cards
#: may come back (scrap), so the pile weighs in positively (fit: +4, used: +2).
_EVAL = {False: (0.65, 0.18, 7.2, 7.9, -0.5, -0.6), True: (0.73, 0.41, 11.0, 10.9, 0.0, 2.0)}


def evaluate_towers(towers: list, piles: list, gp: bool, left: float, weight: float = 1.0) -> list[float]:
    n = len(towers)
    w_room, w_decline, w_empty, w_open, w_main, w_pile = _EVAL[gp]
    scale = weight * left * (2.0 / n) ** 0.6  # with more players each seat gets fewer cards
    w_pot = w_room - w_decline * left
    out = []
    for p in range(n):
        pot = 0.0
        empty = opened = main = 0
        for t, tw in enumerate(towers[p]):
            if not tw:
                empty += 1
                pot += POT[NONE]
                continue
            if tw[-1]:
                opened += 1
                pot += tower_room(tw, gp and t == SAND)
            if len(tw) > main:
                main = len(tw)
        future = w_pot * pot + w_empty * empty + w_open * opened + w_main * main + w_pile * len(piles[p])
        out.append(score_player(towers[p], piles[p], gp) + scale * future)
    return out



def rollout_action(state: GameState, beta: float = 0.45) -> int:
    """The rule-based default policy on an engine state (deterministic).

    Bid: the bid count whose greedy building plan on the display is worth most (Great Powers:
    also paying tree cards instead of taking cards), passing if that is not worth it or not higher
    than the highest bid. Take: the card with the best marginal value (or stop and pay). Teardown:
    only when forced. Build: each type's cards in the order that ends on the most room (Great
    Powers sand: at whichever end is better). Recover: always when possible."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    cum: Sequence[float]  # a bid's values (bid_options) or a plan's cumulative values (make_plan)
    phase = state.phase
    if phase == Phase.BID:
        p = state.current_player
        b = beta * game_left(state)
        cum, _ = bid_options(state.towers[p], state.display, b, state.gp)
        first = state.bid_turn == 0
        low = 0 if first else state.high_bid + 1
        allowed = 0
        for a in legal:
            if a != A.PASS:
                allowed |= 1 << (a - A.BID)
        k = choose_bid(cum, low, first, allowed)
        if k < 0:
            if A.PASS in legal:
                return A.PASS
            return legal[0]
        return A.BID + k
    if phase == Phase.TAKE:
        towers = state.towers[state.builder]
        b = beta * game_left(state)
        takes = [a - A.TAKE for a in legal if a != A.STOP]
        if not takes:
            return legal[0]
        plan, cum = make_plan(towers, tuple(takes), b, state.gp, chosen=state.hand)
        if A.STOP in legal:  # Great Powers: paying tree cards instead of taking more may be better
            need = state.target - state.taken
            full = cum[need] if need < len(cum) else NEG_INF
            nt = tuple(c for c in takes if c // NUM_VALUES != TREE)
            plan2, cum2 = make_plan(towers, nt, b, state.gp, chosen=state.hand)
            best_j, best_v = -1, full
            for j in range(min(need, len(cum2))):
                v = cum2[j] + pay_value(towers, need - j, b)
                if v > best_v:
                    best_j, best_v = j, v
            if best_j == 0:
                return A.STOP
            if best_j > 0:
                return A.TAKE + plan2[0]
        if plan:
            return A.TAKE + plan[0]
        return A.TAKE + takes[-1]
    if phase == Phase.TEARDOWN:
        return A.NO_TEARDOWN if A.NO_TEARDOWN in legal else legal[0]
    if phase == Phase.BUILD:
        towers = state.towers[state.builder]
        groups: list[list] = [[] for _ in range(NUM_TYPES)]
        for c in state.hand:
            groups[c // NUM_VALUES].append(c % NUM_VALUES)
        for t in range(NUM_TYPES):
            if groups[t]:
                a = _next_build(towers[t], t, tuple(groups[t]), state.gp and t == SAND)
                if a in legal:
                    return a
        # fall back: bottom sand builds keep the top, else the highest card first
        best, best_v = legal[0], -1
        for a in legal:
            v = 100 if a >= A.BUILD_BOTTOM else (a - A.BUILD) % NUM_VALUES
            if v > best_v:
                best, best_v = a, v
        return best
    for a in legal:  # recover: taking a card back off the teardown pile is always worth it
        if a != A.NO_RECOVER:
            return a
    return legal[0]


def _next_build(tower: tuple, t: int, values: tuple, sand_gp: bool) -> int:
    """The first build action of the default policy's plan for one type (-1 if it has none)."""
    new = build_tower(tower, values, sand_gp)
    if new is None:
        return -1
    k = len(tower)
    if not tower:
        order = chain(NONE, values)
        card = new[0] if order is not None and tuple(order) == new else new[-1]
        return A.BUILD + t * NUM_VALUES + card
    if new[:k] == tower:
        return A.BUILD + t * NUM_VALUES + new[k]
    return A.BUILD_BOTTOM + new[len(new) - k - 1]


def fast_rollout(state: GameState, rng: np.random.Generator, beta: float,
                 rounds: int | None) -> tuple[list, list, bool, float]:
    """Play whole rounds from a round start with the default policy; return (towers, piles, game
    over, fraction of the game left). The state is copied first, with ``rng`` for the reshuffle."""
    s = state.clone(rng=rng)
    over, left = play_rounds(s, beta, rounds)
    return s.towers, s.piles, over, left


def play_rounds(s: GameState, beta: float, rounds: int | None) -> tuple[bool, float]:
    """Play up to ``rounds`` whole rounds (``None``: to the end) of ``s``, a round start, with the
    default policy, through the engine's unchecked path (:meth:`GameState.apply_unchecked`): every
    move comes from a plan that builds by the placement rules, so it is legal, and the engine
    applies it (display, reshuffle, end of game) without listing the legal moves first. Great
    Powers: sand at both ends and tree payments, but no teardowns and no scrap recoveries.
    Returns (game over, fraction of the game left)."""
    gp = s.gp
    played = 0
    while s.phase != _GAME_OVER:
        if rounds is not None and played >= rounds:
            return False, game_left(s)
        b = beta * game_left(s)
        display = s.display
        how_b = None
        this_round = s.rounds_played
        # the engine ends the bidding once nobody left could raise (and the round, if all passed on 0)
        while s.phase == _BID and s.rounds_played == this_round:
            p = s.current_player
            values, how = bid_options(s.towers[p], display, b, gp)
            first = s.bid_turn == 0
            k = choose_bid(values, 0 if first else s.high_bid + 1, first)
            if k < 0:
                s.apply_unchecked((A.PASS,))
            else:
                s.apply_unchecked((A.BID + k,))
                how_b = bid_how(how, k)
        if s.phase == _TAKE:
            assert how_b is not None  # a round start: the take follows a bid made above
            _carry_out(s, how_b, gp)
        played += 1
    return True, 0.0


def _carry_out(s: GameState, how: tuple, gp: bool) -> None:
    """The builder's round by the default policy's plan ``how`` = (display cards to take, tree
    cards to pay), handed to the engine as one sequence of moves."""
    b = s.builder
    # a scrap card built onto an earlier round's teardown pile offers a recover: keep the pile
    s.apply_unchecked(_round_moves(s.towers[b], how, gp, gp and bool(s.piles[b])))


@lru_cache(maxsize=1024)  # small on purpose: see bid_options
def _round_moves(towers: tuple, how: tuple, gp: bool, recover: bool) -> tuple[int, ...]:
    """The moves of :func:`_carry_out` (memoised: the candidates of one search share their
    determinisations, so the same rounds recur)."""
    take, pay = how
    moves = [A.TAKE + c for c in take]
    if pay:
        moves.append(A.STOP)
    moves.append(A.NO_TEARDOWN)
    groups: list[list] = [[] for _ in range(NUM_TYPES)]
    for c in take:
        groups[c // NUM_VALUES].append(c % NUM_VALUES)
    for t in range(NUM_TYPES):
        if groups[t]:
            for a in _build_actions(towers[t], t, tuple(sorted(groups[t])), gp and t == SAND):
                moves.append(a)
                if recover and t == SCRAP:
                    moves.append(A.NO_RECOVER)
    return tuple(moves)


def _build_actions(tower: tuple, t: int, values: tuple, sand_gp: bool) -> list[int]:
    """The build actions that turn ``tower`` into the default policy's :func:`build_tower` of ``values``."""
    new = build_tower(tower, values, sand_gp)
    assert new is not None  # the plan's cards: buildable by construction
    k = len(tower)
    top = A.BUILD + t * NUM_VALUES
    if not tower and chain(NONE, values) != new:  # a new sand tower: one card, the rest beneath it
        return [top + new[-1]] + [A.BUILD_BOTTOM + v for v in reversed(new[:-1])]
    if new[:k] == tower:
        return [top + v for v in new[k:]]
    return [A.BUILD_BOTTOM + v for v in reversed(new[:len(new) - k])]



__all__ = ["evaluate", "evaluate_towers", "rollout_action", "fast_rollout", "play_rounds"]
