"""The flat observation vector, built from named pieces ``(name, size)`` (SPEC §6).

Seats are relative to the observer (``seat0`` is the observer, ``seat1`` the player to their
left, ...) and padded to five seats, so one layout serves every player count and both variants.
Card-count pieces hold 80 counts indexed by card id (``type_index * 16 + value``). Nothing here
depends on the deck order: the deck enters only as the multiset ``unseen`` and its size.
"""
from __future__ import annotations

from functools import lru_cache

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
    """Memo that lets ``encode`` patch its last vector instead of building a new one.

    * a seat's block changes only when that seat builds, tears down or pays (its towers and
      pile), and then usually in one tower: the new block is the last one with that part redone;
    * the discard and unseen counts change only at the end of a round (and on a tree payment);
    * per observer, the last vector encoded and the inputs of each of its pieces: a piece is
      rewritten only when its inputs differ (see ``_Frame``).

    Hits are decided by identity of the immutable tuples the memo holds on to, or by comparing
    contents, so one memo may serve several games and environments and never goes stale.
    """

    def __init__(self) -> None:
        self._seats: dict = {}   # seat -> (towers, pile, gp, block) last encoded
        self._pool: tuple = (None, None, None)  # (deck copy, discard copy, counts) last encoded
        self._frames: dict = {}  # observer -> _Frame

    def frame(self, state: GameState, observer: int) -> np.ndarray:
        """``observer``'s observation of ``state``. Read only: ``encode`` returns a copy."""
        n, gp = state.num_players, state.gp
        f = self._frames.get(observer)
        if f is None or f.n != n or f.gp != gp:
            f = self._frames[observer] = _Frame(n, gp, observer)
        f.refresh(state, self)
        return f.vector

    def seat(self, p: int, towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
        """The block of seat ``p`` (``present`` = 1, bid and ceiling pieces zero). Read only."""
        last = self._seats.get(p)
        if last is not None and last[0] is towers and last[1] is pile and last[2] == gp:
            return last[3]
        if last is not None and last[2] == gp:
            block = _update_seat_block(last[3], last[0], last[1], towers, pile, gp)
        else:
            block = _seat_block(towers, pile, gp)
        self._seats[p] = (towers, pile, gp, block)
        return block

    def pool(self, deck: list, discard: list) -> np.ndarray:
        """Counts of the discard pile and of the unseen deck cards (the last two card pieces)."""
        last_deck, last_discard, counts = self._pool
        if deck == last_deck and discard == last_discard:  # plain list comparison: cheap, exact
            return counts
        ids = [c for c in discard]
        ids += [NUM_CARD_IDS + c for c in deck]
        counts = np.bincount(ids, minlength=2 * NUM_CARD_IDS).astype(np.float32)
        self._pool = (list(deck), list(discard), counts)
        return counts


_PAYABLE_AT = 1 + 4 + 1  # offset of "tree_payable" inside a seat block
_SCORE_AT = _PAYABLE_AT + 1  # offset of "score"
_PILE_AT = _SCORE_AT + 2  # offset of "teardown"
_TOWER_COUNTS = 2 * NONE_ONE_HOT  # offset of "cards" inside a tower block


def _seat_block(towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
    block = np.zeros(SEAT_SIZE, dtype=np.float32)
    block[0] = 1.0  # present
    _write_header(block, towers, pile, gp)
    _write_pile(block, pile)
    for t in range(NUM_TYPES):
        _write_tower(block, t, towers[t])
    return block


def _update_seat_block(old: np.ndarray, old_towers: tuple, old_pile: tuple,
                       towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
    # A build, teardown, recover or payment changes one or two towers and maybe the pile:
    # rewrite only those parts (and the header, which depends on everything) of a copy.
    block = old.copy()
    _write_header(block, towers, pile, gp)
    if pile != old_pile:
        block[_PILE_AT:_PILE_AT + NUM_CARD_IDS] = 0.0
        _write_pile(block, pile)
    for t in range(NUM_TYPES):
        if towers[t] != old_towers[t]:
            o = SEAT_STATIC + t * TOWER_SIZE
            block[o:o + TOWER_SIZE] = 0.0
            _write_tower(block, t, towers[t])
    return block


def _write_header(block: np.ndarray, towers: tuple, pile: tuple, gp: bool) -> None:
    block[_PAYABLE_AT] = payable(towers, gp) / MAX_BID
    # clamp in Python: the same float64 as np.clip gives, at a fraction of its call overhead
    block[_SCORE_AT] = min(1.0, max(-1.0, score_player(towers, pile, gp) / SCORE_SCALE))
    block[_SCORE_AT + 1] = pair_bonus(towers) / 30.0 if gp else 0.0


def _write_pile(block: np.ndarray, pile: tuple) -> None:
    for c in pile:
        block[_PILE_AT + c] += 1.0
    block[_PILE_AT + NUM_CARD_IDS] = len(pile) / 16.0


def _write_tower(block: np.ndarray, t: int, tw: tuple) -> None:
    """Write the (zeroed) block of tower type ``t``."""
    o = SEAT_STATIC + t * TOWER_SIZE
    if not tw:
        block[o] = 1.0
        block[o + NONE_ONE_HOT] = 1.0
        return
    block[o + 1 + tw[-1]] = 1.0
    block[o + NONE_ONE_HOT + 1 + tw[0]] = 1.0
    counts = [0.0] * NUM_VALUES
    for v in tw:
        counts[v] += 1.0
    block[o + _TOWER_COUNTS:o + _TOWER_COUNTS + NUM_VALUES] = counts
    block[o + _TOWER_COUNTS + NUM_VALUES] = len(tw) / 16.0
    block[o + _TOWER_COUNTS + NUM_VALUES + 1] = float(tw[-1] == 0)


_PHASE, _VARIANT, _NPLAYERS = _O["phase"], _O["variant"], _O["num_players"]
_TO_ACT, _START, _BUILDER = _O["to_act"], _O["start_player"], _O["builder"]
_DISPLAY, _HAND, _POOL = _O["display"], _O["hand"], _O["discard"]  # discard and unseen: one 160-count piece
_DECK, _ROUND, _TORN, _SAND, _RECOVER = _O["deck"], _O["round"], _O["teardown_choice"], _O["sand_end"], _O["recover_pending"]
_POOL_END = _POOL + 2 * NUM_CARD_IDS
assert _O["unseen"] == _POOL + NUM_CARD_IDS and _O["deck"] == _POOL_END


class _Frame:
    """The last observation encoded for one observer, with the inputs of each piece.

    ``refresh`` compares every piece's inputs with those it was last written from and
    rewrites only the pieces that differ; unchanged pieces keep their (identical) values.
    """

    def __init__(self, n: int, gp: bool, observer: int) -> None:
        self.n, self.gp, self.observer = n, gp, observer
        v = self.vector = np.zeros(OBS_SIZE, dtype=np.float32)
        v[_VARIANT + int(gp)] = 1.0
        v[_NPLAYERS + n - 2] = 1.0
        # one-hot pieces: the position currently set (None: none set)
        self.hot = {_START: None, _PHASE: None, _TO_ACT: None, _BUILDER: None, _TORN: None, _SAND: None}
        self.deck = self.counts = self.display = self.hand = self.round = None
        self.seats = [None] * n  # per seat: (towers, pile, bid, ceiling) last written

    def _one_hot(self, piece: int, i: int | None) -> None:
        old = self.hot[piece]
        if old != i:
            if old is not None:
                self.vector[piece + old] = 0.0
            if i is not None:
                self.vector[piece + i] = 1.0
            self.hot[piece] = i

    def refresh(self, state: GameState, cache: SeatCache) -> None:
        v, n, observer = self.vector, self.n, self.observer
        self._one_hot(_START, (state.start_player - observer) % n)
        if self.hot[_PHASE] != state.phase:
            self._one_hot(_PHASE, int(state.phase))
            v[_RECOVER] = float(state.phase == Phase.RECOVER)
        self._one_hot(_TO_ACT, None if state.current_player < 0 else (state.current_player - observer) % n)
        self._one_hot(_BUILDER, None if state.builder < 0 else (state.builder - observer) % n)
        self._one_hot(_TORN, 0 if state.torn is None else state.torn + 2)
        self._one_hot(_SAND, state.sand_end)
        deck = (len(state.deck), state.deck_ran_out)
        if deck != self.deck:
            v[_DECK] = deck[0] / 110.0
            v[_DECK + 1] = float(deck[1])
            self.deck = deck
        counts = cache.pool(state.deck, state.discard)
        if counts is not self.counts:  # the memo hands out the same array while the pool is unchanged
            v[_POOL:_POOL_END] = counts
            self.counts = counts
        if state.display != self.display:
            _write_counts(v, _DISPLAY, state.display)
            self.display = state.display
        if state.hand != self.hand:
            _write_counts(v, _HAND, state.hand)
            self.hand = state.hand
        rnd = (state.high_bid, state.target, state.taken, state.paid, state.took_tree)
        if rnd != self.round:
            _write_round(v, rnd, self.round)
            self.round = rnd
        live = state.phase != Phase.GAME_OVER
        towers, piles, bids, seats = state.towers, state.piles, state.bids, self.seats
        for p in range(n):
            key = (towers[p], piles[p], bids[p], state.ceiling(p) if live else None)
            old = seats[p]
            # towers and piles are immutable tuples: the same objects give the same block
            if old is None or key[0] is not old[0] or key[1] is not old[1] or key[2:] != old[2:]:
                block = cache.seat(p, key[0], key[1], self.gp)
                _write_seat(v, _seat_offset(p, observer, n), block, key[2], key[3])
                seats[p] = key


def _write_counts(v: np.ndarray, at: int, cards: tuple) -> None:
    v[at:at + NUM_CARD_IDS] = _card_counts(cards)


@lru_cache(maxsize=65_536)
def _card_counts(cards: tuple) -> np.ndarray:
    """80 counts by card id (memoised: displays and hands recur across observers). Read only."""
    counts = np.zeros(NUM_CARD_IDS, dtype=np.float32)
    for c in cards:  # += : 4-5 player games have two copies of some cards
        counts[c] += 1.0
    counts.flags.writeable = False
    return counts


def _round_values(rnd: tuple) -> tuple:
    """The six values of the ``round`` piece from (high bid, target, taken, paid, took tree)."""
    high_bid, target, taken, paid, took_tree = rnd
    return (float(high_bid >= 0), high_bid / MAX_BID if high_bid >= 0 else 0.0,
            target / MAX_BID, taken / MAX_BID, paid / MAX_BID, float(took_tree))


def _write_round(v: np.ndarray, rnd: tuple, old: tuple | None) -> None:
    """Write the ``round`` piece, only the values that differ from those of ``old``."""
    new = _round_values(rnd)
    before = _round_values(old) if old is not None else (None,) * len(new)
    for i, x in enumerate(new):
        if x != before[i]:
            v[_ROUND + i] = x


def _write_seat(v: np.ndarray, o: int, block: np.ndarray, bid: int | None, ceiling: int | None) -> None:
    v[o:o + SEAT_SIZE] = block  # bid and ceiling pieces are zeros in the block
    if bid is None:
        v[o + 1] = 1.0
    elif bid == PASSED:
        v[o + 2] = 1.0
    else:
        v[o + 3] = 1.0
        v[o + 4] = bid / MAX_BID
    if ceiling is not None:
        v[o + 5] = ceiling / MAX_BID


def _seat_offset(p: int, observer: int, n: int) -> int:
    return GLOBAL_SIZE + ((p - observer) % n) * SEAT_SIZE


def encode(state: GameState, observer: int, cache: SeatCache | None = None) -> np.ndarray:
    """The observation of seat ``observer`` as a float32 vector of length ``OBS_SIZE``."""
    return (cache or _DEFAULT_CACHE).frame(state, observer).copy()


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
