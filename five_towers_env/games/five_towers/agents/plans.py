"""The 5 Towers default policy's knowledge: tower potential, building plans and bid values.

Pure functions of towers and cards (no engine state but :func:`game_left`), shared by the rollout
policy (:mod:`.rollout`) and memoised where the candidates of one search meet the same positions.
A plan builds only by the base placement rules (Great Powers: sand at both ends, tree payments),
so every move it makes is legal.
"""
from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING, cast

from five_towers_env.games.five_towers.cards import CANDY, NUM_TYPES, NUM_VALUES, SAND, SCARY, TREE, can_place
from five_towers_env.games.five_towers.lookahead import each_distinct
from five_towers_env.games.five_towers.scoring import pair_bonus, pair_gain
from five_towers_env.games.five_towers.state import GameState

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

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


@cache
def chain(top: int, values: tuple) -> tuple | None:
    """Best order to build ``values`` (sorted) onto a tower with top ``top`` (``NONE``: no tower)
    by the base rules, ending on the top with the most potential; ``None`` if impossible."""
    return _best_order(values, lambda v: _placeable(top, v), chain, POT)


def _best_order(values: tuple, fits: Callable[[int], bool], extend: Callable[[int, tuple], tuple | None],
                pot: tuple[float, ...]) -> tuple | None:
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


assert (CANDY, SCARY) == (0, 1)  # _pairs: the two towers as pair_bonus reads them, indexed by type


def _pairs(candy: list, scary: list) -> int:
    """The engine's pair bonus of a candy and a scary tower holding these values."""
    return pair_bonus((candy, scary))


# make_plan: a gain not computed yet (None means "cannot be built"); typed as a gain so that the memo's
# ``get`` with it as the default keeps the gains' type: it is only ever compared by identity
_UNKNOWN = cast(float, object())
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


def choose_bid(cum: Sequence[float], low: int, first: bool, allowed: int | None = None) -> int:
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


def pay_value(towers: tuple, m: int, beta: float) -> float:
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
            pay = pay_value(towers, m, beta)
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



__all__ = ["NONE", "POT", "NEG_INF", "game_left", "chain", "chain_under", "tower_room", "sand_build", "build_tower",
           "make_plan", "choose_bid", "pay_value", "bid_options", "bid_how"]
