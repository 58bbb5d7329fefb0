"""A rule-based player with a hand-written position evaluation and small exact searches.

Evaluation (``_Context.evaluate``), for one player's towers and teardown pile:

* the score as if the game ended now (SPEC §4, Great Powers pairs included);
* plus the *future potential* of every open tower: ``chain_weight`` times how many distinct
  unseen cards of its type could still be stacked on it (values below the top, a 9 that
  lifts a low top back to 9, an 8 that accepts anything; the sand tower also counts what
  could go under its bottom in Great Powers), scaled down as the cards still to come run out;
  an empty tower counts as one topped by an 8 (anything can start it). A low top on a short
  tower is thereby a loss, a 15 or an 8 a gain;
* plus, while the type's 0 may still come, ``zero_weight * (height + 1)``: the chance of a
  tower top that doubles the tower later (a placed 0 closes the tower and turns that chance
  into points, so it is worth it when the tower is long);
* Great Powers: pairs already made score 3 VP; unpaired candy/scary values whose partner is
  still unseen add ``pair_weight``; cards in the teardown pile count a little less bad when
  the scrap tower is open (the scrap power may recover them).

"Unseen" is the multiset the public view allows: the deck, plus the discard pile and this
round's display and hand while the deck has not run out (they are shuffled back in).

Decisions:

* **take / teardown / build / recover** (its own round): a memoised depth-first search over
  the builder's whole remaining sequence (at most 5 display cards, the tree payment, the
  teardown, every build order and end, every recover) through the engine's own transitions
  (:func:`five_towers_env.games.five_towers.builder.moves`); it plays the first action of the complete
  plan with the best evaluation.
* **bid**: for every player, the best evaluation reachable with each bid count (towers
  decompose per type up to one teardown, the main-tower bonus and the candy/scary pairs:
  a small dynamic programme; recoveries are left out there), then a backward induction over
  the players still to bid: each takes the outcome best for them, a rival's gain counting
  against them. The view's bid masks decide which bids exist.

It reads only ``info["view"]`` (deck redacted) and the legal actions; deterministic given seed. Where
the native core is active it decides in C++ (:mod:`.native`: the same values, bit for bit, and the same
moves); set ``native`` to False to decide in Python whatever the backend.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from five_towers_env.core.agent import AgentBase, WaitingGames, legal_actions
from five_towers_env.core.setting_ranges import PROBABILITY, WEIGHT
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents import native
from five_towers_env.games.five_towers.builder import DONE as ROUND_DONE
from five_towers_env.games.five_towers.builder import Round
from five_towers_env.games.five_towers.builder import moves as builder_moves
from five_towers_env.games.five_towers.cards import (
    CANDY,
    NUM_CARD_IDS,
    NUM_TYPES,
    NUM_VALUES,
    SAND,
    SCARY,
    SCRAP,
    TREE,
)
from five_towers_env.games.five_towers.lookahead import (
    END_NONE,
    each_distinct,
    payable,
    placements,
    split_by_type,
    sub_multisets,
    tearable,
)
from five_towers_env.games.five_towers.state import GameState, Phase

NEG = float("-inf")
EMPTY = 16  # pseudo top value of a tower that does not exist yet

#: default evaluation weights (see the module docstring)
DEFAULT_PARAMS: dict[str, float] = {
    "chain_weight": 0.8,      # per distinct unseen card that could still go on a tower
    "zero_weight": 0.3,       # times (height + 1) while the type's 0 is still unseen
    "pair_weight": 0.8,       # Great Powers: an unpaired candy/scary value whose partner is unseen
    "recover_relief": 0.3,    # Great Powers: share of the teardown penalty the scrap power may win back
    "opponent_weight": 1.0,   # how much a rival builder's gain counts against us when bidding
}

# phases of the builder's search (the engine's own numbers)
_TAKE, _TEARDOWN, _BUILD, _RECOVER = int(Phase.TAKE), int(Phase.TEARDOWN), int(Phase.BUILD), int(Phase.RECOVER)


def _tri(m: int) -> int:
    return m * (m + 1) // 2


@lru_cache(maxsize=100_000)
def tower_finals(t: int, tower: tuple, values: tuple, gp: bool) -> tuple:
    """Every tower of type ``t`` reachable by building all ``values`` (sorted) onto ``tower`` in
    some order, placed by the engine's rules (:func:`~five_towers_env.games.five_towers.lookahead.placements`:
    at either end of the sand tower with the Great Powers, one end per round)."""
    out: set = set()

    def rec(towers: tuple, rest: tuple, end: int) -> None:
        if not rest:
            out.add(towers[t])
            return
        for v, more in each_distinct(rest):
            for new_towers, new_end, _ in placements(towers, t * NUM_VALUES + v, end, gp):
                rec(new_towers, more, new_end)

    rec(tuple(tower if i == t else () for i in range(NUM_TYPES)), values, END_NONE)
    return tuple(sorted(out))


def unseen_counts(view: GameState) -> list[int]:
    """Counts (by card id) of the cards that may still be revealed, as far as the public view tells."""
    counts = [0] * NUM_CARD_IDS
    cards = list(view.deck)
    if not view.deck_ran_out:
        cards += list(view.discard) + list(view.display) + list(view.hand)
    for c in cards:
        counts[c] += 1
    return counts


class _Context:
    """The evaluation for one set of unseen cards, with its caches (one per round)."""

    def __init__(self, counts: list[int], num_players: int, gp: bool, params: dict[str, float]) -> None:
        self.gp = gp
        self.num_players = num_players
        self.counts = counts
        p = params
        self.chain_w = p["chain_weight"]
        self.zero_w = p["zero_weight"]
        self.pair_w = p["pair_weight"]
        self.relief = p["recover_relief"]
        self.opp_w = p["opponent_weight"]
        self.zero = [counts[t * NUM_VALUES] > 0 for t in range(NUM_TYPES)]
        self.chain = [self._chain_table(t) for t in range(NUM_TYPES)]
        self.under = [self._under_table(t) for t in range(NUM_TYPES)]
        self.tower_cache: dict = {}
        self.eval_cache: dict = {}
        self.search_memo: dict = {}
        self.bid_cache: dict = {}

    # -- potential tables ---------------------------------------------------------------

    def _present(self, t: int) -> set:
        return {v for v in range(1, NUM_VALUES) if self.counts[t * NUM_VALUES + v] > 0}

    def _chain_table(self, t: int) -> list[int]:
        s = self._present(t)
        total = len(s)
        table = []
        for top in range(EMPTY + 1):
            if top == 0:
                table.append(0)
                continue
            if top in (8, EMPTY):
                table.append(total)
                continue
            reach, extra = top, 0
            if top < 9 and 9 in s:
                reach, extra = 9, 1
            if 8 in s and 8 < reach:
                table.append(total)
                continue
            table.append(sum(1 for v in s if v < reach) + extra)
        return table

    def _under_table(self, t: int) -> list[int]:
        # Great Powers sand: how many distinct unseen cards could go under a bottom card b
        s = self._present(t)
        total = len(s)
        table = []
        for b in range(NUM_VALUES):
            if b == 9 or 8 in s:
                table.append(total)
            else:
                table.append(sum(1 for v in s if v > b))
        return table

    # -- evaluation ---------------------------------------------------------------------

    def tower_value(self, t: int, tw: tuple) -> float:
        """Points of one tower now plus its future potential (no main-tower bonus, no pairs)."""
        key = (t, tw)
        v = self.tower_cache.get(key)
        if v is not None:
            return v
        n = len(tw)
        if n and tw[-1] == 0:
            v = 2.0 * n
        else:
            top = tw[-1] if n else EMPTY
            chain = self.chain[t][top]
            if self.gp and t == SAND and n:
                chain = min(chain + self.under[t][tw[0]], self.chain[t][EMPTY])
            v = n + self.chain_w * chain
            if self.zero[t]:
                v += self.zero_w * (n + 1)
        self.tower_cache[key] = v
        return v

    def pair_value(self, candy: tuple, scary: tuple) -> float:
        """Great Powers: 3 VP per pair made plus a little for each pair that may still come."""
        if not candy and not scary:
            return 0.0
        pairs = 0
        open_pairs = 0
        for v in set(candy) | set(scary):
            c, s = candy.count(v), scary.count(v)
            pairs += min(c, s)
            if c > s and self.counts[SCARY * NUM_VALUES + v] and not (scary and scary[-1] == 0):
                open_pairs += 1
            elif s > c and self.counts[CANDY * NUM_VALUES + v] and not (candy and candy[-1] == 0):
                open_pairs += 1
        return 3.0 * pairs + self.pair_w * open_pairs

    def pile_cost(self, towers: tuple, m: int) -> float:
        cost = float(_tri(m))
        if self.gp and m:
            scrap = towers[SCRAP]
            if not (scrap and scrap[-1] == 0) and self.chain[SCRAP][scrap[-1] if scrap else EMPTY]:
                cost *= 1.0 - self.relief
        return cost

    def evaluate(self, towers: tuple, pile: tuple) -> float:
        """Score now plus the future potential of every tower, minus the teardown penalty."""
        key = (towers, len(pile))
        v = self.eval_cache.get(key)
        if v is not None:
            return v
        v = 0.0
        main = 0
        for t in range(NUM_TYPES):
            tw = towers[t]
            v += self.tower_value(t, tw)
            if len(tw) > main:
                main = len(tw)
        v += main - self.pile_cost(towers, len(pile))
        if self.gp:
            v += self.pair_value(towers[CANDY], towers[SCARY])
        self.eval_cache[key] = v
        return v

    # -- the builder's search -----------------------------------------------------------

    def children(self, st: Round) -> list[tuple[int, Round]]:
        """(action id, next round) for every move the rules allow the builder from ``st``
        (:func:`builder.moves`), the finished take forgotten so that equal plans meet in the memo."""
        out = []
        for a, child in builder_moves(st, self.gp):
            if child.phase != _TAKE and (child.display or child.took_tree):
                child = child._replace(display=(), took_tree=False)
            out.append((a, child))
        return out

    def plan_value(self, st: Round) -> float:
        """Best evaluation over every complete way to finish the builder's round from ``st``."""
        memo = self.search_memo
        v = memo.get(st)
        if v is not None:
            return v
        if st.phase == ROUND_DONE:
            v = self.evaluate(st.towers, st.pile)
        else:
            v = NEG
            for _, child in self.children(st):
                cv = self.plan_value(child)
                if cv > v:
                    v = cv
        memo[st] = v
        return v

    # -- bid values ---------------------------------------------------------------------

    def _type_options(self, t: int, tw: tuple, values: tuple) -> list[tuple[int, int, float, int, tuple]]:
        """(cards taken, torn, value, height, cards in the tower) for every sub-multiset of
        ``values`` built on ``tw``, with and without tearing down its top first."""
        out = []
        for sub in sub_multisets(values):
            for torn in ((0, 1) if tearable(tw) else (0,)):
                base = tw[:-1] if torn else tw
                finals = tower_finals(t, base, sub, self.gp)
                if not finals:
                    continue
                best = max(self.tower_value(t, f) for f in finals)
                out.append((len(sub), torn, best, len(base) + len(sub), base + sub))
        return out

    def bid_values(self, towers: tuple, pile: tuple, display: tuple) -> dict[int, float]:
        """Best evaluation reachable with each bid count (no recover), by a per-type programme."""
        key = (towers, pile, display)
        res = self.bid_cache.get(key)
        if res is not None:
            return res
        vals = split_by_type(display)
        groups: list[list[tuple[int, int, float, int]]] = []
        gp = self.gp
        for t in range(NUM_TYPES):
            if gp and t in (CANDY, SCARY):
                continue
            opts = [(k, torn, v, h) for k, torn, v, h, _ in self._type_options(t, towers[t], vals[t])]
            if gp and t == TREE:
                tw = towers[t]
                for p in range(1, payable(towers, True) + 1):
                    base = tw[:len(tw) - p]
                    opts.append((p, 0, self.tower_value(t, base), len(base)))
                    if tearable(base):
                        opts.append((p, 1, self.tower_value(t, base[:-1]), len(base) - 1))
            groups.append(opts)
        if gp:
            co = self._type_options(CANDY, towers[CANDY], vals[CANDY])
            so = self._type_options(SCARY, towers[SCARY], vals[SCARY])
            joint = []
            for k1, t1, v1, h1, c1 in co:
                for k2, t2, v2, h2, c2 in so:
                    if t1 + t2 > 1:
                        continue
                    joint.append((k1 + k2, t1 + t2, v1 + v2 + self.pair_value(c1, c2), max(h1, h2)))
            groups.append(joint)
        states = {(0, 0, 0): 0.0}
        for opts in groups:
            # keep only the best option per (count, torn, height)
            best: dict = {}
            for k, torn, v, h in opts:
                kk = (k, torn, h)
                if v > best.get(kk, NEG):
                    best[kk] = v
            new: dict = {}
            for (k0, t0, h0), v0 in states.items():
                for (k, torn, h), v in best.items():
                    if t0 + torn > 1:
                        continue
                    kk = (k0 + k, t0 + torn, max(h0, h))
                    nv = v0 + v
                    if nv > new.get(kk, NEG):
                        new[kk] = nv
            states = new
        res = {}
        m = len(pile)
        for (k, torn, h), v in states.items():
            total = v + h - self.pile_cost(towers, m + torn)
            if total > res.get(k, NEG):
                res[k] = total
        self.bid_cache[key] = res
        return res


class HeuristicAgent(AgentBase):
    """Evaluation-driven rule-based player (see the module docstring).

    Settings: the weights of :data:`DEFAULT_PARAMS`, each within its ``SETTING_RANGES``
    (:mod:`five_towers_env.core.setting_ranges`; the agent registry checks them)."""

    SETTING_RANGES = {"chain_weight": WEIGHT, "zero_weight": WEIGHT, "pair_weight": WEIGHT,
                      "recover_relief": PROBABILITY,  # a share of the teardown penalty
                      "opponent_weight": WEIGHT}

    def __init__(self, seed: int | None = None, name: str = "heuristic", **params: float) -> None:
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown HeuristicAgent parameters: {', '.join(sorted(unknown))}")
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.params = {**DEFAULT_PARAMS, **params}
        self.native = True
        self._ctx_key: tuple[tuple[int, ...], int, bool] | None = None
        self._ctx: _Context | None = None

    # -- helpers ------------------------------------------------------------------------

    def _context(self, view: GameState) -> _Context:
        counts = unseen_counts(view)
        key = (tuple(counts), view.num_players, view.gp)
        if key != self._ctx_key:
            self._ctx_key = key
            self._ctx = _Context(counts, view.num_players, view.gp, self.params)
        assert self._ctx is not None  # set together with self._ctx_key
        return self._ctx

    @staticmethod
    def _root(view: GameState, seat: int) -> Round:
        ph = int(view.phase)
        need = view.target - view.taken if ph == _TAKE else 0
        display = view.display if ph == _TAKE else ()
        took = bool(view.took_tree) if ph == _TAKE else False
        end = view.sand_end if ph in (_BUILD, _RECOVER) else END_NONE
        return Round(ph, view.towers[seat], view.piles[seat], view.hand, display, need, took, end)

    # -- decisions ----------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """Choose a legal action id: the first, in :meth:`scored_actions`' order, whose value beats every
        earlier one by more than 1e-9 (``legal[0]`` where the search reaches none of them)."""
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        view: GameState = info["view"]
        seat = int(info["seat"])
        if self.native and (action := native.heuristic_action(view, seat, legal, self.params)) is not None:
            return action
        best_a, best_v = int(legal[0]), NEG
        for i, (a, v) in enumerate(self.scored_actions(view, seat, legal)):
            if i == 0 or v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a

    @classmethod
    def act_group(cls, agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """Every agent's :meth:`act` for its game in one compiled call per set of parameters where the native
        core is active (:func:`.native.heuristic_group`: the same moves), else one game at a time."""
        chosen = native.heuristic_group(agents, games, rows)
        return chosen if chosen is not None else super().act_group(agents, games, rows)

    def scored_actions(self, view: GameState, seat: int, legal: list[int]) -> list[tuple[int, float]]:
        """(action, value) in the order the agent weighs them: the bids (pass first, then from the lowest)
        with their utilities, or the builder's legal first moves with the best plan after each (a legal
        move the search does not reach is left out)."""
        ctx = self._context(view)
        if view.phase == Phase.BID:
            return self._bid(view, seat, legal, ctx)
        return self._plan_move(view, seat, legal, ctx)

    def _plan_move(self, view: GameState, seat: int, legal: list[int], ctx: _Context) -> list[tuple[int, float]]:
        legal_set = set(legal)
        return [(int(a), ctx.plan_value(child)) for a, child in ctx.children(self._root(view, seat)) if a in legal_set]

    def _bid(self, view: GameState, seat: int, legal: list[int], ctx: _Context) -> list[tuple[int, float]]:
        n = view.num_players
        display = view.display
        gains: dict[int, dict[int, float]] = {}
        masks: dict[int, list[int]] = {}

        def gain(q: int, b: int) -> float:
            if q not in gains:
                values = ctx.bid_values(view.towers[q], view.piles[q], display)
                now = ctx.evaluate(view.towers[q], view.piles[q])
                gains[q] = {k: v - now for k, v in values.items()}
            g = gains[q].get(b)
            return g if g is not None else -10.0 - b  # a bid only recoveries make possible

        def bids_of(q: int) -> list[int]:
            if q not in masks:
                mask, out, k = view.bid_mask(q), [], 0
                while mask:
                    if mask & 1:
                        out.append(k)
                    mask >>= 1
                    k += 1
                masks[q] = out
            return masks[q]

        def utility(q: int, outcome: tuple[int, int]) -> float:
            x, b = outcome
            if x < 0 or b <= 0:
                return 0.0
            if x == q:
                return gain(q, b)
            return -ctx.opp_w * gain(x, b) / (n - 1)

        order = [(view.start_player + i) % n for i in range(view.bid_turn + 1, n)]
        memo: dict = {}

        def solve(i: int, high: int, builder: int) -> tuple[int, int]:
            if i == len(order):
                return (builder, high)
            key = (i, high, builder)
            if key in memo:
                return memo[key]
            q = order[i]
            best = solve(i + 1, high, builder)
            bu = utility(q, best)
            for b in bids_of(q):
                if b > high:
                    o = solve(i + 1, b, q)
                    u = utility(q, o)
                    if u > bu + 1e-9:
                        best, bu = o, u
            memo[key] = best
            return best

        high = view.high_bid
        options = sorted(legal, key=lambda a: -1 if a == A.PASS else a)  # pass first, then low bids
        return [(int(a), utility(seat, solve(0, high, view.builder) if a == A.PASS else solve(0, a - A.BID, seat)))
                for a in options]


__all__ = ["HeuristicAgent", "DEFAULT_PARAMS", "tower_finals", "unseen_counts"]
