"""The Campanile PettingZoo AEC environment: API conformance, masks, rewards, errors, rendering,
the documented tables and hidden information (docs/campanile.md C5)."""
from __future__ import annotations

import random
import re
import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

import five_towers_env
from five_towers_env.games import campanile
from five_towers_env.games.campanile import CampanileState, IllegalActionError, PositionError, encode
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.observation import OBS_SIZE, describe, layout_table
from five_towers_env.games.campanile.render import render_text

PLAYERS = (2, 3, 4, 5)
VARIANTS = ("pile", "played")
DOC = (Path(__file__).resolve().parents[3] / "docs" / "campanile.md").read_text()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# -- PettingZoo conformance ---------------------------------------------------------------

# api_test and seed_test for every player count and variant: tests/test_game_conformance.py

def test_api_test_exact_chip():
    api_test(campanile.env(num_players=4, variant="played", bet_chip="exact"), num_cycles=300)


def test_pettingzoo_make():
    if not hasattr(pettingzoo, "make"):
        pytest.skip("pettingzoo.make (PettingZoo's env registry) needs PettingZoo >= 1.27")
    e = pettingzoo.make("aec", "five_towers_env/Campanile-v0", num_players=4, variant="played")
    e.reset(seed=0)
    assert e.possible_agents == [f"player_{i}" for i in range(4)]
    assert e.unwrapped.num_players == 4 and e.unwrapped.variant == "played"
    assert e.metadata["name"] == "campanile_v0" and campanile.ENV_ID == "five_towers_env/Campanile-v0"
    assert pettingzoo.make("aec", five_towers_env.ENV_ID).metadata["name"] == "five_towers_v0"  # unchanged


def test_spaces_are_stable_objects():
    e = campanile.raw_env(num_players=5)
    e.reset(seed=1)
    spaces_before = {a: (e.observation_space(a), e.action_space(a)) for a in e.possible_agents}
    e.step(e.legal_actions()[0])
    for a in e.possible_agents:
        assert e.observation_space(a) is spaces_before[a][0] is e.observation_space(a)
        assert e.action_space(a) is spaces_before[a][1]
        assert e.action_space(a).n == A.NUM_ACTIONS == 31
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
        assert e.observation_space(a)["action_mask"].dtype == np.int8


# -- full games: masks, infos, rewards ------------------------------------------------------------

def play(e, rng: random.Random, check=None, max_steps: int = 1000):
    """Random legal play through agent_iter; the rewards summed per agent and each final info."""
    total = dict.fromkeys(e.possible_agents, 0.0)
    final_infos = {}
    steps = 0
    for agent in e.agent_iter(max_steps):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if check is not None:
            check(e, agent, obs, term, trunc, info)
        if term or trunc:
            final_infos[agent] = info
            e.step(None)
            continue
        e.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
        steps += 1
    assert steps < max_steps and not e.agents and set(final_infos) == set(e.possible_agents)
    return total, final_infos


def _check_step(e, agent, obs, term, trunc, info):
    raw = e.unwrapped
    assert type(term) is bool and type(trunc) is bool
    assert set(info) == set(campanile.aec.INFO_KEYS) and info["phase"] == raw.phase
    for a in raw.possible_agents:
        o = raw.observe(a)
        assert o["action_mask"].dtype == np.int8 and o["action_mask"].shape == (31,)
        assert o["observation"].dtype == np.float32 and o["observation"].shape == (OBS_SIZE,)
        assert raw.observation_space(a).contains(o)
        if raw.game.is_terminal() or a != raw.agent_selection:
            assert not o["action_mask"].any(), f"{a} is not on move but has a non-zero mask"
        else:
            assert np.flatnonzero(o["action_mask"]).tolist() == raw.legal_actions()


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_full_game_masks_infos_rewards(n, variant):
    e = campanile.raw_env(num_players=n, variant=variant)
    e.reset(seed=20 + n)
    total, infos = play(e, random.Random(n), check=_check_step)
    g = e.game
    scores, winners = g.scores(), g.winners()
    for i, a in enumerate(e.possible_agents):
        assert total[a] == (1.0 if i in winners else -1.0)
        assert infos[a]["phase"] == "game_over" and infos[a]["score"] == scores[i]
        assert infos[a]["scores"].tolist() == scores
        assert np.flatnonzero(infos[a]["winners"]).tolist() == winners


def test_rewards_zero_before_the_end():
    e = campanile.raw_env(num_players=3)
    e.reset(seed=2)
    rng = random.Random(2)
    while not e.game.is_terminal():
        assert all(r == 0.0 for r in e.rewards.values())
        assert all(not t for t in e.terminations.values())
        e.step(rng.choice(e.legal_actions()))
    assert sorted(e.rewards.values()) != [0.0] * 3


def test_the_seat_that_ends_the_game_stays_selected():
    e = campanile.raw_env(num_players=2)
    e.reset(options={"position": {"game": "campanile", "num_players": 2, "to_act": 1,
                                  "hands": [["A", "B", "C"], ["C", "D", "E"]],
                                  "piles": [["A"], ["C", "D"], ["E", "A"]]}})
    e.step(e.action_from_name("play C 1"))
    e.step(e.action_from_name("no bet"))
    assert e.game.is_terminal() and e.agent_selection == "player_1"
    assert all(e.terminations.values())
    with pytest.raises(IllegalActionError, match="game is over"):
        e.step(e.action_from_name("play A 1"))


# -- errors ---------------------------------------------------------------------------------

def _snapshot(e):
    return (e.position(), e.legal_actions(), e.agent_selection, dict(e.rewards), dict(e.terminations),
            e.game.revealed[:], e.game.turns)


def test_raw_env_illegal_action_raises_and_changes_nothing():
    e = campanile.raw_env(num_players=3, variant="played")
    e.reset(seed=4)
    rng = random.Random(4)
    tried = 0
    while not e.game.is_terminal():
        legal = set(e.legal_actions())
        for a in rng.sample([x for x in range(31) if x not in legal], 3):
            before = _snapshot(e)
            with pytest.raises(IllegalActionError) as err:
                e.step(a)
            assert A.action_name(a) in str(err.value)
            assert all(name in str(err.value) for name in e.legal_action_names())
            assert _snapshot(e) == before
            tried += 1
        e.step(rng.choice(sorted(legal)))
    assert tried > 50


@pytest.mark.parametrize("bad", [-1, 31, None, "play A 1", 1.0, True])
def test_raw_env_rejects_non_actions(bad):
    e = campanile.raw_env(num_players=2)
    e.reset(seed=0)
    before = _snapshot(e)
    with pytest.raises(ValueError):  # IllegalActionError is a ValueError
        e.step(bad)
    assert _snapshot(e) == before


def test_wrapped_env_illegal_move_terminates_with_minus_one():
    e = campanile.env(num_players=3)
    e.reset(seed=3)
    rng = random.Random(3)
    for _ in range(5):
        obs, *_ = e.last()
        e.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
    offender = e.agent_selection
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(e.terminations.values()) and e.rewards[offender] == -1
    seen = {}
    for agent in e.agent_iter(50):
        _, reward, term, trunc, _ = e.last()
        assert term or trunc
        seen[agent] = reward
        e.step(None)
    assert seen[offender] == -1 and all(r == 0 for a, r in seen.items() if a != offender)


@pytest.mark.parametrize("kwargs,words", [
    ({"num_players": 1}, ["num_players", "1"]),
    ({"num_players": 6}, ["num_players", "6"]),
    ({"num_players": "3"}, ["num_players"]),
    ({"variant": "base"}, ["variant", "base", "pile"]),
    ({"render_mode": "video"}, ["render_mode", "video", "rgb_array"]),
    ({"bet_chip": "most"}, ["bet_chip", "most"]),
])
@pytest.mark.parametrize("factory", [campanile.raw_env, campanile.env], ids=["raw_env", "env"])
def test_bad_arguments(factory, kwargs, words):
    with pytest.raises(ValueError) as err:
        factory(**kwargs)
    for w in words:
        assert w in str(err.value)


# -- positions ------------------------------------------------------------------------------

def test_position_restores_the_game():
    e = campanile.raw_env(num_players=4, variant="played")
    e.reset(seed=9)
    rng = random.Random(9)
    for _ in range(23):
        e.step(rng.choice(e.legal_actions()))
    pos = e.position()
    f = campanile.raw_env(num_players=4, variant="played")
    f.reset(options={"position": pos})
    assert f.position() == pos and f.agent_selection == e.agent_selection
    for o in e.possible_agents:
        # a position records no history (revealed cards, cards played), so only the masks must agree
        assert np.array_equal(e.observe(o)["action_mask"], f.observe(o)["action_mask"])


@pytest.mark.parametrize("key,value", [("num_players", 3), ("variant", "played"), ("bet_chip", "exact")])
def test_position_of_another_setup_is_rejected_and_changes_nothing(key, value):
    e = campanile.raw_env(num_players=2)
    e.reset(seed=1)
    before = _snapshot(e)
    pos = {"game": "campanile", "num_players": 2, "hands": [["A", "B", "C"], ["C", "D", "E"]],
           "piles": [["A", "B"], ["C", "D"], ["E", "A"]]}
    pos[key] = value
    if key == "num_players":
        pos["hands"].append(["A", "A", "A"])
    with pytest.raises(PositionError, match=key):
        e.reset(options={"position": pos})
    assert _snapshot(e) == before


def test_bad_position_raises_position_error():
    e = campanile.raw_env(num_players=2)
    with pytest.raises(PositionError, match="empty"):
        e.reset(options={"position": {"game": "campanile", "num_players": 2,
                                      "hands": [["A", "B", "C"], ["C", "D", "E"]], "piles": [["A"], [], ["B"]]}})


# -- rendering --------------------------------------------------------------------------------

def test_render_ansi_and_human(capsys):
    e = campanile.raw_env(num_players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "tower A" in text and "seat 1" in text and "pile 3" in text
    h = campanile.raw_env(num_players=2, render_mode="human")
    h.reset(seed=0)
    h.step(h.legal_actions()[0])
    assert "tower A" in capsys.readouterr().out
    assert campanile.raw_env(num_players=2).render() is None


@pytest.mark.parametrize("num_players", [2, 5])
def test_render_rgb_array_one_shape_per_game_and_public_only(num_players):
    from five_towers_env.games.campanile.picture import render_rgb

    e = campanile.raw_env(num_players=num_players, render_mode="rgb_array")
    blank = e.render()
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    frames = []
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        frames.append(e.render())
        if not (term or trunc):  # the picture hides what no seat may see (SPEC C5)
            assert np.array_equal(render_rgb(e.game), render_rgb(permute_hidden(e.game, 0, rng)))
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert {f.shape for f in frames} == {blank.shape} and all(f.dtype == np.uint8 for f in frames)
    assert not np.array_equal(frames[0], frames[-1]) and not blank.any()


def test_sb3_make_vec_env_default_render_mode():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("five_towers_env:five_towers_env/Campanile-v0", n_envs=2, seed=0)  # asks for rgb_array
    vec.reset()
    assert vec.render_mode == "rgb_array" and vec.get_images()[0].ndim == 3
    vec.close()


# -- hidden information (SPEC C5) ----------------------------------------------------------------

def permute_hidden(s: CampanileState, observer: int, rng: np.random.Generator) -> CampanileState:
    """A copy of ``s`` with the cards hidden from ``observer`` dealt again: pile cards below the
    face-up ones, the set-aside leftovers and the other players' unrevealed hand cards.
    (Written here independently of ``CampanileState.determinize``.)"""
    t = s.clone()
    slots = []  # (where, index) of every hidden card
    for i, pile in enumerate(t.piles):
        slots += [("pile", i, j) for j in range(len(pile) - 1)]
    slots += [("left", 0, j) for j in range(len(t.leftover))]
    hands = {p: list(t.hands[p]) for p in range(t.num_players)}
    for p in range(t.num_players):
        if p == observer:
            continue
        rest = list(hands[p])
        for c in t.revealed[p]:
            rest.remove(c)
        hands[p] = list(t.revealed[p])
        slots += [("hand", p, c) for c in rest]
    cards = []
    for kind, i, j in slots:
        cards.append(t.piles[i][j] if kind == "pile" else t.leftover[j] if kind == "left" else j)
    cards = rng.permutation(cards).tolist() if cards else []
    leftover = list(t.leftover)
    for (kind, i, j), c in zip(slots, cards):
        if kind == "pile":
            t.piles[i][j] = c
        elif kind == "left":
            leftover[j] = c
        else:
            hands[i].append(c)
    t.leftover = tuple(leftover)
    t.hands = [tuple(sorted(hands[p])) for p in range(t.num_players)]
    t._legal = None
    return t


def random_midgame_states(seed: int, count: int):
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        n = 2 + made % 4
        s = CampanileState.new_game(n, VARIANTS[made % 2], rng)
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        yield s
        made += 1


def test_observation_ignores_hidden_cards():
    rng = np.random.default_rng(11)
    changed_hidden = changed_other_view = 0
    for s in random_midgame_states(12, 160):
        for observer in range(s.num_players):
            for _ in range(2):
                t = permute_hidden(s, observer, rng)
                assert t.face_up() == s.face_up() and t.hands[observer] == s.hands[observer]
                assert np.array_equal(encode(t, observer), encode(s, observer)), \
                    f"seat {observer}'s observation depends on hidden cards:\n{describe(encode(s, observer))}"
                assert render_text(t) == render_text(s)
                if t.piles != s.piles or t.hands != s.hands:
                    changed_hidden += 1
                    # the same change is visible to a seat whose own hand changed: the test can fail
                    changed_other_view += any(not np.array_equal(encode(t, p), encode(s, p))
                                              for p in range(s.num_players) if t.hands[p] != s.hands[p])
    assert changed_hidden > 500 and changed_other_view > 200


def test_determinize_gives_the_observer_the_same_observation():
    rng = np.random.default_rng(13)
    for s in random_midgame_states(14, 60):
        for observer in range(s.num_players):
            d = s.determinize(observer, rng)
            assert np.array_equal(encode(d, observer), encode(s, observer))


def test_observation_shows_the_observers_hand_and_revealed_cards():
    s = CampanileState.new_game(3, "pile", np.random.default_rng(0))
    s.apply_action(s.legal_actions()[0])
    s.apply_action(A.NO_BET)  # seat 0 draws a face-up card: it becomes public
    drawn = s.revealed[0]
    assert len(drawn) == 1
    text = describe(encode(s, 1))
    assert f"seat2.revealed: {{{drawn[0]}: 0.333}}" in text  # seat 0 is seat 2 relative to seat 1


def test_observation_pieces_of_a_known_position():
    from five_towers_env.games.campanile import load_position
    from five_towers_env.games.campanile.observation import OFFSETS

    s = load_position({"game": "campanile", "num_players": 3, "to_act": 1, "phase": "bet",
                       "played": {"tower": "C", "storeys": 2}, "heights": [0, 4, 2, 0, 0],
                       "bets": {"A": [[2, 1], [0, 2], [2, 1]]}, "chips": [[5, 2, 1], [5, 3, 1], [3, 3, 1]],
                       "hands": [["A", "B", "C"], ["D", "E"], ["A", "A", "E"]],
                       "piles": [["B", "C"], ["D", "E", "A"], ["C"]]})
    v = encode(s, 1)

    def piece(name):
        start, size = OFFSETS[name]
        return np.round(v[start:start + size].astype(float), 4).tolist()

    r = lambda xs: np.round(np.array(xs, dtype=np.float32).astype(float), 4).tolist()  # noqa: E731
    assert piece("phase") == [0, 1, 0] and piece("variant") == [1, 0] and piece("bet_chip_exact") == [0]
    assert piece("num_players") == [0, 1, 0, 0] and piece("to_act") == [1, 0, 0, 0, 0]
    assert piece("played_tower") == [0, 0, 1, 0, 0] and piece("played_storeys") == [0, 1, 0]
    assert piece("heights") == r([0, 4 / 42, 2 / 42, 0, 0])
    ranks = {"A": 2, "B": 0, "C": 1, "D": 3, "E": 4}  # B tallest, then C, then A, D, E left to right
    assert piece("flag_rank") == [float(ranks[t] == k) for t in "ABCDE" for k in range(5)]
    assert piece("face_up") == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0]
    assert piece("pile_sizes") == r([2 / 18, 3 / 18, 1 / 18])
    assert piece("hand") == r([0, 0, 0, 1 / 3, 1 / 3])
    # below the face-up cards: B, D, E; seat 0 holds A B C, seat 2 A A E, none of them revealed
    assert piece("unseen") == r([3 / 14, 2 / 14, 1 / 14, 1 / 14, 2 / 14])
    assert piece("cards_played") == [0] * 5
    # relative seat 0 is seat 1 (the observer), 1 is seat 2, 2 is seat 0; A takes the 4/2 flag:
    # seats 2 and 0 stake 2 each, seat 2's first chip came first
    assert piece("seat0.chips") == [1, 1, 1] and piece("seat0.stake") == [0] * 5 and piece("seat0.score") == [0]
    assert piece("seat1.chips") == r([3 / 5, 1, 1]) and piece("seat1.stake") == r([2 / 14, 0, 0, 0, 0])
    assert piece("seat1.precedence") == [1, 0, 0, 0, 0] and piece("seat1.score") == r([4 / 20])
    assert piece("seat2.chips") == r([1, 2 / 3, 1]) and piece("seat2.precedence") == r([0.8, 0, 0, 0, 0])
    assert piece("seat2.score") == r([2 / 20]) and piece("seat2.revealed") == [0] * 5
    assert not v[OFFSETS["seat3.present"][0]:].any()


# Seat 1 backs A (5 storeys) alone, seat 0 backs B (4) alone: 8 points to 6 if the game ended now.
# Pile 1 holds one card, so any play of one storey ends the game after its bet (SPEC C3.3).
_END_POSITION = {"game": "campanile", "num_players": 2, "to_act": 0, "phase": "play",
                 "heights": [5, 4, 0, 0, 0], "bets": {"A": [[1, 3]], "B": [[0, 1]]},
                 "chips": [[4, 3, 1], [5, 3, 0]], "hands": [["C", "D", "E"], ["A", "B", "C"]],
                 "piles": [["D"], ["E", "E"], ["C", "B", "B"]]}  # face up: D, E, B


def _end_pieces(position, observer):
    from five_towers_env.games.campanile import load_position
    from five_towers_env.games.campanile.observation import OFFSETS

    v = encode(load_position(position), observer)
    out = {}
    for name in ("ends_game", "end_share", "gives_end", "rival_end"):
        start, size = OFFSETS[name]
        out[name] = {a: float(x) for a, x in enumerate(v[start:start + size]) if x}
    return out


def test_end_pieces_in_the_play_phase():
    got = _end_pieces(_END_POSITION, 0)
    play = A.play_action
    C, D, E = 2, 3, 4
    assert got["ends_game"] == {play(C, 1): 1.0, play(D, 1): 1.0, play(E, 1): 1.0}
    # C 1: C rises to third, D is fourth (2/1): a chip on D ties 8-8. D 1 or E 1: that tower is
    # third (4/2), and a chip on it wins 10-8. Without a bet seat 0 would lose.
    assert got["end_share"] == {play(C, 1): 0.5, play(D, 1): 1.0, play(E, 1): 1.0}
    # every other play leaves a pile at one card (pile 1 untouched, or pile 2 drawn down to one)
    assert got["gives_end"] == {play(t, k): 1.0 for t in (C, D, E) for k in (2, 3)}


def test_end_pieces_in_the_bet_phase_and_for_an_observer_not_on_move():
    pos = dict(_END_POSITION, phase="bet", played={"tower": "C", "storeys": 1}, heights=[5, 4, 1, 0, 0],
               hands=[["D", "E"], ["A", "B", "C"]])
    got = _end_pieces(pos, 0)
    B, D, E = 1, 3, 4
    legal = [A.NO_BET] + [A.bet_action(v, t) for t in (B, D, E) for v in (1, 2, 3)]
    assert got["ends_game"] == dict.fromkeys(legal, 1.0)
    assert got["end_share"] == {A.bet_action(v, D): 0.5 for v in (1, 2, 3)}  # only a chip on D ties
    assert got["gives_end"] == {}
    for position in (_END_POSITION, pos):
        assert _end_pieces(position, 1) == {"ends_game": {}, "end_share": {}, "gives_end": {}, "rival_end": {}}


def test_gives_end_only_for_plays_that_leave_a_pile_at_one_card():
    pos = dict(_END_POSITION, piles=[["D", "A", "A"], ["E", "E"], ["C", "B", "B", "C"]])
    got = _end_pieces(pos, 0)
    assert got["ends_game"] == {} and got["end_share"] == {}
    assert got["gives_end"] == {A.play_action(t, 2): 1.0 for t in (2, 3, 4)}


def test_gives_end_and_rival_end_of_a_known_position():
    pos = dict(_END_POSITION, piles=[["D", "A", "A"], ["E", "E"], ["C", "B", "B", "C"]])
    got = _end_pieces(pos, 0)
    # seat 1 leads 8-6 and ends the game with any two-storey play after seat 0 draws pile 2 down to one
    assert got["rival_end"] == {A.play_action(t, 2): 1.0 for t in (2, 3, 4)}


def _rival_end_by_the_engine(state, seat, play):
    """rival_end's definition played out on the engine: seat plays and makes no bet, then the next
    player, given each style they may hold, ends the game with every ending play and every bet on
    a tower seat saw face up (not the pile just drawn from)."""
    k = play % 3 + 1
    face = {p[-1] for i, p in enumerate(state.piles) if p and i != k - 1}
    s1 = state.clone()
    s1.apply_action(play)
    s1.apply_action(A.NO_BET)
    rival = s1.current_player
    unseen = state.unseen_counts(seat)
    best = 0.0
    for u in range(5):
        if not (unseen[u] or u in state.revealed[rival]):
            continue
        for e, pile in enumerate(s1.piles):
            if len(pile) != 1:
                continue
            s2 = s1.clone()
            s2.hands[rival] = tuple(sorted(s2.hands[rival][1:] + (u,)))
            s2._legal = None
            s2.apply_action(A.play_action(u, e + 1))
            for b in s2.legal_actions():
                if b != A.NO_BET and s2.variant == "pile" and (b - A.BET) // 3 not in face:
                    continue
                s3 = s2.clone()
                s3.apply_action(b)
                assert s3.done
                w = s3.winners()
                if rival in w:
                    best = max(best, 1.0 / len(w))
    return best


@pytest.mark.parametrize("variant", ["pile", "played"])
def test_rival_end_matches_the_engine_over_random_games(variant):
    from five_towers_env.games.campanile.observation import OFFSETS

    start, _ = OFFSETS["rival_end"]
    g_start, _ = OFFSETS["gives_end"]
    rng = np.random.default_rng(5)
    checked = 0
    for g in range(60):
        s = CampanileState.new_game(2, variant, np.random.default_rng(g))
        while not s.done:
            seat = s.current_player
            if s.phase_name == "play" and min(len(p) for p in s.piles) <= 2:
                v = encode(s, seat)
                for a in s.legal_actions():
                    if v[g_start + a]:
                        assert v[start + a] == pytest.approx(_rival_end_by_the_engine(s, seat, a)), (g, a)
                        checked += 1
                    else:
                        assert v[start + a] == 0.0
            s.apply_action(int(rng.choice(s.legal_actions())))
    assert checked > 100


# -- docs -----------------------------------------------------------------------------------

def test_doc_observation_table_matches_code():
    start = DOC.index("<!-- campanile-layout-table:start -->") + len("<!-- campanile-layout-table:start -->")
    end = DOC.index("<!-- campanile-layout-table:end -->")
    assert DOC[start:end].strip() == layout_table().strip(), \
        "docs/campanile.md observation table is stale: regenerate it from layout_table()"


def test_doc_action_table_matches_code():
    for first, size, name in A.BLOCKS:
        row = f"| {first}-{first + size - 1} |" if size > 1 else f"| {first} |"
        assert row in DOC, f"docs/campanile.md action table lacks the row for block {name!r} ({row})"
    assert "Discrete(31)" in DOC and f"float32[{OBS_SIZE}]" in DOC
    for section in ("C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9"):
        assert re.search(rf"^## {section}\b", DOC, re.M), f"docs/campanile.md lacks section {section}"


def test_reset_options_are_checked_as_in_five_towers():
    e = campanile.raw_env()
    with pytest.raises(ValueError, match="did you mean 'position'"):
        e.reset(options={"postion": {}})
    with pytest.raises(ValueError, match="a position goes in as options"):
        e.reset(options={"hands": [["A", "B", "C"], ["A", "B", "C"]]})
    with pytest.raises(TypeError, match="options must be a dict"):
        e.reset(options=[1])
    with pytest.warns(UserWarning, match="ignores unknown option"):
        e.reset(seed=1, options={"anything": 1})
    with pytest.raises(IllegalActionError, match="got the string 'no bet'; use env.action_from_name"):
        e.step("no bet")
