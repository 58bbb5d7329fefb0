"""The agent interface shared by every game's agents, what the agent registry asks of an agent class, and the
one agent every game has.

An agent answers ``act(observation, info) -> action id``. ``observation`` is the environment's
observation dict (flat float32 vector and int8 action mask); ``info`` is what
``GameSpec.agent_info(state, seat)`` gives the seat on move, public information only: at least
``info["game"]`` (the game's registry name), ``info["seat"]``, ``info["legal_actions"]`` (ids),
``info["legal_action_names"]`` and ``info["view"]`` (the state's ``public_view(seat)``: a copy with
what the seat may not see redrawn by a fixed rule). :func:`five_towers_env.core.state.agent_info`
builds it, the same for every game.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from five_towers_env.core.game import GameSpec


class SetupWarning(UserWarning):
    """An agent seated in a setup (player count, variant) it was not made for: it plays, maybe weakly."""


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and ``act(observation, info) -> int``."""

    name: str

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """Choose a legal action id."""
        ...


class AgentBase:
    """What the agent registry asks of an agent class besides playing, with the defaults it assumes for a
    class that does not say (a class need not derive from this one; the registry reads these by name).

    Attributes:
        pool_opponent: whether the agent plays from its own rules alone, so that a trainer may seat it as a
            rule-based opponent (a self-play pool, a baseline); not an agent playing a trained network, a
            person, or a model or code brought from elsewhere.
        interactive: whether a person chooses its moves (it plays only where people may: not in an evaluation,
            and outside the guard that turns a failed decision into a forfeit).
    """

    pool_opponent: ClassVar[bool] = True
    interactive: ClassVar[bool] = False

    @classmethod
    def files(cls, settings: Mapping[str, Any], game: GameSpec, num_players: int,
              variant: str) -> list[Path] | None:
        """The files an agent of this class built with ``settings`` plays from in the setup (a rating
        ladder's fingerprints): ``[]`` none, ``None`` a file it needs that ``game`` does not ship for the
        setup. By default the file its ``path`` setting names, if that is a file."""
        return path_setting_files(settings)


def path_setting_files(settings: Mapping[str, Any]) -> list[Path]:
    """The file the ``path`` setting of ``settings`` names, if it names one (``[]`` otherwise)."""
    path = settings.get("path")
    return [Path(path)] if path is not None and Path(path).is_file() else []


def legal_actions(observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> list[int]:
    """The legal action ids an agent may choose from: ``info["legal_actions"]``, else the observation's
    action mask, else those of ``info["view"]``."""
    legal = info.get("legal_actions")
    if legal:
        return list(legal)
    if observation is not None and "action_mask" in observation:
        return np.flatnonzero(observation["action_mask"]).tolist()
    view = info.get("view")
    return list(view.legal_actions()) if view is not None else []


class RandomAgent(AgentBase):
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """A uniformly random legal action."""
        legal = legal_actions(observation, info)
        return int(legal[self.rng.integers(len(legal))])


def best_after(view: Any, legal: list[int], key: Any, rng: np.random.Generator) -> int:
    """One-ply search on the engine (any game's state with ``clone`` and ``apply_action``): the legal action
    whose successor (a clone of ``view`` with the action applied) has the largest ``key(successor)``, ties
    broken uniformly with ``rng`` (every game's ``greedy`` agent)."""
    best: list[int] = []
    best_key = None
    for a in legal:
        child = view.clone(rng=view.rng)  # a shared throwaway generator: no deepcopy
        child.apply_action(a)
        k = key(child)
        if best_key is None or k > best_key:
            best, best_key = [a], k
        elif k == best_key:
            best.append(a)
    return int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])


__all__ = ["Agent", "AgentBase", "RandomAgent", "SetupWarning", "best_after", "legal_actions", "path_setting_files"]
