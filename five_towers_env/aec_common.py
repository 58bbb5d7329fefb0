"""What every game's PettingZoo AEC environment adds to the standard API, written once.

Both environments (:mod:`five_towers_env.environment.aec`, :mod:`five_towers_env.campanile.aec`)
keep their engine state in ``self.game`` and offer the same extras: move names both ways, the
legal moves and their names, the position, the scores and winners, the phase. :class:`GameEnvExtras`
implements them from two class attributes naming the game's own functions, and :func:`wrap_env`
puts a raw environment in PettingZoo's standard wrappers. Importing this module loads no game.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


class GameEnvExtras:
    """The extras of a game's AEC environment (mix in before ``AECEnv``).

    A subclass sets ``_actions`` (the game's action codec: a module or object with
    ``action_name(id)`` and ``action_from_name(name)``) and ``_save_position`` (the game's
    ``save_position(state)``, wrapped in ``staticmethod``); the state is ``self.game``.
    """

    _actions: ClassVar[Any]
    _save_position: ClassVar[Callable[[Any], dict[str, Any]]]
    game: Any

    def action_name(self, action: int) -> str:
        """The name of an action id (the game's rules name every action)."""
        return self._actions.action_name(action)

    def action_from_name(self, name: str) -> int:
        """The action id of a move's name."""
        return self._actions.action_from_name(name)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent on move (empty once the game is over)."""
        return list(self.game.legal_actions())

    def legal_action_names(self) -> list[str]:
        """Names of the legal actions of the agent on move."""
        return [self._actions.action_name(a) for a in self.game.legal_actions()]

    def position(self) -> dict[str, Any]:
        """The current position in the game's JSON position format. It names hidden cards (the
        deck or pile order, hands): for saving and bug reports, never for an agent's observation."""
        return self._save_position(self.game)

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        return self.game.scores()

    def winners(self) -> list[int]:
        """Seats sharing the highest score now (the victory, once the game is over)."""
        return self.game.winners()

    @property
    def phase(self) -> str:
        """Name of the current phase (``game_over`` at the end)."""
        return self.game.phase_name


def wrap_env(raw: AECEnv) -> AECEnv:
    """``raw`` wrapped as PettingZoo classic environments are: an illegal move ends the game with
    -1 for the offender, out-of-bounds actions are caught, and the agent order is enforced."""
    e = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


__all__ = ["GameEnvExtras", "wrap_env"]
