"""The flat observation vector, built from named pieces ``(name, size)`` (SPEC §6).

Seats are relative to the observer (``seat0`` is the observer, ``seat1`` the player to their
left, ...) and padded to five seats, so one layout serves every player count and both variants.
Card-count pieces hold 80 counts indexed by card id (``type_index * 16 + value``). Nothing here
depends on the deck order: the deck enters only as the multiset ``unseen`` and its size.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from five_towers_env.core.layout import describe_vector, offsets_of, table_rows
from five_towers_env.games.five_towers.actions import MAX_BID
from five_towers_env.games.five_towers.cards import NUM_CARD_IDS, NUM_TYPES, NUM_VALUES, TYPES
from five_towers_env.games.five_towers.lookahead import payable
from five_towers_env.games.five_towers.scoring import pair_bonus, score_player
from five_towers_env.games.five_towers.state import PASSED, PHASE_NAMES, GameState, Phase

if TYPE_CHECKING:
    from typing import TypeAlias

    import numpy.typing as npt

    # What the patches write to: a float32 array or a memoryview of one (format "f": its items are
    # read and set as Python floats). numpy's stubs give ndarray the buffer protocol (``__buffer__``)
    # only for Python >= 3.12, while mypy checks for 3.10: the few lines that hand an array to a
    # memoryview, or copy one into a memoryview slice, carry an ignore saying so.
    _Floats: TypeAlias = "npt.NDArray[np.float32] | memoryview[float]"

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
    ("round", 6, "bid made (0/1), high bid, builder's bid, cards taken, tree cards paid (each / 25), "
                 "took a tree card (0/1)"),
    ("teardown_choice", 7, "one-hot: not decided yet, no teardown, torn candy, scary, tree, scrap, sand"),
    ("sand_end", 3, "one-hot: this round's end of the builder's sand tower: not fixed, top, bottom"),
    ("recover_pending", 1, "1 while the builder faces a recover decision"),
)

SEAT_PIECES: tuple[tuple[str, int, str], ...] = (
    ("present", 1, "1 if this relative seat is in the game"),
    ("bid", 4, "not yet bid, passed, bid (one-hot) and the bid / 25"),
    ("ceiling", 1, "bid ceiling this round / 25 (rules §3.2)"),
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
    return offsets_of(pieces())


OFFSETS = offsets()
OBS_SIZE = sum(s for _, s, _ in pieces())
GLOBAL_SIZE = sum(s for _, s, _ in GLOBAL_PIECES)
_O = {name: start for name, (start, _) in OFFSETS.items()}


def layout_table() -> str:
    """The layout as a Markdown table (the README shows it; a test keeps the two equal)."""
    rows = ["| offset | size | piece | meaning |", "|---:|---:|---|---|"]
    rows += table_rows(OFFSETS, GLOBAL_PIECES)
    rows += table_rows(OFFSETS, SEAT_PIECES, "seat0.")
    rows += table_rows(OFFSETS, TOWER_PIECES, "seat0.candy.", "seat0.TYPE.")
    rows.append(f"| | | | `TYPE` = candy, scary, tree, scrap, sand: the same {TOWER_SIZE} values per type, "
                f"candy first, each type {TOWER_SIZE} further on |")
    rows.append(f"| {_O['seat1.present']} | {4 * SEAT_SIZE} | `seat1..seat4.*` | the same {SEAT_SIZE} values for the "
                "seats 1..4 to the observer's left (zeros for seats not in the game) |")
    rows.append(f"| | **{OBS_SIZE}** | | total |")
    return "\n".join(rows)


class SeatCache:
    """Memo that lets ``encode`` patch the last table it wrote instead of building a new one.

    * The table holds every piece that does not depend on the observer (all but ``to_act``,
      ``start_player`` and ``builder``, which are relative seats), with the seats in absolute order,
      and the inputs each piece was written from: a piece is rewritten only when its inputs differ
      (see ``_Table``), so a change is written once whichever seat looks next; a seat's towers
      change one tower at a time, so only that tower's part of the seat block is rewritten.
    * An observation is that table with the seat blocks rotated to the observer and the three
      relative one-hots set: a few array copies.
    * The discard and unseen counts change only at the end of a round (and on a tree payment):
      a round's draw is patched in from the last counts.

    Hits are decided by identity of the immutable tuples the memo holds on to, or by comparing
    contents, so one memo may serve several games and environments and never goes stale.
    """

    def __init__(self) -> None:
        self._pool: tuple = (None, None, None)  # (deck copy, discard copy, counts) last encoded
        self._tables: dict = {}  # (num_players, gp) -> _Table

    def encode(self, state: GameState, observer: int) -> np.ndarray:
        """``observer``'s observation of ``state`` (a new array)."""
        key = (state.num_players, state.gp)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = _Table(*key)
        table.refresh(state, self)
        return table.vector(state, observer)

    def pool(self, deck: list, discard: list) -> np.ndarray:
        """Counts of the discard pile and of the unseen deck cards (the last two card pieces).

        The same array is handed out while the pool is unchanged; a new one when it changes."""
        last_deck, last_discard, counts = self._pool
        if deck == last_deck and discard == last_discard:  # plain list comparison: cheap, exact
            return counts
        nd, nu = len(last_discard or ()), len(deck)
        if (last_deck is not None and nu <= len(last_deck) and len(discard) >= nd
                and deck == last_deck[:nu] and discard[:nd] == last_discard):
            # the usual change: cards drawn off the top of the deck, cards added to the discard pile
            counts = counts.copy()
            for c in last_deck[nu:]:
                counts[NUM_CARD_IDS + c] -= 1.0
            for c in discard[nd:]:
                counts[c] += 1.0
        else:
            ids = list(discard)
            ids += [NUM_CARD_IDS + c for c in deck]
            counts = np.bincount(ids, minlength=2 * NUM_CARD_IDS).astype(np.float32)
        self._pool = (list(deck), list(discard), counts)
        return counts


_BID_AT = 1  # offset of "bid" inside a seat block
_CEILING_AT = _BID_AT + 4  # offset of "ceiling"
_PAYABLE_AT = _CEILING_AT + 1  # offset of "tree_payable"
_SCORE_AT = _PAYABLE_AT + 1  # offset of "score"
_PILE_AT = _SCORE_AT + 2  # offset of "teardown"
_TOWER_COUNTS = 2 * NONE_ONE_HOT  # offset of "cards" inside a tower block
_NO_CARDS = np.zeros(NUM_CARD_IDS, dtype=np.float32)  # a count piece's zeros
_NO_CARDS.flags.writeable = False


def _seat_block(towers: tuple, pile: tuple, gp: bool) -> np.ndarray:
    """A seat's block with ``present`` = 1 and zero bid and ceiling pieces."""
    block = np.zeros(SEAT_SIZE, dtype=np.float32)
    block[0] = 1.0  # present
    view: memoryview[float] = memoryview(block)  # type: ignore[arg-type]  # numpy stubs: no __buffer__ before 3.12
    _write_header(view, towers, pile, gp)
    _write_pile(view, pile)
    for t in range(NUM_TYPES):
        o = SEAT_STATIC + t * TOWER_SIZE
        block[o:o + TOWER_SIZE] = tower_block(towers[t])
    return block


def _patch_seat(block: _Floats, old_towers: tuple, old_pile: tuple,
                towers: tuple, pile: tuple, gp: bool) -> None:
    # A build, teardown, recover or payment changes one or two towers and maybe the pile:
    # rewrite only those parts (and the header, which depends on everything).
    _write_header(block, towers, pile, gp)
    if pile != old_pile:
        block[_PILE_AT:_PILE_AT + NUM_CARD_IDS] = _NO_CARDS  # type: ignore[call-overload]  # numpy stubs: see _Floats
        _write_pile(block, pile)
    for t in range(NUM_TYPES):
        tw = towers[t]
        if tw != old_towers[t]:
            o = SEAT_STATIC + t * TOWER_SIZE
            block[o:o + TOWER_SIZE] = tower_block(tw)  # type: ignore[call-overload]  # numpy stubs: see _Floats


def _write_header(block: _Floats, towers: tuple, pile: tuple, gp: bool) -> None:
    block[_PAYABLE_AT] = payable(towers, gp) / MAX_BID
    # clamp in Python: the same float64 as np.clip gives, at a fraction of its call overhead
    block[_SCORE_AT] = min(1.0, max(-1.0, score_player(towers, pile, gp) / SCORE_SCALE))
    block[_SCORE_AT + 1] = pair_bonus(towers) / 30.0 if gp else 0.0


def _write_pile(block: _Floats, pile: tuple) -> None:
    for c in pile:
        block[_PILE_AT + c] += 1.0
    block[_PILE_AT + NUM_CARD_IDS] = len(pile) / 16.0


_TOWER_BLOCKS: dict = {}  # tower tuple -> its block (read only); cleared when it grows large
_TOWER_BLOCKS_MAX = 100_000


def tower_block(tw: tuple) -> np.ndarray:
    """The ``TOWER_SIZE`` values of one tower (memoised: towers recur across observers and games)."""
    block = _TOWER_BLOCKS.get(tw)
    if block is not None:
        return block
    block = np.zeros(TOWER_SIZE, dtype=np.float32)
    if not tw:
        block[0] = 1.0
        block[NONE_ONE_HOT] = 1.0
    else:
        block[1 + tw[-1]] = 1.0
        block[NONE_ONE_HOT + 1 + tw[0]] = 1.0
        for v in tw:
            block[_TOWER_COUNTS + v] += 1.0
        block[_TOWER_COUNTS + NUM_VALUES] = len(tw) / 16.0
        block[_TOWER_COUNTS + NUM_VALUES + 1] = float(tw[-1] == 0)
    block.flags.writeable = False
    if len(_TOWER_BLOCKS) >= _TOWER_BLOCKS_MAX:
        _TOWER_BLOCKS.clear()
    _TOWER_BLOCKS[tw] = block
    return block


_PHASE, _VARIANT, _NPLAYERS = _O["phase"], _O["variant"], _O["num_players"]
_TO_ACT, _START, _BUILDER = _O["to_act"], _O["start_player"], _O["builder"]
_DISPLAY, _HAND, _POOL = _O["display"], _O["hand"], _O["discard"]  # discard and unseen: one 160-count piece
_DECK, _ROUND, _TORN = _O["deck"], _O["round"], _O["teardown_choice"]
_SAND, _RECOVER = _O["sand_end"], _O["recover_pending"]
_POOL_END = _POOL + 2 * NUM_CARD_IDS
assert _O["unseen"] == _POOL + NUM_CARD_IDS and _O["deck"] == _POOL_END
assert _O["seat0.bid"] - _O["seat0.present"] == _BID_AT and _O["seat0.teardown"] - _O["seat0.present"] == _PILE_AT
_GAME_OVER, _RECOVERING = int(Phase.GAME_OVER), int(Phase.RECOVER)


class _Table:
    """The observer-independent pieces of the last state encoded, with the inputs of each piece.

    ``refresh`` compares every piece's inputs with those it was last written from and rewrites
    only the pieces that differ; unchanged pieces keep their (identical) values. ``vector`` turns
    the table into one observer's observation.
    """

    glob_view: memoryview[float]
    rows_view: memoryview[float]
    # inputs some pieces were last written from (None: not written yet)
    phase: Phase | None
    torn: int | None
    sand: int | None
    deck_size: int | None
    ran_out: bool | None
    counts: npt.NDArray[np.float32] | None

    def __init__(self, n: int, gp: bool) -> None:
        self.n, self.gp = n, gp
        g = self.glob = np.zeros(GLOBAL_SIZE, dtype=np.float32)  # relative one-hots left at zero
        g[_VARIANT + int(gp)] = 1.0
        g[_NPLAYERS + n - 2] = 1.0
        self.rows = np.zeros(n * SEAT_SIZE, dtype=np.float32)  # seat blocks, absolute seat order
        # the patches write through memoryviews of the two arrays: a float32 element is set in
        # half the time numpy's indexing takes (the same C float conversion, so the same values)
        self.glob_view, self.rows_view = memoryview(g), memoryview(self.rows)  # type: ignore[arg-type]  # see _Floats
        # one-hot pieces: the position currently set (None: none set)
        self.phase = self.torn = self.sand = None
        self.deck_size = self.ran_out = self.counts = None
        self.display: tuple = ()
        self.hand: tuple = ()
        self.round: tuple = (None,) * 5
        self.seats: list = [None] * n  # per seat: [towers, pile, bid, ceiling] last written
        self.ceiling_display: tuple | None = None  # the display object the ceilings were asked on

    def __getstate__(self) -> dict:
        # memoryviews cannot be pickled or deep-copied: rebuilt from the arrays on the way back
        state = dict(self.__dict__)
        del state["glob_view"], state["rows_view"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.glob_view, self.rows_view = memoryview(self.glob), memoryview(self.rows)  # type: ignore[arg-type]  # see _Floats

    def vector(self, state: GameState, observer: int) -> np.ndarray:
        """The observation of seat ``observer``: the table, seats rotated to the observer, padded."""
        n = self.n
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        out[:GLOBAL_SIZE] = self.glob
        # -1: nobody (no one to act once the game is over, no builder before a bid)
        seat = state.current_player
        if seat >= 0:
            out[_TO_ACT + (seat - observer) % n] = 1.0
        out[_START + (state.start_player - observer) % n] = 1.0
        seat = state.builder
        if seat >= 0:
            out[_BUILDER + (seat - observer) % n] = 1.0
        cut = observer * SEAT_SIZE
        mid = GLOBAL_SIZE + n * SEAT_SIZE - cut
        out[GLOBAL_SIZE:mid] = self.rows[cut:]
        out[mid:mid + cut] = self.rows[:cut]
        return out

    def refresh(self, state: GameState, cache: SeatCache) -> None:
        v = self.glob_view
        phase = state.phase
        if phase != self.phase:
            _move_hot(v, _PHASE, self.phase, phase)
            v[_RECOVER] = float(phase == _RECOVERING)
            self.phase = phase
        i = 0 if state.torn is None else state.torn + 2
        if i != self.torn:
            _move_hot(v, _TORN, self.torn, i)
            self.torn = i
        if state.sand_end != self.sand:
            _move_hot(v, _SAND, self.sand, state.sand_end)
            self.sand = state.sand_end
        size = len(state.deck)
        if size != self.deck_size or state.deck_ran_out != self.ran_out:
            v[_DECK] = size / 110.0
            v[_DECK + 1] = float(state.deck_ran_out)
            self.deck_size, self.ran_out = size, state.deck_ran_out
        counts = cache.pool(state.deck, state.discard)
        if counts is not self.counts:  # the memo hands out the same array while the pool is unchanged
            v[_POOL:_POOL_END] = counts  # type: ignore[call-overload]  # numpy stubs: see _Floats
            self.counts = counts
        if state.display != self.display:
            _patch_counts(v, _DISPLAY, self.display, state.display)
            self.display = state.display
        if state.hand != self.hand:
            _patch_counts(v, _HAND, self.hand, state.hand)
            self.hand = state.hand
        rnd = (state.high_bid, state.target, state.taken, state.paid, state.took_tree)
        if rnd != self.round:
            _patch_round(v, self.round, rnd)
            self.round = rnd
        self._refresh_seats(state, phase != _GAME_OVER)

    def _refresh_seats(self, state: GameState, live: bool) -> None:
        v, towers, piles, bids, seats, gp = self.rows_view, state.towers, state.piles, state.bids, self.seats, self.gp
        # a ceiling depends only on the display and the seat's towers: asked again when one changes
        same_display = state.display is self.ceiling_display
        self.ceiling_display = state.display
        for p in range(self.n):
            tw, pile, bid = towers[p], piles[p], bids[p]
            old = seats[p]
            if not live:
                ceiling = None
            elif same_display and old is not None and tw is old[0] and old[3] is not None:
                ceiling = old[3]
            else:
                ceiling = state.ceiling(p)
            o = p * SEAT_SIZE
            if old is None:
                v[o:o + SEAT_SIZE] = _seat_block(tw, pile, gp)  # type: ignore[call-overload]  # numpy stubs: see _Floats
                old = seats[p] = [tw, pile, None, None]
                v[o + _BID_AT] = 1.0  # "not yet bid", as a bid of None reads
            # towers and piles are immutable tuples: the same objects give the same block
            elif tw is not old[0] or pile is not old[1]:
                _patch_seat(v[o:o + SEAT_SIZE], old[0], old[1], tw, pile, gp)
                old[0], old[1] = tw, pile
            if bid != old[2]:
                _patch_bid(v, o + _BID_AT, old[2], bid)
                old[2] = bid
            if ceiling != old[3]:
                v[o + _CEILING_AT] = 0.0 if ceiling is None else ceiling / MAX_BID
                old[3] = ceiling


def _move_hot(v: _Floats, piece: int, old: int | None, new: int | None) -> None:
    """Move a one-hot piece's 1 from position ``old`` to ``new`` (``None``: no position)."""
    if old is not None:
        v[piece + old] = 0.0
    if new is not None:
        v[piece + new] = 1.0


def _patch_counts(v: _Floats, at: int, old: tuple, new: tuple) -> None:
    """Turn the count piece at ``at`` written for the cards ``old`` into that of ``new``."""
    for c in old:
        v[at + c] = 0.0
    for c in new:  # += : 4-5 player games have two copies of some cards
        v[at + c] += 1.0


def _patch_round(v: _Floats, old: tuple, new: tuple) -> None:
    """Write the ``round`` piece for (high bid, target, taken, paid, took tree), only what
    differs from ``old``."""
    high_bid, target, taken, paid, took_tree = new
    if high_bid != old[0]:
        v[_ROUND] = float(high_bid >= 0)
        v[_ROUND + 1] = high_bid / MAX_BID if high_bid >= 0 else 0.0
    if target != old[1]:
        v[_ROUND + 2] = target / MAX_BID
    if taken != old[2]:
        v[_ROUND + 3] = taken / MAX_BID
    if paid != old[3]:
        v[_ROUND + 4] = paid / MAX_BID
    if took_tree != old[4]:
        v[_ROUND + 5] = float(took_tree)


def _patch_bid(v: _Floats, at: int, old: int | None, new: int | None) -> None:
    """The 4-value ``bid`` piece at ``at``: one-hot not yet bid / passed / bid, then the bid / 25."""
    v[at + _bid_slot(old)] = 0.0
    v[at + 3] = 0.0
    v[at + _bid_slot(new)] = 1.0
    if new is not None and new != PASSED:
        v[at + 3] = new / MAX_BID


def _bid_slot(bid: int | None) -> int:
    return 0 if bid is None else 1 if bid == PASSED else 2


def encode(state: GameState, observer: int, cache: SeatCache | None = None) -> np.ndarray:
    """The observation of seat ``observer`` as a float32 vector of length ``OBS_SIZE``."""
    if state.backend == "native":  # written by the native core, the same vector
        return state.observe(observer)  # type: ignore[attr-defined]  # a NativeState: core.native.wrapper
    return (cache or _DEFAULT_CACHE).encode(state, observer)


def describe(vector: np.ndarray, nonzero_only: bool = True) -> str:
    """A debug string of a vector, one line per piece, named as in the layout table."""
    return describe_vector(vector, OFFSETS, nonzero_only)


_DEFAULT_CACHE = SeatCache()
