"""Look-ahead, shared part and base game: the snapshot helpers every look-ahead module uses, and the
base game's feasibility as independent per-type chains (see :mod:`.lookahead` for the snapshots).

In the base game card types never interact except through the single teardown, so feasibility
splits into independent per-type chain problems (fast, tiny caches).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from itertools import combinations

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, SAND, TREE, can_place

# Memos: plain dicts (functools.cache), not LRU caches. A hit is cheaper without the LRU's
# bookkeeping, and an LRU entry is a linked-list node the garbage collector must walk on every
# full collection, and with a few hundred thousand entries those walks were a visible share of
# the Great Powers engine's time (docs/experiments.md, engine speed). Memory is bounded by
# trim_memos, which every 32nd new game calls: a memo past MEMO_LIMIT entries starts again empty.
MEMO_LIMIT = 200_000
_MEMOS: list = []


def _memo(fn: Callable) -> Callable:
    cached = cache(fn)
    _MEMOS.append(cached)
    return cached


def trim_memos(limit: int = MEMO_LIMIT) -> None:
    """Empty every look-ahead memo holding more than ``limit`` entries (results never change: only
    memory and speed are at stake)."""
    for memo in _MEMOS:
        if memo.cache_info().currsize > limit:
            memo.cache_clear()


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


@_memo
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


_TYPE_OF = tuple(c // NUM_VALUES for c in range(NUM_TYPES * NUM_VALUES))
_VALUE_OF = tuple(c % NUM_VALUES for c in range(NUM_TYPES * NUM_VALUES))
assert NUM_TYPES == 5  # split_by_type spells out one group per type


@_memo
def split_by_type(cards: tuple) -> tuple:
    """Values of a sorted card tuple, grouped per type (memoised: hands and displays recur)."""
    groups: tuple[list[int], ...] = ([], [], [], [], [])
    for c in cards:
        groups[_TYPE_OF[c]].append(_VALUE_OF[c])
    return tuple(map(tuple, groups))


def insert_many(cards: tuple, more: tuple) -> tuple:
    """Sorted union of two card tuples."""
    return tuple(sorted(cards + more)) if more else cards



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



def teardown_options(towers: Towers, pile: tuple) -> list[tuple[int, Towers, tuple]]:
    """(torn type or -1, towers after, teardown pile after) for each teardown choice."""
    return list(_teardown_options(towers, pile))


@_memo
def _teardown_options(towers: Towers, pile: tuple) -> tuple:
    # memoised: a bid search asks for the same towers' options once per display subset
    out = [(-1, towers, pile)]
    for t, tw in enumerate(towers):
        if tearable(tw):
            card = t * NUM_VALUES + tw[-1]
            out.append((t, towers[:t] + (tw[:-1],) + towers[t + 1:], insert_one(pile, card)))
    return tuple(out)



# ---------------------------------------------------------------------------
# Base game: independent per-type chains
# ---------------------------------------------------------------------------

@_memo
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


@_memo
def option_counts(top: int, forced: tuple, optional: tuple) -> int:
    """Bit ``k`` set iff all ``forced`` values plus some ``k`` of ``optional`` fit onto ``top``."""
    mask = 0
    for sub in _sub_multisets(optional):
        if not (mask >> len(sub)) & 1 and fits(top, tuple(sorted(forced + sub))):
            mask |= 1 << len(sub)
    return mask


@_memo
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
    finals = _base_final_hands(towers, insert_many(hand, display), len(hand) + need)
    if not hand:  # the usual case: asked at the first take, every final hand is a rest
        return list(finals)
    rests = []
    for final in finals:
        rest = _minus(final, hand)
        if rest is not None:
            rests.append(tuple(rest))
    return rests


def _base_final_hands(towers: Towers, pool: tuple, size: int) -> tuple:
    # The hands of ``size`` cards from the pool that can be built after some teardown (asked
    # once per round: the engine narrows the result take by take, see base_take_rests).
    # Hands are pool positions as bitmasks; the pool is sorted, so each type's cards sit at
    # consecutive positions.
    parts = []  # (first position, mask of its count, fits per subset, fits after a teardown per subset or None)
    start = 0
    groups = split_by_type(pool)
    for t in range(NUM_TYPES):
        values = groups[t]
        if values:
            tw = towers[t]  # (towers change from round to round: their tops are not worth a memo here)
            ok = _subset_fits(top_of(tw), values)
            ok_torn = _subset_fits(top_of(tw[:-1]), values) if tearable(tw) else None
            count = len(values)
            parts.append((start, (1 << count) - 1, ok, ok_torn))
            start += count
    out: dict[tuple, None] = {}  # an ordered set
    for hand, picks in _masks_of_size(len(pool), size):
        bad = None
        for first, mask, ok, ok_torn in parts:
            sub = (hand >> first) & mask
            if not ok[sub]:
                if bad is not None:
                    break
                bad = ok_torn is not None and ok_torn[sub]  # the one misfit type: torn down, does it fit?
        else:
            if bad is None or bad:
                out[tuple([pool[i] for i in picks])] = None
    return tuple(out)


@_memo
def _masks_of_size(n: int, k: int) -> tuple:
    """``(mask, its set positions)`` for every ``n``-bit mask with ``k`` bits set."""
    return tuple((m, tuple(i for i in range(n) if m >> i & 1)) for m in range(1 << n) if m.bit_count() == k)


@_memo
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


@_memo
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


@_memo
def first_build_cards(t: int, top: int, values: tuple) -> tuple:
    """The type-``t`` card ids of the distinct ``values`` that can go onto ``top`` now with the others
    still fitting after them."""
    return tuple(t * NUM_VALUES + v for v, rest in each_distinct(values)
                 if (top == NO_TOWER or can_place(top, v)) and fits(v, rest))



def _base_max_bid(towers: Towers, display: tuple) -> int:
    # Per type, the buildable subsets of the display are closed under dropping the card built
    # last, so each type contributes 0..a_T cards (a_T with its top torn down: b_T) and the
    # bids that can be carried out are exactly 0..max(sum a, sum a - a_X + b_X).
    total = 0
    gain = 0
    groups = split_by_type(display)
    for t in range(NUM_TYPES):
        values = groups[t]
        if values:
            tw = towers[t]
            a = _most_fitting(top_of(tw), values)
            total += a
            if tearable(tw):
                b = _most_fitting(top_of(tw[:-1]), values) - a
                if b > gain:
                    gain = b
    return total + gain


@_memo
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


def base_teardown_ok(towers: Towers, hand: tuple) -> bool:
    """Base game, before the teardown decision: is there a teardown choice after which ``hand`` can be built."""
    tops, torn = base_tops(towers)
    return _base_ok(tops, torn, split_by_type(hand))


def base_take_ok(towers: Towers, display: tuple, hand: tuple, need: int) -> bool:
    """Base game, mid-take: can the builder take ``need`` more display cards and build everything."""
    mask = 0
    for _, tops in teardown_tops(towers, _in_play(hand, display)):
        mask |= base_counts(tops, hand, display)
    return bool((mask >> need) & 1)


def base_bids(towers: Towers, display: tuple) -> int:
    """Base game: bitmask of every bid this player could carry out on this display."""
    return (1 << (_base_max_bid(towers, display) + 1)) - 1
