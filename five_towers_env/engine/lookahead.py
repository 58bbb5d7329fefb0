"""Look-ahead: can the builder still build every card they must (SPEC §3 "masks look ahead").

Every legality question of the take, teardown, build and recover phases, and every bid, is
"does some sequence of the builder's remaining decisions build all cards in hand". This
module answers it on small hashable snapshots, memoised:

* ``towers``: tuple of 5 tuples of values, bottom to top;
* ``hand`` / ``pile`` / ``display``: sorted tuples of card ids (multisets);
* ``sand_end``: which end of an existing sand tower this round's additions use.

Base game: card types never interact except through the single teardown, so feasibility
splits into independent per-type chain problems (fast, tiny caches). Great Powers: the scrap
power moves teardown cards into any tower and the sand power adds at the bottom, so a memoised
depth-first search over the remaining decisions decides it. ``tests/test_lookahead.py`` checks
that the general search, with the powers switched off, agrees with the per-type shortcut.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Iterator

from .cards import NUM_TYPES, NUM_VALUES, SAND, SCRAP, TREE, can_place

NO_TOWER = -1
END_NONE, END_TOP, END_BOTTOM = 0, 1, 2

Towers = tuple  # tuple[tuple[int, ...], ...]


def top_of(tower: tuple) -> int:
    """Top value of a tower, or ``NO_TOWER`` if there is none."""
    return tower[-1] if tower else NO_TOWER


def tearable(tower: tuple) -> bool:
    """A tower's top card may be torn down unless the tower is empty or topped by a 0."""
    return bool(tower) and tower[-1] != 0


def sub_multisets(cards: tuple) -> list[tuple]:
    """Every distinct sub-multiset of a sorted tuple (the empty one included)."""
    return _sub_multisets(cards)


@lru_cache(maxsize=50_000)
def _sub_multisets(cards: tuple) -> list[tuple]:
    seen = {()}
    for k in range(1, len(cards) + 1):
        seen.update(combinations(cards, k))
    return sorted(seen, key=len)


def remove_one(cards: tuple, card: int) -> tuple:
    """A sorted tuple with one copy of ``card`` removed."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1:]


def insert_one(cards: tuple, card: int) -> tuple:
    """A sorted tuple with one more copy of ``card``."""
    return tuple(sorted(cards + (card,)))


def each_distinct(values: tuple) -> Iterator[tuple[int, tuple]]:
    """``(value, the other values)`` for each distinct value of the sorted tuple ``values``, in
    order: how every search here branches on the card to use next (equal cards branch once)."""
    prev = None
    for i, v in enumerate(values):
        if v != prev:
            prev = v
            yield v, values[:i] + values[i + 1:]


@lru_cache(maxsize=200_000)
def split_by_type(cards: tuple) -> tuple:
    """Values of a sorted card tuple, grouped per type (memoised: hands and displays recur)."""
    groups: list[list[int]] = [[] for _ in range(NUM_TYPES)]
    for c in cards:
        groups[c // NUM_VALUES].append(c % NUM_VALUES)
    return tuple(tuple(g) for g in groups)


# ---------------------------------------------------------------------------
# Base game: independent per-type chains
# ---------------------------------------------------------------------------

@lru_cache(maxsize=None)
def fits(top: int, values: tuple) -> bool:
    """Can all ``values`` (sorted) be built, in some order, onto a tower whose top is ``top``."""
    if not values:
        return True
    prev = None
    for i, v in enumerate(values):
        if v == prev:
            continue
        prev = v
        if (top == NO_TOWER or can_place(top, v)) and fits(v, values[:i] + values[i + 1:]):
            return True
    return False


@lru_cache(maxsize=None)
def option_counts(top: int, forced: tuple, optional: tuple) -> int:
    """Bit ``k`` set iff all ``forced`` values plus some ``k`` of ``optional`` fit onto ``top``."""
    mask = 0
    for sub in _sub_multisets(optional):
        if not (mask >> len(sub)) & 1 and fits(top, tuple(sorted(forced + sub))):
            mask |= 1 << len(sub)
    return mask


@lru_cache(maxsize=None)
def _add_counts(a: int, b: int) -> int:
    """Bitmask of sums i + j over bits i of ``a`` and j of ``b``."""
    out = 0
    j = 0
    while b:
        if b & 1:
            out |= a << j
        b >>= 1
        j += 1
    return out


def teardown_tops(towers: Towers, relevant: tuple | None = None) -> list[tuple[int, tuple]]:
    """(torn type or -1, effective tops) for no teardown and for each possible teardown.

    With ``relevant`` (per-type value groups of the cards in play) a teardown of a type with no
    card in play is left out: in the base game it changes nothing that could be built.
    """
    tops = tuple(top_of(tw) for tw in towers)
    options = [(-1, tops)]
    for t, tw in enumerate(towers):
        if tearable(tw) and (relevant is None or relevant[t]):
            options.append((t, tops[:t] + (top_of(tw[:-1]),) + tops[t + 1:]))
    return options


def base_counts(tops: tuple, forced: tuple, optional: tuple) -> int:
    """Bitmask of how many ``optional`` cards can be added to the ``forced`` hand and all built."""
    f = split_by_type(forced)
    o = split_by_type(optional)
    mask = 1
    for t in range(NUM_TYPES):
        m = option_counts(tops[t], f[t], o[t])
        if not m:
            return 0
        mask = _add_counts(mask, m)
    return mask


def _in_play(hand: tuple, display: tuple) -> tuple:
    h, d = split_by_type(hand), split_by_type(display)
    return tuple(a or b for a, b in zip(h, d))


def base_take_rests(towers: Towers, hand: tuple, display: tuple, need: int) -> list[tuple]:
    """Base game, mid-take: every multiset of ``need`` display cards whose taking completes a
    hand that can be built (after some teardown). Taking card ``c`` keeps exactly the rests
    holding ``c``, less ``c``: the engine narrows this list take by take."""
    rests = []
    for final in _base_final_hands(towers, insert_many(hand, display), len(hand) + need):
        rest = _minus(final, hand)
        if rest is not None:
            rests.append(tuple(rest))
    return rests


def _base_final_hands(towers: Towers, pool: tuple, size: int) -> tuple:
    # The hands of ``size`` cards from the pool that can be built after some teardown (asked
    # once per round: the engine narrows the result take by take, see base_take_rests).
    # Hands are pool positions as bitmasks; the pool is sorted, so each type's cards sit at
    # consecutive positions.
    tops, torn = base_tops(towers)
    parts = []  # (first position, count, fits per subset, fits after a teardown per subset or None)
    start = 0
    for t, values in enumerate(split_by_type(pool)):
        if values:
            ok = _subset_fits(tops[t], values)
            parts.append((start, len(values), ok, None if torn[t] is None else _subset_fits(torn[t], values)))
            start += len(values)
    out = {}
    for hand in _masks_of_size(len(pool), size):
        bad = None
        for first, count, ok, ok_torn in parts:
            sub = (hand >> first) & ((1 << count) - 1)
            if not ok[sub]:
                if bad is not None:
                    break
                bad = ok_torn is not None and ok_torn[sub]  # the one misfit type: torn down, does it fit?
        else:
            if bad is None or bad:
                out[tuple(c for i, c in enumerate(pool) if hand >> i & 1)] = None
    return tuple(out)


@lru_cache(maxsize=None)
def _masks_of_size(n: int, k: int) -> tuple:
    """Every ``n``-bit mask with ``k`` bits set."""
    return tuple(m for m in range(1 << n) if m.bit_count() == k)


@lru_cache(maxsize=None)
def _subset_fits(top: int, values: tuple) -> tuple:
    """For each subset of the positions of ``values`` (as a bitmask): do those values fit onto ``top``."""
    return tuple(fits(top, tuple(v for i, v in enumerate(values) if sub >> i & 1)) for sub in range(1 << len(values)))


def _minus(cards: tuple, sub: tuple) -> list | None:
    """The multiset ``cards`` less ``sub``, or None if ``sub`` is not contained in it."""
    rest = list(cards)
    for c in sub:
        if c not in rest:
            return None
        rest.remove(c)
    return rest


def base_hand_ok(tops: tuple, hand: tuple) -> bool:
    """Can a hand be built onto towers with these tops (no teardown left to choose)."""
    for t, values in enumerate(split_by_type(hand)):
        if values and not fits(tops[t], values):
            return False
    return True


@lru_cache(maxsize=50_000)
def base_tops(towers: Towers) -> tuple[tuple, tuple]:
    """(tops, torn): each tower's top value (``NO_TOWER`` if none) and its top after a teardown
    (None where the tower cannot be torn down)."""
    tops = tuple(top_of(tw) for tw in towers)
    torn = tuple(top_of(tw[:-1]) if tearable(tw) else None for tw in towers)
    return tops, torn


def _misfit_types(tops: tuple, groups: tuple) -> list[int]:
    """Types whose values in ``groups`` cannot all be built onto ``tops``."""
    return [t for t in range(NUM_TYPES) if groups[t] and not fits(tops[t], groups[t])]


def _base_ok(tops: tuple, torn: tuple, groups: tuple) -> bool:
    # Some teardown choice lets the hand be built iff at most one type misfits and tearing
    # that type down makes it fit (tearing down a type that fits never helps another type).
    bad = _misfit_types(tops, groups)
    if not bad:
        return True
    return len(bad) == 1 and torn[bad[0]] is not None and fits(torn[bad[0]], groups[bad[0]])


def base_teardowns(towers: Towers, hand: tuple) -> list[int]:
    """Base game teardown decision: -1 (no teardown) and each tearable type after which the
    hand can be built."""
    tops, torn = base_tops(towers)
    groups = split_by_type(hand)
    bad = _misfit_types(tops, groups)
    out = [] if bad else [-1]
    for t in range(NUM_TYPES):
        if torn[t] is None:
            continue
        if groups[t]:
            ok = fits(torn[t], groups[t]) and all(u == t for u in bad)
        else:
            ok = not bad
        if ok:
            out.append(t)
    return out


def base_builds(towers: Towers, hand: tuple) -> list[int]:
    """Base game build decision: the distinct hand cards that can be built now with the rest
    of the hand still buildable afterwards."""
    tops = tuple(tw[-1] if tw else NO_TOWER for tw in towers)  # towers change every build: no memo
    groups = split_by_type(hand)
    bad = _misfit_types(tops, groups)
    if len(bad) > 1:
        return []
    out = []
    prev = None
    for c in hand:
        if c == prev:
            continue
        prev = c
        t, v = divmod(c, NUM_VALUES)
        # building c changes only type t, so every other type must fit already
        if bad and bad[0] != t or tops[t] != NO_TOWER and not can_place(tops[t], v):
            continue
        if fits(v, remove_one(groups[t], v)):
            out.append(c)
    return out


# ---------------------------------------------------------------------------
# General search (Great Powers; with ``gp=False`` it plays the base rules)
# ---------------------------------------------------------------------------

def placements(towers: Towers, card: int, sand_end: int, gp: bool) -> list[tuple[Towers, int, bool]]:
    """Ways to build ``card``: (new towers, new sand end, placed at bottom)."""
    t, v = divmod(card, NUM_VALUES)
    tw = towers[t]
    out = []
    if not tw:
        out.append((towers[:t] + ((v,),) + towers[t + 1:], sand_end, False))
        return out
    sand_power = gp and t == SAND
    if can_place(tw[-1], v) and not (sand_power and sand_end == END_BOTTOM):
        out.append((towers[:t] + (tw + (v,),) + towers[t + 1:], END_TOP if sand_power else sand_end, False))
    if sand_power and sand_end != END_TOP and tw[-1] != 0 and can_place(v, tw[0]):
        out.append((towers[:t] + ((v,) + tw,) + towers[t + 1:], END_BOTTOM, True))
    return out


def build_ok(towers: Towers, hand: tuple, pile: tuple, sand_end: int, pending: bool, gp: bool) -> bool:
    """Can every card in ``hand`` still be built (``pending``: a recover decision comes first)."""
    if not gp:
        return base_hand_ok(tuple(top_of(tw) for tw in towers), hand)
    if not pending and not any(c // NUM_VALUES == SCRAP for c in hand):
        return _gp_no_scrap_ok(towers, hand, sand_end)
    return _gp_build_ok(towers, hand, pile, sand_end, pending)


def _gp_no_scrap_ok(towers: Towers, hand: tuple, sand_end: int) -> bool:
    # Without scrap additions no recover can happen: types are independent again, only the
    # sand tower needs its own search because of the bottom end.
    groups = split_by_type(hand)
    for t, values in enumerate(groups):
        if not values:
            continue
        if t == SAND:
            if not _sand_ok(towers[SAND], values, sand_end):
                return False
        elif not fits(top_of(towers[t]), values):
            return False
    return True


@lru_cache(maxsize=200_000)
def _sand_ok(tower: tuple, values: tuple, sand_end: int) -> bool:
    if not values:
        return True
    for v, rest in each_distinct(values):
        if not tower:
            if _sand_ok((v,), rest, sand_end):
                return True
            continue
        if can_place(tower[-1], v) and sand_end != END_BOTTOM and _sand_ok(tower + (v,), rest, END_TOP):
            return True
        if sand_end != END_TOP and tower[-1] != 0 and can_place(v, tower[0]) and _sand_ok((v,) + tower, rest, END_BOTTOM):
            return True
    return False


@lru_cache(maxsize=100_000)  # larger gains little: the memo is mostly hit within a round
def _gp_build_ok(towers: Towers, hand: tuple, pile: tuple, sand_end: int, pending: bool) -> bool:
    if pending:
        if build_ok(towers, hand, pile, sand_end, False, True):
            return True
        for c, rest in each_distinct(pile):
            again = c // NUM_VALUES == SCRAP and bool(rest)
            for new_towers, new_end, _ in placements(towers, c, sand_end, True):
                if _gp_build_ok(new_towers, hand, rest, new_end, again):
                    return True
        return False
    if not hand:
        return True
    for c, rest in each_distinct(hand):
        again = c // NUM_VALUES == SCRAP and bool(pile)
        for new_towers, new_end, _ in placements(towers, c, sand_end, True):
            if build_ok(new_towers, rest, pile, new_end, again, True):
                return True
    return False


def teardown_options(towers: Towers, pile: tuple) -> list[tuple[int, Towers, tuple]]:
    """(torn type or -1, towers after, teardown pile after) for each teardown choice."""
    return list(_teardown_options(towers, pile))


@lru_cache(maxsize=50_000)
def _teardown_options(towers: Towers, pile: tuple) -> tuple:
    # memoised: a bid search asks for the same towers' options once per display subset
    out = [(-1, towers, pile)]
    for t, tw in enumerate(towers):
        if tearable(tw):
            card = t * NUM_VALUES + tw[-1]
            out.append((t, towers[:t] + (tw[:-1],) + towers[t + 1:], insert_one(pile, card)))
    return tuple(out)


def teardown_ok(towers: Towers, hand: tuple, pile: tuple, gp: bool) -> bool:
    """Before the teardown decision: is there a teardown choice after which ``hand`` can be built."""
    if not gp:
        tops, torn = base_tops(towers)
        return _base_ok(tops, torn, split_by_type(hand))
    return any(build_ok(tw, hand, p, END_NONE, False, True) for _, tw, p in _teardown_options(towers, pile))


def pay_tree(towers: Towers, n: int) -> Towers:
    """Towers after paying ``n`` cards from the top of the tree tower."""
    tree = towers[TREE]
    return towers[:TREE] + (tree[:len(tree) - n],) + towers[TREE + 1:]


def payable(towers: Towers, gp: bool) -> int:
    """How many tree cards the player could pay (0 if the tree tower is topped)."""
    tree = towers[TREE]
    if not gp or not tree or 0 in tree:
        return 0
    return len(tree)


def _has_tree(cards: tuple) -> bool:
    return any(c // NUM_VALUES == TREE for c in cards)


def take_ok(towers: Towers, pile: tuple, display: tuple, hand: tuple, need: int, took_tree: bool, gp: bool) -> bool:
    """Mid-take: can the builder take ``need`` more cards (or stop and pay) and build everything."""
    if not gp:
        mask = 0
        for _, tops in teardown_tops(towers, _in_play(hand, display)):
            mask |= base_counts(tops, hand, display)
        return bool((mask >> need) & 1)
    can_pay = not took_tree and not _has_tree(hand)
    h = payable(towers, gp) if can_pay else 0
    for sub in _sub_multisets(display):
        k = len(sub)
        if k > need:
            break
        if k < need and (need - k > h or _has_tree(sub)):
            continue
        paid = pay_tree(towers, need - k) if k < need else towers
        if teardown_ok(paid, insert_many(hand, sub), pile, gp):
            return True
    return False


def insert_many(cards: tuple, more: tuple) -> tuple:
    """Sorted union of two card tuples."""
    return tuple(sorted(cards + more)) if more else cards


def achievable_bids(towers: Towers, pile: tuple, display: tuple, gp: bool) -> int:
    """Bitmask of every bid this player could carry out on this display (SPEC §3 legal bids)."""
    if not gp:
        return (1 << (_base_max_bid(towers, display) + 1)) - 1
    return _gp_bids(towers, pile, display)


def _base_max_bid(towers: Towers, display: tuple) -> int:
    # Per type, the buildable subsets of the display are closed under dropping the card built
    # last, so each type contributes 0..a_T cards (a_T with its top torn down: b_T) and the
    # bids that can be carried out are exactly 0..max(sum a, sum a - a_X + b_X).
    tops, torn = base_tops(towers)
    total = 0
    gain = 0
    for t, values in enumerate(split_by_type(display)):
        if not values:
            continue
        a = _most_fitting(tops[t], values)
        total += a
        if torn[t] is not None:
            gain = max(gain, _most_fitting(torn[t], values) - a)
    return total + gain


@lru_cache(maxsize=None)
def _most_fitting(top: int, values: tuple) -> int:
    """The most of the (sorted) ``values`` that fit onto ``top`` together: the longest chain
    of them that can be built in turn (what ``option_counts(top, (), values)`` has as top bit)."""
    best = 0
    prev = None
    for i, v in enumerate(values):
        if v == prev:
            continue
        prev = v
        if top == NO_TOWER or can_place(top, v):
            best = max(best, 1 + _most_fitting(v, values[:i] + values[i + 1:]))
            if best == len(values):
                break
    return best


@lru_cache(maxsize=50_000)
def _gp_bids(towers: Towers, pile: tuple, display: tuple) -> int:
    h = payable(towers, True)
    mask = 0
    for sub in _sub_multisets(display):
        k = len(sub)
        if not (mask >> k) & 1 and teardown_ok(towers, sub, pile, True):
            mask |= 1 << k
        if h and not _has_tree(sub):
            for p in range(1, h + 1):
                if not (mask >> (k + p)) & 1 and teardown_ok(pay_tree(towers, p), sub, pile, True):
                    mask |= 1 << (k + p)
    return mask
