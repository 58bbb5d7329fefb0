"""Information-set Monte Carlo tree search for 5 Towers (``"mcts"``).

Algorithm
---------
Single-observer information-set MCTS (SO-ISMCTS, Cowling, Powley & Whitehouse 2012) over the
agent's public view. In 5 Towers the only hidden information is the *order* of the draw deck,
and it is hidden from every player alike (SPEC §6): two players' information sets are always
the same public state. So SO-ISMCTS needs no availability counts here -- every action legal in
a node is legal in every determinisation of it -- and the search is UCT over public states with
*chance nodes*:

* Each simulation **determinises** the view: the multiset of unseen cards (``view.deck``, sorted
  in the view) is shuffled into a random order with the agent's own seeded generator, and the
  determinised clone gets the agent's generator as its ``rng`` for the reshuffle when the deck
  first runs out (the view's own generator is unrelated to the game's and never used).
* **Selection** descends with UCB1; every node maximises the reward of the player to move there
  (a per-player reward vector is backed up, so 2..5 players work alike). Decisions with a single
  legal action are applied on the fly and get no node.
* An action that ends a round reveals the next display, a chance event that depends on the
  determinised deck: the child is a **chance node** whose children are keyed by what is revealed
  (the new display, or the end of the game). Early in the game displays rarely repeat, so the tree
  mostly covers the current round; in the last rounds (few unseen cards) it reaches across them.
* **Expansion** adds one node per simulation; the **rollout** then plays the fast rule-based
  default policy (:func:`rollout_action`: value-based bids and takes, no voluntary teardown,
  highest card first when building) for ``rollout_rounds`` more rounds (``None``: to the end
  of the game) and scores the result: exact at game end, else a static evaluation (score plus the
  remaining building potential of the towers). Truncated rollouts gave more strength per second
  than full ones (the game lasts ~25-35 rounds; a full rollout is both slow and noisy).
* **Reward** of a finished game: 1 for the sole winner, 0.5 for a shared victory, 0 for a loss,
  mixed with a small score-margin term; a truncated rollout's reward is the soft-max "win
  probability" of the evaluated scores, mixed the same way. All rewards lie in [0, 1].
* The move played is the most visited root child.

Budget: ``simulations`` per decision (default 200), or ``time_limit`` seconds (then as many as fit,
at least ``min_simulations``; timing makes play non-deterministic). A decision with a single
legal action is answered at once. The subtree of the position reached is kept between the
agent's consecutive decisions of a round (``reuse_tree``). Same seed, same settings, same
observations: same moves (without ``time_limit``).
"""
from __future__ import annotations

import math
import time
from functools import lru_cache
from typing import Any

import numpy as np

from ..engine import actions as A
from ..engine.cards import CANDY, NUM_TYPES, NUM_VALUES, SCARY
from ..engine.state import GameState, Phase
from ..engine.scoring import score_player

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
    if top == NONE:
        return True
    if top == 0:
        return False
    return top == 8 or v == 9 or v < top


@lru_cache(maxsize=None)
def chain(top: int, values: tuple) -> tuple | None:
    """Best order to build ``values`` (sorted) onto a tower with top ``top`` (``NONE``: no tower)
    by the base rules, ending on the top with the most potential; ``None`` if impossible."""
    if not values:
        return ()
    best = None
    best_pot = -1.0
    prev = None
    for i, v in enumerate(values):
        if v == prev or not _placeable(top, v):
            continue
        prev = v
        rest = chain(v, values[:i] + values[i + 1:])
        if rest is None:
            continue
        final = rest[-1] if rest else v
        if POT[final] > best_pot:
            best, best_pot = (v,) + rest, POT[final]
    return best


def _type_gain(tower: tuple, values: tuple, beta: float) -> float | None:
    """Score change plus ``beta`` x potential change of building ``values`` on one tower."""
    top = tower[-1] if tower else NONE
    order = chain(top, values)
    if order is None:
        return None
    final = order[-1]
    n_old = len(tower)
    n_new = n_old + len(values)
    return (2 * n_new if final == 0 else n_new) - n_old + beta * (POT[final] - POT[top])


def _pairs(candy: list, scary: list) -> int:
    if not candy or not scary:
        return 0
    return 3 * sum(min(candy.count(v), scary.count(v)) for v in set(scary))


def make_plan(towers: tuple, cards: tuple, beta: float, gp: bool, chosen: tuple = ()) -> tuple[list, list]:
    """Greedy building plan: add, one at a time, the card of ``cards`` with the best marginal value
    that keeps everything buildable (base placement rules, no teardown), starting from the cards
    ``chosen`` already. Returns (cards in the order chosen, cumulative value after each)."""
    sel: list[list] = [[] for _ in range(NUM_TYPES)]
    for c in chosen:
        sel[c // NUM_VALUES].append(c % NUM_VALUES)
    lengths = [len(tw) + len(sel[t]) for t, tw in enumerate(towers)]
    gains = []
    for t in range(NUM_TYPES):
        if sel[t]:
            g = _type_gain(towers[t], tuple(sorted(sel[t])), beta)
            gains.append(g if g is not None else 0.0)
        else:
            gains.append(0.0)
    base_main = max(len(tw) for tw in towers)
    pair_now = _pairs(list(towers[CANDY]) + sel[CANDY], list(towers[SCARY]) + sel[SCARY]) if gp else 0
    value = sum(gains) + max(lengths) - base_main + pair_now
    remaining = list(cards)
    plan: list[int] = []
    cum = [value]
    while remaining:
        best_i, best_v, best_g = -1, -1e18, 0.0
        prev = None
        for i, c in enumerate(remaining):
            if c == prev:
                continue
            prev = c
            t, v = divmod(c, NUM_VALUES)
            g = _type_gain(towers[t], tuple(sorted(sel[t] + [v])), beta)
            if g is None:
                continue
            main = max(lengths)
            if lengths[t] + 1 > main:
                main = lengths[t] + 1
            total = value - gains[t] + g + (main - max(lengths))
            if gp and (t == CANDY or t == SCARY):
                sel[t].append(v)
                total += _pairs(list(towers[CANDY]) + sel[CANDY], list(towers[SCARY]) + sel[SCARY]) - pair_now
                sel[t].pop()
            if total > best_v:
                best_i, best_v, best_g = i, total, g
        if best_i < 0:
            break
        c = remaining.pop(best_i)
        t, v = divmod(c, NUM_VALUES)
        sel[t].append(v)
        gains[t] = best_g
        lengths[t] += 1
        if gp and (t == CANDY or t == SCARY):
            pair_now = _pairs(list(towers[CANDY]) + sel[CANDY], list(towers[SCARY]) + sel[SCARY])
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
        if cum[k] > best_v:
            best_k, best_v = k, cum[k]
    if best_k < 0:
        return -1
    if not first and best_v <= 0.0:
        return -1
    return best_k


def evaluate(state: GameState, weight: float = 1.0) -> list[float]:
    """Static value of each seat: the score now plus the expected further score of its towers."""
    return _evaluate(state.towers, state.piles, state.gp, weight * game_left(state))


def _evaluate(towers: list, piles: list, gp: bool, left: float) -> list[float]:
    # Expected further score (greedy self-play, least squares over ~100k positions of 2- and
    # 4-player games of both variants): per unit of game left, 0.65 (less later) per unit of
    # tower potential, ~7 per missing tower, ~8 per open tower, minus a little per main tower
    # card and per torn-down card; with more players each seat gets fewer cards.
    n = len(towers)
    scale = left * (2.0 / n) ** 0.6
    w_pot = 0.65 - 0.18 * left
    out = []
    for p in range(n):
        pot = 0.0
        empty = opened = main = 0
        for tw in towers[p]:
            if not tw:
                empty += 1
                pot += POT[NONE]
                continue
            top = tw[-1]
            if top:
                opened += 1
                pot += POT[top]
            if len(tw) > main:
                main = len(tw)
        future = w_pot * pot + 7.2 * empty + 7.9 * opened - 0.5 * main - 0.6 * len(piles[p])
        out.append(score_player(towers[p], piles[p], gp) + scale * future)
    return out


# ---------------------------------------------------------------------------
# Default (rollout) policy on the engine, and the fast round-level rollout
# ---------------------------------------------------------------------------

def rollout_action(state: GameState, rng: Any = None, beta: float = 0.45) -> int:
    """The rule-based default policy on an engine state (deterministic; ``rng`` unused).

    Bid: the number of cards of the best greedy building plan on the display (pass if it is not
    worth it or not higher than the highest bid). Take: the card with the best marginal value.
    Teardown: only when forced. Build: each type's cards in the order that ends on the best top.
    Recover (Great Powers): always when possible."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    phase = state.phase
    if phase == Phase.BID:
        p = state.current_player
        b = beta * game_left(state)
        plan, cum = make_plan(state.towers[p], state.display, b, state.gp)
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
        plan, _ = make_plan(towers, tuple(takes), b, state.gp, chosen=state.hand)
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
                tw = towers[t]
                order = chain(tw[-1] if tw else NONE, tuple(groups[t]))
                if order:
                    a = A.BUILD + t * NUM_VALUES + order[0]
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


def fast_rollout(state: GameState, rng: np.random.Generator, beta: float,
                 rounds: int | None) -> tuple[list, list, bool, float]:
    """Play whole rounds from a round start with the default policy, on plain tuples (no engine
    legality checks: bids and builds follow base placement rules, so they are always legal; the
    Great Powers powers are not used). Returns (towers, piles, game over, game left)."""
    n = state.num_players
    gp = state.gp
    towers = list(state.towers)
    piles = state.piles
    deck = list(state.deck)
    discard = list(state.discard)
    ran_out = state.deck_ran_out
    start = state.start_player
    display = state.display
    played = 0
    while True:
        if rounds is not None and played >= rounds:
            return towers, piles, False, _game_left(len(deck), ran_out, n)
        b = beta * _game_left(len(deck), ran_out, n)
        high, builder, plan_b = -1, -1, None
        for i in range(n):
            p = (start + i) % n
            plan, cum = make_plan(towers[p], display, b, gp)
            k = choose_bid(cum, high + 1, i == 0)
            if k >= 0:
                high, builder, plan_b = k, p, plan
        if high <= 0:
            discard.extend(display)
        else:
            take = plan_b[:high]
            left = list(display)
            for c in take:
                left.remove(c)
            discard.extend(left)
            tw = list(towers[builder])
            groups: list[list] = [[] for _ in range(NUM_TYPES)]
            for c in take:
                groups[c // NUM_VALUES].append(c % NUM_VALUES)
            for t in range(NUM_TYPES):
                if groups[t]:
                    top = tw[t][-1] if tw[t] else NONE
                    tw[t] = tw[t] + chain(top, tuple(sorted(groups[t])))
            towers[builder] = tuple(tw)
            start = (builder + 1) % n
        played += 1
        if not deck:
            if ran_out:
                return towers, piles, True, 0.0
            ran_out = True
            deck = [discard[i] for i in rng.permutation(len(discard))] if discard else []
            discard = []
            if not deck:
                return towers, piles, True, 0.0
        k = min(5, len(deck))
        display = tuple(sorted(deck.pop() for _ in range(k)))


# ---------------------------------------------------------------------------
# The search tree
# ---------------------------------------------------------------------------

class _Node:
    __slots__ = ("player", "actions", "untried", "children", "n", "w", "chance")

    def __init__(self, state: GameState | None, rng: np.random.Generator | None, chance: bool = False) -> None:
        self.chance = chance
        self.children: dict = {}
        self.n = 0
        self.w = 0.0  # total reward of the player who moved into this node
        if chance or state is None:
            self.player = -1
            self.actions = ()
            self.untried = []
        else:
            self.player = state.current_player
            self.actions = tuple(state.legal_actions())
            untried = list(self.actions)
            if rng is not None and len(untried) > 1:
                order = rng.permutation(len(untried))
                untried = [untried[i] for i in order]
            self.untried = untried


def _chance_key(state: GameState) -> tuple:
    if state.is_terminal():
        return ("end",)
    return (state.display, state.deck_ran_out, len(state.deck))


def _public_key(state: GameState) -> tuple:
    """Everything public that tells apart two decision points within a round."""
    return (state.rounds_played, state.phase, state.current_player, state.display, state.hand,
            tuple(state.bids), state.high_bid, state.taken, state.paid, state.torn, state.sand_end,
            tuple(state.towers), tuple(state.piles), state.deck_ran_out, len(state.deck))


class MCTSAgent:
    """SO-ISMCTS (UCT with sampled chance outcomes over determinisations of the deck order).

    Args:
        seed: seed of the agent's generator (determinisations, tie breaks).
        simulations: simulations per decision (ignored when ``time_limit`` is set).
        time_limit: seconds per decision; ``None`` to count simulations instead.
        c: UCB1 exploration constant (rewards lie in [0, 1]).
        rollout_rounds: rounds the default policy plays past the leaf before the static
            evaluation (``None``: to the end of the game).
        beta: weight of tower potential in the default policy's card values.
        eval_weight: scale of the expected further score in the static evaluation.
        temperature: VP scale of the soft-max that turns evaluations into win probabilities
            at the end of the game (it grows with the game left).
        margin_weight: share of the reward given by the score margin rather than win/loss.
        reuse_tree: keep the subtree between consecutive decisions.
        min_simulations: at least this many simulations under ``time_limit``.
    """

    def __init__(self, seed: int | None = None, simulations: int = 200, time_limit: float | None = None,
                 c: float = 0.7, rollout_rounds: int | None = 4, beta: float = 0.45,
                 eval_weight: float = 1.0, temperature: float = 3.0, margin_weight: float = 0.2,
                 reuse_tree: bool = True, min_simulations: int = 8, name: str = "mcts") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.simulations = int(simulations)
        self.time_limit = time_limit
        self.c = float(c)
        self.rollout_rounds = rollout_rounds
        self.beta = float(beta)
        self.eval_weight = float(eval_weight)
        self.temperature = float(temperature)
        self.margin_weight = float(margin_weight)
        self.reuse_tree = bool(reuse_tree)
        self.min_simulations = int(min_simulations)
        self._root: _Node | None = None
        self._root_key: tuple | None = None
        self.last_simulations = 0  # simulations run for the last decision (for tools and tests)

    # -- interface --------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search from ``info["view"]`` and return the chosen legal action id."""
        legal = list(info.get("legal_actions") or [])
        view: GameState = info["view"]
        if not legal:
            legal = list(view.legal_actions())
        if len(legal) == 1:
            self.last_simulations = 0
            return int(legal[0])
        return int(self.search(view, legal))

    def search(self, view: GameState, legal: list[int] | None = None) -> int:
        """Run the search from a public view (its deck order is ignored) and return an action."""
        root = self._find_root(view)
        if root is None:
            root = _Node(view, self.rng)
        start = time.perf_counter()
        unseen = sorted(view.deck)
        sims = 0
        while True:
            if self.time_limit is not None:
                if sims >= self.min_simulations and time.perf_counter() - start >= self.time_limit:
                    break
            elif sims >= self.simulations:
                break
            self._simulate(root, view, unseen)
            sims += 1
        self.last_simulations = sims
        best = max(root.children.items(), key=lambda kv: (kv[1].n, kv[1].w))[0]
        if legal is not None and best not in legal:  # pragma: no cover - defensive
            best = legal[0]
        self._keep(root, view, best)
        return best

    # -- tree reuse ---------------------------------------------------------------------

    def _find_root(self, view: GameState) -> _Node | None:
        if not self.reuse_tree or self._root is None:
            return None
        key = _public_key(view)
        found = self._root_key.get(key) if self._root_key else None
        self._root = None
        self._root_key = None
        return found

    def _keep(self, root: _Node, view: GameState, action: int) -> None:
        """Remember the decision nodes reachable within this round after ``action`` by their public keys."""
        if not self.reuse_tree:
            return
        child = root.children.get(action)
        if child is None or child.chance:
            self._root = None
            self._root_key = None
            return
        # Replay deterministic in-round paths from the view to index descendants by public key.
        index: dict = {}
        state = view.clone(rng=np.random.default_rng(0))
        state.apply_action(action)
        self._forced(state, None)
        stack = [(child, state)]
        budget = 64
        while stack and budget:
            node, st = stack.pop()
            if node.chance or st.is_terminal():
                continue
            budget -= 1
            if node.n >= 1:
                index[_public_key(st)] = node
            for a, ch in node.children.items():
                if ch.chance or ch.n < 2:
                    continue
                nxt = st.clone(rng=np.random.default_rng(0))
                nxt.apply_action(a)
                self._forced(nxt, None)
                stack.append((ch, nxt))
        self._root = root
        self._root_key = index

    # -- one simulation -----------------------------------------------------------------

    @staticmethod
    def _forced(state: GameState, _unused: Any) -> None:
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) != 1:
                return
            state.apply_action(legal[0])

    def _simulate(self, root: _Node, view: GameState, unseen: list[int]) -> None:
        rng = self.rng
        state = view.clone(rng=rng)
        if unseen:
            perm = rng.permutation(len(unseen))
            state.deck = [unseen[i] for i in perm]
        path = [root]
        node = root
        c = self.c
        while True:
            if state.is_terminal():
                break
            if node.untried:
                a = node.untried.pop()
                rounds = state.rounds_played
                state.apply_action(a)
                self._forced(state, None)
                if state.rounds_played != rounds or state.is_terminal():
                    chance = node.children.get(a)
                    if chance is None:
                        chance = node.children[a] = _Node(None, None, chance=True)
                    path.append(chance)
                    child = _Node(state, rng)
                    chance.children[_chance_key(state)] = child
                else:
                    child = node.children[a] = _Node(state, rng)
                path.append(child)
                break
            # UCB1 selection
            log_n = _LOG(node.n) if node.n > 0 else 0.0
            best_a, best_u = None, -1e18
            for a, ch in node.children.items():
                u = ch.w / ch.n + c * _SQRT(log_n / ch.n)
                if u > best_u:
                    best_a, best_u = a, u
            child = node.children[best_a]
            state.apply_action(best_a)
            self._forced(state, None)
            if child.chance:
                path.append(child)
                key = _chance_key(state)
                nxt = child.children.get(key)
                if nxt is None:
                    nxt = child.children[key] = _Node(state, rng)
                    path.append(nxt)
                    break
                child = nxt
            path.append(child)
            node = child
        rewards = self._rollout(state)
        # back up: each node's w is the reward of the player who chose the move into it
        mover = -1
        for nd in path:
            nd.n += 1
            if mover >= 0:
                nd.w += rewards[mover]
            if not nd.chance:
                mover = nd.player
            # a chance node is credited to the mover above it; the decision node after it
            # (never chosen by UCB) likewise, and then names the next mover itself

    def _rollout(self, state: GameState) -> list[float]:
        beta = self.beta
        rounds = state.rounds_played
        # finish the round on the engine (exact rules), then whole rounds on plain tuples
        while not state.is_terminal() and state.rounds_played == rounds and not (
                state.phase == Phase.BID and state.bid_turn == 0):
            state.apply_action(rollout_action(state, None, beta))
        if state.is_terminal():
            return self._reward(state.towers, state.piles, state.gp, True, 0.0)
        more = None
        if self.rollout_rounds is not None:
            more = max(0, self.rollout_rounds - (state.rounds_played - rounds))
        towers, piles, over, left = fast_rollout(state, self.rng, beta, more)
        return self._reward(towers, piles, state.gp, over, left)

    def _reward(self, towers: list, piles: list, gp: bool, over: bool, left: float) -> list[float]:
        n = len(towers)
        mw = self.margin_weight
        if over:
            values = [float(score_player(towers[p], piles[p], gp)) for p in range(n)]
            best = max(values)
            winners = [p for p in range(n) if values[p] == best]
            win = [0.0] * n
            share = 1.0 if len(winners) == 1 else 0.5
            for p in winners:
                win[p] = share
        else:
            values = _evaluate(towers, piles, gp, self.eval_weight * left)
            m = max(values)
            temp = self.temperature * (1.0 + 1.3 * left)
            ex = [math.exp((v - m) / temp) for v in values]
            tot = sum(ex)
            win = [e / tot for e in ex]
        if mw <= 0.0:
            return win
        out = []
        for p in range(n):
            other = max(values[q] for q in range(n) if q != p)
            margin = 1.0 / (1.0 + math.exp(-(values[p] - other) / 10.0))
            out.append((1.0 - mw) * win[p] + mw * margin)
        return out


__all__ = ["MCTSAgent", "rollout_action", "fast_rollout", "make_plan", "choose_bid", "chain", "evaluate",
           "game_left", "POT"]
