"""The games this package serves, each named once: what the game-neutral tools need to play it.

The agent interface, :func:`~five_towers_env.play.play_game`, evaluation, tournaments, training
and the command line never import a game's rules. They look the game up here by name
(``"five_towers"``, ``"campanile"``) and load what they need from the dotted paths it names,
on first use, so that importing one game never imports the other.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


def load(target: str) -> Any:
    """The object at ``"module:attribute"``."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class Game:
    """One game: its names, setups, environment, agent information and agents.

    Attributes:
        name: the id used everywhere (``--game``, records, ``info["game"]``, :mod:`~five_towers_env.gameui`).
        title: the game's name for people.
        variants: the rule variants ``raw_env`` accepts; ``variants[0]`` is the default.
        min_players, max_players: the seats a game may have.
        raw_env: ``"module:callable"`` building the unwrapped PettingZoo AEC env
            (``num_players=``, ``variant=``, ``render_mode=``, and ``explicit=`` where the game has forced moves).
        env: ``"module:callable"`` building it inside PettingZoo's standard wrappers.
        agent_info: ``"module:function"``: ``(state, seat) -> info`` for the agent on move
            (see :mod:`five_towers_env.agents.base`): public information only.
        agents: registry name -> ``"module:Class"``; every class takes ``seed=`` plus its own settings.
        check_setup: ``"module:function"``: ``(num_players, variant)``, raising ``ValueError`` with a clear message.
        explicit: whether ``raw_env`` takes ``explicit=`` (5 Towers applies single-choice decisions by default).
    """

    name: str
    title: str
    variants: tuple[str, ...]
    min_players: int
    max_players: int
    raw_env: str
    env: str
    agent_info: str
    check_setup: str
    agents: Mapping[str, str] = field(default_factory=dict)
    explicit: bool = False

    @property
    def default_variant(self) -> str:
        """The variant used when none is named."""
        return self.variants[0]

    def make_raw_env(self, **kwargs: Any) -> Any:
        """``raw_env(**kwargs)`` of this game."""
        return load(self.raw_env)(**kwargs)

    def info_for(self) -> Callable[[Any, int], dict[str, Any]]:
        """The game's ``agent_info(state, seat)``."""
        return load(self.agent_info)

    def check(self, num_players: Any, variant: Any) -> None:
        """Raise ``ValueError`` unless ``num_players`` and ``variant`` are a setup of this game."""
        load(self.check_setup)(num_players, variant)


_SHARED_AGENTS = {
    "random": "five_towers_env.agents.base:RandomAgent",  # reads only the mask: every game
    "human": "five_towers_env.agents.human:HumanAgent",  # a person at the terminal (five-towers play)
}

GAMES: dict[str, Game] = {
    "five_towers": Game(
        name="five_towers", title="5 Towers", variants=("base", "great_powers"), min_players=2, max_players=5,
        raw_env="five_towers_env.environment.aec:raw_env", env="five_towers_env.environment.aec:env",
        agent_info="five_towers_env.agents.base:agent_info", check_setup="five_towers_env.engine.state:check_setup",
        explicit=True,
        agents={
            "random": _SHARED_AGENTS["random"],
            "greedy": "five_towers_env.agents.greedy:GreedyAgent",
            "heuristic": "five_towers_env.agents.heuristic:HeuristicAgent",
            "mcts": "five_towers_env.agents.mcts:MCTSAgent",
            "ppo": "five_towers_env.agents.policy:PolicyAgent",  # path=... (default: the shipped policy)
            "human": _SHARED_AGENTS["human"],
        }),
    "campanile": Game(
        name="campanile", title="Campanile", variants=("pile", "played"), min_players=2, max_players=5,
        raw_env="five_towers_env.campanile.aec:raw_env", env="five_towers_env.campanile.aec:env",
        agent_info="five_towers_env.campanile.agents:agent_info",
        check_setup="five_towers_env.campanile.state:check_setup",
        agents={
            "random": _SHARED_AGENTS["random"],
            "greedy": "five_towers_env.campanile.agents:GreedyAgent",
            "heuristic": "five_towers_env.campanile.agents:HeuristicAgent",
            "mcts": "five_towers_env.campanile.agents:MCTSAgent",
            # a policy trained with `game: campanile` (path=runs/<name>/policy.npz; no shipped default)
            "ppo": "five_towers_env.agents.policy:PolicyAgent",
            "human": _SHARED_AGENTS["human"],
        }),
}

#: the game a tool plays when none is named
DEFAULT_GAME = "five_towers"


def get_game(name: str | Game | None = None) -> Game:
    """The :class:`Game` named ``name`` (default :data:`DEFAULT_GAME`); ``ValueError`` naming the known ones."""
    if isinstance(name, Game):
        return name
    game = GAMES.get(DEFAULT_GAME if name is None else name) if isinstance(name, (str, type(None))) else None
    if game is None:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(GAMES)}")
    return game


__all__ = ["Game", "GAMES", "DEFAULT_GAME", "get_game", "load"]
