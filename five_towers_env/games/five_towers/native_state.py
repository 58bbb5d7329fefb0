"""Conversion between the native (C++) 5 Towers state and the Python :class:`GameState`.

``to_python(core_state)`` builds an exact, independent Python state from a native one (the same legal
actions, observations, scores, future transitions and generator state); ``from_python(py_state)`` is
the inverse. Both go through the native state's ``fields()`` dict / ``_native.from_fields``: one key per
``GameState`` attribute (plain ints, lists, tuples, bools, ``None``), the generator as ``rng_words``
(the six words of :func:`five_towers_env.core.native.words_of_generator`).
"""
from __future__ import annotations

from typing import Any

from five_towers_env.core.native import generator_from_words, words_of_generator
from five_towers_env.games.five_towers.state import GameState, Phase

_MODULE = "five_towers_env.games.five_towers._native"


def _native() -> Any:
    import importlib

    return importlib.import_module(_MODULE)


def fields_to_python(f: dict) -> GameState:
    """A Python :class:`GameState` from a native ``fields()`` dict."""
    s = GameState.__new__(GameState)  # not __init__: it would begin a new round
    s.num_players = int(f["num_players"])
    s.variant = f["variant"]
    s.gp = s.variant == "great_powers"
    s.rng = generator_from_words(f["rng_words"])
    s.deck = [int(c) for c in f["deck"]]
    s.discard = [int(c) for c in f["discard"]]
    s.display = tuple(int(c) for c in f["display"])
    s.towers = [tuple(tuple(int(v) for v in tw) for tw in five) for five in f["towers"]]
    s.piles = [tuple(int(c) for c in pile) for pile in f["piles"]]
    s.start_player = int(f["start_player"])
    s.deck_ran_out = bool(f["deck_ran_out"])
    s.rounds_played = int(f["rounds_played"])
    s.phase = Phase(int(f["phase"]))
    s.current_player = int(f["current_player"])
    s.bids = [None if b is None else int(b) for b in f["bids"]]
    s.bid_turn = int(f["bid_turn"])
    s.high_bid = int(f["high_bid"])
    s.builder = int(f["builder"])
    s.target = int(f["target"])
    s.hand = tuple(int(c) for c in f["hand"])
    s.taken = int(f["taken"])
    s.took_tree = bool(f["took_tree"])
    s.paid = int(f["paid"])
    s.torn = None if f["torn"] is None else int(f["torn"])
    s.sand_end = int(f["sand_end"])
    s._bid_masks = {}
    s._take_rests = None
    s._legal = [] if s.phase == Phase.GAME_OVER else None
    return s


def python_fields(py_state: GameState) -> dict:
    """The native ``fields()`` dict of a Python :class:`GameState` (``ValueError`` for a generator
    that is not PCG64)."""
    s = py_state
    return {
        "num_players": int(s.num_players),
        "variant": s.variant,
        "deck": [int(c) for c in s.deck],
        "discard": [int(c) for c in s.discard],
        "display": tuple(int(c) for c in s.display),
        "towers": [tuple(tuple(int(v) for v in tw) for tw in five) for five in s.towers],
        "piles": [tuple(int(c) for c in pile) for pile in s.piles],
        "start_player": int(s.start_player),
        "deck_ran_out": bool(s.deck_ran_out),
        "rounds_played": int(s.rounds_played),
        "phase": int(s.phase),
        "current_player": int(s.current_player),
        "bids": [None if b is None else int(b) for b in s.bids],
        "bid_turn": int(s.bid_turn),
        "high_bid": int(s.high_bid),
        "builder": int(s.builder),
        "target": int(s.target),
        "hand": tuple(int(c) for c in s.hand),
        "taken": int(s.taken),
        "took_tree": bool(s.took_tree),
        "paid": int(s.paid),
        "torn": None if s.torn is None else int(s.torn),
        "sand_end": int(s.sand_end),
        "rng_words": words_of_generator(s.rng),
    }


def to_python(core_state: Any) -> GameState:
    """An exact, independent Python :class:`GameState` of a native state."""
    return fields_to_python(core_state.fields())


def from_python(py_state: GameState) -> Any:
    """The native state of a Python :class:`GameState` (``ValueError`` if it cannot be represented,
    e.g. a generator that is not PCG64)."""
    return _native().from_fields(python_fields(py_state))


__all__ = ["to_python", "from_python", "fields_to_python", "python_fields"]
