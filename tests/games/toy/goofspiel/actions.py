"""Goofspiel's flat action space, ``Discrete(CARDS)``: action ``c - 1`` bids card ``c`` (``"bid c"``)."""
from __future__ import annotations

from five_towers_env.core.codec import ActionNames

CARDS = 5
NUM_ACTIONS = CARDS
ACTION_NAMES: tuple[str, ...] = tuple(f"bid {c}" for c in range(1, CARDS + 1))
_NAMES = ActionNames(ACTION_NAMES, " (e.g. 'bid 3')")


def bid_action(card: int) -> int:
    """The id of ``bid card``."""
    return card - 1


def card_of(action: int) -> int:
    """The card an action id bids."""
    return action + 1


def action_name(action: int) -> str:
    """The name of an action id; ``ValueError`` for an id out of range."""
    return _NAMES.name(action)


def action_from_name(name: str) -> int:
    """The id of an action name such as ``"bid 3"``; ``ValueError`` if unknown."""
    return _NAMES.id(name)


__all__ = ["CARDS", "NUM_ACTIONS", "ACTION_NAMES", "bid_action", "card_of", "action_name", "action_from_name"]
