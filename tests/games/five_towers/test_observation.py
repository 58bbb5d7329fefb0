"""The patched observation equals one written from scratch, piece by piece, from the layout table.

``encode`` keeps each observer's last vector and rewrites only the pieces whose inputs changed
(``SeatCache``). Here an independent encoder builds every vector from the state by piece name
and the two must agree exactly at every step, for every observer, with one cache shared by
games of different setups (so stale memo entries would show).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from five_towers_env.games.five_towers import GameState
from five_towers_env.games.five_towers.actions import MAX_BID
from five_towers_env.games.five_towers.cards import NUM_VALUES, TYPES
from five_towers_env.games.five_towers.lookahead import payable
from five_towers_env.games.five_towers.observation import OBS_SIZE, OFFSETS, SeatCache, encode
from five_towers_env.games.five_towers.scoring import pair_bonus, score_player
from five_towers_env.games.five_towers.state import PASSED, PHASE_NAMES, Phase


def reference(state: GameState, observer: int) -> np.ndarray:
    """The observation of ``observer`` written from scratch (README layout table)."""
    v = np.zeros(OBS_SIZE, dtype=np.float32)
    n, gp = state.num_players, state.gp

    def put(name: str, i: int, x: float = 1.0) -> None:
        start, size = OFFSETS[name]
        assert 0 <= i < size, (name, i)
        v[start + i] += x

    def rel(seat: int) -> int:
        return (seat - observer) % n

    put("phase", PHASE_NAMES.index(state.phase_name))
    put("variant", int(gp))
    put("num_players", n - 2)
    if state.current_player >= 0:
        put("to_act", rel(state.current_player))
    put("start_player", rel(state.start_player))
    if state.builder >= 0:
        put("builder", rel(state.builder))
    for piece, cards in (("display", state.display), ("hand", state.hand), ("discard", state.discard),
                         ("unseen", state.deck)):
        for c in cards:
            put(piece, c)
    put("deck", 0, len(state.deck) / 110.0)
    put("deck", 1, float(state.deck_ran_out))
    if state.high_bid >= 0:
        put("round", 0)
        put("round", 1, state.high_bid / MAX_BID)
    for i, x in ((2, state.target), (3, state.taken), (4, state.paid)):
        put("round", i, x / MAX_BID)
    put("round", 5, float(state.took_tree))
    put("teardown_choice", 0 if state.torn is None else state.torn + 2)
    put("sand_end", state.sand_end)
    put("recover_pending", 0, float(state.phase == Phase.RECOVER))
    for p in range(n):
        s = f"seat{rel(p)}."
        towers, pile, bid = state.towers[p], state.piles[p], state.bids[p]
        put(s + "present", 0)
        if bid is None:
            put(s + "bid", 0)
        elif bid == PASSED:
            put(s + "bid", 1)
        else:
            put(s + "bid", 2)
            put(s + "bid", 3, bid / MAX_BID)
        if not state.is_terminal():
            put(s + "ceiling", 0, state.ceiling(p) / MAX_BID)
        put(s + "tree_payable", 0, payable(towers, gp) / MAX_BID)
        put(s + "score", 0, min(1.0, max(-1.0, score_player(towers, pile, gp) / 100.0)))
        put(s + "pair_bonus", 0, pair_bonus(towers) / 30.0 if gp else 0.0)
        for c in pile:
            put(s + "teardown", c)
        put(s + "teardown_size", 0, len(pile) / 16.0)
        for t, name in enumerate(TYPES):
            tw, o = towers[t], f"{s}{name}."
            put(o + "top", 1 + tw[-1] if tw else 0)
            put(o + "bottom", 1 + tw[0] if tw else 0)
            for x in tw:
                put(o + "cards", x)
            put(o + "height", 0, len(tw) / 16.0)
            put(o + "topped", 0, float(bool(tw) and tw[-1] == 0))
    assert NUM_VALUES == OFFSETS["seat0.candy.cards"][1]
    return v


def _check_game(state: GameState, cache: SeatCache, rng: random.Random, phases: set | None = None) -> int:
    steps = 0
    while True:
        if phases is not None:
            phases.add(state.phase_name)
        observers = list(range(state.num_players))
        rng.shuffle(observers)  # patching must not depend on who looked last
        for seat in observers[:rng.randint(1, len(observers))]:
            got = encode(state, seat, cache)
            want = reference(state, seat)
            if not np.array_equal(got, want):
                bad = [name for name, (a, k) in OFFSETS.items() if not np.array_equal(got[a:a + k], want[a:a + k])]
                raise AssertionError(f"step {steps}, observer {seat}: pieces differ: {bad[:8]}")
        if state.is_terminal():
            return steps
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1


@pytest.mark.parametrize("variant", ["base", "great_powers"])
def test_patched_observation_equals_reference(variant):
    cache = SeatCache()  # one memo across games and player counts, as an env keeps it over resets
    rng = random.Random(3)
    phases: set[str] = set()
    for seed in range(6 if variant == "base" else 3):
        for n in (2, 3, 4, 5):
            state = GameState.new_game(n, variant, np.random.default_rng(seed))
            assert _check_game(state, cache, rng, phases) > 20
    # the vectors were compared in every phase the variant has (recover is a Great Powers phase)
    assert phases == set(PHASE_NAMES) - ({"recover"} if variant == "base" else set())


def test_fresh_encode_equals_reference():
    rng = random.Random(0)
    state = GameState.new_game(3, "base", np.random.default_rng(1))
    for _ in range(40):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        for seat in range(3):
            assert np.array_equal(encode(state, seat, SeatCache()), reference(state, seat))


def test_copied_cache_encodes_on_its_own():
    """A pickled or deep-copied cache (an env copied mid-game) keeps patching its own arrays."""
    import copy
    import pickle

    rng = random.Random(5)
    state = GameState.new_game(3, "great_powers", np.random.default_rng(5))
    cache = SeatCache()
    for _ in range(20):
        encode(state, state.current_player, cache)
        state.apply_action(rng.choice(state.legal_actions()))
    copies = [pickle.loads(pickle.dumps(cache)), copy.deepcopy(cache)]
    other = state.clone()
    for _ in range(30):  # the original cache and the copies now see different games
        if state.is_terminal() or other.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
        other.apply_action(other.legal_actions()[0])
        for seat in range(3):
            assert np.array_equal(encode(state, seat, cache), reference(state, seat))
            for c in copies:
                assert np.array_equal(encode(other, seat, c), reference(other, seat))
