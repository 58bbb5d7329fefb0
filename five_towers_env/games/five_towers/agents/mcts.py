"""Monte Carlo search for 5 Towers over determinisations of the hidden deck order (``"mcts"``).

Hidden information
------------------
The only hidden information is the *order* of the draw deck, hidden from every player alike
(SPEC §6): all players' information sets are the same public state, and everything within a
round is public and deterministic. The agent searches from ``info["view"]`` (deck redacted to the
sorted multiset of unseen cards) and **determinises** it: the unseen cards are shuffled into a
random order with the agent's own seeded generator, and the reshuffle when the deck first runs
out uses the agent's generator too (never the view's, which is unrelated to the game's).

Search (``search="flat"``, the default): determinised Monte Carlo search with root aggregation
-------------------------------------------------------------------------------------------------
1. Candidates: the legal actions (base game: the build order across types, which changes
   nothing, is cut).
2. Each candidate is followed by the fast rule-based default policy (:func:`rollout_action`) to
   the end of the current round. This part is public and deterministic, so it is played once per
   candidate on the engine (exact rules); candidates that end the round in the same position are
   merged. A single distinct outcome is answered at once.
3. Every determinisation ``i`` (a shuffle of the unseen cards and a generator for the
   reshuffle) is shared by all candidates -- common random numbers, so candidates are compared
   on the same future cards -- and each candidate's round-end position is rolled out for
   ``rollout_rounds`` more whole rounds with the default policy (:func:`play_rounds`), through
   the engine itself: a determinisation is :meth:`GameState.redeal`, and the policy's moves go
   through :meth:`GameState.apply_unchecked` (its plans only build by the placement rules, so the
   engine need not list the legal moves first). The rules exist once, in the engine. Then the
   position is scored: exactly at game end, else by the static evaluation
   :func:`evaluate` (score plus fitted expected further score of the towers).
4. Per-player reward in [0, 1]: win probability (1 sole win, 0.5 shared, 0 loss; a soft-max
   over evaluated scores before the end) mixed with a score-margin term. Root aggregation: the
   rewards of the player to move are summed per candidate over the determinisations. A race
   drops a candidate once its paired difference to the best is clearly negative, so the budget
   goes to the close contenders; the best mean wins.

Why not a deeper tree: measured on 2-player base games against the rule-based
``HeuristicAgent`` (200 games each), the flat search won 81% at 600 rollouts per decision; the
single-observer IS-MCTS tree (``search="ismcts"``: UCB1 over the public states of the round,
per-player rewards, chance nodes keyed by the revealed display; every node maximises the reward
of the player to move) scored only 47-62% at equal or higher cost. Its averages mix the values of
poorly explored own sub-decisions into each bid, and without common random numbers the card luck
of the next rounds swamps the differences between actions. The tree stays available.

Budget: ``simulations`` rollouts per decision (default 400), or ``time_limit`` seconds (then
as many as fit, at least ``min_simulations``; timing makes play non-deterministic). A decision
with a single legal action is answered at once. Same seed, same settings, same observations:
same moves (without ``time_limit``).
"""
from __future__ import annotations

import math
import time
from functools import lru_cache
from typing import Any

import numpy as np

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import CANDY, NUM_TYPES, NUM_VALUES, SAND, SCARY, SCRAP, TREE, can_place
from five_towers_env.games.five_towers.lookahead import each_distinct
from five_towers_env.games.five_towers.scoring import pair_bonus, pair_gain, score_player
from five_towers_env.games.five_towers.state import GameState, Phase

_BID, _TAKE, _GAME_OVER = Phase.BID, Phase.TAKE, Phase.GAME_OVER

_LOG = math.log
_SQRT = math.sqrt


# ---------------------------------------------------------------------------
# Static knowledge: tower potential, building plans
# ---------------------------------------------------------------------------

NONE = 16  # "no tower yet" as a top value (index into POT)


def _pot_table() -> tuple[float, ...]:
    # How many different non-zero values could still go onto a tower whose top is T
    # (index T); index NONE stands for "no tower yet".
    out = []
    for top in range(NUM_VALUES):
        if top == 0:
            out.append(0.0)
        elif top == 8:
            out.append(15.0)
        else:
            out.append(float(top - 1 + (1 if top < 9 else 0)))  # 1..top-1, and a 9 on anything
    out.append(15.0)
    return tuple(out)


POT = _pot_table()


def game_left(state: GameState) -> float:
    """Rough fraction of the game's reveals still to come (1 at the start, 0 at the end)."""
    return _game_left(len(state.deck), state.deck_ran_out, state.num_players)


def _game_left(deck: int, ran_out: bool, num_players: int) -> float:
    total = 80 if num_players <= 3 else 110
    extra = 0.5 * total
    left = deck + (0.0 if ran_out else extra)
    return min(1.0, left / (total - 5 + extra))


def _placeable(top: int, v: int) -> bool:
    """The engine's placement rule, with ``NONE`` (no tower yet) taking any card."""
    return top == NONE or can_place(top, v)


@lru_cache(maxsize=None)
def chain(top: int, values: tuple) -> tuple | None:
    """Best order to build ``values`` (sorted) onto a tower with top ``top`` (``NONE``: no tower)
    by the base rules, ending on the top with the most potential; ``None`` if impossible."""
    return _best_order(values, lambda v: _placeable(top, v), chain, POT)


def _best_order(values: tuple, fits, extend, pot: tuple[float, ...]) -> tuple | None:
    """The order of ``values`` whose first card ``fits``, each next one continuing it as ``extend``
    says, that ends on the card of highest ``pot``; ``()`` for no values, ``None`` if impossible."""
    if not values:
        return ()
    best = None
    best_pot = -1.0
    for v, others in each_distinct(values):
        if not fits(v):
            continue
        rest = extend(v, others)
        if rest is None:
            continue
        final = rest[-1] if rest else v
        if pot[final] > best_pot:
            best, best_pot = (v,) + rest, pot[final]
    return best


def _bottom_table() -> tuple[float, ...]:
    # Great Powers sand: how many different non-zero values could still go under a bottom card B
    return tuple(float(sum(1 for c in range(1, NUM_VALUES) if _placeable(c, b))) for b in range(NUM_VALUES))


BPOT = _bottom_table()


@lru_cache(maxsize=200_000)
def chain_under(bottom: int, values: tuple) -> tuple | None:
    """Great Powers sand: best order to add ``values`` (sorted) under a bottom card ``bottom``
    (first added first), ending on the bottom with the most room below; ``None`` if impossible."""
    return _best_order(values, lambda v: v != 0 and _placeable(v, bottom), chain_under, BPOT)


def tower_room(tower: tuple, sand_gp: bool) -> float:
    """Potential of a tower: values that could still go on top (and, for a Great Powers sand
    tower, under the bottom); ``POT[NONE]`` for a missing tower, 0 once topped."""
    if not tower:
        return POT[NONE]
    top = tower[-1]
    if sand_gp and top:
        return POT[top] + BPOT[tower[0]]
    return POT[top]


@lru_cache(maxsize=200_000)
def sand_build(tower: tuple, values: tuple) -> tuple | None:
    """Great Powers: the best sand tower after adding ``values`` (sorted), all at the top or all
    under the bottom (a new tower: started by one card, the rest at one end); ``None`` if impossible."""
    options = []
    order = chain(tower[-1] if tower else NONE, values)
    if order is not None:
        options.append(tower + order)
    if tower and tower[-1] != 0:
        under = chain_under(tower[0], values)
        if under is not None:
            options.append(tuple(reversed(under)) + tower)
    elif not tower and len(values) > 1:
        prev = None
        for i, v in enumerate(values):
            if v == prev:
                continue
            prev = v
            under = chain_under(v, values[:i] + values[i + 1:])
            if under is not None:
                options.append(tuple(reversed(under)) + (v,))
    if not options:
        return None
    return max(options, key=lambda tw: tower_room(tw, True))


def build_tower(tower: tuple, values: tuple, sand_gp: bool) -> tuple | None:
    """The tower after building ``values`` (sorted) by the default policy's plan; ``None`` if impossible."""
    if sand_gp:
        return sand_build(tower, values)
    order = chain(tower[-1] if tower else NONE, values)
    return None if order is None else tower + order


def _type_gain(tower: tuple, values: tuple, beta: float, sand_gp: bool = False) -> float | None:
    """Score change plus ``beta`` x potential change of building ``values`` (sorted, at least one)
    on one tower; ``None`` if they cannot all be built."""
    if sand_gp:
        new = sand_build(tower, values)
        if new is None:
            return None
        n_old, n_new = len(tower), len(new)
        points = (2 * n_new if new[-1] == 0 else n_new) - n_old
        return points + beta * (tower_room(new, True) - tower_room(tower, True))
    # a plain tower (build_tower's chain on top), worked out without building the new tower:
    # this runs for every candidate card of every plan
    order = chain(tower[-1] if tower else NONE, values)
    if order is None:
        return None
    k, last = len(order), order[-1]
    points = len(tower) + 2 * k if last == 0 else k  # a 0 on top doubles the whole tower
    return points + beta * (POT[last] - (POT[tower[-1]] if tower else POT[NONE]))


def _pairs(candy: list, scary: list) -> int:
    """The engine's pair bonus of a candy and a scary tower holding these values."""
    return pair_bonus({CANDY: candy, SCARY: scary})


_UNKNOWN = object()  # make_plan: a gain not computed yet (None means "cannot be built")
_SPLIT = tuple((c, c // NUM_VALUES, c % NUM_VALUES) for c in range(NUM_TYPES * NUM_VALUES))  # (card, type, value)


def make_plan(towers: tuple, cards: tuple, beta: float, gp: bool, chosen: tuple = ()) -> tuple[list, list]:
    """Greedy building plan: add, one at a time, the card of ``cards`` with the best marginal value
    that keeps everything buildable (base placement rules, no teardown), starting from the cards
    ``chosen`` already. Returns (cards in the order chosen, cumulative value after each)."""
    sel: list[list] = [[] for _ in range(NUM_TYPES)]
    lengths = list(map(len, towers))
    base_main = max(lengths)
    gains = [0.0] * NUM_TYPES
    if chosen:
        for c in chosen:
            sel[c // NUM_VALUES].append(c % NUM_VALUES)
        for t in range(NUM_TYPES):
            if sel[t]:
                lengths[t] += len(sel[t])
                g = _type_gain(towers[t], tuple(sorted(sel[t])), beta, gp and t == SAND)
                gains[t] = g if g is not None else 0.0
    pair_now = 0
    if gp:  # the candy and scary values, kept up to date for the pair bonus
        candy, scary = list(towers[CANDY]) + sel[CANDY], list(towers[SCARY]) + sel[SCARY]
        pair_now = _pairs(candy, scary)
    value = sum(gains) + max(lengths) - base_main + pair_now
    remaining = [_SPLIT[c] for c in cards]
    plan: list[int] = []
    cum = [value]
    # a card's gain (and pair change) depends only on its own type's selection, so it is kept,
    # per type, until a card of that type is chosen
    gain_of: list[dict[int, float | None]] = [{} for _ in range(NUM_TYPES)]
    pair_of: dict[int, int] = {}
    main_now = max(lengths)
    while remaining:
        best_i, best_v, best_g = -1, -1e18, 0.0
        prev = None
        i = -1
        for c, t, v in remaining:
            i += 1
            if c == prev:
                continue
            prev = c
            known = gain_of[t]
            g = known.get(c, _UNKNOWN)
            if g is _UNKNOWN:
                chosen_t = sel[t]
                g = known[c] = _type_gain(towers[t], tuple(sorted(chosen_t + [v])) if chosen_t else (v,), beta,
                                          gp and t == SAND)
            if g is None:
                continue
            main = lengths[t] + 1
            if main < main_now:
                main = main_now
            total = value - gains[t] + g + (main - main_now)
            if gp and (t == CANDY or t == SCARY):
                pair = pair_of.get(c)
                if pair is None:
                    pair = pair_of[c] = pair_gain(candy, scary, v) if t == CANDY else pair_gain(scary, candy, v)
                total += pair
            if total > best_v:
                best_i, best_v, best_g = i, total, g
        if best_i < 0:
            break
        c, t, v = remaining.pop(best_i)
        sel[t].append(v)
        gain_of[t] = {}
        if t == CANDY or t == SCARY:
            pair_of.clear()
        gains[t] = best_g
        lengths[t] += 1
        if lengths[t] > main_now:
            main_now = lengths[t]
        if gp and t == CANDY:
            candy.append(v)
        elif gp and t == SCARY:
            scary.append(v)
        value = best_v
        plan.append(c)
        cum.append(value)
    base = cum[0]
    return plan, [x - base for x in cum]


def choose_bid(cum: list, low: int, first: bool, allowed: int | None = None) -> int:
    """The number of cards to bid for (``-1``: pass) given a plan's cumulative values."""
    best_k, best_v = -1, -1e18
    for k in range(low, len(cum)):
        if allowed is not None and not (allowed >> k) & 1:
            continue
        if cum[k] > best_v and cum[k] > NEG_INF:
            best_k, best_v = k, cum[k]
    if best_k < 0:
        return -1
    if not first and best_v <= 0.0:
        return -1
    return best_k


def _pay_value(towers: tuple, m: int, beta: float) -> float:
    """Great Powers: value of paying the top ``m`` cards of the tree tower (lost points, regained room)."""
    tree = towers[TREE]
    new = tree[:len(tree) - m]
    main_before = max(len(tw) for tw in towers)
    main_after = max([len(new)] + [len(tw) for t, tw in enumerate(towers) if t != TREE])
    return -m + main_after - main_before + beta * (tower_room(new, False) - tower_room(tree, False))


NEG_INF = float("-inf")


# The memos below are small on purpose: their hits come from the candidates of one search, which
# share each determinisation (common random numbers), so the same rounds recur within a few
# hundred calls. A large memo keeps hundreds of thousands of tuples alive, and the garbage
# collector's passes over them cost more than the extra hits save (measured: about a tenth of a
# decision's time with 65,536 entries each).
@lru_cache(maxsize=256)
def bid_options(towers: tuple, display: tuple, beta: float, gp: bool) -> tuple[tuple, tuple]:
    """Value of each bid count ``k`` for a player (``-inf``: not possible by the default policy's
    plans) and how it is carried out: ``(cards, j, m)``, take ``cards[:j]`` of the display and pay
    ``m`` tree cards (see :func:`bid_how`; the slices are made only for the bid chosen).

    Memoised: the candidates of one search share their determinisations (common random numbers),
    so their rollouts meet the same displays with the same towers for every seat but the mover's."""
    plan, cum = make_plan(towers, display, beta, gp)
    values = list(cum)
    cards = tuple(plan)
    how = [(cards, k, 0) for k in range(len(cum))]
    tree = towers[TREE]
    if gp and tree and 0 not in tree:
        nt = tuple(c for c in display if c // NUM_VALUES != TREE)
        plan2, cum2 = (plan, cum) if len(nt) == len(display) else make_plan(towers, nt, beta, gp)
        cards2 = tuple(plan2)
        for m in range(1, len(tree) + 1):
            pay = _pay_value(towers, m, beta)
            for j, v in enumerate(cum2):
                k = j + m
                while len(values) <= k:
                    values.append(NEG_INF)
                    how.append(((), 0, 0))
                if v + pay > values[k]:
                    values[k] = v + pay
                    how[k] = (cards2, j, m)
    return tuple(values), tuple(how)


def bid_how(how: tuple, k: int) -> tuple[tuple, int]:
    """How :func:`bid_options` carries out a bid of ``k``: (display cards to take, tree cards to pay)."""
    cards, j, m = how[k]
    return cards[:j], m


def evaluate(state: GameState, weight: float = 1.0) -> list[float]:
    """Static value of each seat: its score now plus ``weight`` x its expected further score."""
    return _evaluate(state.towers, state.piles, state.gp, game_left(state), weight)


#: expected further score per unit of game left (least squares over ~150k round starts of the
#: default policy's self-play, 2 and 4 players): weight of tower room (and its decline as the game
#: runs out), per missing tower, per open tower, per main-tower card, per torn-down card.
#: Great Powers: towers are worth more (sand at both ends, tree payments) and torn-down cards
#: may come back (scrap), so the pile weighs in positively (fit: +4, used: +2).
_EVAL = {False: (0.65, 0.18, 7.2, 7.9, -0.5, -0.6), True: (0.73, 0.41, 11.0, 10.9, 0.0, 2.0)}


def _evaluate(towers: list, piles: list, gp: bool, left: float, weight: float = 1.0) -> list[float]:
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


# ---------------------------------------------------------------------------
# Default (rollout) policy on the engine, and the fast round-level rollout
# ---------------------------------------------------------------------------

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
                v = cum2[j] + _pay_value(towers, need - j, b)
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
    k = len(tower)
    top = A.BUILD + t * NUM_VALUES
    if not tower and chain(NONE, values) != new:  # a new sand tower: one card, the rest beneath it
        return [top + new[-1]] + [A.BUILD_BOTTOM + v for v in reversed(new[:-1])]
    if new[:k] == tower:
        return [top + v for v in new[k:]]
    return [A.BUILD_BOTTOM + v for v in reversed(new[:len(new) - k])]


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------

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
        self.seed, self.skip, self.g = seed, skip, None

    def permutation(self, x: Any) -> np.ndarray:
        """``numpy.random.Generator.permutation`` of the determinisation's generator."""
        if self.g is None:
            self.g = np.random.default_rng(self.seed)
            self.g.permutation(self.skip)
        return self.g.permutation(x)


class _Node:
    """A decision node of the IS-MCTS tree (``chance``: the children are keyed by what is revealed)."""

    __slots__ = ("player", "untried", "children", "n", "w", "chance")

    def __init__(self, player: int = -1, actions: list | None = None, rng: np.random.Generator | None = None,
                 chance: bool = False) -> None:
        self.chance = chance
        self.children: dict = {}
        self.n = 0
        self.w = 0.0  # total reward of the player who moved into this node
        self.player = player
        untried = list(actions or ())
        if rng is not None and len(untried) > 1:
            untried = [untried[i] for i in rng.permutation(len(untried))]
        self.untried = untried


def _chance_key(state: GameState) -> tuple:
    if state.is_terminal():
        return ("end",)
    return (state.display, state.deck_ran_out, len(state.deck))


class MCTSAgent:
    """Monte Carlo search over determinisations of the deck order (see the module docstring).

    Args:
        seed: seed of the agent's generator (determinisations).
        simulations: rollouts per decision (ignored when ``time_limit`` is set).
        time_limit: seconds per decision; ``None`` to count rollouts instead.
        search: ``"flat"`` (determinised search with root aggregation and common random numbers)
            or ``"ismcts"`` (single-observer IS-MCTS tree, UCB1).
        rollout_rounds: whole rounds the default policy plays after the current round before the
            static evaluation (``None``: to the end of the game).
        beta: weight of tower potential in the default policy's plans.
        eval_weight: scale of the expected further score in the static evaluation.
        temperature: VP scale of the soft-max that turns evaluations into win probabilities
            at the end of the game (it grows with the game left).
        margin_weight: share of the reward given by the score margin rather than win/loss.
        race_z: a candidate is dropped once its paired mean difference to the best is more than
            ``race_z`` standard errors below zero (``None``: never; flat search only).
        min_samples: determinisations every candidate gets before the race may drop it.
        c: UCB1 exploration constant (``"ismcts"`` only; rewards lie in [0, 1]).
        min_simulations: at least this many rollouts under ``time_limit``.
    """

    def __init__(self, seed: int | None = None, simulations: int = 400, time_limit: float | None = None,
                 search: str = "flat", rollout_rounds: int | None = 5, beta: float = 0.45,
                 eval_weight: float = 1.0, temperature: float = 3.0, margin_weight: float = 0.2,
                 race_z: float | None = 2.0, min_samples: int = 8, c: float = 0.7,
                 min_simulations: int = 8, name: str = "mcts") -> None:
        if search not in ("flat", "ismcts"):
            raise ValueError(f"search must be 'flat' or 'ismcts', got {search!r}")
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.simulations = int(simulations)
        self.time_limit = time_limit
        self.search_kind = search
        self.rollout_rounds = rollout_rounds
        self.beta = float(beta)
        self.eval_weight = float(eval_weight)
        self.temperature = float(temperature)
        self.margin_weight = float(margin_weight)
        self.race_z = race_z
        self.min_samples = max(1, int(min_samples))
        self.c = float(c)
        self.min_simulations = int(min_simulations)
        self._root_round: tuple = (-1, ())  # round and hand where the IS-MCTS search started
        self.last_simulations = 0  # rollouts run for the last decision (for tools and tests)
        self.last_values: dict[int, float] = {}  # mean reward per candidate action of the last search

    # -- interface --------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search from ``info["view"]`` and return the chosen legal action id."""
        view: GameState = info["view"]
        legal = list(info.get("legal_actions") or view.legal_actions())
        self.last_simulations = 0
        self.last_values = {}
        if len(legal) == 1:
            return int(legal[0])
        action = self.search(view)
        if action not in legal:  # pragma: no cover - the view's legal actions are the game's
            raise RuntimeError(f"search chose {action}, not among the legal actions {legal}")
        return int(action)

    def search(self, view: GameState) -> int:
        """Search from a public view (its deck order is never used) and return an action id."""
        if self.search_kind == "flat":
            return self._flat(view)
        return self._ismcts(view)

    def _budget_left(self, sims: int, start: float) -> bool:
        if self.time_limit is not None:
            return sims < self.min_simulations or time.perf_counter() - start < self.time_limit
        return sims < self.simulations

    # -- rewards ------------------------------------------------------------------------

    def _reward(self, towers: list, piles: list, gp: bool, over: bool, left: float) -> list[float]:
        """Per-player rewards in [0, 1] of a finished game (``over``) or an evaluated position."""
        n = len(towers)
        if over:
            values = [float(score_player(towers[p], piles[p], gp)) for p in range(n)]
            best = max(values)
            winners = [p for p in range(n) if values[p] == best]
            share = 1.0 if len(winners) == 1 else 0.5
            win = [share if values[p] == best else 0.0 for p in range(n)]
        else:
            values = _evaluate(towers, piles, gp, left, self.eval_weight)
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

    # -- flat search with root aggregation --------------------------------------------------

    def _round_end(self, view: GameState, action: int) -> GameState:
        """The view after ``action`` and the default policy to the end of the round (the next
        display is revealed from the view's sorted deck: only its multiset is used)."""
        s = view.clone(rng=self.rng)
        s.apply_action(action)
        rounds = s.rounds_played
        while not s.is_terminal() and s.rounds_played == rounds:
            s.apply_action(rollout_action(s, self.beta))
        return s

    def _flat(self, view: GameState) -> int:
        start = time.perf_counter()
        me = view.current_player
        actions = tree_actions(view, view.hand)
        groups: dict = {}  # round-end key -> index into ends
        ends: list[GameState] = []
        members: list[list[int]] = []
        for a in actions:
            e = self._round_end(view, a)
            key = ("end", tuple(e.scores())) if e.is_terminal() else _end_key(e)
            j = groups.get(key)
            if j is None:
                j = groups[key] = len(ends)
                ends.append(e)
                members.append([])
            members[j].append(a)
        m = len(ends)
        exact: list[float | None] = [None] * m  # reward of a candidate that ends the game
        samples: list[list[float]] = [[] for _ in range(m)]
        for j, e in enumerate(ends):
            if e.is_terminal():
                exact[j] = self._reward(e.towers, e.piles, e.gp, True, 0.0)[me]
        pools = [None if e.is_terminal() else sorted(e.deck + list(e.display)) for e in ends]
        alive = list(range(m))
        base = int(self.rng.integers(1 << 62))
        sims = 0
        i = 0
        while len(alive) > 1 and any(exact[j] is None for j in alive) and self._budget_left(sims, start):
            perms: dict[int, np.ndarray] = {}  # determinisation i, shared by all candidates
            for j in alive:
                if exact[j] is not None:
                    continue
                pool = pools[j]
                n = len(pool)
                if n not in perms:
                    perms[n] = np.random.default_rng((base, i)).permutation(n)
                sim = ends[j].redeal([pool[x] for x in perms[n]], _Reshuffle((base, i), n))
                over, left = play_rounds(sim, self.beta, self.rollout_rounds)
                samples[j].append(self._reward(sim.towers, sim.piles, sim.gp, over, left)[me])
                sims += 1
            i += 1
            if self.race_z is not None and i >= self.min_samples:
                alive = self._race(alive, samples, exact, i)
        self.last_simulations = sims
        means = [exact[j] if exact[j] is not None else (sum(samples[j]) / len(samples[j]) if samples[j] else 0.0)
                 for j in range(m)]
        self.last_values = {a: means[j] for j in range(m) for a in members[j]}
        best = max(alive, key=lambda j: (means[j], -j))
        return members[best][0]

    def _race(self, alive: list[int], samples: list[list[float] | None], exact: list[float | None],
              n: int) -> list[int]:
        """Drop the candidates clearly worse than the best, paired over the shared determinisations
        (a finished game's exact reward counts as the same value in every one)."""
        def values(j: int) -> list[float]:
            return [exact[j]] * n if exact[j] is not None else samples[j]

        mean = {j: sum(values(j)) / n for j in alive}
        best = max(alive, key=lambda j: mean[j])
        top = values(best)
        keep = []
        for j in alive:
            if j != best:
                diffs = [x - y for x, y in zip(top, values(j))]
                d = sum(diffs) / n
                var = sum((x - d) ** 2 for x in diffs) / max(1, n - 1)
                if d > self.race_z * _SQRT(var / n) + 1e-12:
                    continue
            keep.append(j)
        return keep

    # -- single-observer IS-MCTS --------------------------------------------------------

    def _ismcts(self, view: GameState) -> int:
        self._root_round = (view.rounds_played, view.hand)
        root = _Node(view.current_player, tree_actions(view, view.hand), self.rng)
        unseen = sorted(view.deck)
        start = time.perf_counter()
        sims = 0
        while self._budget_left(sims, start):
            self._simulate(root, view, unseen)
            sims += 1
        self.last_simulations = sims
        self.last_values = {a: ch.w / ch.n for a, ch in root.children.items() if ch.n}
        return max(root.children.items(), key=lambda kv: (kv[1].n, kv[1].w))[0]

    def _node(self, state: GameState) -> _Node:
        if state.is_terminal():
            return _Node()
        rounds, hand = self._root_round
        return _Node(state.current_player, tree_actions(state, hand if state.rounds_played == rounds else ()), self.rng)

    @staticmethod
    def _forced(state: GameState) -> None:
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) != 1:
                return
            state.apply_action(legal[0])

    def _simulate(self, root: _Node, view: GameState, unseen: list[int]) -> None:
        rng = self.rng
        state = view.clone(rng=rng)  # the reshuffle draws from the agent's generator
        if unseen:
            state.deck = [unseen[i] for i in rng.permutation(len(unseen))]  # determinise
        path = [root]
        node = root
        while not state.is_terminal():
            if node.untried:  # expansion
                a = node.untried.pop()
                rounds = state.rounds_played
                state.apply_action(a)
                self._forced(state)
                if state.rounds_played != rounds or state.is_terminal():
                    chance = node.children[a] = _Node(chance=True)
                    path.append(chance)
                    child = chance.children[_chance_key(state)] = self._node(state)
                else:
                    child = node.children[a] = self._node(state)
                path.append(child)
                break
            log_n = _LOG(node.n) if node.n > 0 else 0.0  # selection: UCB1
            c = self.c
            best_a = max(node.children, key=lambda a: node.children[a].w / node.children[a].n
                         + c * _SQRT(log_n / node.children[a].n))
            child = node.children[best_a]
            state.apply_action(best_a)
            self._forced(state)
            if child.chance:
                path.append(child)
                key = _chance_key(state)
                nxt = child.children.get(key)
                if nxt is None:
                    nxt = child.children[key] = self._node(state)
                    path.append(nxt)
                    break
                child = nxt
            path.append(child)
            node = child
        rewards = self._rollout(state)
        mover = -1  # each node's w is the reward of the player whose move led into it
        for nd in path:
            nd.n += 1
            if mover >= 0:
                nd.w += rewards[mover]
            if not nd.chance:
                mover = nd.player

    def _rollout(self, state: GameState) -> list[float]:
        rounds = state.rounds_played
        while not state.is_terminal() and state.rounds_played == rounds and not (
                state.phase == Phase.BID and state.bid_turn == 0):
            state.apply_action(rollout_action(state, self.beta))
        if state.is_terminal():
            return self._reward(state.towers, state.piles, state.gp, True, 0.0)
        towers, piles, over, left = fast_rollout(state, self.rng, self.beta, self.rollout_rounds)
        return self._reward(towers, piles, state.gp, over, left)


__all__ = ["MCTSAgent", "rollout_action", "fast_rollout", "play_rounds", "make_plan", "choose_bid", "chain",
           "evaluate", "game_left", "tree_actions", "POT"]
