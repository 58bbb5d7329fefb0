"""SPEC §8: the position format: save/load round trips, rejections, key order, "rest"."""
from __future__ import annotations

import copy
import json
import random
from collections import Counter

import numpy as np
import pytest

from five_towers_env.games.five_towers import GameState, PositionError, load_position, raw_env, save_position
from five_towers_env.games.five_towers.cards import CARD_NAMES, card_set_counts
from five_towers_env.games.five_towers.state import Phase

VARIANTS = ("base", "great_powers")
PLAYERS = (2, 3, 4, 5)


def round_starts(n: int, variant: str, seed: int, every: int = 1) -> list[GameState]:
    """Clones of the round-start states (display revealed, nobody bid) of one random game."""
    rng = random.Random(seed)
    s = GameState.new_game(n, variant, np.random.default_rng(seed))
    out = []
    k = 0
    while not s.is_terminal():
        if s.phase == Phase.BID and s.bid_turn == 0:
            if k % every == 0:
                out.append(s.clone())
            k += 1
        s.apply_action(rng.choice(s.legal_actions()))
    return out


def state_fields(s: GameState) -> tuple:
    return (s.variant, s.num_players, s.start_player, tuple(s.display), list(s.deck), list(s.discard),
            s.deck_ran_out, [tuple(t) for t in s.towers], [tuple(p) for p in s.piles], s.phase,
            s.current_player)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_round_trip_random_round_starts(n, variant):
    games = 3 if variant == "base" else 1
    checked = 0
    for g in range(games):
        for s in round_starts(n, variant, seed=100 * n + g, every=1 if variant == "base" else 2):
            pos = save_position(s)
            assert "hand" not in pos
            json.dumps(pos)  # plain JSON
            assert sum(len(pos[k]) for k in ("deck", "discard", "display")) + sum(
                sum(len(t) for t in p["towers"].values()) + len(p["teardown"]) for p in pos["players"]
            ) == len(s.deck) + len(s.discard) + len(s.display) + sum(
                sum(len(t) for t in tw) for tw in s.towers) + sum(len(p) for p in s.piles)
            loaded = load_position(copy.deepcopy(pos), np.random.default_rng(12345))
            assert save_position(loaded) == pos
            assert state_fields(loaded) == state_fields(s)  # deck order included
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("variant", VARIANTS)
def test_env_reset_from_position_round_trip(variant):
    for s in round_starts(3, variant, seed=7, every=5)[:6]:
        pos = save_position(s)
        env = raw_env(num_players=3, variant=variant, explicit=True)
        env.reset(seed=1, options={"position": copy.deepcopy(pos)})
        assert env.position() == pos
        assert env.num_players == 3 and env.variant == variant
        assert env.agent_selection == f"player_{pos['start_player']}"


# -- rejections ---------------------------------------------------------------------------

def _base(**kw) -> dict:
    pos = {"variant": "base", "num_players": 2, "start_player": 0,
           "display": ["candy-11", "scrap-15", "sand-4"], "deck": ["tree-3"], "discard": ["tree-4"],
           "players": [{"towers": {"candy": [14, 10]}, "teardown": ["scary-3"]}, {}]}
    pos.update(kw)
    return pos


def _seat0(**kw) -> list:
    return [kw, {}]


REJECT = [
    # (id, position, words the message must contain)
    ("card-twice-display", _base(display=["candy-1", "candy-1"]), ["candy-1"]),
    ("card-twice-across", _base(deck=["tree-3", "candy-11"]), ["candy-11"]),
    ("card-in-tower-and-discard", _base(discard=["candy-14"]), ["candy-14"]),
    ("card-in-teardown-and-deck", _base(deck=["scary-3"]), ["scary-3"]),
    ("second-copy-in-2p", _base(display=["candy-5", "candy-5"]), ["candy-5"]),
    ("third-copy-in-4p", _base(num_players=4, players=[{}, {}, {}, {}],
                              display=["candy-5", "candy-5"], deck=["candy-5"]), ["candy-5"]),
    ("third-zero-in-5p", _base(num_players=5, players=[{"towers": {"tree": [0]}}, {"towers": {"tree": [0]}},
                                                       {"towers": {"tree": [0]}}, {}, {}]), ["tree-0"]),
    ("malformed-name-value", _base(display=["candy-16"]), ["candy-16"]),
    ("malformed-name-type", _base(deck=["gold-3"]), ["gold-3"]),
    ("malformed-name-case", _base(discard=["Candy-3"]), ["Candy-3"]),
    ("malformed-name-int", _base(display=[3]), ["3"]),
    ("malformed-teardown-name", _base(players=_seat0(teardown=["sand4"])), ["sand4"]),
    ("malformed-list", _base(deck="tree-3"), ["deck"]),
    ("malformed-tower-value", _base(players=_seat0(towers={"candy": [16]})), ["16"]),
    ("malformed-tower-value-str", _base(players=_seat0(towers={"candy": ["3"]})), ["'3'"]),
    ("malformed-tower-value-neg", _base(players=_seat0(towers={"scrap": [-1]})), ["-1"]),
    ("malformed-tower-value-bool", _base(players=_seat0(towers={"scrap": [True]})), ["True"]),
    ("malformed-tower-type", _base(players=_seat0(towers={"gold": [3]})), ["gold"]),
    ("empty-tower", _base(players=_seat0(towers={"candy": []})), ["candy"]),
    ("unbuildable-tower", _base(players=_seat0(towers={"candy": [3, 5]})), ["candy", "5", "3"]),
    ("unbuildable-tower-long", _base(players=_seat0(towers={"scary": [15, 8, 12, 11, 14]})), ["scary", "14"]),
    ("unbuildable-gp-sand", _base(variant="great_powers", players=_seat0(towers={"sand": [4, 9, 12]})),
     ["sand", "12"]),
    ("zero-not-at-top", _base(players=_seat0(towers={"tree": [0, 9]})), ["tree", "0"]),
    ("zero-in-middle", _base(players=_seat0(towers={"tree": [8, 0, 9]})), ["tree", "0"]),
    ("zero-at-gp-sand-bottom", _base(variant="great_powers", players=_seat0(towers={"sand": [0, 8, 3]})),
     ["sand", "0"]),
    ("teardown-zero", _base(players=_seat0(teardown=["tree-0"])), ["tree-0"]),
    ("num-players-1", _base(num_players=1, players=[{}]), ["num_players"]),
    ("num-players-6", _base(num_players=6, players=[{}] * 6), ["num_players"]),
    ("num-players-str", _base(num_players="2"), ["num_players"]),
    ("num-players-bool", _base(num_players=True), ["num_players"]),
    ("num-players-missing", {k: v for k, v in _base().items() if k != "num_players"}, ["num_players"]),
    ("start-player-high", _base(start_player=2), ["start_player"]),
    ("start-player-neg", _base(start_player=-1), ["start_player"]),
    ("start-player-str", _base(start_player="0"), ["start_player"]),
    ("players-too-few", _base(players=[{}]), ["players"]),
    ("players-too-many", _base(players=[{}, {}, {}]), ["players"]),
    ("players-not-list", _base(players={"0": {}}), ["players"]),
    ("player-not-object", _base(players=[{}, []]), ["players[1]"]),
    ("player-unknown-key", _base(players=[{}, {"hand": []}]), ["hand"]),
    ("display-six", _base(display=["candy-1", "candy-2", "candy-3", "candy-4", "candy-5", "candy-6"]),
     ["display", "6"]),
    ("display-empty", _base(display=[]), ["display", "empty"]),
    ("display-missing", {k: v for k, v in _base().items() if k != "display"}, ["display"]),
    ("variant-unknown", _base(variant="foo"), ["variant", "foo"]),
    ("rest-unknown", _base(rest="hand"), ["rest", "hand"]),
    ("deck-ran-out-not-bool", _base(deck_ran_out="yes"), ["deck_ran_out"]),
    ("unknown-key-hand", _base(hand=["candy-3"]), ["hand"]),
    ("not-an-object", ["candy-1"], ["object"]),
]


@pytest.mark.parametrize("pos,words", [(p, w) for _, p, w in REJECT], ids=[i for i, _, _ in REJECT])
def test_rejections(pos, words):
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    frozen = copy.deepcopy(pos)
    with pytest.raises(PositionError) as err:
        load_position(pos, rng)
    msg = str(err.value)
    for w in words:
        assert w in msg, f"message {msg!r} does not name {w!r}"
    assert pos == frozen, "loading changed the position object"
    assert rng.bit_generator.state == before, "a rejected load consumed randomness"


@pytest.mark.parametrize("pos,words", [(p, w) for _, p, w in REJECT[::4]], ids=[i for i, _, _ in REJECT[::4]])
def test_env_rejection_changes_nothing(pos, words):
    env = raw_env(num_players=2, explicit=True)
    env.reset(seed=5)
    env.step(env.legal_actions()[-1])
    before = (env.position(), env.legal_action_names(), env.agent_selection, env.num_players, env.variant)
    with pytest.raises(PositionError):
        env.reset(options={"position": copy.deepcopy(pos)})
    after = (env.position(), env.legal_action_names(), env.agent_selection, env.num_players, env.variant)
    assert before == after


ACCEPT = [
    ("spec-example", {"variant": "base", "num_players": 2, "start_player": 0,
                      "display": ["candy-11", "scrap-15", "sand-4", "sand-8", "sand-12"],
                      "deck": ["tree-3", "tree-9"], "discard": [], "rest": "deck", "deck_ran_out": False,
                      "players": [{"towers": {"candy": [14, 10], "sand": [11, 7, 6]}, "teardown": ["scary-3"]},
                                  {"towers": {}, "teardown": []}]}),
    ("minimal", {"num_players": 3, "display": ["tree-0"]}),
    ("lone-zero-tower", _base(players=_seat0(towers={"tree": [0]}))),
    ("eights-and-nines", _base(players=_seat0(towers={"scary": [15, 8, 14, 9, 3, 0]}))),
    ("gp-sand", _base(variant="great_powers", players=_seat0(towers={"sand": [8, 15, 2, 9, 0]}))),
    ("two-copies-4p", _base(num_players=4, players=[{}, {}, {}, {}], display=["candy-5", "candy-5"],
                            discard=["sand-0", "sand-0"])),
    ("full-display-ran-out", _base(deck_ran_out=True, deck=[],
                                   display=["candy-1", "candy-2", "candy-3", "candy-4", "candy-5"])),
]


@pytest.mark.parametrize("pos", [p for _, p in ACCEPT], ids=[i for i, _ in ACCEPT])
def test_valid_positions_load(pos):
    s = load_position(copy.deepcopy(pos), np.random.default_rng(0))
    assert s.phase == Phase.BID and s.current_player == pos.get("start_player", 0)
    n = pos["num_players"]
    total = len(s.deck) + len(s.discard) + len(s.display) + sum(
        sum(len(t) for t in tw) for tw in s.towers) + sum(len(p) for p in s.piles)
    assert total == sum(card_set_counts(n))
    again = load_position(save_position(s), np.random.default_rng(99))
    assert save_position(again) == save_position(s)


# -- key order, rest ------------------------------------------------------------------------

def _shuffled_keys(obj, rng: random.Random):
    if isinstance(obj, dict):
        items = list(obj.items())
        rng.shuffle(items)
        return {k: _shuffled_keys(v, rng) for k, v in items}
    if isinstance(obj, list):
        return [_shuffled_keys(v, rng) for v in obj]
    return obj


@pytest.mark.parametrize("variant", VARIANTS)
def test_key_order_does_not_matter(variant):
    rng = random.Random(1)
    starts = round_starts(4, variant, seed=3, every=4)[:5]
    for s in starts:
        full = save_position(s)
        # a partial position too, so that the loader's shuffle of the rest is exercised
        partial = copy.deepcopy(full)
        partial["deck"] = partial["deck"][:3]
        partial["discard"] = partial["discard"][: len(partial["discard"]) // 2]
        for pos in (full, partial):
            ref = save_position(load_position(copy.deepcopy(pos), np.random.default_rng(42)))
            for _ in range(4):
                mixed = _shuffled_keys(copy.deepcopy(pos), rng)
                got = save_position(load_position(mixed, np.random.default_rng(42)))
                assert got == ref


def test_key_order_permutations_explicit():
    pos = _base(players=[{"teardown": ["scary-3"], "towers": {"sand": [11, 7], "candy": [14, 10]}}, {}])
    ref = save_position(load_position(copy.deepcopy(pos), np.random.default_rng(8)))
    rev = dict(reversed(list(copy.deepcopy(pos).items())))
    rev["players"][0] = dict(reversed(list(rev["players"][0].items())))
    rev["players"][0]["towers"] = dict(reversed(list(rev["players"][0]["towers"].items())))
    assert save_position(load_position(rev, np.random.default_rng(8))) == ref


def _named(pos: dict) -> Counter:
    c = Counter(pos.get("display", []) + pos.get("deck", []) + pos.get("discard", []))
    for p in pos.get("players", []):
        c.update(p.get("teardown", []))
        for t, vals in p.get("towers", {}).items():
            c.update(f"{t}-{v}" for v in vals)
    return c


def _full_set(n: int) -> Counter:
    counts = card_set_counts(n)
    return Counter({CARD_NAMES[c]: k for c, k in enumerate(counts)})


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("rest", ["deck", "discard", None])
def test_rest(rest, n):
    pos = {"variant": "base", "num_players": n, "display": ["candy-11", "scrap-15"],
           "deck": ["tree-3", "tree-9", "sand-0"], "discard": ["scary-1", "scary-2"],
           "players": [{"towers": {"candy": [14, 10]}, "teardown": ["scary-3"]}] + [{}] * (n - 1)}
    if rest is not None:
        pos["rest"] = rest
    missing = _full_set(n) - _named(pos)
    s = load_position(copy.deepcopy(pos), np.random.default_rng(5))
    saved = save_position(s)
    assert _named(saved) == _full_set(n)
    if rest in ("deck", None):
        assert saved["deck"][:3] == pos["deck"]
        assert Counter(saved["deck"][3:]) == missing
        assert Counter(saved["discard"]) == Counter(pos["discard"])
    else:
        assert saved["deck"] == pos["deck"]
        assert Counter(saved["discard"]) == Counter(pos["discard"]) + missing
    # shuffled with the loader's seed: reproducible, and another seed gives another order
    again = save_position(load_position(copy.deepcopy(pos), np.random.default_rng(5)))
    assert again == saved
    other = save_position(load_position(copy.deepcopy(pos), np.random.default_rng(6)))
    key = "deck" if rest in ("deck", None) else "discard"
    assert Counter(other[key]) == Counter(saved[key]) and other[key] != saved[key]


def test_defaults():
    s = load_position({"num_players": 2, "display": ["candy-3"]}, np.random.default_rng(0))
    assert s.variant == "base" and s.start_player == 0 and not s.deck_ran_out
    assert len(s.deck) == 79 and s.discard == []
    assert all(not any(tw) for tw in s.towers) and all(p == () for p in s.piles)
