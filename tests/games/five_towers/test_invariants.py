"""Random games with invariants checked at every step (SPEC §2-§5).

Default: 600 base games and 120 Great Powers games, spread over 2..5 players (Great Powers
games cost the engine about 20x more look-ahead, mostly in bid masks). With FIVE_TOWERS_SOAK=1
a soak of 20,000 games runs as well.
"""
from __future__ import annotations

import os
import random

import numpy as np
import pytest

from five_towers_env.games.five_towers import GameState
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import card_set_counts
from five_towers_env.games.five_towers.state import PASSED, Phase

import oracle as O

SOAK = os.environ.get("FIVE_TOWERS_SOAK") == "1"
soak = pytest.mark.skipif(not SOAK, reason="soak: set FIVE_TOWERS_SOAK=1")

MAX_STEPS = 6000


class Checker:
    """Checks one game step by step."""

    def __init__(self, n: int, variant: str, bid_oracle_rate: float, rng: random.Random):
        self.n = n
        self.gp = variant == "great_powers"
        self.expected = list(card_set_counts(n))
        self.valid_towers: set = set()
        self.scores: dict = {}
        self.rate = bid_oracle_rate
        self.rng = rng
        self.bid_oracle_checks = 0

    # -- per state --------------------------------------------------------------------------

    def cards(self, s: GameState) -> None:
        counts = [0] * 80
        for group in (s.deck, s.display, s.discard, s.hand):
            for c in group:
                counts[c] += 1
        for p in range(self.n):
            for c in s.piles[p]:
                counts[c] += 1
            for t, tw in enumerate(s.towers[p]):
                for v in tw:
                    counts[t * 16 + v] += 1
        if counts != self.expected:
            diff = {c: counts[c] - self.expected[c] for c in range(80) if counts[c] != self.expected[c]}
            raise AssertionError(f"cards not accounted for exactly once (found - expected): {diff}")

    def towers(self, s: GameState) -> None:
        for p in range(self.n):
            towers = s.towers[p]
            if towers in self.valid_towers:
                continue
            assert len(towers) == 5
            for t, tw in enumerate(towers):
                assert O.tower_valid(tw), f"seat {p} has an invalid {O.TYPES[t]} tower {tw}"
            self.valid_towers.add(towers)

    def score(self, s: GameState) -> None:
        got = s.scores()
        for p in range(self.n):
            key = (s.towers[p], s.piles[p])
            want = self.scores.get(key)
            if want is None:
                want = self.scores[key] = O.score(s.towers[p], s.piles[p], self.gp)
            assert got[p] == want, f"seat {p}: engine scores {got[p]}, SPEC §4/§5 gives {want}"

    def legal(self, s: GameState) -> list[int]:
        legal = s.legal_actions()
        if s.is_terminal():
            assert legal == [] and s.current_player == -1
            return legal
        assert legal, f"non-terminal state without legal actions: {s!r}"
        assert len(set(legal)) == len(legal) and all(0 <= a < A.NUM_ACTIONS for a in legal)
        phase = s.phase
        names = [A.action_name(a) for a in legal]
        if phase == Phase.BID:
            self.bids(s, legal)
        else:
            assert s.current_player == s.builder
            prefix = {Phase.TAKE: ("take ", "stop"), Phase.TEARDOWN: ("teardown ", "no teardown"),
                      Phase.BUILD: ("build ",), Phase.RECOVER: ("recover ", "no recover")}[phase]
            assert all(nm.startswith(prefix) for nm in names), (s.phase_name, names)
            if phase == Phase.TAKE:
                assert len(s.hand) == s.taken < s.target
            if not self.gp:
                assert not any(nm in ("stop", "no recover") or nm.endswith("bottom") or nm.startswith("recover")
                               for nm in names), names
        return legal

    def bids(self, s: GameState, legal: list[int]) -> None:
        p = s.current_player
        first = s.bid_turn == 0
        assert p == (s.start_player + s.bid_turn) % self.n
        assert (A.PASS in legal) != first, "the start player may not pass; every later player may"
        bids = [a - A.BID for a in legal if a != A.PASS]
        low = 0 if first else s.high_bid + 1
        top = O.ceiling(s.towers[p], s.display, self.gp)
        assert all(low <= b <= top for b in bids), (bids, low, top)
        if first:
            assert 0 in bids, "bid 0 is always possible for the start player"
        if self.rng.random() < self.rate:
            want = {b for b in O.achievable_bids(s.towers[p], s.piles[p], s.display, self.gp) if b >= low}
            assert set(bids) == want, f"seat {p}: legal bids {sorted(bids)}, achievable {sorted(want)}"
            self.bid_oracle_checks += 1

    def state(self, s: GameState) -> list[int]:
        self.cards(s)
        self.towers(s)
        self.score(s)
        return self.legal(s)

    # -- per transition -----------------------------------------------------------------------

    def transition(self, prev: dict, s: GameState) -> None:
        if s.rounds_played == prev["round"]:
            assert not s.is_terminal()
            if prev["phase"] == Phase.BID:
                # SPEC §3: bidding goes on while someone still to bid has a ceiling above the high bid
                remaining = [(prev["start"] + i) % self.n for i in range(prev["bid_turn"] + 1, self.n)]
                goes_on = any(s.high_bid < O.ceiling(s.towers[q], s.display, self.gp) for q in remaining)
                assert (s.phase == Phase.BID) == goes_on, (prev, s.high_bid, remaining)
                if s.phase == Phase.TAKE:
                    made = [-1 if b is None or b == PASSED else b for b in s.bids]
                    assert s.builder == made.index(max(made)), "the highest bidder builds"
                    assert s.target == s.high_bid == s.bids[s.builder] >= 1 and s.current_player == s.builder
            return
        # a round ended
        assert s.rounds_played == prev["round"] + 1
        if prev["phase"] == Phase.BID:
            # only all-pass-on-0 ends a round during bidding: the start player bid 0, everyone else passed
            assert prev["high_bid"] == 0 and prev["action"] == A.PASS, "a round ended during bidding with a builder"
            assert prev["bids"][prev["start"]] == 0
            others = [b for i, b in enumerate(prev["bids"]) if i not in (prev["start"], prev["to_act"])]
            assert all(b == PASSED for b in others)
            assert prev["bid_turn"] == self.n - 1, "all pass on 0 ends only after everyone had a chance"
            assert s.start_player == prev["start"], "after all pass on 0 the start player stays"
        else:
            assert s.start_player == (prev["builder"] + 1) % self.n
        if prev["deck"] == 0:
            if prev["ran_out"] or prev["pool"] == 0:
                assert s.is_terminal(), "the deck ran out a second time but the game goes on"
            else:
                assert not s.is_terminal()
                assert s.deck_ran_out and s.discard == [], "the first run-out reshuffles the discard pile"
        else:
            assert not s.is_terminal(), "the game ended with cards in the deck"
            assert s.deck_ran_out == prev["ran_out"]
        if s.is_terminal():
            assert s.deck == [] and s.display == ()
        else:
            assert s.phase == Phase.BID and s.bid_turn == 0 and s.current_player == s.start_player
            assert 1 <= len(s.display) <= 5
            if prev["deck"] > 0:
                assert len(s.display) == min(5, prev["deck"]) and len(s.deck) == prev["deck"] - len(s.display)


def _remember(s: GameState, action: int) -> dict:
    return {"round": s.rounds_played, "phase": s.phase, "to_act": s.current_player, "start": s.start_player,
            "builder": s.builder, "high_bid": s.high_bid, "bid_turn": s.bid_turn, "bids": list(s.bids),
            "deck": len(s.deck),
            "ran_out": s.deck_ran_out, "pool": len(s.discard) + len(s.display), "action": action}


def play_checked(n: int, variant: str, seed: int, bid_oracle_rate: float) -> Checker:
    rng = random.Random(seed)
    s = GameState.new_game(n, variant, np.random.default_rng(seed), start_player=seed % n)
    chk = Checker(n, variant, bid_oracle_rate, rng)
    steps = 0
    legal = chk.state(s)
    while not s.is_terminal():
        a = rng.choice(legal)
        prev = _remember(s, a)
        s.apply_action(a)
        steps += 1
        assert steps < MAX_STEPS, "the game does not end"
        legal = chk.state(s)
        chk.transition(prev, s)
    assert s.rounds_played >= 16
    # the final result, independently
    want = [O.score(s.towers[p], s.piles[p], chk.gp) for p in range(n)]
    assert s.scores() == want
    assert s.winners() == [p for p in range(n) if want[p] == max(want)]
    assert s.returns() == [1.0 if want[p] == max(want) else -1.0 for p in range(n)]
    return chk


GAMES = {"base": 150, "great_powers": 30}  # per player count


@pytest.mark.parametrize("variant", ["base", "great_powers"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games(n, variant):
    checks = 0
    for g in range(GAMES[variant]):
        chk = play_checked(n, variant, seed=1_000 * n + g, bid_oracle_rate=0.02)
        checks += chk.bid_oracle_checks
    assert checks > 20


@soak
@pytest.mark.soak
@pytest.mark.parametrize("variant", ["base", "great_powers"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_soak(n, variant):
    for g in range(2_500):
        play_checked(n, variant, seed=10_000_000 + 100_000 * n + g, bid_oracle_rate=0.01)
