"""The flat Campanile observation vector, built from named pieces ``(name, size)`` (SPEC C5).

Seats are relative to the observer (``seat0`` is the observer, ``seat1`` the player to their
left, ...) and padded to five, so one layout serves every player count and both variants.
Every value lies in [0, 1]. Hidden cards enter only as what the observer may know of them:
the per-style counts of cards it cannot locate (``unseen``) and each seat's revealed cards;
never which pile position or which opponent holds an unrevealed card.
"""
from __future__ import annotations

import numpy as np

from five_towers_env.core.layout import describe_vector, offsets_of, table_rows
from five_towers_env.games.campanile.actions import BET, NO_BET, NUM_ACTIONS
from five_towers_env.games.campanile.endgame import next_player_endings
from five_towers_env.games.campanile.rules import (
    CARDS_PER_STYLE,
    CHIPS,
    FLAGS,
    HAND_SIZE,
    MAX_HEIGHT,
    MAX_PLAYERS,
    NUM_PILES,
    NUM_TOWERS,
    pile_size,
    ranked_backers,
    score_backed,
)
from five_towers_env.games.campanile.state import CampanileState

MAX_SEATS = MAX_PLAYERS
MAX_STAKE = sum(v * c for v, c in zip((1, 2, 3), CHIPS))  # 14: all of a seat's chips under one tower
MAX_SCORE = sum(high for high, _ in FLAGS)                 # 20: every flag's higher number
MAX_PILE = pile_size(MAX_PLAYERS)                          # 18
NUM_PLAYS = NO_BET                                         # 15: the play ids come first

GLOBAL_PIECES: tuple[tuple[str, int, str], ...] = (
    ("phase", 3, "one-hot: play, bet, game_over"),
    ("variant", 2, "one-hot: pile, played"),
    ("bet_chip_exact", 1, "1 if a bet's chip must equal the storeys played (option bet_chip='exact')"),
    ("num_players", 4, "one-hot: 2, 3, 4, 5 players"),
    ("to_act", MAX_SEATS, "relative seat of the player on move (one-hot; at game end the last mover)"),
    ("played_tower", NUM_TOWERS, "bet phase: one-hot tower A..E just played onto (zeros in the play phase)"),
    ("played_storeys", 3, "bet phase: one-hot storeys 1, 2, 3 just played (zeros in the play phase)"),
    ("heights", NUM_TOWERS, f"height of towers A..E / {MAX_HEIGHT}, clipped to 1"),
    ("flag_rank", NUM_TOWERS * NUM_TOWERS,
     "per tower A..E, one-hot of its place in the flag order now (8/4, 6/3, 4/2, 2/1, none)"),
    ("face_up", NUM_PILES * NUM_TOWERS, "per pile 1..3, one-hot tower shown by its face-up card"),
    ("pile_sizes", NUM_PILES, f"cards in piles 1..3 / {MAX_PILE}, clipped to 1"),
    ("hand", NUM_TOWERS, f"the observer's own cards per style A..E / {HAND_SIZE}"),
    ("unseen", NUM_TOWERS,
     f"per style, cards the observer cannot locate (pile cards below the face-up ones, other players' "
     f"unrevealed cards, set-aside leftovers) / {CARDS_PER_STYLE}"),
    ("cards_played", NUM_TOWERS, f"per style, cards played so far this game / {CARDS_PER_STYLE}"),
    ("ends_game", NUM_ACTIONS,
     "observer on move: per action id, 1 if the action is legal and its turn's draw empties a pile, "
     "ending the game (C3.3); zeros for an observer not on move"),
    ("end_share", NUM_ACTIONS,
     "observer on move: per action id that ends the game, the observer's win share at that end (1 sole win, "
     "1/j shared by j, 0 loss); for a play, the best over the bets the engine then allows"),
    ("gives_end", NUM_PLAYS,
     "observer on move, play phase: per play id, 1 if after it and its draw a pile holds one card without "
     "the game having ended, so the next player can end it"),
    ("rival_end", NUM_PLAYS,
     "observer on move, play phase: per play id with gives_end, the best win share the next player could "
     "take by ending the game at once (any style they may hold, any chip they may bet; the observer's bet "
     "left out); 0 otherwise"),
)

SEAT_PIECES: tuple[tuple[str, int, str], ...] = (
    ("present", 1, "1 if this relative seat is in the game"),
    ("chips", 3, "remaining 1-chips / 5, 2-chips / 3, 3-chip / 1"),
    ("revealed", NUM_TOWERS,
     f"per style, cards everybody knows are in this seat's hand (drawn face up, less one per later play of "
     f"that style) / {HAND_SIZE}"),
    ("stake", NUM_TOWERS, f"per tower A..E, total value of this seat's chips under it / {MAX_STAKE}"),
    ("precedence", NUM_TOWERS,
     "per tower A..E, (5 - i) / 5 if this seat's first chip there was the i-th seat's first chip (i = 0 earliest), "
     "0 without a stake: breaks ties between equal stakes"),
    ("score", 1, f"score if the game ended now / {MAX_SCORE}"),
)

SEAT_SIZE = sum(s for _, s, _ in SEAT_PIECES)
GLOBAL_SIZE = sum(s for _, s, _ in GLOBAL_PIECES)


def pieces() -> list[tuple[str, int, str]]:
    """Every piece ``(name, size, meaning)`` in layout order."""
    out = list(GLOBAL_PIECES)
    for s in range(MAX_SEATS):
        out += [(f"seat{s}.{name}", size, doc) for name, size, doc in SEAT_PIECES]
    return out


def offsets() -> dict[str, tuple[int, int]]:
    """``{piece name: (start, size)}`` over the flat vector."""
    return offsets_of(pieces())


OFFSETS = offsets()
OBS_SIZE = sum(s for _, s, _ in pieces())
_O = {name: start for name, (start, _) in OFFSETS.items()}
assert OBS_SIZE == GLOBAL_SIZE + MAX_SEATS * SEAT_SIZE


def layout_table() -> str:
    """The layout as a Markdown table (docs/campanile.md shows it; a test keeps the two equal)."""
    rows = ["| offset | size | piece | meaning |", "|---:|---:|---|---|"]
    rows += table_rows(OFFSETS, GLOBAL_PIECES)
    rows += table_rows(OFFSETS, SEAT_PIECES, "seat0.")
    rows.append(f"| {_O['seat1.present']} | {4 * SEAT_SIZE} | `seat1..seat4.*` | the same {SEAT_SIZE} values for "
                "the seats 1..4 to the observer's left (zeros for seats not in the game) |")
    rows.append(f"| | **{OBS_SIZE}** | | total |")
    return "\n".join(rows)


_PHASE, _VARIANT, _EXACT, _NPLAYERS, _TO_ACT = _O["phase"], _O["variant"], _O["bet_chip_exact"], \
    _O["num_players"], _O["to_act"]
_PLAYED_T, _PLAYED_K, _HEIGHTS, _RANK = _O["played_tower"], _O["played_storeys"], _O["heights"], _O["flag_rank"]
_FACE, _PSIZE, _HAND, _UNSEEN, _CPLAYED = _O["face_up"], _O["pile_sizes"], _O["hand"], _O["unseen"], \
    _O["cards_played"]
_ENDS, _END_SHARE, _GIVES_END, _RIVAL_END = _O["ends_game"], _O["end_share"], _O["gives_end"], _O["rival_end"]
_SEAT0 = _O["seat0.present"]
_S_CHIPS, _S_REVEALED, _S_STAKE, _S_PREC, _S_SCORE = (_O[f"seat0.{n}"] - _SEAT0 for n in
                                                       ("chips", "revealed", "stake", "precedence", "score"))
_CHIP_SCALE = tuple(1.0 / c for c in CHIPS)
_THIRD = 1.0 / HAND_SIZE
_PER_STYLE = 1.0 / CARDS_PER_STYLE


def encode(state: CampanileState, observer: int) -> np.ndarray:
    """The observation of seat ``observer`` as a float32 vector of length ``OBS_SIZE``.

    It reads only what ``observer`` may know (SPEC C5): two states that differ only in cards
    hidden from ``observer`` (see ``CampanileState.determinize``) give equal vectors.
    """
    if state.backend == "native":  # written by the native core, the same vector
        return state.observe(observer)  # type: ignore[attr-defined]  # a NativeState: core.native.wrapper
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    # written through a memoryview: a float32 element is set in a fraction of numpy's indexing
    # time, and there is no list to convert at the end (format "f": items are set as Python floats;
    # numpy's stubs give ndarray the buffer protocol only for Python >= 3.12, mypy checks for 3.10)
    v: memoryview[float] = memoryview(out)  # type: ignore[arg-type]  # numpy stubs: no __buffer__ before 3.12
    n = state.num_players
    v[_PHASE + (2 if state.done else state.phase)] = 1.0
    v[_VARIANT + (state.variant == "played")] = 1.0
    if state.bet_chip == "exact":
        v[_EXACT] = 1.0
    v[_NPLAYERS + n - 2] = 1.0
    v[_TO_ACT + (state.current_player - observer) % n] = 1.0
    if state.played_storeys:  # bet phase only
        v[_PLAYED_T + state.played_tower] = 1.0
        v[_PLAYED_K + state.played_storeys - 1] = 1.0
    heights = state.heights
    for t in range(NUM_TOWERS):
        h = heights[t]
        if h:
            v[_HEIGHTS + t] = h / MAX_HEIGHT if h < MAX_HEIGHT else 1.0
    for rank, t in enumerate(state.flag_order()):
        v[_RANK + NUM_TOWERS * t + rank] = 1.0
    for i, pile in enumerate(state.piles):
        if pile:
            size = len(pile)
            v[_FACE + NUM_TOWERS * i + pile[-1]] = 1.0
            v[_PSIZE + i] = size / MAX_PILE if size < MAX_PILE else 1.0
    for c in state.hands[observer]:
        v[_HAND + c] += _THIRD
    unseen, played = state.unseen_counts(observer), state.cards_played
    for t in range(NUM_TOWERS):
        v[_UNSEEN + t] = unseen[t] * _PER_STYLE
        v[_CPLAYED + t] = played[t] * _PER_STYLE
    scores, table = state.scores(), state.stake_table()
    for p in range(n):
        o = _SEAT0 + ((p - observer) % n) * SEAT_SIZE
        v[o] = 1.0
        held = state.chips[p]
        v[o + _S_CHIPS] = held[0] * _CHIP_SCALE[0]
        v[o + _S_CHIPS + 1] = held[1] * _CHIP_SCALE[1]
        v[o + _S_CHIPS + 2] = held[2] * _CHIP_SCALE[2]
        for c in state.revealed[p]:
            v[o + _S_REVEALED + c] += _THIRD
        for t, (stake, first) in enumerate(table[p]):
            if stake:
                v[o + _S_STAKE + t] = stake / MAX_STAKE
                v[o + _S_PREC + t] = (MAX_SEATS - first) / MAX_SEATS
        v[o + _S_SCORE] = scores[p] / MAX_SCORE
    if not state.done and state.current_player == observer:
        _end_pieces(state, observer, v, unseen)
    return out


def _share(scores: list[int], seat: int) -> float:
    """``seat``'s win share with these final scores: 1 sole win, 1/j shared by j, 0 loss (SPEC C4)."""
    top = max(scores)
    return 1.0 / scores.count(top) if scores[seat] == top else 0.0


def _bet_share(state: CampanileState, seat: int, bet: int, order: list[int], backed: list) -> float:
    """``seat``'s win share if the game ended after ``bet`` (the bet phase of ``state``; the draw
    that ends the game scores nothing), the towers in flag ``order`` and ``backed`` the towers'
    backers before the bet."""
    if bet != NO_BET:
        t, v = divmod(bet - BET, 3)
        backed = list(backed)
        backed[t] = ranked_backers(state.bets[t] + ((seat, v + 1),))
    return _share(score_backed(order, backed, state.num_players), seat)


def _end_pieces(state: CampanileState, seat: int, v: memoryview[float], unseen: list[int]) -> None:
    """Fill ``ends_game``, ``end_share``, ``gives_end`` and ``rival_end`` for the player on move
    (``unseen``: ``state.unseen_counts(seat)``).

    The game ends only when a draw empties a pile, so nothing is computed unless a pile holds one
    card (or, for ``gives_end``, two). The legal bets after a play come from the engine (a clone
    with the play applied) and the scores from the rules' ``score_backed``; only public cards
    and the observer's hand are involved.
    """
    sizes = [len(p) for p in state.piles]
    if min(sizes) > 2:
        return
    backed = [ranked_backers(b) for b in state.bets]  # a play changes no chips: the same for every action
    if state.played_storeys:  # bet phase: the draw that follows comes from pile `played_storeys`
        if sizes[state.played_storeys - 1] == 1:
            order = state.flag_order()
            for a in state.legal_actions():
                v[_ENDS + a] = 1.0
                v[_END_SHARE + a] = _bet_share(state, seat, a, order, backed)
        return
    for a in state.legal_actions():
        k = a % 3 + 1  # play ids run by storeys 1, 2, 3 within a tower
        left = sizes[k - 1] - 1
        if left == 0:
            played = state.clone()
            played.apply_action(a)
            order = played.flag_order()
            v[_ENDS + a] = 1.0
            v[_END_SHARE + a] = max(_bet_share(played, seat, b, order, backed) for b in played.legal_actions())
        elif left == 1 or any(n == 1 for i, n in enumerate(sizes) if i != k - 1):
            v[_GIVES_END + a] = 1.0
            after = list(sizes)
            after[k - 1] = left
            v[_RIVAL_END + a] = _rival_end_share(state, seat, a // 3, k, after, backed, unseen)


def _rival_end_share(state: CampanileState, seat: int, tower: int, storeys: int, sizes: list[int],
                     backed: list, unseen: list[int]) -> float:
    """The next player's best win share from ending the game on their turn, after ``seat`` raised
    ``tower`` by ``storeys``, made no bet and drew (pile sizes now ``sizes``; ``backed``: each
    tower's backers now; ``unseen``: ``state.unseen_counts(seat)``): see
    :func:`~five_towers_env.games.campanile.endgame.next_player_endings`."""
    heights = list(state.heights)
    heights[tower] += storeys
    rival = (seat + 1) % state.num_players
    best = 0.0
    for scores in next_player_endings(state, seat, heights, state.bets, sizes, storeys, backed, unseen):
        best = max(best, _share(scores, rival))
        if best == 1.0:
            break
    return best


def describe(vector: np.ndarray, nonzero_only: bool = True) -> str:
    """A debug string of a vector, one line per piece, named as in the layout table."""
    return describe_vector(vector, OFFSETS, nonzero_only)


__all__ = ["OBS_SIZE", "GLOBAL_PIECES", "SEAT_PIECES", "SEAT_SIZE", "MAX_SEATS", "pieces", "offsets", "OFFSETS",
           "layout_table", "encode", "describe"]
