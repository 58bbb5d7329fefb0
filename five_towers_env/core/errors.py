"""The errors every game raises: one type each, so game-neutral code catches them without knowing the game."""
from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow now (raised by a game state's ``apply_action``; nothing changes)."""


class PositionError(ValueError):
    """A position that breaks its game's position format; the message names what is wrong."""


__all__ = ["IllegalActionError", "PositionError"]
