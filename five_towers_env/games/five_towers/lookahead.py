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

from functools import cache
from itertools import combinations
from typing import Callable, Iterator

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, SAND, SCRAP, TREE, can_place

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
    out = {}
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
def _first_build_cards(t: int, top: int, values: tuple) -> tuple:
    """The type-``t`` card ids of the distinct ``values`` that can go onto ``top`` now with the others
    still fitting after them."""
    return tuple(t * NUM_VALUES + v for v, rest in each_distinct(values)
                 if (top == NO_TOWER or can_place(top, v)) and fits(v, rest))


# Without recovers (the base game, or Great Powers with no scrap card to build) the types are
# independent, as in the base game: a build or a teardown changes only its own type's tower, and
# a type whose cards misfit stays a misfit whatever is built elsewhere. The sand power only changes
# how the sand cards fit (either end of the tower, one end per round).

def _fits_on(t: int, tower: tuple, values: tuple, sand_end: int, gp: bool) -> bool:
    """Without recovers: can the type-``t`` ``values`` all be built onto ``tower`` (Great Powers
    sand: at this round's end of it)."""
    if gp and t == SAND:
        return _sand_ok((tower[0], tower[-1]) if tower else (), values, sand_end)
    return fits(top_of(tower), values)


def plain_teardowns(towers: Towers, hand: tuple, sand_end: int, gp: bool) -> list[int] | None:
    """Teardown decision: each type whose teardown leaves the hand buildable, ascending, then -1 (no
    teardown) if the hand can be built as it stands. None in Great Powers with a scrap card in hand,
    where recovers (of the torn card too) may come and only the general search decides."""
    groups = split_by_type(hand)
    if gp and groups[SCRAP]:
        return None
    bad = -1  # the type whose cards misfit as it stands; with two, no teardown choice helps
    for t in range(NUM_TYPES):
        if groups[t] and not _fits_on(t, towers[t], groups[t], sand_end, gp):
            if bad >= 0:
                return []
            bad = t
    out = []
    for t in range(NUM_TYPES):
        tw = towers[t]
        if not tearable(tw) or bad >= 0 and t != bad:  # tearing down another type than the misfit is no use
            continue
        # tearing down a type with nothing in hand changes nothing that matters
        if not groups[t] or _fits_on(t, tw[:-1], groups[t], sand_end, gp):
            out.append(t)
    if bad < 0:
        out.append(-1)
    return out


def plain_builds(towers: Towers, hand: tuple, pile: tuple, sand_end: int, gp: bool) -> tuple[list, list] | None:
    """Build decision: the distinct hand cards that can be built now (on top, or as a new tower)
    with the rest of the hand still buildable, and the sand values that can go under the sand
    tower (Great Powers), both ascending. None in Great Powers with a scrap card in hand and cards
    on the pile, where a recover may come and only the general search decides."""
    groups = split_by_type(hand)
    if gp and groups[SCRAP] and pile:
        return None
    on_top: list[int] = []
    under: list[int] = []
    for t in range(NUM_TYPES):  # types in order, values ascending: card ids ascending
        values = groups[t]
        if not values:
            continue
        # a type whose cards misfit now misfits after any build: the hand is a dead end
        if not (gp and t == SAND):
            tw = towers[t]
            cards = _first_build_cards(t, top_of(tw), values)
            if not cards:  # (values that fit have a first card, and values with one fit)
                return [], []
            on_top += cards
            continue
        if not _fits_on(t, towers[t], values, sand_end, gp):
            return [], []
        for v, rest in each_distinct(values):
            for new_towers, end, bottom in placements(towers, t * NUM_VALUES + v, sand_end, True):
                if not _sand_ok(_tower_key(new_towers, SAND), rest, end):
                    continue
                if bottom:
                    under.append(v)
                else:
                    on_top.append(t * NUM_VALUES + v)
    return on_top, under


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
    if pending:
        # the pending recover happens now or never: skip it, or recover each distinct pile card
        if _gp_ok(towers, hand, pile, sand_end):
            return True
        for c, rest in each_distinct(pile):
            again = c // NUM_VALUES == SCRAP and bool(rest)
            for new_towers, new_end, _ in placements(towers, c, sand_end, True):
                if build_ok(new_towers, hand, rest, new_end, again, True):
                    return True
        return False
    return _gp_ok(towers, hand, pile, sand_end)


# Great Powers, without a pending recover. Types interact only through the scrap power, and
# only by counting: every scrap card built from hand lets one pile card be recovered right
# after it, and because the order of building across types is free, that recover can serve
# any tower at any point of its chain. A recovered scrap card spends the recover of the
# scrap addition before it and earns one back, so the recovers left for the other types are
# exactly the scrap cards in hand (and a recovered scrap card can never be the first scrap
# addition). So the hand can be built iff each non-scrap type T can build its hand cards plus
# some ``r_T`` of its pile cards, the scrap type can build its hand cards (plus any of its
# pile cards, led by a hand card), and the ``r_T`` sum to at most the scrap cards in hand.
# ``tests/test_lookahead.py`` checks this against an exhaustive search of the decisions.

def _gp_ok(towers: Towers, hand: tuple, pile: tuple, sand_end: int) -> bool:
    h = split_by_type(hand)
    tokens = len(h[SCRAP])
    if not pile or not tokens:  # no recover can happen: each type on its own
        return _gp_plain_ok(towers, h, sand_end)
    p = split_by_type(pile)
    spent = 0
    for t in range(NUM_TYPES):
        if t == SCRAP:
            if not _scrap_ok(top_of(towers[SCRAP]), h[SCRAP], (), p[SCRAP]):
                return False
            continue
        if not h[t]:
            continue  # nothing to build there: no reason to recover into it
        sand = t == SAND
        spent += _recovers_needed(_tower_key(towers, t), sand, sand_end if sand else END_NONE, h[t],
                                  *_budget(p[t], tokens))
        if spent > tokens:
            return False
    return True


def _gp_plain_ok(towers: Towers, groups: tuple, sand_end: int) -> bool:
    for t, values in enumerate(groups):
        if values:
            if t == SAND:
                if not _sand_ok(_tower_key(towers, SAND), values, sand_end):
                    return False
            elif not fits(top_of(towers[t]), values):
                return False
    return True


def _tower_key(towers: Towers, t: int) -> tuple:
    """What building onto tower ``t`` depends on: its top (the sand tower: its bottom and top)."""
    tw = towers[t]
    if not tw:
        return ()
    return (tw[0], tw[-1]) if t == SAND else (tw[-1],)


def _budget(pile: tuple, tokens: int) -> tuple[tuple, int]:
    """``(pile, cap)`` for the recover searches, in one canonical form for their memo keys: a cap
    above the pile's size changes nothing, and with no recover at all the pile does not matter."""
    if not pile or not tokens:
        return (), 0
    return pile, min(tokens, len(pile))


@_memo
def _fewest_recovers(key: tuple, sand: bool, sand_end: int, forced: tuple, optional: tuple, pile: tuple,
                     cap: int) -> tuple:
    """For ``k`` = 0..len(optional): the fewest ``pile`` values (at most ``cap``, else ``INF``) that,
    with the ``forced`` values and some ``k`` of the ``optional`` ones, can all be built onto a tower."""
    out = [INF] * (len(optional) + 1)
    for sub in _sub_multisets(optional):
        k = len(sub)
        if out[k]:
            n = _recovers_needed(key, sand, sand_end, tuple(sorted(forced + sub)) if sub else forced, pile, cap)
            if n < out[k]:
                out[k] = n
    return tuple(out)


@_memo
def _recovers_needed(key: tuple, sand: bool, sand_end: int, values: tuple, pile: tuple, cap: int) -> int:
    """The fewest ``pile`` values (at most ``cap``, else ``INF``) that, added to ``values``, let them
    all be built onto a tower with ends ``key`` (see :func:`_tower_key`)."""
    if sand:
        if _sand_ok(key, values, sand_end):
            return 0
    elif fits(key[-1] if key else NO_TOWER, values):
        return 0
    if not pile or not cap:
        return INF
    for rec in _sub_multisets(pile):
        n = len(rec)
        if not n:
            continue
        if n > cap:
            break
        more = tuple(sorted(values + rec))
        if _sand_ok(key, more, sand_end) if sand else fits(key[-1] if key else NO_TOWER, more):
            return n
    return INF


@_memo
def _scrap_ok(top: int, forced: tuple, optional: tuple, pile: tuple) -> int:
    """Bit ``k`` set iff the ``forced`` scrap values and some ``k`` of the ``optional`` ones can be
    built onto the scrap tower, possibly with pile scrap cards recovered in between (a recovered
    card never comes first: it needs a scrap addition before it)."""
    mask = 0
    for sub in _sub_multisets(optional):
        k = len(sub)
        if (mask >> k) & 1:
            continue
        lead = tuple(sorted(forced + sub))
        if not lead:
            mask |= 1
            continue
        for rec in (_sub_multisets(pile) if pile else ((),)):
            values = tuple(sorted(lead + rec))
            if any((top == NO_TOWER or can_place(top, v)) and fits(v, remove_one(values, v))
                   for v, _ in each_distinct(lead)):
                mask |= 1 << k
                break
    return mask


INF = 1 << 20


@_memo
def _sand_ok(key: tuple, values: tuple, sand_end: int) -> bool:
    """Can the sand ``values`` all be built onto a sand tower with ends ``key`` ((bottom, top), or
    () for no tower), this round's additions staying at one end (SPEC §5 sand power)."""
    if not values:
        return True
    for v, rest in each_distinct(values):
        if not key:
            if _sand_ok((v, v), rest, sand_end):
                return True
            continue
        bottom, top = key
        if can_place(top, v) and sand_end != END_BOTTOM and _sand_ok((bottom, v), rest, END_TOP):
            return True
        if sand_end != END_TOP and top != 0 and can_place(v, bottom) and _sand_ok((v, top), rest, END_BOTTOM):
            return True
    return False


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


def teardown_ok(towers: Towers, hand: tuple, pile: tuple, gp: bool) -> bool:
    """Before the teardown decision: is there a teardown choice after which ``hand`` can be built."""
    if not gp:
        tops, torn = base_tops(towers)
        return _base_ok(tops, torn, split_by_type(hand))
    groups = split_by_type(hand)
    # tearing down a type with nothing in hand changes nothing that matters: no teardown covers it
    return any(_gp_ok(tw, hand, p, END_NONE) for t, tw, p in _teardown_options(towers, pile) if t < 0 or groups[t])


def _type_shares(t: int, tw: tuple, pile_t: tuple, hand_t: tuple, display_t: tuple, tokens: int) -> tuple:
    """Great Powers take look-ahead, one type: for each sub-multiset of the display's ``t`` values
    (shortest first) that could be built standing or torn down, ``(card ids, judged standing,
    judged torn down or None, how many, holds a tree card)``, judged as in :func:`_gp_ok` with
    ``tokens`` scrap recovers available."""
    # with its top torn down (None: not possible); without recovers only the scrap type needs the pile
    torn_pile = (insert_one(pile_t, tw[-1]) if t == SCRAP or tokens else ()) if tearable(tw) else None
    sand = t == SAND
    key = () if not tw else ((tw[0], tw[-1]) if sand else (tw[-1],))
    torn_key = None if torn_pile is None else (() if len(tw) == 1 else ((tw[0], tw[-2]) if sand else (tw[-2],)))
    per = []
    for sub, ids in zip(_sub_multisets(display_t), _sub_card_ids(t, display_t)):
        forced = (tuple(sorted(hand_t + sub)) if hand_t else sub) if sub else hand_t
        if t == SCRAP:
            ok = _scrap_ok(top_of(tw), forced, (), pile_t) & 1
            ok_torn = None if torn_pile is None else _scrap_ok(top_of(tw[:-1]), forced, (), torn_pile) & 1
        else:
            ok = _recovers_needed(key, sand, END_NONE, forced, *_budget(pile_t, tokens))
            ok_torn = None if torn_pile is None else _recovers_needed(
                torn_key, sand, END_NONE, forced, *_budget(torn_pile, tokens))
        # a share that neither standing nor torn down can be built is in no rest (see _shares_ok)
        if (ok or ok_torn) if t == SCRAP else (ok < INF or ok_torn is not None and ok_torn < INF):
            per.append((ids, ok, ok_torn, len(sub), t == TREE and bool(sub)))
    return tuple(per)


@_memo
def _sub_card_ids(t: int, values: tuple) -> tuple:
    """The card ids of type ``t`` of each of :func:`sub_multisets` of ``values``, in its order."""
    first = t * NUM_VALUES
    return tuple(tuple([first + v for v in sub]) for sub in _sub_multisets(values))


def gp_take_rests(towers: Towers, pile: tuple, hand: tuple, display: tuple, need: int, can_pay: bool) -> list[tuple]:
    """Great Powers, mid-take: every multiset of display cards whose taking, with the rest of the
    ``need`` paid in tree cards (only for tree-free rests, when ``can_pay``), completes a hand that
    can be built after some teardown, shortest first. Like :func:`base_take_rests`, the engine
    narrows the list take by take. Each type's share of a rest is judged on its own as in
    :func:`_gp_ok` (standing, and with its top torn down), then the shares are put together."""
    h, d, p = split_by_type(hand), split_by_type(display), split_by_type(pile)
    scrap_hand = len(h[SCRAP])
    tokens = scrap_hand + len(d[SCRAP])
    can_tree_pay = payable(towers, True) if can_pay and not h[TREE] else 0
    shares = [(t, _type_shares(t, towers[t], p[t], h[t], d[t], tokens))
              for t in range(NUM_TYPES) if h[t] or d[t]]  # per type in play: (type, its shares of a rest)
    types = tuple(t for t, _ in shares)
    entries = [per for _, per in shares]  # each type's shares shortest first (_sub_multisets' order)
    # the combinations of one share per type, in itertools.product order, cut at `need` cards
    partial: list[tuple[tuple, int, bool]] = [((), 0, False)]
    for per in entries:
        partial = [(combo + (e,), k + e[3], tree or e[4]) for combo, k, tree in partial for e in per
                   if k + e[3] <= need]
    rests: list[tuple] = []
    for combo, k, tree in partial:
        if k < need and (need - k > can_tree_pay or tree):
            continue
        if _shares_ok(types, combo, scrap_hand):
            rests.append(tuple(sorted(c for e in combo for c in e[0])))
    rests.sort(key=len)
    return rests


def _shares_ok(types: tuple, combo: tuple, scrap_hand: int) -> bool:
    """Is there a teardown choice (none, or one type torn down) under which every type's share
    (``combo[i]`` for type ``types[i]``: cards, judged standing, judged torn down or None) can be
    built with the recovers the scrap cards allow."""
    # Standing: the scrap type must fit, and the other types' recovers must stay within the budget
    # (the scrap cards in hand and taken). A teardown swaps one type's judgement for its torn one.
    budget = scrap_hand
    spent = 0
    scrap_fits = True
    for t, e in zip(types, combo):
        if t == SCRAP:
            budget += e[3]
            scrap_fits = bool(e[1])
        else:
            spent += e[1]
    if scrap_fits and spent <= budget:
        return True
    for t, e in zip(types, combo):
        torn = e[2]
        if torn is None:
            continue
        if t == SCRAP:
            if torn and spent <= budget:
                return True
        elif scrap_fits and spent - e[1] + torn <= budget:
            return True
    return False


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
    return bool((_gp_counts(towers, pile, hand, display, can_pay) >> need) & 1)


def _gp_counts(towers: Towers, pile: tuple, hand: tuple, display: tuple, can_pay: bool) -> int:
    """Great Powers: bit ``n`` set iff taking ``k`` more display cards and paying ``n - k`` tree
    cards (only without a tree card taken), then some teardown, lets the whole hand be built.

    Each type is judged on its own (see :func:`_gp_ok`), once as it stands and once with its top
    torn down: a teardown changes only its own type (its tower, and its card in the pile, which
    only its own tower can take back), so each teardown choice swaps one type's entry. Tearing
    down a type with no card in play changes nothing that matters and is not looked at."""
    h, d, p = split_by_type(hand), split_by_type(display), split_by_type(pile)
    scrap_hand = len(h[SCRAP])
    tokens = scrap_hand + len(d[SCRAP])
    entries: list = []   # (type, entry as it stands, entry with its top torn down or None)
    for t in range(NUM_TYPES):
        if not (h[t] or d[t]):
            continue
        tw = towers[t]
        torn_pile = (insert_one(p[t], tw[-1]) if t == SCRAP or tokens else ()) if tearable(tw) else None
        if t == SCRAP:
            entry = _scrap_ok(top_of(tw), h[t], d[t], p[t])
            torn = None if torn_pile is None else _scrap_ok(top_of(tw[:-1]), h[t], d[t], torn_pile)
        else:
            sand = t == SAND
            entry = _fewest_recovers(_tower_key(towers, t), sand, END_NONE, h[t], d[t], *_budget(p[t], tokens))
            torn = None
            if torn_pile is not None:
                key = () if len(tw) == 1 else ((tw[0], tw[-2]) if sand else (tw[-2],))
                torn = _fewest_recovers(key, sand, END_NONE, h[t], d[t], *_budget(torn_pile, tokens))
        entries.append((t, entry, torn))
    mask = _gp_choices(entries, scrap_hand, -1)
    if can_pay and not h[TREE]:
        h_tree = payable(towers, True)
        if h_tree:
            # Paying leaves no tree card to build (none may be taken), so what is left of the
            # tree tower no longer matters: every payment 1..h allows the same display cards.
            paid = _gp_choices(entries, scrap_hand, TREE)
            for n in range(1, h_tree + 1):
                mask |= paid << n
    return mask


def _gp_choices(entries: list, scrap_hand: int, skip: int) -> int:
    """OR over the teardown choices (none, or one type's entry swapped for its torn one) of
    :func:`_combine`; the type ``skip`` (paying: the tree) takes no card and is left out."""
    kept = [e for e in entries if e[0] != skip]
    mask = _combine_entries(kept, scrap_hand, -1)
    for t, _, torn in kept:
        if torn is not None:
            mask |= _combine_entries(kept, scrap_hand, t)
    return mask


def _combine_entries(entries: list, scrap_hand: int, torn_type: int) -> int:
    needs = []
    scrap = 1
    for t, entry, torn in entries:
        e = torn if t == torn_type else entry
        if t == SCRAP:
            scrap = e
        else:
            needs.append(e)
    return _combine(tuple(needs), scrap, scrap_hand)


_NOT_SCRAP = tuple(t for t in range(NUM_TYPES) if t != SCRAP)


@_memo
def _combine(needs: tuple, scrap: int, scrap_hand: int) -> int:
    """Bit ``n`` set iff the types' choices add up to ``n`` display cards with the recovers they
    need covered: ``needs`` per non-scrap type (fewest recovers for each count of its display
    cards), ``scrap`` the counts of scrap display cards that fit, ``scrap_hand`` scrap cards in hand."""
    spent = (0,)  # spent[k]: fewest recovers for k display cards over the types merged so far
    for need in needs:
        merged = [INF] * (len(spent) + len(need) - 1)
        for i, a in enumerate(spent):
            if a < INF:
                for j, b in enumerate(need):
                    if a + b < merged[i + j]:
                        merged[i + j] = a + b
        spent = merged
    mask = 0
    k_scrap = 0
    while scrap:
        if scrap & 1:
            budget = scrap_hand + k_scrap
            for k, cost in enumerate(spent):
                if cost <= budget:
                    mask |= 1 << (k + k_scrap)
        scrap >>= 1
        k_scrap += 1
    return mask


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


def _gp_bids(towers: Towers, pile: tuple, display: tuple) -> int:
    return _gp_counts(towers, pile, (), display, True)
