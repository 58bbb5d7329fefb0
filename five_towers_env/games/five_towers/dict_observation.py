"""The structured observation: a ``gymnasium.spaces.Dict`` of named arrays for custom networks.

Every array is a re-shaped gather of the flat vector of :mod:`five_towers_env.games.five_towers.observation`,
so the two encodings always agree and the dict one inherits its guarantees (SPEC §6): seats are
relative to the observer (index 0 is the observer, 1 the player to their left, ...) and padded
to five, card counts are indexed ``[type, value]`` with the types in the order candy, scary,
tree, scrap, sand, and nothing depends on the deck order.

``encode_dict(game, observer)`` builds one observation; ``dict_observation_space()`` is its
space; ``dict_layout_table()`` documents every key in Markdown. ``raw_env(observation="dict")``
puts the encoding (without the mask) under the ``"observation"`` key of its observations, and
:class:`five_towers_env.games.five_towers.dict_wrapper.DictObservationWrapper` replaces a whole
observation with it (``SingleAgentGymEnv(observation="dict")``: the spec's observation ``"dict"``).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, TYPES
from five_towers_env.games.five_towers.observation import (
    MAX_SEATS,
    NONE_ONE_HOT,
    OBS_SIZE,
    OFFSETS,
    SeatCache,
    encode,
)
from five_towers_env.games.five_towers.state import PHASE_NAMES, GameState

S, T, V = MAX_SEATS, NUM_TYPES, NUM_VALUES


def _piece(name: str) -> np.ndarray:
    start, size = OFFSETS[name]
    return np.arange(start, start + size)


def _seat(s: int, name: str, part: slice | None = None) -> np.ndarray:
    idx = _piece(f"seat{s}.{name}")
    return idx if part is None else idx[part]


def _stack(rows: list[np.ndarray]) -> np.ndarray:
    return np.stack(rows)


# key -> (index array into the flat vector, low, high, meaning); the shape is the index array's
_KEYS: dict[str, tuple[np.ndarray, float, float, str]] = {
    "phase": (_piece("phase"), 0, 1, "one-hot: " + ", ".join(PHASE_NAMES)),
    "variant": (_piece("variant"), 0, 1, "one-hot: base, great_powers"),
    "num_players": (_piece("num_players"), 0, 1, "one-hot: 2, 3, 4, 5 players"),
    "present": (_stack([_seat(s, "present")[0] for s in range(S)]), 0, 1,
                "1 if this relative seat is in the game (padding seats are all zeros everywhere)"),
    "roles": (np.stack([_piece("to_act"), _piece("start_player"), _piece("builder")], axis=1), 0, 1,
              "per relative seat: [is to act, is this round's start player, is the highest bidder / builder]"),
    "bids": (_stack([_seat(s, "bid") for s in range(S)]), 0, 1,
             "per relative seat: [not yet bid, passed, bid] one-hot and the bid / 25"),
    "seat_scalars": (_stack([np.concatenate([_seat(s, n) for n in ("ceiling", "tree_payable", "score",
                                                                   "pair_bonus", "teardown_size")])
                             for s in range(S)]), -1, 2,
                     "per relative seat: [bid ceiling / 25, tree cards payable / 25, score if the game ended "
                     "now / 100 (clipped to [-1, 1]), Great Powers pair bonus / 30, teardown pile size / 16]"),
    "display": (_piece("display").reshape(T, V), 0, 2, "counts of the display cards [type, value]"),
    "hand": (_piece("hand").reshape(T, V), 0, 2, "counts of the cards the builder took and has not built yet"),
    "discard": (_piece("discard").reshape(T, V), 0, 2, "counts of the discard pile"),
    "unseen": (_piece("unseen").reshape(T, V), 0, 2,
               "counts of the cards still in the draw deck (its multiset, never its order)"),
    "teardown": (_stack([_seat(s, "teardown").reshape(T, V) for s in range(S)]), 0, 2,
                 "per relative seat: counts of its teardown pile [seat, type, value]"),
    "towers": (_stack([_stack([_seat(s, f"{t}.cards") for t in TYPES]) for s in range(S)]), 0, 2,
               "per relative seat and tower type: count of each value in the tower [seat, type, value]"),
    "tower_top": (_stack([_stack([_seat(s, f"{t}.top") for t in TYPES]) for s in range(S)]), 0, 1,
                  "one-hot [seat, type, 17]: index 0 = no tower, 1 + v = top card value v"),
    "tower_bottom": (_stack([_stack([_seat(s, f"{t}.bottom") for t in TYPES]) for s in range(S)]), 0, 1,
                     "one-hot [seat, type, 17]: index 0 = no tower, 1 + v = bottom card value v"),
    "tower_height": (_stack([_stack([_seat(s, f"{t}.height")[0] for t in TYPES]) for s in range(S)]), 0, 2,
                     "[seat, type]: number of cards in the tower / 16"),
    "tower_topped": (_stack([_stack([_seat(s, f"{t}.topped")[0] for t in TYPES]) for s in range(S)]), 0, 1,
                     "[seat, type]: 1 if the tower has a tower top (a 0)"),
    "teardown_choice": (_piece("teardown_choice"), 0, 1,
                        "one-hot: not decided yet, no teardown, torn candy, scary, tree, scrap, sand"),
    "sand_end": (_piece("sand_end"), 0, 1,
                 "one-hot: this round's end of the builder's sand tower: not fixed, top, bottom"),
    "scalars": (np.concatenate([_piece("deck"), _piece("round"), _piece("recover_pending")]), 0, 2,
                "[deck size / 110, deck already ran out once, a bid was made, high bid / 25, builder's bid / 25, "
                "cards taken / 25, tree cards paid / 25, took a tree card, recover decision pending]"),
}

assert _KEYS["tower_top"][0].shape == (S, T, NONE_ONE_HOT)
# every value of the flat vector appears in exactly one key
assert np.array_equal(np.sort(np.concatenate([idx.ravel() for idx, *_ in _KEYS.values()])), np.arange(OBS_SIZE))

ACTION_MASK_MEANING = "1 for each legal action id of the observer (all zeros when it is not their turn)"


def dict_observation_space(action_mask: bool = True) -> spaces.Dict:
    """The space of :func:`encode_dict`: float32 boxes per key plus the int8 ``action_mask``
    (without it when ``action_mask=False``: the space of :func:`split_flat`).

    It is the same for every seat, player count and variant (seats are padded to five)."""
    parts: dict[str, spaces.Space] = {
        key: spaces.Box(low=float(lo), high=float(hi), shape=idx.shape, dtype=np.float32)
        for key, (idx, lo, hi, _) in _KEYS.items()
    }
    if action_mask:
        parts["action_mask"] = spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8)
    return spaces.Dict(parts)


def split_flat(vector: np.ndarray) -> dict[str, np.ndarray]:
    """The dict keys (without ``action_mask``) gathered from a flat observation vector."""
    return {key: vector[idx] for key, (idx, *_) in _KEYS.items()}


def encode_dict(game: GameState, observer: int, cache: SeatCache | None = None) -> dict[str, np.ndarray]:
    """The structured observation of seat ``observer``: every key of :func:`dict_observation_space`."""
    out = split_flat(encode(game, observer, cache))
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    if observer == game.current_player:
        mask[game.legal_actions()] = 1
    out["action_mask"] = mask
    return out


def dict_layout_table() -> str:
    """Every key of the dict observation as a Markdown table: key, shape, range, meaning."""
    rows = ["| key | shape | range | meaning |", "|---|---|---|---|"]
    for key, (idx, lo, hi, meaning) in _KEYS.items():
        rows.append(f"| `{key}` | {tuple(idx.shape)} | [{lo}, {hi}] | {meaning} |")
    rows.append(f"| `action_mask` | ({A.NUM_ACTIONS},) int8 | {{0, 1}} | {ACTION_MASK_MEANING} |")
    rows.append("")
    rows.append("Seat axes are relative to the observer (0 = observer, 1 = the player to their left, ...) and "
                "padded to 5; `[type, value]` axes use the types candy, scary, tree, scrap, sand and values 0..15.")
    return "\n".join(rows)


__all__ = ["ACTION_MASK_MEANING", "dict_layout_table", "dict_observation_space", "encode_dict", "split_flat"]
