"""Goofspiel positions as JSON objects: :func:`save_position` and the checked :func:`load_position`.

A position names every card, the hidden ones too (face-down bids, the deck order): it is for saving
and replays, never for an agent. Example, seat 1 to bid in the second round::

    {"game": "goofspiel", "variant": "discard", "num_players": 2, "hands": [[1, 2, 3, 5], [1, 2, 3, 4]],
     "bids": [4, 0], "deck": [2, 1, 3], "prize": 4, "pot": 0, "won": [0, 5], "shown": [2, 5]}
"""
from __future__ import annotations

from typing import Any

from five_towers_env.core.position_checks import PositionError, is_int, one_of, player_count

from .state import CARDS, MAX_PLAYERS, MIN_PLAYERS, TOTAL, VARIANTS, GoofState

GAME = "goofspiel"
POSITION_KEYS = ("game", "variant", "num_players", "hands", "bids", "deck", "prize", "pot", "won", "shown")


def save_position(state: GoofState) -> dict[str, Any]:
    """The state as a JSON-able position."""
    return {"game": GAME, "variant": state.variant, "num_players": state.num_players,
            "hands": [list(h) for h in state.hands], "bids": list(state.bids), "deck": list(state.deck),
            "prize": state.prize, "pot": state.pot, "won": list(state.won), "shown": list(state.shown)}


def _int(pos: dict, key: str, default: Any, low: int, high: int) -> int:
    """``pos[key]`` (``default`` when absent): an integer ``low..high``."""
    value = pos.get(key, default)
    if not is_int(value) or not low <= value <= high:
        raise PositionError(f"'{key}' must be an integer {low}..{high}, got {value!r}")
    return int(value)


def _ints(value: Any, where: str, low: int, high: int, count: int | None = None) -> list[int]:
    """``value``: a list of integers ``low..high`` (``count`` of them, if given)."""
    if not isinstance(value, list) or (count is not None and len(value) != count) \
            or not all(is_int(x) and low <= x <= high for x in value):
        size = f"{count} " if count is not None else ""
        raise PositionError(f"{where} must be a list of {size}integers {low}..{high}, got {value!r}")
    return [int(x) for x in value]


def _distinct(cards: list[int], where: str) -> list[int]:
    """``cards``, which must not hold a card twice."""
    if len(set(cards)) != len(cards):
        raise PositionError(f"{where} holds a card twice: {cards}")
    return cards


def load_position(pos: dict[str, Any]) -> GoofState:
    """A :class:`GoofState` from a position; ``PositionError`` naming the problem if it is not one."""
    if not isinstance(pos, dict):
        raise PositionError(f"a position must be a JSON object, got {type(pos).__name__}")
    unknown = sorted(map(str, set(pos) - set(POSITION_KEYS)))
    if unknown:
        raise PositionError(f"unknown position key(s) {unknown}; known: {', '.join(POSITION_KEYS)}")
    one_of(pos, "game", None, (GAME,))
    n = player_count(pos, MIN_PLAYERS, MAX_PLAYERS)
    variant = one_of(pos, "variant", VARIANTS[0], VARIANTS)
    hands = pos.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise PositionError(f"'hands' must list one hand per player (num_players={n}), got {hands!r}")
    hands = [_distinct(_ints(h, f"hands[{p}]", 1, CARDS), f"hands[{p}]") for p, h in enumerate(hands)]
    bids = _ints(pos.get("bids"), "'bids'", 0, CARDS, n)
    deck = _distinct(_ints(pos.get("deck"), "'deck'", 1, CARDS), "'deck'")
    prize, pot = _int(pos, "prize", None, 0, CARDS), _int(pos, "pot", 0, 0, TOTAL)
    won = _ints(pos.get("won", [0] * n), "'won'", 0, TOTAL, n)
    shown = _ints(pos.get("shown", [0] * n), "'shown'", 0, CARDS, n)
    _check_round(hands, bids, deck, prize)
    return GoofState(n, variant, hands=hands, bids=bids, deck=deck, prize=prize, pot=pot, won=won, shown=shown)


def _check_round(hands: list[list[int]], bids: list[int], deck: list[int], prize: int) -> None:
    """The round's parts fit: bids in seat order and not all made, one card per prize left in every hand."""
    made = [b > 0 for b in bids]
    if made != sorted(made, reverse=True) or all(made):
        raise PositionError(f"'bids' must be made in seat order by some seats, not all: got {bids}")
    if prize in deck or (prize == 0 and (deck or any(made))):
        raise PositionError(f"'prize' {prize} does not fit the deck {deck} and bids {bids} (0: the game is over)")
    for p, (hand, bid) in enumerate(zip(hands, bids)):
        if bid in hand or len(hand) + (bid > 0) != len(deck) + (prize > 0):
            raise PositionError(f"seat {p}'s hand {hand} and bid {bid} do not hold one card per prize left "
                                f"({len(deck) + (prize > 0)})")


__all__ = ["GAME", "POSITION_KEYS", "PositionError", "save_position", "load_position"]
