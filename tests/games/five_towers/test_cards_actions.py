"""SPEC §1 (card sets), §2 (can_place) and §7 (action names)."""
from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import (
    CARD_NAMES,
    DOUBLED_VALUES,
    TYPES,
    can_place,
    card_id,
    card_name,
    card_set,
    card_set_counts,
    parse_card,
)

SPEC_TYPES = ("candy", "scary", "tree", "scrap", "sand")


def test_type_order():
    assert TYPES == SPEC_TYPES


@pytest.mark.parametrize("n,size", [(2, 80), (3, 80), (4, 110), (5, 110)])
def test_card_set_sizes(n, size):
    cards = card_set(n)
    assert len(cards) == size
    assert sum(card_set_counts(n)) == size
    counts = Counter(cards)
    for t in range(5):
        for v in range(16):
            want = 2 if n >= 4 and v in (0, 2, 5, 7, 10, 12) else 1
            assert counts[card_id(t, v)] == want, (n, TYPES[t], v)
            assert card_set_counts(n)[card_id(t, v)] == want


def test_doubled_values():
    assert tuple(sorted(DOUBLED_VALUES)) == (0, 2, 5, 7, 10, 12)


def test_card_names():
    assert len(set(CARD_NAMES)) == 80
    for t, tn in enumerate(SPEC_TYPES):
        for v in range(16):
            assert card_name(card_id(t, v)) == f"{tn}-{v}"
            assert parse_card(f"{tn}-{v}") == card_id(t, v)


@pytest.mark.parametrize("bad", ["candy-16", "candy--1", "Candy-1", "candy1", "gold-3", "candy-01", "", 5, None])
def test_parse_card_rejects(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def _spec_can_place(below: int, card: int) -> bool:
    if below == 0:
        return False
    if below == 8:
        return True
    if card == 9:
        return True
    return card < below


def test_can_place_full_table():
    for below in range(16):
        for card in range(16):
            assert can_place(below, card) == _spec_can_place(below, card), (below, card)


@pytest.mark.parametrize("below,card,ok", [
    (0, 0, False), (0, 9, False), (0, 15, False),       # nothing on a 0
    (8, 15, True), (8, 8, True), (8, 0, True),          # anything on an 8
    (3, 9, True), (15, 9, True), (9, 9, True),          # a 9 on anything but 0
    (10, 9, True), (10, 3, True), (10, 10, False), (10, 11, False),
    (1, 0, True), (1, 1, False), (9, 8, True), (9, 10, False), (7, 8, False),
])
def test_can_place_examples(below, card, ok):
    assert can_place(below, card) is ok


# -- actions ------------------------------------------------------------------------------

_CARD = r"(candy|scary|tree|scrap|sand)-(0|[1-9]|1[0-5])"
SPEC_NAME = re.compile(
    rf"^(bid (0|[1-9][0-9]*)|pass|take {_CARD}|stop|teardown (candy|scary|tree|scrap|sand)|no teardown"
    rf"|build {_CARD}|build sand-(0|[1-9]|1[0-5]) bottom|recover {_CARD}|recover sand-(0|[1-9]|1[0-5]) bottom"
    rf"|no recover)$")


def test_round_trip_every_id():
    names = [A.action_name(a) for a in range(A.NUM_ACTIONS)]
    assert len(set(names)) == A.NUM_ACTIONS, "two ids share a name"
    for a, n in enumerate(names):
        assert A.action_from_name(n) == a
        assert A.action_name(np.int64(a)) == n


def test_names_match_spec_spelling():
    for a in range(A.NUM_ACTIONS):
        assert SPEC_NAME.match(A.action_name(a)), A.action_name(a)


def test_every_spec_name_exists():
    want = {f"bid {n}" for n in range(A.MAX_BID + 1)} | {"pass", "stop", "no teardown", "no recover"}
    for c in CARD_NAMES:
        want |= {f"take {c}", f"build {c}", f"recover {c}"}
    for t in SPEC_TYPES:
        want.add(f"teardown {t}")
    for v in range(16):
        want |= {f"build sand-{v} bottom", f"recover sand-{v} bottom"}
    assert want == set(A.ACTION_NAMES)


def test_max_bid_covers_great_powers_ceiling():
    # 5 non-tree display cards + an untopped tree tower: at most 20 tree cards without a 0
    # (the 4-5 player set has 22 tree cards, two of them 0s)
    assert A.MAX_BID >= 25


def test_helpers_agree_with_names():
    for c in range(80):
        assert A.action_name(A.take_action(c)) == f"take {CARD_NAMES[c]}"
        assert A.action_name(A.build_action(c)) == f"build {CARD_NAMES[c]}"
        assert A.action_name(A.recover_action(c)) == f"recover {CARD_NAMES[c]}"
    for v in range(16):
        assert A.action_name(A.build_action(card_id(4, v), bottom=True)) == f"build sand-{v} bottom"
        assert A.action_name(A.recover_action(card_id(4, v), bottom=True)) == f"recover sand-{v} bottom"
    for n in range(A.MAX_BID + 1):
        assert A.action_name(A.bid_action(n)) == f"bid {n}"


@pytest.mark.parametrize("bad", [-1, A.NUM_ACTIONS, A.NUM_ACTIONS + 5, 10**9, 1.5, "3", None])
def test_out_of_range_ids_raise(bad):
    with pytest.raises(ValueError):
        A.action_name(bad)


@pytest.mark.parametrize("bad", ["bid 26", "bid -1", "take candy-16", "build tree-3 bottom", "teardown gold",
                                 "recover sand-16 bottom", "stop now", "Pass", "", "bid", "take", "no  teardownx"])
def test_unknown_names_raise(bad):
    with pytest.raises(ValueError) as err:
        A.action_from_name(bad)
    assert repr(bad) in str(err.value) or bad in str(err.value)
