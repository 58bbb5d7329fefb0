"""The agent interface shared by every game's agents, what the agent registry asks of an agent class, and the
one agent every game has.

An agent answers ``act(observation, info) -> action id``. ``observation`` is the environment's
observation dict (flat float32 vector and int8 action mask); ``info`` is what
``GameSpec.agent_info(state, seat)`` gives the seat on move, public information only: at least
``info["game"]`` (the game's registry name), ``info["seat"]``, ``info["legal_actions"]`` (ids),
``info["legal_action_names"]`` and ``info["view"]`` (the state's ``public_view(seat)``: a copy with
what the seat may not see redrawn by a fixed rule). :func:`five_towers_env.core.state.agent_info`
builds it, the same for every game.

**Deciding for many games at once.** Where many games wait on their opponents (the Gymnasium vector
environment, :class:`~five_towers_env.wrappers.gym_vector.GymVectorEnv`), the waiting ``(game, agent)`` pairs
are grouped by agent class and each class decides for its whole group in one call of its classmethod
:meth:`AgentBase.act_group` (:func:`group_actions` does the grouping; a class without the hook gets
:class:`AgentBase`'s). The games are handed over as a :class:`WaitingGames`: the rows' flat observations and
masks, each row's ``act`` arguments, and the compiled states of a native core. The default asks each agent's
``act`` in turn, or an ``act_batch`` method where the agents have one; a class may do better (a network's one
pass over the rows, a compiled agent's batched call) as long as it makes the same moves, with the same draws
from each agent's generator, as ``act`` called on each row in order would.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from five_towers_env.core.game import GameSpec


_K = TypeVar("_K", bound=Hashable)


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

    @classmethod
    def act_group(cls, agents: Sequence[Agent], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """The actions of ``agents`` (all of this class) in the games ``rows`` of ``games``: ``agents[j]`` is on
        move in game ``rows[j]``. Returns one legal action id per row (an integer array of ``len(rows)``).

        The hook through which a class decides for many games in one call (see the module docstring); the
        Gymnasium vector environment calls it once per class and round of opponent moves. What it must keep:

        * **The same moves** as ``agents[j].act(*games.inputs(rows[j]))`` called for ``j = 0, 1, ...`` in
          order: the vector environment's per-game path does exactly that, and its tests compare the two.
        * **Each agent's own draws.** Rows come in ascending order, and one agent object may be on move in
          several of them (one object seated in several games): a stochastic agent draws for its rows in that
          order from its own generator, leaving it as those ``act`` calls would.
        * **Public information only**: :meth:`WaitingGames.observations` (the seat on move's own observation
          and mask), :meth:`WaitingGames.native_views` (each seat's public view, as ``info["view"]``) and
          :meth:`WaitingGames.inputs`.

        This default asks ``act`` row by row, or, where the agents have an ``act_batch(observations, masks)``
        method (by contract what ``act`` would choose for each row, drawing from the agent's generator in row
        order), each agent object once for all its rows. A class overriding it may hand back to this default
        (``super().act_group(...)``) for the groups it cannot take, as Campanile's compiled agents do where the
        native core is not active.

        Batching a game's own agent: define ``act_group`` as a classmethod on its class (the class need not
        derive from :class:`AgentBase`: :func:`group_actions` looks the name up on the class). Campanile's
        ``greedy`` and ``heuristic`` (``games/campanile/agents/native.py``: ``greedy_group``,
        ``heuristic_group``) show the pattern: take ``games.native_views(rows)``, call the compiled module's
        batched function once (once per set of settings where agents differ in them), pass each agent's
        generator words and write back the words it returns (:func:`rounds` splits the rows where one generator
        serves several of them), and fall back to ``super().act_group`` where the native call cannot be made
        (``native`` False, the Python backend, views of another kind). Then add the class's opponents to
        ``tests/test_gym_vector_opponents.py`` with ``hooked=`` naming the class, which compares the batched path
        with the per-game one move for move and checks that ``act`` was not called."""
        if agents and all(callable(getattr(a, "act_batch", None)) for a in agents):
            return act_batches(agents, games, rows)
        return act_each(agents, games, rows)


class WaitingGames(Protocol):
    """Games of one setup waiting on their seats on move, as :meth:`AgentBase.act_group` reads them. A row
    is a game's index; the games are all of ``game`` with ``num_players`` seats in ``variant``.

    :class:`~five_towers_env.wrappers.gym_vector.GymVectorEnv` hands its games over as one."""

    game: str
    num_players: int
    variant: str

    def observations(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The seats on move's flat observations (float32 ``(len(rows), observation size)``) and action masks
        (int8 ``(len(rows), num_actions)``), row by row (copies)."""
        ...

    def inputs(self, row: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``act``'s arguments for the seat on move in game ``row``: its observation dict and its agent
        information (``GameSpec.agent_info``, with the Python view: the costly part of a decision by ``act``)."""
        ...

    def native_views(self, rows: Sequence[int]) -> list[Any] | None:
        """The games ``rows`` as compiled states of the game's native module, each as its seat on move sees
        it (the native ``public_view(seat)``: what ``info["view"]`` holds, without the conversion to Python),
        or None where the games have no native core."""
        ...


def act_each(agents: Sequence[Agent], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
    """Each agent's ``act`` on its game's view, row after row: the per-game path every hook must match."""
    return np.array([int(agent.act(*games.inputs(row))) for agent, row in zip(agents, rows)], dtype=np.int64)


def act_batches(agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
    """Agents with ``act_batch(observations, masks)``: each agent object decides for all its rows in one call."""
    obs, masks = games.observations(rows)
    out = np.empty(len(rows), dtype=np.int64)
    for members in _by_key(agents, id).values():
        out[members] = agents[members[0]].act_batch(obs[members], masks[members])
    return out


def group_actions(agents: Sequence[Agent], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
    """The actions of the agents on move in the games ``rows`` (``agents[j]`` in game ``rows[j]``, rows
    ascending): the pairs grouped by agent class, each class deciding for its group in one call of its
    :meth:`~AgentBase.act_group` (:class:`AgentBase`'s where the class has none). The same moves as
    :func:`act_each`, the groups being independent: no two classes share an agent object."""
    out = np.empty(len(rows), dtype=np.int64)
    for cls, members in _by_key(agents, type).items():
        hook = getattr(cls, "act_group", None)
        decide = hook if callable(hook) else AgentBase.act_group
        chosen = np.asarray(decide([agents[j] for j in members], games, [rows[j] for j in members]))
        if chosen.shape != (len(members),):
            raise ValueError(f"{cls.__name__}.act_group gave {chosen.shape} actions for {len(members)} games")
        out[members] = chosen
    return out


def rounds(items: Sequence[Any], key: Callable[[Any], Hashable] = id) -> list[list[int]]:
    """The positions of ``items`` split into rounds in which no ``key`` repeats, each in ascending order: an
    item's ``k``-th occurrence is in round ``k``. A batched call per round, rounds in order, then draws from a
    generator shared by several rows (``key``: the generator's ``id``) in row order, as calls row by row do."""
    seen: dict[Hashable, int] = {}
    out: list[list[int]] = []
    for j, item in enumerate(items):
        k = seen[key(item)] = seen.get(key(item), -1) + 1
        if k == len(out):
            out.append([])
        out[k].append(j)
    return out


def _by_key(items: Sequence[Any], key: Callable[[Any], _K]) -> dict[_K, list[int]]:
    """The positions of ``items`` by ``key(item)``, in order of first appearance."""
    out: dict[_K, list[int]] = {}
    for j, item in enumerate(items):
        out.setdefault(key(item), []).append(j)
    return out


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

    @classmethod
    def act_group(cls, agents: Sequence[Agent], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """Each agent's uniform draw from its own generator among its row's mask (the legal ids in ascending
        order, as ``info["legal_actions"]``), without the game's view that ``act`` is given but does not read."""
        if any(type(a).act is not RandomAgent.act for a in agents):  # a subclass deciding otherwise
            return super().act_group(agents, games, rows)
        _, masks = games.observations(rows)
        out = np.empty(len(rows), dtype=np.int64)
        for j, (agent, mask) in enumerate(zip(agents, masks)):
            legal = np.flatnonzero(mask)
            out[j] = legal[agent.rng.integers(len(legal))]  # type: ignore[attr-defined]
        return out


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


__all__ = ["Agent", "AgentBase", "RandomAgent", "SetupWarning", "WaitingGames", "act_batches", "act_each", "best_after",
           "group_actions", "legal_actions", "path_setting_files", "rounds"]
