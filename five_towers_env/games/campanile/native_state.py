"""The native (C++) Campanile state and the Python :class:`CampanileState`, converted both ways.

``to_python(core)`` builds an exact, independent Python state from a ``_native.State`` (same legal
actions, observations, scores, future transitions and generator state); ``from_python(state)`` is
its inverse. Both go through ``_native.State.fields()`` / ``_native.from_fields``: a dict of plain
values with one key per Python attribute, the generator as its six PCG64 words (``rng_words``).
"""
from __future__ import annotations

import importlib
from typing import Any

from five_towers_env.core.native import generator_from_words, words_of_generator
from five_towers_env.games.campanile.state import CampanileState


def to_python(core: Any) -> CampanileState:
    """An exact, independent :class:`CampanileState` equal to the native state ``core``."""
    f = core.fields()
    state = CampanileState(
        f["num_players"], f["variant"], generator_from_words(f["rng_words"]),
        hands=f["hands"], piles=f["piles"], heights=f["heights"], bets=f["bets"], chips=f["chips"],
        to_act=f["current_player"], phase=f["phase"], played=(f["played_tower"], f["played_storeys"]),
        bet_chip=f["bet_chip"], done=f["done"], leftover=f["leftover"], revealed=f["revealed"],
        cards_played=f["cards_played"])
    state.turns = int(f["turns"])
    return state


def fields_of(state: CampanileState) -> dict[str, Any]:
    """The ``fields()`` dict of a Python state (``ValueError`` if its generator is not PCG64)."""
    if state.rng is None:
        raise ValueError("the native engine needs the state's generator; this state has none (rng=None)")
    return {
        "num_players": int(state.num_players), "variant": state.variant, "bet_chip": state.bet_chip,
        "heights": [int(h) for h in state.heights],
        "bets": [tuple((int(s), int(v)) for s, v in b) for b in state.bets],
        "chips": [tuple(int(x) for x in c) for c in state.chips],
        "hands": [tuple(int(c) for c in h) for h in state.hands],
        "revealed": [tuple(int(c) for c in r) for r in state.revealed],
        "piles": [[int(c) for c in p] for p in state.piles],
        "leftover": tuple(int(c) for c in state.leftover),
        "cards_played": [int(c) for c in state.cards_played],
        "current_player": int(state.current_player), "phase": int(state.phase),
        "played_tower": int(state.played_tower), "played_storeys": int(state.played_storeys),
        "done": bool(state.done), "turns": int(state.turns),
        "rng_words": words_of_generator(state.rng),
    }


def from_python(state: CampanileState) -> Any:
    """The native state equal to the Python ``state``; ``ValueError`` if it cannot be represented
    (a generator that is not PCG64 or none, or parts outside the native engine's bounds)."""
    native = importlib.import_module("five_towers_env.games.campanile._native")  # built on install
    return native.from_fields(fields_of(state))


__all__ = ["to_python", "from_python", "fields_of"]
