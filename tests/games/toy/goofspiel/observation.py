"""The flat Goofspiel observation, built from named pieces ``(name, size, meaning)``.

Seats are relative to the observer (``seat0`` is the observer) and padded to four. Every value lies
in [0, 1]. What the observer cannot see never enters: the other seats' face-down bids show only
as "has bid" (their unshown cards still include the card bid), the prize deck only as the set of
prizes still to come.
"""
from __future__ import annotations

import numpy as np

from five_towers_env.core.layout import describe_vector, offsets_of, table_rows

from .state import CARDS, MAX_PLAYERS, MIN_PLAYERS, TOTAL, VARIANTS, GoofState

GLOBAL_PIECES = (
    ("num_players", MAX_PLAYERS - MIN_PLAYERS + 1, "one-hot: 2, 3, 4 players"),
    ("variant", len(VARIANTS), "one-hot: discard, carry"),
    ("prize", CARDS, "one-hot prize on offer, 1..5 (zeros once the game is over)"),
    ("pot", 1, f"value carried over by tied rounds / {TOTAL}"),
    ("prizes_left", CARDS, "1 for each prize still face down (their order is hidden)"),
    ("my_bid", CARDS, "one-hot card the observer bid this round (zeros before it bids)"),
)
SEAT_PIECES = (
    ("present", 1, "1 if this relative seat is in the game"),
    ("to_act", 1, "1 if this seat is on move"),
    ("has_bid", 1, "1 if this seat has bid this round (the card stays face down)"),
    ("unshown", CARDS, "1 for each card this seat has not shown: its hand and its face-down bid"),
    ("shown", CARDS, "one-hot card this seat bid last round, shown at the round's end (zeros before)"),
    ("score", 1, f"points won / {TOTAL}"),
)


def pieces() -> list[tuple[str, int, str]]:
    """Every piece in vector order."""
    return list(GLOBAL_PIECES) + [(f"seat{s}.{n}", k, d) for s in range(MAX_PLAYERS) for n, k, d in SEAT_PIECES]


OFFSETS = offsets_of(pieces())
OBS_SIZE = sum(k for _, k, _ in pieces())
SEAT_SIZE = sum(k for _, k, _ in SEAT_PIECES)
_O = {name: start for name, (start, _) in OFFSETS.items()}
_S = {n: _O[f"seat0.{n}"] - _O["seat0.present"] for n, _, _ in SEAT_PIECES}


def encode(state: GoofState, observer: int) -> np.ndarray:
    """The observation of seat ``observer``: a float32 vector of length ``OBS_SIZE``."""
    v = np.zeros(OBS_SIZE, dtype=np.float32)
    v[_O["num_players"] + state.num_players - MIN_PLAYERS] = 1.0
    v[_O["variant"] + VARIANTS.index(state.variant)] = 1.0
    if state.prize:
        v[_O["prize"] + state.prize - 1] = 1.0
    v[_O["pot"]] = state.pot / TOTAL
    for c in state.deck:
        v[_O["prizes_left"] + c - 1] = 1.0
    if state.bids[observer]:
        v[_O["my_bid"] + state.bids[observer] - 1] = 1.0
    for p in range(state.num_players):
        o = _O["seat0.present"] + (p - observer) % state.num_players * SEAT_SIZE
        v[o] = 1.0
        v[o + _S["to_act"]] = p == state.current_player
        v[o + _S["has_bid"]] = state.bids[p] > 0
        for c in (*state.hands[p], state.bids[p]):
            if c:
                v[o + _S["unshown"] + c - 1] = 1.0
        if state.shown[p]:
            v[o + _S["shown"] + state.shown[p] - 1] = 1.0
        v[o + _S["score"]] = state.won[p] / TOTAL
    return v


def layout_table() -> str:
    """The layout as a Markdown table."""
    rows = ["| offset | size | piece | meaning |", "|---:|---:|---|---|"]
    rows += table_rows(OFFSETS, GLOBAL_PIECES) + table_rows(OFFSETS, SEAT_PIECES, "seat0.")
    rows.append(f"| {_O['seat1.present']} | {3 * SEAT_SIZE} | `seat1..seat3.*` | the same for the seats to the "
                "observer's left (zeros for seats not in the game) |")
    return "\n".join(rows + [f"| | **{OBS_SIZE}** | | total |"])


def describe(vector: np.ndarray) -> str:
    """A debug string of a vector, one line per non-zero piece."""
    return describe_vector(vector, OFFSETS)


__all__ = ["OBS_SIZE", "GLOBAL_PIECES", "SEAT_PIECES", "OFFSETS", "pieces", "encode", "layout_table", "describe"]
