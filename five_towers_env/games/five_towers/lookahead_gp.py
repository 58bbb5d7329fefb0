"""Look-ahead, Great Powers: the scrap power's recovers and the sand power's two ends (see
:mod:`.lookahead` for the snapshots and the questions asked).

The scrap power moves teardown cards into any tower and the sand power adds at the bottom, so the
types interact; the general search over the remaining decisions (:func:`gp_build_ok` with a
pending recover) and the counting argument below decide it.
"""
from __future__ import annotations

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, SAND, SCRAP, TREE, can_place
from five_towers_env.games.five_towers.lookahead_base import (  # the memo helpers are shared with it
    END_BOTTOM,
    END_NONE,
    END_TOP,
    NO_TOWER,
    Towers,
    _memo,
    _sub_multisets,
    each_distinct,
    fits,
    insert_one,
    payable,
    placements,
    remove_one,
    split_by_type,
    tearable,
    teardown_options,
    top_of,
)

INF = 1 << 20


# Great Powers, without a pending recover. Types interact only through the scrap power, and
# only by counting: every scrap card built from hand lets one pile card be recovered right
# after it, and because the order of building across types is free, that recover can serve
# any tower at any point of its chain. A recovered scrap card spends the recover of the
# scrap addition before it and earns one back, so the recovers left for the other types are
# exactly the scrap cards in hand (and a recovered scrap card can never be the first scrap
# addition). So the hand can be built iff each non-scrap type T can build its hand cards plus
# some ``r_T`` of its pile cards, the scrap type can build its hand cards (plus any of its
# pile cards, led by a hand card), and the ``r_T`` sum to at most the scrap cards in hand.
# ``tests/games/five_towers/test_lookahead.py`` checks this against an exhaustive search of the decisions.

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
        spent += _recovers_needed(tower_key(towers, t), sand, sand_end if sand else END_NONE, h[t],
                                  *_budget(p[t], tokens))
        if spent > tokens:
            return False
    return True


def _gp_plain_ok(towers: Towers, groups: tuple, sand_end: int) -> bool:
    for t, values in enumerate(groups):
        if values:
            if t == SAND:
                if not sand_ok(tower_key(towers, SAND), values, sand_end):
                    return False
            elif not fits(top_of(towers[t]), values):
                return False
    return True


def tower_key(towers: Towers, t: int) -> tuple:
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
    all be built onto a tower with ends ``key`` (see :func:`tower_key`)."""
    if sand:
        if sand_ok(key, values, sand_end):
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
        if sand_ok(key, more, sand_end) if sand else fits(key[-1] if key else NO_TOWER, more):
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



@_memo
def sand_ok(key: tuple, values: tuple, sand_end: int) -> bool:
    """Can the sand ``values`` all be built onto a sand tower with ends ``key`` ((bottom, top), or
    () for no tower), this round's additions staying at one end (SPEC §5 sand power)."""
    if not values:
        return True
    for v, rest in each_distinct(values):
        if not key:
            if sand_ok((v, v), rest, sand_end):
                return True
            continue
        bottom, top = key
        if can_place(top, v) and sand_end != END_BOTTOM and sand_ok((bottom, v), rest, END_TOP):
            return True
        if sand_end != END_TOP and top != 0 and can_place(v, bottom) and sand_ok((v, top), rest, END_BOTTOM):
            return True
    return False


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


def _has_tree(cards: tuple) -> bool:
    return any(c // NUM_VALUES == TREE for c in cards)


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
            entry = _fewest_recovers(tower_key(towers, t), sand, END_NONE, h[t], d[t], *_budget(p[t], tokens))
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



@_memo
def _combine(needs: tuple, scrap: int, scrap_hand: int) -> int:
    """Bit ``n`` set iff the types' choices add up to ``n`` display cards with the recovers they
    need covered: ``needs`` per non-scrap type (fewest recovers for each count of its display
    cards), ``scrap`` the counts of scrap display cards that fit, ``scrap_hand`` scrap cards in hand."""
    spent = [0]  # spent[k]: fewest recovers for k display cards over the types merged so far
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


def gp_bids(towers: Towers, pile: tuple, display: tuple) -> int:
    return _gp_counts(towers, pile, (), display, True)


def gp_build_ok(towers: Towers, hand: tuple, pile: tuple, sand_end: int, pending: bool) -> bool:
    """Great Powers: can every card in ``hand`` still be built (``pending``: a recover decision comes first)."""
    if pending:
        # the pending recover happens now or never: skip it, or recover each distinct pile card
        if _gp_ok(towers, hand, pile, sand_end):
            return True
        for c, rest in each_distinct(pile):
            again = c // NUM_VALUES == SCRAP and bool(rest)
            for new_towers, new_end, _ in placements(towers, c, sand_end, True):
                if gp_build_ok(new_towers, hand, rest, new_end, again):
                    return True
        return False
    return _gp_ok(towers, hand, pile, sand_end)


def gp_teardown_ok(towers: Towers, hand: tuple, pile: tuple) -> bool:
    """Great Powers, before the teardown decision: is there a teardown choice after which ``hand`` can be built."""
    groups = split_by_type(hand)
    # tearing down a type with nothing in hand changes nothing that matters: no teardown covers it
    return any(_gp_ok(tw, hand, p, END_NONE) for t, tw, p in teardown_options(towers, pile) if t < 0 or groups[t])


def gp_take_ok(towers: Towers, pile: tuple, display: tuple, hand: tuple, need: int, took_tree: bool) -> bool:
    """Great Powers, mid-take: can the builder take ``need`` more cards (or stop and pay) and build everything."""
    can_pay = not took_tree and not _has_tree(hand)
    return bool((_gp_counts(towers, pile, hand, display, can_pay) >> need) & 1)
