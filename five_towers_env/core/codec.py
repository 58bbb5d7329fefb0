"""Action names both ways for any game's flat action space (pure Python).

Each game lists its action names in id order; :class:`ActionNames` turns an id into its name and
a name back into its id, with the same checks and messages for every game.
"""
from __future__ import annotations

from collections.abc import Sequence


class ActionNames:
    """The names of a ``Discrete(len(names))`` action space, in id order."""

    def __init__(self, names: Sequence[str], unknown_hint: str = "") -> None:
        self.names = tuple(names)
        self._ids = {name: a for a, name in enumerate(self.names)}
        self._hint = unknown_hint

    def name(self, action: int) -> str:
        """The name of an action id; ``ValueError`` for a non-integer (bools included) or an id out of range."""
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise ValueError(f"action {action!r} is not an integer id")
        a = int(action)
        if not 0 <= a < len(self.names):
            raise ValueError(f"action id {a} is out of range 0..{len(self.names) - 1}")
        return self.names[a]

    def id(self, name: str) -> int:
        """The id of an action name (runs of spaces count as one); ``ValueError`` if unknown."""
        a = self._ids.get(" ".join(str(name).split()))
        if a is None:
            raise ValueError(f"unknown action name {name!r}{self._hint}")
        return a


__all__ = ["ActionNames"]
