"""An independent brute-force rules oracle for the builder's part of a round (SPEC §3-§5).

It does not use ``five_towers_env.games.five_towers.lookahead``: it has its own snapshot of the round,
its own move generator written from the SPEC rules *without* look-ahead (every move the rules
allow, dead ends included), its own transitions, and an exhaustive memoised search that
decides whether the builder can still build every card.

Moves are named in SPEC §7 spelling, so they compare directly with the engine's action names.
"""
from __future__ import annotations

from typing import NamedTuple

from five_towers_env.games.five_towers.cards import can_place

TYPES = ("candy", "scary", "tree", "scrap", "sand")
CANDY, SCARY, TREE, SCRAP, SAND = range(5)
NONE, TOP, BOTTOM = "none", "top", "bottom"  # this round's end of an existing sand tower
PHASES = ("take", "teardown", "build", "recover", "done")


def name(card: int) -> str:
    return f"{TYPES[card // 16]}-{card % 16}"


def cid(type_index: int, value: int) -> int:
    return type_index * 16 + value


def _remove(cards: tuple, card: int) -> tuple:
    lst = list(cards)
    lst.remove(card)
    return tuple(lst)


def _add(cards: tuple, card: int) -> tuple:
    return tuple(sorted(cards + (card,)))


class Snap(NamedTuple):
    """The builder's side of a round: everything their remaining decisions depend on."""

    phase: str            # take, teardown, build, recover, done
    gp: bool
    towers: tuple         # 5 tuples of values, bottom to top
    pile: tuple           # sorted card ids of the teardown pile
    display: tuple        # sorted card ids
    hand: tuple           # sorted card ids taken and not built
    need: int             # cards still to take or pay (take phase), else 0
    took_tree: bool       # a tree card was taken from the display this round
    sand_end: str         # NONE, TOP, BOTTOM


def snap_from_state(state) -> Snap:
    """The oracle's snapshot of an engine ``GameState`` in take/teardown/build/recover."""
    from five_towers_env.games.five_towers.state import END_BOTTOM, END_NONE, END_TOP

    phase = state.phase_name
    assert phase in PHASES[:4], phase
    b = state.builder
    ends = {END_NONE: NONE, END_TOP: TOP, END_BOTTOM: BOTTOM}
    hand = tuple(sorted(state.hand))
    return Snap(
        phase=phase,
        gp=state.variant == "great_powers",
        towers=tuple(tuple(int(v) for v in tw) for tw in state.towers[b]),
        pile=tuple(sorted(state.piles[b])),
        display=tuple(sorted(state.display)) if phase == "take" else (),
        hand=hand,
        need=state.target - state.taken if phase == "take" else 0,
        # before any build, the hand is exactly what was taken from the display
        took_tree=any(c // 16 == TREE for c in hand) if phase == "take" else False,
        sand_end=ends[state.sand_end],
    )


def bid_snap(towers: tuple, pile: tuple, display: tuple, bid: int, gp: bool) -> Snap:
    """The snapshot right after ``bid`` won the bidding: nothing taken yet."""
    towers = tuple(tuple(int(v) for v in tw) for tw in towers)
    if bid == 0:
        return Snap("teardown", gp, towers, tuple(sorted(pile)), (), (), 0, False, NONE)
    return Snap("take", gp, towers, tuple(sorted(pile)), tuple(sorted(display)), (), bid, False, NONE)


def payable(towers: tuple, gp: bool) -> int:
    tree = towers[TREE]
    if not gp or not tree or 0 in tree:
        return 0
    return len(tree)


def ceiling(towers: tuple, display: tuple, gp: bool) -> int:
    """SPEC §3 ceiling."""
    d = len(display)
    if not gp:
        return d
    non_tree = sum(1 for c in display if c // 16 != TREE)
    return max(d, non_tree + payable(towers, gp))


def placements(towers: tuple, card: int, sand_end: str, gp: bool) -> list[tuple[str, tuple, str]]:
    """Ways the rules allow to add ``card``: (suffix of the move name, new towers, new sand end)."""
    t, v = divmod(card, 16)
    tw = towers[t]
    out = []
    if not tw:  # start a tower (any value, a 0 included); not an addition onto an existing card
        out.append(("", towers[:t] + ((v,),) + towers[t + 1:], sand_end))
        return out
    sand = gp and t == SAND
    if can_place(tw[-1], v) and not (sand and sand_end == BOTTOM):
        out.append(("", towers[:t] + (tw + (v,),) + towers[t + 1:], TOP if sand else sand_end))
    if sand and sand_end != TOP and 0 not in tw and can_place(v, tw[0]):
        out.append((" bottom", towers[:t] + ((v,) + tw,) + towers[t + 1:], BOTTOM))
    return out


def _after_addition(gp: bool, towers, pile, hand, end, card: int) -> Snap:
    """After a card joins a tower: a recover decision if it joined the scrap tower and the pile is not empty."""
    if gp and card // 16 == SCRAP and pile:
        phase = "recover"
    else:
        phase = "build" if hand else "done"
    return Snap(phase, gp, towers, pile, (), hand, 0, False, end)


def successors(s: Snap):
    """Yield ``(SPEC §7 name, snapshot after it)`` for every move the rules allow now (no look-ahead)."""
    gp = s.gp
    if s.phase == "take":
        for c in sorted(set(s.display)):
            need = s.need - 1
            if need:
                yield f"take {name(c)}", Snap("take", gp, s.towers, s.pile, _remove(s.display, c), _add(s.hand, c),
                                              need, s.took_tree or c // 16 == TREE, s.sand_end)
            else:  # taking ends by itself; the display no longer matters to the builder
                yield f"take {name(c)}", Snap("teardown", gp, s.towers, s.pile, (), _add(s.hand, c), 0, False,
                                              s.sand_end)
        if gp and s.need > 0 and not s.took_tree and payable(s.towers, gp) >= s.need:
            # pay the rest from the top of the tree tower (SPEC §5)
            tree = s.towers[TREE]
            towers = s.towers[:TREE] + (tree[:len(tree) - s.need],) + s.towers[TREE + 1:]
            yield "stop", Snap("teardown", gp, towers, s.pile, (), s.hand, 0, False, s.sand_end)
    elif s.phase == "teardown":
        nxt = "build" if s.hand else "done"
        yield "no teardown", Snap(nxt, gp, s.towers, s.pile, (), s.hand, 0, False, s.sand_end)
        for t, tw in enumerate(s.towers):
            if tw and tw[-1] != 0:  # never a 0
                yield f"teardown {TYPES[t]}", Snap(nxt, gp, s.towers[:t] + (tw[:-1],) + s.towers[t + 1:],
                                                   _add(s.pile, cid(t, tw[-1])), (), s.hand, 0, False, s.sand_end)
    elif s.phase == "build":
        for c in sorted(set(s.hand)):
            hand = _remove(s.hand, c)
            for suffix, towers, end in placements(s.towers, c, s.sand_end, gp):
                yield f"build {name(c)}{suffix}", _after_addition(gp, towers, s.pile, hand, end, c)
    elif s.phase == "recover":
        yield "no recover", Snap("build" if s.hand else "done", gp, s.towers, s.pile, (), s.hand, 0, False, s.sand_end)
        for c in sorted(set(s.pile)):
            pile = _remove(s.pile, c)
            for suffix, towers, end in placements(s.towers, c, s.sand_end, gp):
                yield f"recover {name(c)}{suffix}", _after_addition(gp, towers, pile, s.hand, end, c)


def moves(s: Snap) -> dict[str, Snap]:
    """Every move the rules allow now (no look-ahead), by SPEC §7 name, with the snapshot after it."""
    out = dict(successors(s))
    assert len(out) == len(list(successors(s))), "two moves share a name"
    return out


_MEMO: dict[Snap, bool] = {}


def feasible(s: Snap) -> bool:
    """Exhaustive search: can the builder, from ``s``, build every card they must."""
    if s.phase == "done":
        return True
    got = _MEMO.get(s)
    if got is None:
        got = any(feasible(n) for _, n in successors(s))
        if len(_MEMO) > 2_000_000:
            _MEMO.clear()
        _MEMO[s] = got
    return got


def achievable_bids(towers: tuple, pile: tuple, display: tuple, gp: bool) -> set[int]:
    """Every bid N that the player could carry out on this display (SPEC §3)."""
    top = ceiling(towers, display, gp)
    return {n for n in range(top + 1) if feasible(bid_snap(towers, pile, display, n, gp))}


# -- independent scoring (SPEC §4, §5) -------------------------------------------------------

def score(towers: tuple, pile: tuple, gp: bool) -> int:
    total = 0
    for tw in towers:
        total += len(tw) * (2 if 0 in tw else 1)
    total += max(len(tw) for tw in towers)
    m = len(pile)
    total -= m * (m + 1) // 2
    if gp:
        total += 3 * sum(min(list(towers[SCARY]).count(v), list(towers[CANDY]).count(v)) for v in range(16))
    return total


def tower_valid(tw: tuple) -> bool:
    """SPEC §2: pairwise placeable bottom to top, a 0 only at the top."""
    if any(v == 0 for v in tw[:-1]):
        return False
    return all(can_place(a, b) for a, b in zip(tw, tw[1:]))
