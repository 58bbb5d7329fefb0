"""The flat observation vector, built from named pieces ``(name, size)`` (SPEC §6).

Seats are relative to the observer (``seat0`` is the observer, ``seat1`` the player to their
left, ...) and padded to five seats, so one layout serves every player count and both variants.
Card-count pieces hold 80 counts indexed by card id (``type_index * 16 + value``). Nothing here
depends on the deck order: the deck enters only as the multiset ``unseen`` and its size.
"""
from __future__ import annotations

import numpy as np

from ..engine.actions import MAX_BID
from ..engine.cards import NUM_CARD_IDS, NUM_TYPES, NUM_VALUES, TYPES
from ..engine.lookahead import payable
from ..engine.scoring import pair_bonus, score_player
from ..engine.state import PASSED, PHASE_NAMES, GameState, Phase

MAX_SEATS = 5
SCORE_SCALE = 100.0
NONE_ONE_HOT = 17  # "no card" slot + values 0..15

GLOBAL_PIECES: tuple[tuple[str, int, str], ...] = (
    ("phase", len(PHASE_NAMES), "one-hot: bid, take, teardown, build, recover, game_over"),
    ("variant", 2, "one-hot: base, great_powers"),
    ("num_players", 4, "one-hot: 2, 3, 4, 5 players"),
    ("to_act", MAX_SEATS, "relative seat of the player to act (one-hot)"),
    ("start_player", MAX_SEATS, "relative seat of this round's start player (one-hot)"),
    ("builder", MAX_SEATS, "relative seat of the highest bidder / builder (one-hot, zeros before any bid)"),
    ("display", NUM_CARD_IDS, "counts of the display cards"),
    ("hand", NUM_CARD_IDS, "counts of the cards the builder took and has not built yet"),
    ("discard", NUM_CARD_IDS, "counts of the discard pile"),
    ("unseen", NUM_CARD_IDS, "counts of the cards still in the draw deck (its multiset, never its order)"),
    ("deck", 2, "deck size / 110, deck already ran out once (0/1)"),
    ("round", 6, "bid made (0/1), high bid, builder's bid, cards taken, tree cards paid (each / 25), took a tree card (0/1)"),
    ("teardown_choice", 7, "one-hot: not decided yet, no teardown, torn candy, scary, tree, scrap, sand"),
    ("sand_end", 3, "one-hot: this round's end of the builder's sand tower: not fixed, top, bottom"),
    ("recover_pending", 1, "1 while the builder faces a recover decision"),
)

SEAT_PIECES: tuple[tuple[str, int, str], ...] = (
    ("present", 1, "1 if this relative seat is in the game"),
    ("bid", 4, "not yet bid, passed, bid (one-hot) and the bid / 25"),
    ("ceiling", 1, "bid ceiling this round / 25 (SPEC §3)"),
    ("tree_payable", 1, "tree cards this seat could pay / 25 (0 in base or with a topped tree tower)"),
    ("score", 1, "score if the game ended now / 100, clipped to [-1, 1]"),
    ("pair_bonus", 1, "Great Powers scary/candy pair bonus so far / 30"),
    ("teardown", NUM_CARD_IDS, "counts of this seat's teardown pile"),
    ("teardown_size", 1, "teardown pile size / 16"),
)

TOWER_PIECES: tuple[tuple[str, int, str], ...] = (
    ("top", NONE_ONE_HOT, "one-hot: no tower, top value 0..15"),
    ("bottom", NONE_ONE_HOT, "one-hot: no tower, bottom value 0..15"),
    ("cards", NUM_VALUES, "count of each value in the tower"),
    ("height", 1, "number of cards / 16"),
    ("topped", 1, "1 if the tower has a tower top (a 0)"),
)

TOWER_SIZE = sum(s for _, s, _ in TOWER_PIECES)
SEAT_STATIC = sum(s for _, s, _ in SEAT_PIECES)
SEAT_SIZE = SEAT_STATIC + NUM_TYPES * TOWER_SIZE


def pieces() -> list[tuple[str, int, str]]:
    """Every piece ``(name, size, meaning)`` in layout order."""
    out = list(GLOBAL_PIECES)
    for s in range(MAX_SEATS):
        out += [(f"seat{s}.{n}", k, d) for n, k, d in SEAT_PIECES]
        for t in TYPES:
            out += [(f"seat{s}.{t}.{n}", k, d) for n, k, d in TOWER_PIECES]
    return out


def offsets() -> dict[str, tuple[int, int]]:
    """``{piece name: (start, size)}`` over the flat vector."""
    out, pos = {}, 0
    for name, size, _ in pieces():
        out[name] = (pos, size)
        pos += size
    return out


OFFSETS = offsets()
OBS_SIZE = sum(s for _, s, _ in pieces())
GLOBAL_SIZE = sum(s for _, s, _ in GLOBAL_PIECES)
_O = {name: start for name, (start, _) in OFFSETS.items()}


def layout_table() -> str:
    """The layout as a Markdown table (the README shows it; a test keeps the two equal)."""
    rows = ["| offset | size | piece | meaning |", "|---:|---:|---|---|"]
    rows += [f"| {OFFSETS[n][0]} | {k} | `{n}` | {d} |" for n, k, d in GLOBAL_PIECES]
    rows += [f"| {OFFSETS['seat0.' + n][0]} | {k} | `seat0.{n}` | {d} |" for n, k, d in SEAT_PIECES]
    rows += [f"| {OFFSETS['seat0.candy.' + n][0]} | {k} | `seat0.TYPE.{n}` | {d} |" for n, k, d in TOWER_PIECES]
    rows.append(f"| | | | `TYPE` = candy, scary, tree, scrap, sand: the same {TOWER_SIZE} values per type, "
                f"candy first, each type {TOWER_SIZE} further on |")
    rows.append(f"| {_O['seat1.present']} | {4 * SEAT_SIZE} | `seat1..seat4.*` | the same {SEAT_SIZE} values for the "
                "seats 1..4 to the observer's left (zeros for seats not in the game) |")
    rows.append(f"| | **{OBS_SIZE}** | | total |")
    return "\n".join(rows)


class SeatCache:
    """Encodings of a seat's towers and teardown pile, which change only when that seat builds."""

    def __init__(self, limit: int = 50_000) -> None:
        self._cache: dict = {}
        self._limit = limit

    def get(self, towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
        """The static part of a seat block (pieces from ``score`` on) for these towers and pile."""
        key = (towers, pile, gp)
        block = self._cache.get(key)
        if block is None:
            if len(self._cache) >= self._limit:
                self._cache.clear()
            block = _seat_static(towers, pile, gp)
            self._cache[key] = block
        return block


_SCORE_AT = 1 + 4 + 1 + 1  # offset of "score" inside a seat block


def _seat_static(towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
    block = np.zeros(SEAT_SIZE - _SCORE_AT, dtype=np.float32)
    block[0] = np.clip(score_player(towers, pile, gp) / SCORE_SCALE, -1.0, 1.0)
    block[1] = pair_bonus(towers) / 30.0 if gp else 0.0
    for c in pile:
        block[2 + c] += 1.0
    block[2 + NUM_CARD_IDS] = len(pile) / 16.0
    base = SEAT_STATIC - _SCORE_AT
    for t, tw in enumerate(towers):
        o = base + t * TOWER_SIZE
        if tw:
            block[o + 1 + tw[-1]] = 1.0
            block[o + NONE_ONE_HOT + 1 + tw[0]] = 1.0
            for v in tw:
                block[o + 2 * NONE_ONE_HOT + v] += 1.0
            block[o + 2 * NONE_ONE_HOT + NUM_VALUES] = len(tw) / 16.0
            block[o + 2 * NONE_ONE_HOT + NUM_VALUES + 1] = float(tw[-1] == 0)
        else:
            block[o] = 1.0
            block[o + NONE_ONE_HOT] = 1.0
    return block


_PHASE, _VARIANT, _NPLAYERS = _O["phase"], _O["variant"], _O["num_players"]
_TO_ACT, _START, _BUILDER = _O["to_act"], _O["start_player"], _O["builder"]
_CARDS = _O["display"]  # display, hand, discard and unseen: four consecutive 80-count pieces
_DECK, _ROUND, _TORN, _SAND, _RECOVER = _O["deck"], _O["round"], _O["teardown_choice"], _O["sand_end"], _O["recover_pending"]
_CARD_PIECES = 4 * NUM_CARD_IDS
assert _O["hand"] == _CARDS + NUM_CARD_IDS and _O["unseen"] == _CARDS + 3 * NUM_CARD_IDS


def encode(state: GameState, observer: int, cache: SeatCache | None = None) -> np.ndarray:
    """The observation of seat ``observer`` as a float32 vector of length ``OBS_SIZE``."""
    cache = cache or _DEFAULT_CACHE
    n = state.num_players
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    out[_PHASE + int(state.phase)] = 1.0
    out[_VARIANT + int(state.gp)] = 1.0
    out[_NPLAYERS + n - 2] = 1.0
    if state.current_player >= 0:
        out[_TO_ACT + (state.current_player - observer) % n] = 1.0
    out[_START + (state.start_player - observer) % n] = 1.0
    if state.builder >= 0:
        out[_BUILDER + (state.builder - observer) % n] = 1.0
    # one bincount over the four card-count pieces (display, hand, discard, unseen) at once
    ids = [c for c in state.display]
    ids += [NUM_CARD_IDS + c for c in state.hand]
    ids += [2 * NUM_CARD_IDS + c for c in state.discard]
    ids += [3 * NUM_CARD_IDS + c for c in state.deck]
    out[_CARDS:_CARDS + _CARD_PIECES] = np.bincount(ids, minlength=_CARD_PIECES)
    out[_DECK] = len(state.deck) / 110.0
    out[_DECK + 1] = float(state.deck_ran_out)
    if state.high_bid >= 0:
        out[_ROUND] = 1.0
        out[_ROUND + 1] = state.high_bid / MAX_BID
    out[_ROUND + 2] = state.target / MAX_BID
    out[_ROUND + 3] = state.taken / MAX_BID
    out[_ROUND + 4] = state.paid / MAX_BID
    out[_ROUND + 5] = float(state.took_tree)
    out[_TORN + (0 if state.torn is None else state.torn + 2)] = 1.0
    out[_SAND + state.sand_end] = 1.0
    out[_RECOVER] = float(state.phase == Phase.RECOVER)
    live = state.phase != Phase.GAME_OVER
    for p in range(n):
        o = GLOBAL_SIZE + ((p - observer) % n) * SEAT_SIZE
        out[o] = 1.0
        b = state.bids[p]
        if b is None:
            out[o + 1] = 1.0
        elif b == PASSED:
            out[o + 2] = 1.0
        else:
            out[o + 3] = 1.0
            out[o + 4] = b / MAX_BID
        if live:
            out[o + 5] = state.ceiling(p) / MAX_BID
        out[o + 6] = payable(state.towers[p], state.gp) / MAX_BID
        out[o + _SCORE_AT:o + SEAT_SIZE] = cache.get(state.towers[p], state.piles[p], state.gp)
    return out


def describe(vector: np.ndarray, nonzero_only: bool = True) -> str:
    """A debug string of a vector, one line per piece, named as in the layout table."""
    lines = []
    for name, (start, size) in OFFSETS.items():
        part = vector[start:start + size]
        if nonzero_only and not part.any():
            continue
        if size == 1:
            lines.append(f"{name}: {part[0]:.3g}")
        else:
            nz = {int(i): round(float(part[i]), 3) for i in np.flatnonzero(part)}
            lines.append(f"{name}: {nz}")
    return "\n".join(lines)


_DEFAULT_CACHE = SeatCache()
