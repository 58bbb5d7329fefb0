"""The game-neutral core: the game contract and what every game shares.

* :mod:`~five_towers_env.core.game`: :class:`GameSpec`, one declarative block per game, and the
  registry (:func:`register_game`, :func:`get_game`, :data:`GAMES`);
* :mod:`~five_towers_env.core.builtin_games`: the package's own games and their ids, known before any is
  imported (:data:`BUILTIN_GAMES`, :data:`DEFAULT_GAME`);
* :mod:`~five_towers_env.core.env`: :class:`GameEnv`, the abstract base of every game's PettingZoo
  AEC environment;
* :mod:`~five_towers_env.core.agent`: the agent interface, what the agent registry asks of an agent class
  (:class:`AgentBase`) and the random agent;
* :mod:`~five_towers_env.core.gameui`: :class:`GameUI`, a game's hooks for people (the human seat,
  move logs, records, replays);
* :mod:`~five_towers_env.core.search`: the determinised Monte Carlo search every game's ``mcts``
  agent runs, with the game's own hooks;
* :mod:`~five_towers_env.core.typed_net`: the ``typed`` policy network's layout (a game declares its own,
  ``GameSpec.architectures``) and its numpy forward pass;
* :mod:`~five_towers_env.core.errors`: :class:`IllegalActionError`, :class:`PositionError`;
* :mod:`~five_towers_env.core.codec`, :mod:`~five_towers_env.core.layout`,
  :mod:`~five_towers_env.core.position_checks`: helpers a game builds its action names,
  observation table and position loader from.

Nothing here imports a game, PettingZoo or Gymnasium (``core.env`` imports PettingZoo itself).
"""
from __future__ import annotations

from five_towers_env.core.errors import IllegalActionError, PositionError
from five_towers_env.core.game import DEFAULT_GAME, GAMES, GameSpec, game_names, get_game, register_game

__all__ = ["GameSpec", "GAMES", "DEFAULT_GAME", "register_game", "get_game", "game_names", "IllegalActionError",
           "PositionError"]
