"""The package's own games before any of them is imported: where each lives, its ids and its native core.

The lowest module of the game registry: :mod:`five_towers_env.core.game` (the specs) and
:mod:`five_towers_env.core.backend` (the native cores) both read this table, and it imports nothing of
the package. Each id is written here once; a game's package and the package's default ids refer to it.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltinGame:
    """What is known of one of the package's own games before its package is imported: where it lives
    and the ids it publishes (so that :mod:`five_towers_env.registration` registers them without
    importing any game's rules). Its spec must say the same (:func:`~five_towers_env.core.game.register_game`
    checks)."""

    module: str
    env: str
    pettingzoo_id: str
    gymnasium_id: str
    native_module: str = ""  # its compiled native core, when it has one (five_towers_env.core.backend)


def _builtin(package: str, env_id: str) -> BuiltinGame:
    """A game of this package: its AEC env in ``<package>.aec``, its native core ``<package>._native``, and
    one id for both PettingZoo and Gymnasium."""
    return BuiltinGame(package, f"{package}.aec:env", env_id, env_id, f"{package}._native")


# The one place outside the games that names them (tests/test_game_neutral.py allows these two
# tables only): the built-in games must be found by name before any of them is imported.
#: the package's own games: name -> where it lives and its ids (its package is imported on first use)
BUILTIN_GAMES: Mapping[str, BuiltinGame] = {
    "five_towers": _builtin("five_towers_env.games.five_towers", "five_towers_env/FiveTowers-v0"),
    "campanile": _builtin("five_towers_env.games.campanile", "five_towers_env/Campanile-v0"),
}
#: the game a tool plays when none is named
DEFAULT_GAME = "five_towers"

__all__ = ["BuiltinGame", "BUILTIN_GAMES", "DEFAULT_GAME"]
