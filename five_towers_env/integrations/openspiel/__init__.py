"""Both games as OpenSpiel games (``pyspiel``), played by OpenSpiel's algorithms and bots.

Needs the ``openspiel`` extra (``pip install "five-towers-env[openspiel]"``: ``open_spiel`` 2.0.2).
Importing this package registers ``python_five_towers`` (parameters ``players`` 2-5, ``variant``
``base`` / ``great_powers``) and ``python_campanile`` (``players``, ``variant`` ``pile`` / ``played``,
``bet_chip`` ``at_least`` / ``exact``) with ``pyspiel.register_game``::

    import pyspiel
    import five_towers_env.integrations.openspiel  # registers the games
    game = pyspiel.load_game("python_campanile(players=3,variant=played)")

The adapter plays our engines through each game's chance model (``GameSpec.chance``, see
:mod:`five_towers_env.core.chance`): 5 Towers turns its display cards by chance and has perfect
information; Campanile deals its cards by chance and keeps hands and face-down pile cards private.
:mod:`.bots` has OpenSpiel's ``MCTSBot`` and ``ISMCTSBot`` as agents of our evaluation
(``openspiel-mcts``, ``openspiel-ismcts``). Documentation: ``docs/openspiel.md``.
"""
from __future__ import annotations

from typing import Any

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError('the OpenSpiel adapter needs open_spiel: pip install "five-towers-env[openspiel]"') from err

from five_towers_env.core.game import GameSpec, game_names, get_game
from five_towers_env.integrations.openspiel.game import PREFIX, Observer, State, game_class, game_type, short_name

_CLASSES: dict[str, type] = {}


def register(spec: GameSpec | str) -> str:
    """Register a game that declares a chance model with pyspiel (once); returns its pyspiel name."""
    spec = get_game(spec)
    name = short_name(spec)
    if name not in _CLASSES:
        cls = game_class(spec)
        if name not in pyspiel.registered_names():
            pyspiel.register_game(game_type(spec), cls)
        _CLASSES[name] = cls
    return name


def register_all() -> list[str]:
    """Register every known game that declares a chance model; returns their pyspiel names."""
    return [register(name) for name in game_names() if get_game(name).chance]


def load_game(game: str, players: int = 2, variant: str | None = None, **options: Any) -> Any:
    """``pyspiel.load_game`` of one of our games by its registry name (``"campanile"``) and setup."""
    spec = get_game(game)
    params: dict[str, Any] = {"players": int(players), "variant": variant or spec.default_variant, **options}
    return pyspiel.load_game(register(spec), params)


register_all()

__all__ = ["PREFIX", "register", "register_all", "load_game", "short_name", "game_type", "game_class", "State",
           "Observer"]
