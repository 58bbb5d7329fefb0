"""The pure Campanile engine (docs/campanile.md, "SPEC Cn"): setup, turns, scoring, the action
codec, illegal actions and the C7 position format."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import numpy as np
import pytest

from five_towers_env.games.campanile import (
    CampanileState,
    IllegalActionError,
    PositionError,
    load_position,
    save_position,
    score_towers,
)
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.rules import (
    CHIPS,
    NUM_TOWERS,
    TOWERS,
    backers,
    cards_per_style,
    flag_order,
    leftover_count,
    pile_size,
    ranked_backers,
)
from five_towers_env.games.five_towers import IllegalActionError as FiveTowersIllegal
from five_towers_env.games.five_towers import PositionError as FiveTowersPositionError

PLAYERS = (2, 3, 4, 5)
VARIANTS = ("pile", "played")


def random_states(seed: int, games: int, n: int | None = None, variant: str | None = None):
    """Yield every state of ``games`` random games (both phases and the end), as clones."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        s = CampanileState.new_game(n or PLAYERS[g % 4], variant or VARIANTS[g % 2], rng,
                                    bet_chip="exact" if g % 5 == 4 else "at_least")
        yield s.clone()
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            yield s.clone()


def snapshot(s: CampanileState) -> tuple:
    """Everything a transition could change, hidden parts included."""
    return (json.dumps(save_position(s)), tuple(s.revealed), tuple(s.cards_played), s.turns, s.leftover,
            tuple(s.legal_actions()), s.current_player)


def state(position: dict) -> CampanileState:
    return load_position(position, np.random.default_rng(0))


def base_position(**kw) -> dict:
    pos = {"game": "campanile", "num_players": 2, "hands": [["A", "B", "C"], ["C", "D", "E"]],
           "piles": [["A", "B"], ["C", "D"], ["E", "A"]]}
    pos.update(kw)
    return pos


# -- the action codec (SPEC C6) --------------------------------------------------------------

def test_action_codec_round_trips_every_id():
    assert A.NUM_ACTIONS == 31
    names = [A.action_name(a) for a in range(A.NUM_ACTIONS)]
    assert len(set(names)) == 31
    for a, name in enumerate(names):
        assert A.action_from_name(name) == a
        assert A.action_from_name("  " + name.replace(" ", "  ") + " ") == a  # spacing is forgiven
    assert sum(size for _, size, _ in A.BLOCKS) == 31
    assert [first for first, _, _ in A.BLOCKS] == [A.PLAY, A.NO_BET, A.BET]


def test_action_names_and_helpers_agree():
    for t, tower in enumerate(TOWERS):
        for k in (1, 2, 3):
            a = A.play_action(t, k)
            assert A.action_name(a) == f"play {tower} {k}" and A.decode(a) == ("play", t, k)
            b = A.bet_action(k, t)
            assert A.action_name(b) == f"bet {k} on {tower}" and A.decode(b) == ("bet", t, k)
    assert A.action_name(A.NO_BET) == "no bet" and A.decode(A.NO_BET) == ("no bet", -1, 0)


@pytest.mark.parametrize("bad", [-1, 31, 1.5, "3", None, True])
def test_action_name_rejects_bad_ids(bad):
    with pytest.raises(ValueError):
        A.action_name(bad)


@pytest.mark.parametrize("bad", ["play F 1", "play A 4", "bet 4 on A", "bet 1 on", "pass", ""])
def test_action_from_name_rejects_unknown_names(bad):
    with pytest.raises(ValueError, match="unknown"):
        A.action_from_name(bad)


# -- setup (SPEC C1, C2) ----------------------------------------------------------------------

@pytest.mark.parametrize("n,per_style,piles,leftover", [(2, 9, 13, 0), (3, 11, 15, 1), (4, 13, 17, 2), (5, 14, 18, 1)])
def test_new_game_setup(n, per_style, piles, leftover):
    assert (cards_per_style(n), pile_size(n), leftover_count(n)) == (per_style, piles, leftover)
    for seed in range(5):
        s = CampanileState.new_game(n, "pile", np.random.default_rng(seed))
        assert all(len(h) == 3 for h in s.hands) and len(s.hands) == n
        assert [len(p) for p in s.piles] == [piles] * 3
        assert len(s.leftover) == leftover
        everything = [c for h in s.hands for c in h] + [c for p in s.piles for c in p] + list(s.leftover)
        assert [everything.count(t) for t in range(5)] == [per_style] * 5
        assert s.chips == [CHIPS] * n and s.bets == [()] * 5 and s.heights == [0] * 5
        assert (s.current_player, s.phase_name, s.turns, s.done) == (0, "play", 0, False)
        assert s.revealed == [()] * n and s.cards_played == [0] * 5


def test_new_game_depends_only_on_the_seed():
    a = CampanileState.new_game(4, "pile", np.random.default_rng(7))
    b = CampanileState.new_game(4, "pile", np.random.default_rng(7))
    c = CampanileState.new_game(4, "pile", np.random.default_rng(8))
    assert snapshot(a) == snapshot(b)
    assert snapshot(a) != snapshot(c)


@pytest.mark.parametrize("kwargs,words", [
    ({"num_players": 1}, ["num_players", "1"]),
    ({"num_players": 6}, ["num_players", "6"]),
    ({"num_players": 2.0}, ["num_players"]),
    ({"num_players": True}, ["num_players"]),
    ({"variant": "base"}, ["variant", "base", "pile", "played"]),
    ({"bet_chip": "more"}, ["bet_chip", "more", "exact"]),
])
def test_new_game_rejects_bad_setup(kwargs, words):
    args = {"num_players": 2, "variant": "pile", "bet_chip": "at_least", **kwargs}
    with pytest.raises(ValueError) as err:
        CampanileState.new_game(args["num_players"], args["variant"], np.random.default_rng(0),
                                bet_chip=args["bet_chip"])
    for w in words:
        assert w in str(err.value)


# -- a turn (SPEC C3) -------------------------------------------------------------------------

def test_play_offers_each_style_in_hand_three_ways():
    s = state(base_position(hands=[["B", "B", "E"], ["A", "A", "A"]]))
    assert s.legal_actions() == [A.play_action(1, k) for k in (1, 2, 3)] + [A.play_action(4, k) for k in (1, 2, 3)]
    s.apply_action(A.play_action(4, 2))
    assert (s.phase_name, s.played_tower, s.played_storeys, s.heights) == ("bet", 4, 2, [0, 0, 0, 0, 2])
    assert s.hands[0] == (1, 1) and s.cards_played == [0, 0, 0, 0, 1]


def test_bet_rules_pile_variant_at_least():
    s = state(base_position())  # face up: B, D, A
    s.apply_action(A.play_action(2, 2))
    assert s.bettable_towers() == (0, 1, 3) and s.bettable_values() == (2, 3)
    assert s.legal_actions() == [A.NO_BET] + [A.bet_action(v, t) for t in (0, 1, 3) for v in (2, 3)]


def test_bet_rules_played_variant_and_exact_chip():
    s = state(base_position(variant="played", bet_chip="exact"))
    s.apply_action(A.play_action(2, 1))
    assert s.legal_actions() == [A.NO_BET, A.bet_action(1, 2)]


def test_bet_spends_the_chip_and_draw_follows_the_storeys():
    s = state(base_position())
    s.apply_action(A.play_action(1, 3))
    s.apply_action(A.bet_action(3, 3))
    assert s.bets[3] == ((0, 3),) and s.chips[0] == (5, 3, 0)
    assert s.hands[0] == (0, 0, 2)  # A C kept, the face-up A of pile 3 drawn
    assert s.piles == [[0, 1], [2, 3], [4]] and s.current_player == 1 and s.phase_name == "play"
    assert s.turns == 1


def test_revealed_cards_follow_draws_and_plays():
    s = state(base_position(piles=[["A", "B"], ["C", "D"], ["E", "E", "A"]]))
    assert s.revealed == [(), ()]
    s.apply_action(A.play_action(0, 3))  # plays a dealt A: nothing revealed to lose
    s.apply_action(A.NO_BET)             # draws the face-up A of pile 3
    assert s.hands[0] == (0, 1, 2) and s.revealed[0] == (0,)
    s.apply_action(A.play_action(2, 3))
    s.apply_action(A.NO_BET)             # seat 1 draws an E
    assert s.revealed[1] == (4,)
    s.apply_action(A.play_action(0, 1))  # seat 0 plays an A: the public can no longer place its drawn A
    assert s.revealed[0] == ()
    s.apply_action(A.NO_BET)
    assert s.revealed[0] == (1,)


def test_game_ends_when_the_drawn_pile_empties():
    s = state(base_position(piles=[["A"], ["C", "D"], ["E", "A"]], to_act=1))
    s.apply_action(A.play_action(3, 2))
    s.apply_action(A.NO_BET)
    assert not s.is_terminal() and s.current_player == 0  # pile 2 still holds C
    s.apply_action(A.play_action(1, 1))
    s.apply_action(A.NO_BET)
    assert s.is_terminal() and s.legal_actions() == []
    assert (s.current_player, s.phase, s.phase_name) == (0, 0, "game_over")
    pos = save_position(s)
    assert pos["done"] is True and pos["phase"] == "play" and pos["piles"][0] == []


def test_every_state_has_a_legal_action_until_the_end():
    for s in random_states(1, 60):
        assert bool(s.legal_actions()) != s.is_terminal()
        if not s.is_terminal():
            assert all(p for p in s.piles)
            assert s.legal_actions() == sorted(s.legal_actions())
            if s.phase_name == "bet":
                assert s.legal_actions()[0] == A.NO_BET


# -- illegal actions --------------------------------------------------------------------------

def test_illegal_actions_raise_and_change_nothing():
    rng = np.random.default_rng(3)
    tried = 0
    for s in random_states(2, 30):
        legal = set(s.legal_actions())
        for a in rng.choice(31, size=4, replace=False).tolist():
            if a in legal:
                continue
            before = snapshot(s)
            with pytest.raises(IllegalActionError) as err:
                s.apply_action(a)
            msg = str(err.value)
            assert A.action_name(a) in msg
            for name in (A.action_name(x) for x in legal):
                assert name in msg
            assert snapshot(s) == before
            tried += 1
    assert tried > 500


@pytest.mark.parametrize("bad", [-1, 31, 2.0, "play A 1", None, True, np.bool_(False)])
def test_non_ids_raise_illegal_action(bad):
    s = state(base_position())
    before = snapshot(s)
    with pytest.raises(IllegalActionError):
        s.apply_action(bad)
    assert snapshot(s) == before


def test_numpy_integer_actions_work():
    s = state(base_position())
    s.apply_action(np.int64(A.play_action(0, 1)))
    assert s.phase_name == "bet"


def test_one_error_class_for_both_games():
    assert IllegalActionError is FiveTowersIllegal and PositionError is FiveTowersPositionError


# -- scoring (SPEC C4) ------------------------------------------------------------------------

def test_flag_order_tallest_first_left_breaks_ties():
    assert flag_order([3, 5, 5, 0, 3]) == [1, 2, 0, 4, 3]
    assert flag_order([0, 0, 0, 0, 0]) == [0, 1, 2, 3, 4]


def test_backers_rank_by_stake_then_first_chip():
    assert backers([(2, 1), (1, 2), (2, 1)]) == [(2, 2), (1, 2)]
    assert backers([(0, 1), (1, 3), (0, 1)]) == [(1, 3), (0, 2)]
    assert backers([]) == []


def test_flag_order_and_backers_match_their_definitions_on_random_tables():
    # the fast forms (a stable reversed sort, a memo of tuples) against the rules' words:
    # taller first then further left; larger stake first then earlier first chip
    rng = np.random.default_rng(7)
    for _ in range(2000):
        heights = rng.integers(0, 4, size=NUM_TOWERS).tolist()  # small heights: many ties
        assert flag_order(heights) == sorted(range(NUM_TOWERS), key=lambda t: (-heights[t], t))
        bets = [(int(s), int(v)) for s, v in rng.integers(0, [3, 4], size=(int(rng.integers(0, 6)), 2)) if v]
        stake, first = {}, {}
        for seat, value in bets:
            stake[seat] = stake.get(seat, 0) + value
            first.setdefault(seat, len(first))
        want = sorted(stake.items(), key=lambda sv: (-sv[1], first[sv[0]]))
        assert backers(bets) == want and list(ranked_backers(tuple(bets))) == want


def test_score_towers_flags_backers_and_fifth_tower():
    bets = [((0, 1),), ((1, 1), (0, 1)), ((2, 3), (1, 2), (0, 1)), ((1, 2),), ((0, 3), (1, 3))]
    # order A, B, C, D (all height 0); E fifth scores nothing
    assert score_towers([0] * 5, bets, 3) == [8 + 3 + 0 + 0, 6 + 2 + 2, 4]
    # E tallest: 8/4 to seat 0 (first of equal stakes) and seat 1; A 6/3, B 4/2, C 2/1; D falls out
    assert score_towers([0, 0, 0, 0, 1], bets, 3) == [8 + 6 + 2, 4 + 4 + 1, 2]


def test_stakes_and_stake_table():
    s = state(base_position(bets={"A": [[1, 1], [0, 2], [1, 2]], "C": [[0, 3]]}, chips=[[5, 2, 0], [4, 2, 1]]))
    assert s.stakes(0) == [2, 3] and s.stakes(2) == [3, 0] and s.stakes(4) == [0, 0]
    table = s.stake_table()
    assert table[0] == [(2, 1), (0, -1), (3, 0), (0, -1), (0, -1)]
    assert table[1] == [(3, 0), (0, -1), (0, -1), (0, -1), (0, -1)]
    s.apply_action(A.play_action(0, 1))
    s.apply_action(A.bet_action(1, 0))  # seat 0's third chip under A: its place stays second
    assert s.stake_table()[0][0] == (3, 1) and s.stakes(0) == [3, 3]


def test_returns_and_winners():
    s = state(base_position(piles=[["A"], ["C", "D"], ["E", "A"]], bets={"B": [[1, 1]]}, chips=[[5, 3, 1], [4, 3, 1]]))
    assert s.returns() == [0.0, 0.0]
    s.apply_action(A.play_action(0, 1))
    s.apply_action(A.NO_BET)
    assert s.is_terminal() and s.scores() == [0, 6] and s.winners() == [1] and s.returns() == [-1.0, 1.0]


# -- clone and determinize ----------------------------------------------------------------------

def test_clone_is_independent():
    for s in random_states(4, 3):
        if s.is_terminal():
            continue
        c = s.clone()
        before = snapshot(s)
        c.apply_action(c.legal_actions()[-1])
        assert snapshot(s) == before
        assert c.rng is s.rng
        assert s.clone(rng=np.random.default_rng(1)).rng is not s.rng


def test_determinize_keeps_the_observers_information_and_moves_hidden_cards():
    rng = np.random.default_rng(5)
    moved = 0
    for i, s in enumerate(random_states(6, 20)):
        o = i % s.num_players
        d = s.determinize(o, rng)
        assert d.hands[o] == s.hands[o] and d.revealed == s.revealed and d.face_up() == s.face_up()
        assert [len(p) for p in d.piles] == [len(p) for p in s.piles] and len(d.leftover) == len(s.leftover)
        assert [len(h) for h in d.hands] == [len(h) for h in s.hands]
        for p in range(s.num_players):
            assert all(d.hands[p].count(c) >= d.revealed[p].count(c) for c in set(d.revealed[p]))
        assert d.unseen_counts(o) == s.unseen_counts(o)
        moved += snapshot(d) != snapshot(s)
    assert moved > 100


# -- positions (SPEC C7) ----------------------------------------------------------------------

def test_save_load_round_trip_everywhere():
    for s in random_states(7, 40):
        pos = save_position(s)
        again = load_position(json.loads(json.dumps(pos)))
        assert save_position(again) == pos
        assert again.legal_actions() == s.legal_actions() and again.scores() == s.scores()
        assert again.is_terminal() == s.is_terminal() and again.phase_name == s.phase_name


def test_minimal_position_takes_the_defaults():
    s = state(base_position())
    assert (s.variant, s.bet_chip, s.current_player, s.phase_name) == ("pile", "at_least", 0, "play")
    assert s.heights == [0] * 5 and s.bets == [()] * 5 and s.chips == [CHIPS, CHIPS] and not s.done


def test_load_does_not_change_its_input():
    pos = base_position(bets={"A": [[0, 1]]}, chips=[[4, 3, 1], [5, 3, 1]])
    kept = copy.deepcopy(pos)
    state(pos)
    assert pos == kept


def _bet_phase(**kw) -> dict:
    args = {"hands": [["A", "B"], ["C", "D", "E"]], "phase": "bet", "played": {"tower": "C", "storeys": 2},
            "heights": [0, 0, 2, 0, 0], **kw}
    return base_position(**args)


@pytest.mark.parametrize("pos,words", [
    (base_position(hands=[["A", "A", "A"], ["A", "A", "A"]], piles=[["A", "A"], ["A", "B"], ["A", "C"]]),
     ["A (10x)", "9 of each"]),
    (base_position(num_players=4, hands=[["D"] * 3] * 4, piles=[["D"], ["D"], ["B"]]), ["D (14x)", "13 of each"]),
    (base_position(bets={"C": [[1, 1]]}), ["player 1", "chips", "[6, 3, 1]"]),
    (base_position(chips=[[4, 3, 1], [5, 3, 1]]), ["player 0", "chips", "[4, 3, 1]"]),
    (base_position(chips=[[5, 3, 1]]), ["chips", "one entry per player"]),
    (base_position(chips=[[5, 3, -1], [5, 3, 1]]), ["chips[0]"]),
    (base_position(piles=[["A", "B"], [], ["E", "A"]]), ["pile 2", "empty"]),
    (base_position(hands=[["A", "B"], ["C", "D", "E"]]), ["hands[0]", "2 cards", "expected 3"]),
    (_bet_phase(hands=[["A", "B", "C"], ["C", "D", "E"]]), ["hands[0]", "3 cards", "expected 2"]),
    (base_position(bets={"A": [[2, 1]]}), ["nonexistent seat 2"]),
    (base_position(bets={"A": [[0, 4]]}), ["value 4"]),
    (base_position(bets={"A": [[0]]}), ["[seat, value]"]),
    (base_position(heights=[0, -2, 0, 0, 0]), ["negative", "B=-2"]),
    (base_position(heights=[0, 0, 0]), ["heights", "5"]),
    (base_position(phase="bet", hands=[["A", "B"], ["C", "D", "E"]]), ["'played' is missing"]),
    (base_position(played={"tower": "A", "storeys": 1}), ["'played' is present", "play phase"]),
    (_bet_phase(played={"tower": "G", "storeys": 2}), ["played.tower", "'G'"]),
    (_bet_phase(played={"tower": "C"}), ["played", "storeys"]),
    (base_position(extra=1), ["unknown position key", "extra"]),
    (base_position(bets={"Z": []}), ["unknown tower", "Z"]),
    (base_position(hands=[["A", "B", "c"], ["C", "D", "E"]]), ["hands[0]", "'c'"]),
    (base_position(num_players=1), ["num_players", "1"]),
    (base_position(to_act=-1), ["to_act", "-1"]),
    (base_position(phase="build"), ["phase", "build"]),
    (base_position(variant="base"), ["variant", "base"]),
    (base_position(bet_chip=2), ["bet_chip"]),
    (base_position(game="five_towers"), ["game", "five_towers"]),
    (base_position(done="yes"), ["done"]),
    (_bet_phase(done=True), ["done", "bet"]),
    ({"game": "campanile", "num_players": 2, "piles": []}, ["required", "hands"]),
    ([], ["JSON object"]),
])
def test_load_rejections_name_the_problem(pos, words):
    with pytest.raises(PositionError) as err:
        load_position(pos)
    for w in words:
        assert w in str(err.value), f"{err.value!r} lacks {w!r}"


def test_done_position_may_have_an_empty_pile():
    s = state(base_position(piles=[["A"], [], ["E"]], done=True))
    assert s.is_terminal() and s.legal_actions() == []


def test_engine_imports_no_framework():
    code = ("import sys, five_towers_env.games.campanile as c; c.CampanileState.new_game(2, 'pile'); "
            "bad = [m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
