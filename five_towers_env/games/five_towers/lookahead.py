"""Look-ahead: can the builder still build every card they must (SPEC §3 "masks look ahead").

Every legality question of the take, teardown, build and recover phases, and every bid, is
"does some sequence of the builder's remaining decisions build all cards in hand". This
module answers it on small hashable snapshots, memoised:

* ``towers``: tuple of 5 tuples of values, bottom to top;
* ``hand`` / ``pile`` / ``display``: sorted tuples of card ids (multisets);
* ``sand_end``: which end of an existing sand tower this round's additions use.

Base game (:mod:`.lookahead_base`, with the snapshot helpers every part shares): card types never
interact except through the single teardown, so feasibility splits into independent per-type
chain problems (fast, tiny caches). Great Powers (:mod:`.lookahead_gp`): the scrap power moves
teardown cards into any tower and the sand power adds at the bottom, so a memoised depth-first
search over the remaining decisions decides it. This module asks the questions of both variants
and keeps every name of the look-ahead importable from one place. ``tests/games/five_towers/test_lookahead.py``
checks that the general search, with the powers switched off, agrees with the per-type shortcut.
"""
from __future__ import annotations

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, SAND, SCRAP
from five_towers_env.games.five_towers.lookahead_base import (
    END_BOTTOM,
    END_NONE,
    END_TOP,
    MEMO_LIMIT,
    NO_TOWER,
    Towers,
    base_bids,
    base_counts,
    base_hand_ok,
    base_take_ok,
    base_take_rests,
    base_teardown_ok,
    base_tops,
    each_distinct,
    first_build_cards,
    fits,
    insert_many,
    insert_one,
    option_counts,
    pay_tree,
    payable,
    placements,
    remove_one,
    split_by_type,
    sub_multisets,
    tearable,
    teardown_options,
    teardown_tops,
    top_of,
    trim_memos,
)
from five_towers_env.games.five_towers.lookahead_gp import (
    INF,
    gp_bids,
    gp_build_ok,
    gp_take_ok,
    gp_take_rests,
    gp_teardown_ok,
    sand_ok,
    tower_key,
)

# Without recovers (the base game, or Great Powers with no scrap card to build) the types are
# independent, as in the base game: a build or a teardown changes only its own type's tower, and
# a type whose cards misfit stays a misfit whatever is built elsewhere. The sand power only changes
# how the sand cards fit (either end of the tower, one end per round).

def _fits_on(t: int, tower: tuple, values: tuple, sand_end: int, gp: bool) -> bool:
    """Without recovers: can the type-``t`` ``values`` all be built onto ``tower`` (Great Powers
    sand: at this round's end of it)."""
    if gp and t == SAND:
        return sand_ok((tower[0], tower[-1]) if tower else (), values, sand_end)
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
            cards = first_build_cards(t, top_of(tw), values)
            if not cards:  # (values that fit have a first card, and values with one fit)
                return [], []
            on_top += cards
            continue
        if not _fits_on(t, towers[t], values, sand_end, gp):
            return [], []
        for v, rest in each_distinct(values):
            for new_towers, end, bottom in placements(towers, t * NUM_VALUES + v, sand_end, True):
                if not sand_ok(tower_key(new_towers, SAND), rest, end):
                    continue
                if bottom:
                    under.append(v)
                else:
                    on_top.append(t * NUM_VALUES + v)
    return on_top, under


def build_ok(towers: Towers, hand: tuple, pile: tuple, sand_end: int, pending: bool, gp: bool) -> bool:
    """Can every card in ``hand`` still be built (``pending``: a recover decision comes first)."""
    if not gp:
        return base_hand_ok(tuple(top_of(tw) for tw in towers), hand)
    return gp_build_ok(towers, hand, pile, sand_end, pending)


def teardown_ok(towers: Towers, hand: tuple, pile: tuple, gp: bool) -> bool:
    """Before the teardown decision: is there a teardown choice after which ``hand`` can be built."""
    return gp_teardown_ok(towers, hand, pile) if gp else base_teardown_ok(towers, hand)


def take_ok(towers: Towers, pile: tuple, display: tuple, hand: tuple, need: int, took_tree: bool, gp: bool) -> bool:
    """Mid-take: can the builder take ``need`` more cards (or stop and pay) and build everything."""
    if not gp:
        return base_take_ok(towers, display, hand, need)
    return gp_take_ok(towers, pile, display, hand, need, took_tree)


def achievable_bids(towers: Towers, pile: tuple, display: tuple, gp: bool) -> int:
    """Bitmask of every bid this player could carry out on this display (SPEC §3 legal bids)."""
    return gp_bids(towers, pile, display) if gp else base_bids(towers, display)


__all__ = [
    "END_BOTTOM", "END_NONE", "END_TOP", "INF", "MEMO_LIMIT", "NO_TOWER", "Towers", "achievable_bids",
    "base_counts", "base_hand_ok", "base_take_rests", "base_tops", "build_ok", "each_distinct", "fits", "gp_take_rests",
    "insert_many", "insert_one", "option_counts", "pay_tree", "payable", "placements", "plain_builds",
    "plain_teardowns", "remove_one", "split_by_type", "sub_multisets", "take_ok", "tearable", "teardown_ok",
    "teardown_options", "teardown_tops", "top_of", "trim_memos",
]
