"""The builder's part of a round as pure transitions (SPEC §3 take, §5 teardown, build, recover).

Once the bidding is won, everything left of the round is the builder's, and all of it is public
and deterministic. :class:`Round` is that part as one small immutable value, :func:`step`
applies one action to it, and :func:`moves` lists every move the rules allow from it (dead ends
included: the look-ahead that keeps dead ends out of the legal actions is
:mod:`~five_towers_env.games.five_towers.lookahead`'s job). :class:`~five_towers_env.games.five_towers.state.GameState`
applies its take, teardown, build and recover actions through :func:`step`, and agents that
search the builder's decisions walk :func:`moves`: the transitions exist once.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import CARD_NAMES, NUM_VALUES, SAND, SCRAP, TREE
from five_towers_env.games.five_towers.lookahead import (
    END_NONE,
    build_ok,
    each_distinct,
    insert_one,
    pay_tree,
    payable,
    placements,
    remove_one,
    take_ok,
    teardown_ok,
    teardown_options,
)

TAKE, TEARDOWN, BUILD, RECOVER, DONE = 1, 2, 3, 4, 6  # TAKE..RECOVER are the engine's phase numbers


class Round(NamedTuple):
    """The builder's side of a round: everything their remaining decisions depend on."""

    phase: int        # TAKE, TEARDOWN, BUILD, RECOVER, or DONE once every card is built
    towers: tuple     # the builder's 5 towers, bottom to top
    pile: tuple       # the builder's teardown pile (sorted card ids)
    hand: tuple       # cards taken and not yet built (sorted)
    display: tuple    # cards still on the display (sorted)
    need: int         # cards still to take or pay for (take phase), else 0
    took_tree: bool   # a tree card was taken this round (no paying with tree cards then)
    sand_end: int     # END_NONE / END_TOP / END_BOTTOM: the end this round's sand additions use


def _phase_after_build(card: int, pile: tuple, hand: tuple, gp: bool) -> int:
    # SPEC §5 scrap power: adding a scrap card with cards on the teardown pile offers a recover
    if gp and card // NUM_VALUES == SCRAP and pile:
        return RECOVER
    return BUILD if hand else DONE


def _after_build(r: Round, towers: tuple, pile: tuple, hand: tuple, sand_end: int, card: int, gp: bool) -> Round:
    return Round(_phase_after_build(card, pile, hand, gp), towers, pile, hand, r.display, r.need, r.took_tree,
                 sand_end)


def _placed(towers: tuple, card: int, sand_end: int, bottom: bool) -> tuple[tuple, int]:
    # Great Powers sand card: the placement the action names (on top, or under the tower)
    for new_towers, end, at_bottom in placements(towers, card, sand_end, True):
        if at_bottom == bottom:
            return new_towers, end
    raise ValueError(f"{CARD_NAMES[card]} cannot be placed {'under' if bottom else 'on'} its tower")


def step(r: Round, action: int, gp: bool) -> Round:
    """The round after ``action``, which the caller has checked is legal (or took from :func:`moves`)."""
    return run(r, (action,), gp)[0]


def run(r: Round, actions: Sequence[int], gp: bool) -> tuple[Round, int]:
    """Apply ``actions`` in turn (each legal where it comes) until they run out or the round is
    done; return the round after them and how many were applied.

    This is the one definition of the builder's transitions (:func:`step` is ``run`` of one
    action). A whole sequence is applied without building a :class:`Round` per move, which is
    what makes a search rollout's round cheap.
    """
    fields, done = run_fields(r, actions, gp)
    return Round(*fields), done


def run_fields(r: tuple, actions: Sequence[int], gp: bool) -> tuple[tuple, int]:
    """:func:`run` on a plain tuple of the :class:`Round` fields, in their order, giving back a
    plain tuple: for the engine's own bookkeeping, which reads the fields and needs no ``Round``."""
    phase, towers, pile, hand, display, need, took_tree, sand_end = r
    done = 0
    for action in actions:
        done += 1
        if phase == TAKE:
            if action == A.STOP:  # Great Powers: pay the cards still needed from the tree tower's top
                towers = pay_tree(towers, need)
                need = 0
                phase = TEARDOWN
                continue
            c = action - A.TAKE
            need -= 1
            hand = insert_one(hand, c)
            display = remove_one(display, c)
            took_tree = took_tree or c // NUM_VALUES == TREE
            if need == 0:
                phase = TEARDOWN
            continue
        if phase == TEARDOWN:
            if action != A.NO_TEARDOWN:
                t = action - A.TEARDOWN
                tw = towers[t]
                towers = towers[:t] + (tw[:-1],) + towers[t + 1:]
                pile = insert_one(pile, t * NUM_VALUES + tw[-1])
            phase = BUILD if hand else DONE
        elif phase == BUILD or phase == RECOVER:
            if phase == RECOVER and action == A.NO_RECOVER:
                phase = BUILD if hand else DONE
            else:
                if phase == BUILD:
                    bottom = action >= A.BUILD_BOTTOM
                    c = action - A.BUILD_BOTTOM + SAND * NUM_VALUES if bottom else action - A.BUILD
                    hand = remove_one(hand, c)
                else:
                    bottom = action >= A.RECOVER_BOTTOM
                    c = action - A.RECOVER_BOTTOM + SAND * NUM_VALUES if bottom else action - A.RECOVER
                    pile = remove_one(pile, c)
                t, v = divmod(c, NUM_VALUES)
                if gp and t == SAND:  # the sand power: the end the action names
                    towers, sand_end = _placed(towers, c, sand_end, bottom)
                else:  # onto the top of its tower, or a new tower
                    towers = towers[:t] + (towers[t] + (v,),) + towers[t + 1:]
                phase = _phase_after_build(c, pile, hand, gp)
        else:
            raise ValueError(f"no builder move in phase {phase}")
        if phase == DONE:
            break
    return (phase, towers, pile, hand, display, need, took_tree, sand_end), done


def moves(r: Round, gp: bool) -> list[tuple[int, Round]]:
    """``(action, round after it)`` for every move the rules allow, dead ends included."""
    phase = r.phase
    out: list[tuple[int, Round]] = []
    if phase == TAKE:
        for c, _ in each_distinct(r.display):
            out.append((A.TAKE + c, step(r, A.TAKE + c, gp)))
        if gp and not r.took_tree and 0 < r.need <= payable(r.towers, True):
            out.append((A.STOP, step(r, A.STOP, gp)))
    elif phase == TEARDOWN:
        after = BUILD if r.hand else DONE
        for t, towers, pile in teardown_options(r.towers, r.pile):
            out.append((A.NO_TEARDOWN if t < 0 else A.TEARDOWN + t,
                        Round(after, towers, pile, r.hand, r.display, r.need, r.took_tree, r.sand_end)))
    elif phase == BUILD:
        for c, rest in each_distinct(r.hand):
            for towers, end, bottom in placements(r.towers, c, r.sand_end, gp):
                out.append((A.build_action(c, bottom), _after_build(r, towers, r.pile, rest, end, c, gp)))
    elif phase == RECOVER:
        out.append((A.NO_RECOVER, r._replace(phase=BUILD if r.hand else DONE)))
        for c, rest in each_distinct(r.pile):
            for towers, end, bottom in placements(r.towers, c, r.sand_end, True):
                out.append((A.recover_action(c, bottom), _after_build(r, towers, rest, r.hand, end, c, gp)))
    return out


def round_ok(r: Round, gp: bool) -> bool:
    """Can the builder still finish the round from ``r`` (build every card the rules make them)."""
    phase = r.phase
    if phase == DONE:
        return True
    if phase == TEARDOWN:
        return teardown_ok(r.towers, r.hand, r.pile, gp)
    if phase == TAKE:
        return take_ok(r.towers, r.pile, r.display, r.hand, r.need, r.took_tree, gp)
    return build_ok(r.towers, r.hand, r.pile, r.sand_end, phase == RECOVER, gp)


def start(towers: tuple, pile: tuple, display: tuple, need: int) -> Round:
    """The builder's round right after winning the bidding with a bid of ``need`` cards."""
    return Round(TAKE, towers, pile, (), display, need, False, END_NONE)


__all__ = ["Round", "step", "run", "run_fields", "moves", "round_ok", "start", "TAKE", "TEARDOWN", "BUILD", "RECOVER",
           "DONE"]
