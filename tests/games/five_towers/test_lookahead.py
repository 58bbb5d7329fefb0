"""The masks look ahead exactly (SPEC §3): checked against the independent brute-force oracle.

For sampled states of random games and of random synthetic positions (both variants, 2..5
players):

* every engine-legal action is allowed by the rules, leads to the same state as the oracle's own
  transition, and leaves a way to build every card;
* every move the rules allow that the engine does not offer is a dead end;
* a bid is legal iff the oracle finds a take/stop/teardown/build completion for it.

The look-ahead shortcuts are cross-checked too: ``build_ok``/``teardown_ok`` with ``gp=False``
against the oracle, and the general (Great Powers) search with the powers inert against the
per-type base path.
"""
from __future__ import annotations

import json
import os
import random

import numpy as np
import pytest

from five_towers_env.games.five_towers import GameState, load_position, lookahead_base, lookahead_gp, save_position
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers import lookahead as L
from five_towers_env.games.five_towers.cards import can_place, card_set
from five_towers_env.games.five_towers.state import Phase

import oracle as O

VARIANTS = ("base", "great_powers")
PLAYERS = (2, 3, 4, 5)


def _where(s: GameState) -> str:
    pos = save_position(s)
    pos.pop("deck")
    pos["rest"] = "deck"
    extra = {"phase": s.phase_name, "builder": s.builder, "bid": s.target, "taken": s.taken, "paid": s.paid,
             "torn": s.torn, "sand_end": s.sand_end}
    return json.dumps({"position": pos, "round": extra})


# -- the checks ---------------------------------------------------------------------------

def check_round_step(s: GameState) -> int:
    """Check the masks of a take/teardown/build/recover state; return the number of moves judged."""
    snap = O.snap_from_state(s)
    if s.phase == Phase.TAKE:
        assert snap.took_tree == s.took_tree
    assert O.feasible(snap), f"a state reached by legal moves is a dead end: {_where(s)}"
    rules = O.moves(snap)
    legal = {A.action_name(a): a for a in s.legal_actions()}
    assert set(legal) <= set(rules), f"engine offers moves the rules forbid: {set(legal) - set(rules)} at {_where(s)}"
    b = s.builder
    for name, nxt in rules.items():
        ok = O.feasible(nxt)
        if name not in legal:
            assert not ok, f"mask too strict: {name!r} can still be completed but is not offered at {_where(s)}"
            continue
        assert ok, f"mask too loose: {name!r} leads to a dead end at {_where(s)}"
        c = s.clone()
        c.apply_action(legal[name])
        if c.rounds_played > s.rounds_played or c.is_terminal():
            assert nxt.phase == "done", (name, nxt, _where(s))
            assert c.towers[b] == nxt.towers and tuple(sorted(c.piles[b])) == nxt.pile, (name, _where(s))
        else:
            got = O.snap_from_state(c)
            assert got == nxt, f"{name!r}: engine -> {got}, rules -> {nxt} at {_where(s)}"
    return len(rules)


def check_bids(s: GameState, all_seats: bool = False) -> None:
    """Legal bids of the player to act (and, with ``all_seats``, every seat's bid mask) = the oracle's."""
    p = s.current_player
    first = s.bid_turn == 0
    low = 0 if first else s.high_bid + 1
    ach = O.achievable_bids(s.towers[p], s.piles[p], s.display, s.gp)
    want = {f"bid {k}" for k in ach if k >= low} | (set() if first else {"pass"})
    got = {A.action_name(a) for a in s.legal_actions()}
    assert got == want, \
        f"seat {p}: legal {sorted(got - want)} should not be, {sorted(want - got)} should be, at {_where(s)}"
    if all_seats:
        for q in range(s.num_players):
            ach = O.achievable_bids(s.towers[q], s.piles[q], s.display, s.gp)
            mask = s.bid_mask(q)
            engine = {k for k in range(A.MAX_BID + 1) if mask >> k & 1}
            assert engine == ach, f"seat {q}: bid mask {sorted(engine)}, achievable {sorted(ach)} at {_where(s)}"


# -- states from random games -------------------------------------------------------------

GAME_SAMPLES = {"base": (6, 0.5, 0.2), "great_powers": (3, 0.5, 0.2)}  # games, round-step rate, bid rate


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_masks_on_random_games(n, variant):
    games, step_rate, bid_rate = GAME_SAMPLES[variant]
    judged = bids = 0
    for g in range(games):
        rng = random.Random(77 * n + g)
        s = GameState.new_game(n, variant, np.random.default_rng(77 * n + g), start_player=g % n)
        while not s.is_terminal():
            if s.phase == Phase.BID:
                if rng.random() < bid_rate:
                    check_bids(s, all_seats=s.bid_turn == 0)
                    bids += 1
            elif rng.random() < step_rate:
                judged += check_round_step(s)
            s.apply_action(rng.choice(s.legal_actions()))
    assert judged > 100 and bids > 20


# -- random synthetic positions -------------------------------------------------------------

def random_tower(rng: random.Random, pool: list[int], t: int, gp: bool) -> list[int]:
    """A random valid tower of type ``t`` from the cards in ``pool`` (removed from it)."""
    values = [c % 16 for c in pool if c // 16 == t]
    if not values:
        return []
    tower: list[int] = []
    length = rng.choice([1, 2, 3, 4, 5, 6, 8, 10])
    for _ in range(40):
        if len(tower) >= length or (tower and tower[-1] == 0) or not values:
            break
        # favour 8s and 9s, which make long and odd towers
        v = rng.choice(values + [x for x in values if x in (8, 9)] * 2)
        if v == 0 and rng.random() < 0.7:
            continue
        if not tower or can_place(tower[-1], v):
            tower.append(v)
            values.remove(v)
            pool.remove(t * 16 + v)
    return tower


def random_position(rng: random.Random, n: int, variant: str) -> dict:
    gp = variant == "great_powers"
    pool = list(card_set(n))
    rng.shuffle(pool)
    players = []
    for _ in range(n):
        towers = {}
        for t, name in enumerate(O.TYPES):
            p = 0.85 if gp and name in ("scrap", "sand", "tree") else 0.6
            if rng.random() < p:
                tw = random_tower(rng, pool, t, gp)
                if tw:
                    towers[name] = tw
        pile = []
        for _ in range(rng.choice([0, 0, 1, 2, 3, 4, 6])):
            choices = [c for c in pool if c % 16 and (not gp or rng.random() < 0.5 or c // 16 == 3)]
            if choices:
                c = rng.choice(choices)
                pool.remove(c)
                pile.append(O.name(c))
        players.append({"towers": towers, "teardown": pile})
    k = rng.choice([1, 2, 3, 5, 5, 5, 5])
    display = []
    if gp:  # make the powers matter: scrap and sand cards in the display
        favoured = [c for c in pool if c // 16 in (3, 4)]
        display = rng.sample(favoured, min(len(favoured), rng.randint(0, min(3, k))))
        for c in display:
            pool.remove(c)
    while len(display) < k:
        display.append(pool.pop())
    return {"variant": variant, "num_players": n, "start_player": rng.randrange(n),
            "display": [O.name(c) for c in display], "rest": "deck", "players": players}


SYNTHETIC = {"base": 60, "great_powers": 40}  # positions per player count


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_masks_on_random_positions(n, variant):
    assert check_random_positions(n, variant, range(SYNTHETIC[variant])) > 50


@pytest.mark.soak
@pytest.mark.skipif(os.environ.get("FIVE_TOWERS_SOAK") != "1", reason="soak: set FIVE_TOWERS_SOAK=1")
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_soak_masks_on_random_positions(n, variant):
    check_random_positions(n, variant, range(10_000, 12_000))


def check_random_positions(n: int, variant: str, seeds) -> int:
    judged = 0
    for i in seeds:
        rng = random.Random(1000 * n + i + (0 if variant == "base" else 500_000))
        pos = random_position(rng, n, variant)
        s = load_position(pos, np.random.default_rng(i))
        check_bids(s, all_seats=True)
        # play out the round with random legal moves, judging every step
        r = s.rounds_played
        while s.rounds_played == r and not s.is_terminal():
            if s.phase == Phase.BID:
                check_bids(s)
                legal = s.legal_actions()
                # prefer bidding high, so that the round has a builder with a hard job
                bids = [a for a in legal if a != A.PASS]
                a = max(bids) if bids and rng.random() < 0.6 else rng.choice(legal)
            else:
                judged += check_round_step(s)
                a = rng.choice(s.legal_actions())
            s.apply_action(a)
    return judged


def test_stop_masked_when_paying_leaves_a_dead_end():
    """Great Powers: after ``take candy-5`` only ``take scrap-4`` completes the round (scrap-4 lets
    the builder recover candy-9 onto the 3, and candy-5 goes on the 9); ``stop`` is allowed by the
    rules but is a dead end, so the engine must not offer it."""
    pos = {"variant": "great_powers", "num_players": 2, "display": ["candy-5", "scrap-4"],
           "players": [{"towers": {"candy": [4, 3], "tree": [15, 14]}, "teardown": ["candy-9"]}, {}]}
    s = load_position(pos, np.random.default_rng(0))
    check_bids(s, all_seats=True)
    assert {A.action_name(a) for a in s.legal_actions()} == {"bid 0", "bid 1", "bid 2", "bid 3", "bid 4"}
    s.apply_action(A.action_from_name("bid 2"))  # seat 1's ceiling is 2: bidding ends
    assert s.phase == Phase.TAKE
    check_round_step(s)
    s.apply_action(A.action_from_name("take candy-5"))
    check_round_step(s)
    assert "stop" in O.moves(O.snap_from_state(s))
    assert {A.action_name(a) for a in s.legal_actions()} == {"take scrap-4"}
    s.apply_action(A.action_from_name("take scrap-4"))
    for name in ("no teardown", "build scrap-4", "recover candy-9", "build candy-5"):
        check_round_step(s)
        s.apply_action(A.action_from_name(name))
    assert s.phase == Phase.BID and s.towers[0][0] == (4, 3, 9, 5) and s.piles[0] == ()


# -- the look-ahead shortcuts ---------------------------------------------------------------

def random_build_case(rng: random.Random, gp: bool):
    pos = random_position(rng, rng.choice([2, 4]), "great_powers" if gp else "base")
    seat = pos["players"][0]
    towers = tuple(tuple(seat["towers"].get(t, ())) for t in O.TYPES)
    pile = tuple(sorted(O.cid(O.TYPES.index(x.split("-")[0]), int(x.split("-")[1])) for x in seat["teardown"]))
    used = {O.name(O.cid(t, v)) for t in range(5) for v in towers[t]} | set(seat["teardown"])
    free = [c for c in range(80) if O.name(c) not in used]
    hand = tuple(sorted(rng.sample(free, rng.randint(1, 6))))
    return towers, pile, hand


def _build_snap(towers, pile, hand, gp: bool, phase: str = "build") -> O.Snap:
    return O.Snap(phase if hand else "done", gp, towers, pile, (), hand, 0, False, O.NONE)


def test_base_build_and_teardown_ok_against_oracle():
    rng = random.Random(5)
    seen = {True: 0, False: 0}
    for _ in range(2500):
        towers, pile, hand = random_build_case(rng, gp=False)
        want = O.feasible(_build_snap(towers, pile, hand, False))
        assert L.build_ok(towers, hand, pile, L.END_NONE, False, False) == want, (towers, pile, hand)
        want_t = O.feasible(O.Snap("teardown", False, towers, pile, (), hand, 0, False, O.NONE))
        assert L.teardown_ok(towers, hand, pile, False) == want_t, (towers, pile, hand)
        assert L.base_hand_ok(tuple(L.top_of(tw) for tw in towers), hand) == want
        seen[want_t] += 1
    assert min(seen.values()) > 200


def test_gp_build_and_teardown_ok_against_oracle():
    rng = random.Random(6)
    seen = {True: 0, False: 0}
    for _ in range(1200):
        towers, pile, hand = random_build_case(rng, gp=True)
        for end in (O.NONE, O.TOP, O.BOTTOM):
            code = {O.NONE: L.END_NONE, O.TOP: L.END_TOP, O.BOTTOM: L.END_BOTTOM}[end]
            want = O.feasible(O.Snap("build", True, towers, pile, (), hand, 0, False, end))
            assert L.build_ok(towers, hand, pile, code, False, True) == want, (towers, pile, hand, end)
            if pile:
                want_r = O.feasible(O.Snap("recover", True, towers, pile, (), hand, 0, False, end))
                assert L.build_ok(towers, hand, pile, code, True, True) == want_r, (towers, pile, hand, end)
        want_t = O.feasible(O.Snap("teardown", True, towers, pile, (), hand, 0, False, O.NONE))
        assert L.teardown_ok(towers, hand, pile, True) == want_t, (towers, pile, hand)
        seen[want_t] += 1
    assert min(seen.values()) > 100


def test_general_search_with_inert_powers_matches_per_type_path():
    """With no teardown pile and no sand card in hand the powers cannot act: the general Great
    Powers search must then agree with the base per-type path (and with teardown, no scrap either)."""
    rng = random.Random(7)
    agree = 0
    for _ in range(3000):
        towers, _, hand = random_build_case(rng, gp=rng.random() < 0.5)
        hand = tuple(c for c in hand if c // 16 != O.SAND)
        if not hand:
            continue
        base = L.build_ok(towers, hand, (), L.END_NONE, False, False)
        assert lookahead_gp._gp_ok(towers, hand, (), L.END_NONE) == base, (towers, hand)
        assert L.build_ok(towers, hand, (), L.END_NONE, False, True) == base, (towers, hand)
        no_scrap = tuple(c for c in hand if c // 16 != O.SCRAP)
        if no_scrap:
            assert L.teardown_ok(towers, no_scrap, (), True) == L.teardown_ok(towers, no_scrap, (), False), \
                (towers, no_scrap)
        agree += 1
    assert agree > 1000


@pytest.mark.parametrize("n", (2, 4))
def test_gp_per_type_paths_match_the_general_search(n):
    """Great Powers build and teardown masks take the per-type path when no recover can come (builds:
    no scrap card in hand or an empty pile; teardowns: no scrap card in hand): it must list exactly
    the moves the general search keeps."""
    plain = {Phase.BUILD: 0, Phase.TEARDOWN: 0}
    general = dict(plain)
    for g in range(12):
        rng = random.Random(500 + g)
        s = GameState.new_game(n, "great_powers", np.random.default_rng(500 + g))
        while not s.is_terminal():
            p = s.builder
            if s.phase == Phase.BUILD:
                per_type = L.plain_builds(s.towers[p], s.hand, s.piles[p], s.sand_end, True)
            elif s.phase == Phase.TEARDOWN:
                per_type = L.plain_teardowns(s.towers[p], s.hand, s.sand_end, True)
            if s.phase in plain:
                if per_type is None:
                    general[s.phase] += 1
                else:
                    plain[s.phase] += 1
                    assert s.legal_actions() == s._legal_moves(), _where(s)
            s.apply_action(rng.choice(s.legal_actions()))
    assert min(plain.values()) > 100 and min(general.values()) > 10, (plain, general)


def test_achievable_bids_against_oracle():
    rng = random.Random(8)
    for i in range(400):
        gp = i % 2 == 1
        n = rng.choice(PLAYERS)
        pos = random_position(rng, n, "great_powers" if gp else "base")
        s = load_position(pos, np.random.default_rng(i))
        for q in range(n):
            ach = O.achievable_bids(s.towers[q], s.piles[q], s.display, gp)
            mask = L.achievable_bids(s.towers[q], s.piles[q], tuple(sorted(s.display)), gp)
            assert {k for k in range(A.MAX_BID + 1) if mask >> k & 1} == ach, _where(s)
            assert max(ach) <= O.ceiling(s.towers[q], s.display, gp)


# -- the oracle itself, on hand-made cases (so that a wrong oracle cannot agree with a wrong engine) --

def _snap(phase, towers=None, hand=(), pile=(), display=(), need=0, gp=False, end=O.NONE):
    tw = [()] * 5
    for name, values in (towers or {}).items():
        tw[O.TYPES.index(name)] = tuple(values)
    def ids(names):
        return tuple(sorted(O.cid(O.TYPES.index(x.split("-")[0]), int(x.split("-")[1])) for x in names))

    return O.Snap(phase, gp, tuple(tw), ids(pile), ids(display), ids(hand), need, False, end)


@pytest.mark.parametrize("snap,ok", [
    # SPEC §9 example: candy-4 only after tearing down the 3 (then it goes on the 12)
    (_snap("teardown", {"candy": [12, 3, 9], "scary": [6, 0]}, hand=["candy-4"]), True),
    (_snap("build", {"candy": [12, 3, 9], "scary": [6, 0]}, hand=["candy-4"]), True),
    (_snap("build", {"candy": [12, 3], "scary": [6, 0]}, hand=["candy-4"]), False),
    (_snap("teardown", {"scary": [6, 0]}, hand=["scary-2"]), False),  # a 0 is never torn down
    (_snap("build", {}, hand=["tree-0", "tree-5"]), True),  # 5 first, then the 0 on it
    (_snap("build", {"sand": [5]}, hand=["sand-9", "sand-7"]), True),  # 9 on 5, 7 on 9
    (_snap("build", {"sand": [5]}, hand=["sand-6", "sand-7"]), False),  # base: no bottom
    (_snap("build", {"sand": [5]}, hand=["sand-6", "sand-7"], gp=True), True),  # 6 under 5, 7 under 6
    (_snap("build", {"sand": [5]}, hand=["sand-6", "sand-7"], gp=True, end=O.TOP), False),
    (_snap("build", {"sand": [5]}, hand=["sand-3", "sand-7"], gp=True), False),  # one end per round
    (_snap("build", {"sand": [5]}, hand=["sand-3", "sand-7"], gp=True, end=O.BOTTOM), False),
    (_snap("build", {"sand": [5, 0]}, hand=["sand-7"], gp=True), False),  # topped: nothing at either end
    (_snap("build", {"candy": [3]}, hand=["scrap-4"], pile=["candy-8"], gp=True), True),
    # scrap: recover candy-9 onto the 3, then candy-5 goes on the 9
    (_snap("build", {"candy": [3], "scrap": [6]}, hand=["scrap-4", "candy-5"], pile=["candy-9"], gp=True), True),
    (_snap("build", {"candy": [3], "scrap": [6]}, hand=["scrap-4", "candy-5"], pile=["candy-9"]), False),
    (_snap("build", {"candy": [3], "scrap": [6]}, hand=["candy-5", "scrap-4"], pile=["candy-8"], gp=True), False),
    (_snap("build", {"candy": [4], "scrap": [9]}, hand=["scrap-7", "candy-8"], pile=["scrap-5", "candy-9"],
           gp=True), True),
    (_snap("build", {"candy": [4], "scrap": [9]}, hand=["scrap-7", "candy-8"], pile=["scrap-5", "candy-7"],
           gp=True), False),
    (_snap("recover", {"candy": [4], "scrap": [9, 7]}, hand=["candy-8"], pile=["scrap-5", "candy-9"],
           gp=True), True),
    (_snap("take", {"tree": [15, 14, 13]}, display=["candy-1"], need=4, gp=True), True),  # take 1, pay 3
    (_snap("take", {"tree": [15, 14, 13]}, display=["candy-1"], need=5, gp=True), False),
    (_snap("take", {"tree": [15, 14, 0]}, display=["candy-1"], need=2, gp=True), False),  # topped: no payment
    # no tree card taken if paying
    (_snap("take", {"tree": [15, 14]}, display=["tree-3", "candy-1"], need=4, gp=True), False),
    (_snap("take", {"tree": [15, 14]}, display=["tree-3", "candy-1"], need=3, gp=True), True),  # candy-1 + pay 2
    (_snap("take", {"tree": [15, 14]}, display=["tree-3", "candy-1"], need=2, gp=True), True),
    (_snap("take", {"tree": [15, 14]}, display=["tree-3", "candy-1"], need=3), False),  # base: no payment
])
def test_oracle_hand_made(snap, ok):
    assert O.feasible(snap) is ok


def test_oracle_recovered_scrap_triggers_again():
    s = _snap("recover", {"candy": [4], "scrap": [9, 7]}, hand=["candy-8"], pile=["scrap-5", "scrap-3", "candy-9"],
              gp=True)
    m = O.moves(s)
    assert m["recover scrap-5"].phase == "recover" and m["recover candy-9"].phase == "build"
    assert m["no recover"].phase == "build" and "recover scrap-3" in m
    last = _snap("recover", {"scrap": [9, 7]}, pile=["scrap-5"], gp=True)
    assert O.moves(last)["recover scrap-5"].phase == "done"  # the pile is empty now: no further recover


def test_oracle_scoring_rulebook_example():
    # towers of 4 (no top), 3 (top), 6 (top, main), 2 torn down: 4 + 6 + 12 + 6 - 3 = 25
    towers = ((15, 14, 13, 12), (3, 2, 0), (), (15, 14, 13, 12, 11, 0), ())
    assert O.score(towers, (1, 2), False) == 25
    # SPEC §5: pairs are per value, each card in at most one pair
    towers = ((12, 11, 8, 0), (15, 12, 11, 8), (), (), ())
    assert O.score(towers, (), True) - O.score(towers, (), False) == 9


def test_trimming_the_memos_changes_no_legal_action():
    """``trim_memos`` empties the memos past their limit (a new game calls it); the look-ahead then
    recomputes the same answers."""
    for variant in VARIANTS:
        rng = np.random.default_rng(7)
        s = GameState.new_game(2, variant, np.random.default_rng(7))
        seen = []
        while not s.is_terminal():
            seen.append((s.clone(), list(s.legal_actions())))
            s.apply_action(s.legal_actions()[int(rng.integers(len(s.legal_actions())))])
        assert any(m.cache_info().currsize for m in lookahead_base._MEMOS)
        L.trim_memos(limit=0)
        assert all(m.cache_info().currsize == 0 for m in lookahead_base._MEMOS)
        for state, legal in seen:
            fresh = state.clone()
            fresh._legal = None
            fresh._bid_masks = {}
            fresh._take_rests = None
            assert fresh.legal_actions() == legal
