"""Thousands of random Campanile games on the pure engine, checking what must hold in every state:
chips and cards are conserved, heights are the storeys played, and every game ends in time."""
from __future__ import annotations

import numpy as np
import pytest

from five_towers_env.games.campanile import CampanileState, Phase
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.rules import CHIPS, cards_per_style, leftover_count, pile_size, score_towers

GAMES_PER_SETUP = 400  # x 4 player counts x 2 variants = 3,200 games, a few seconds


def check_state(s: CampanileState, storeys: list[int], chips_bet: list[list[int]]) -> None:
    """Every invariant of a reachable state, given what the test itself saw being played and bet."""
    n = s.num_players
    # chips: the supply plus the chips under the towers is C1's nine, per value, for every seat
    under = [[0, 0, 0] for _ in range(n)]
    for tower in s.bets:
        for seat, value in tower:
            under[seat][value - 1] += 1
    assert under == chips_bet
    for p in range(n):
        assert all(s.chips[p][i] + under[p][i] == CHIPS[i] for i in range(3))
    # cards: hands + piles + set-aside + played is the C2 count of every style
    for t in range(5):
        count = sum(h.count(t) for h in s.hands) + sum(p.count(t) for p in s.piles) + s.leftover.count(t)
        assert count + s.cards_played[t] == cards_per_style(n)
    assert sum(len(p) for p in s.piles) == 3 * pile_size(n) - s.turns
    assert len(s.leftover) == leftover_count(n)
    # heights are exactly the storeys the test saw played on each tower
    assert s.heights == storeys
    # hands: 3 cards, 2 for the mover between play and bet; revealed cards are really there
    for p in range(n):
        want = 2 if s.phase == Phase.BET and p == s.current_player else 3
        assert len(s.hands[p]) == want
        assert all(s.hands[p].count(c) >= s.revealed[p].count(c) for c in s.revealed[p])
    # the game is over exactly when a pile is empty, and then nothing is legal
    assert s.is_terminal() == any(not p for p in s.piles)
    assert (s.legal_actions() == []) == s.is_terminal()
    assert s.scores() == score_towers(s.heights, s.bets, n)


@pytest.mark.parametrize("variant", ["pile", "played"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(n, variant):
    rng = np.random.default_rng(1000 * n + (variant == "played"))
    bound = 2 * (3 * (pile_size(n) - 1) + 1)  # decisions: two per turn, one pile card per turn
    lengths = []
    for g in range(GAMES_PER_SETUP):
        s = CampanileState.new_game(n, variant, rng, bet_chip="exact" if g % 4 == 3 else "at_least")
        storeys = [0] * 5
        chips_bet = [[0, 0, 0] for _ in range(n)]
        decisions = 0
        check_state(s, storeys, chips_bet)
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            kind, tower, k = A.decode(a)
            if kind == "play":
                storeys[tower] += k
            elif kind == "bet":
                chips_bet[s.current_player][k - 1] += 1
            s.apply_action(a)
            decisions += 1
            assert decisions <= bound, f"game {g} runs past {bound} decisions"
            if g % 8 == 0 or s.is_terminal():  # every state of some games, the end of all
                check_state(s, storeys, chips_bet)
        lengths.append(decisions)
        assert decisions % 2 == 0  # whole turns only
        w = s.winners()
        assert s.returns() == [1.0 if p in w else -1.0 for p in range(n)]
    # the bound is reached only by games that draw evenly; the shortest draw one pile dry
    assert min(lengths) >= 2 * pile_size(n) and max(lengths) <= bound


def test_bets_follow_the_variant_in_random_games():
    rng = np.random.default_rng(5)
    for g in range(300):
        variant = ("pile", "played")[g % 2]
        s = CampanileState.new_game(2 + g % 4, variant, rng)
        while not s.is_terminal():
            legal = s.legal_actions()
            if s.phase == Phase.BET:
                face_up = {p[-1] for p in s.piles}
                k, held = s.played_storeys, s.chips[s.current_player]
                for a in legal[1:]:
                    _, tower, value = A.decode(a)
                    assert value >= k and held[value - 1] > 0
                    assert tower in face_up if variant == "pile" else tower == s.played_tower
            s.apply_action(legal[int(rng.integers(len(legal)))])
