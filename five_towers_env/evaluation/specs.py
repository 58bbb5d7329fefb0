"""Agent specs: how :func:`~five_towers_env.evaluation.match.evaluate` and
:func:`~five_towers_env.evaluation.tournament.round_robin` name the agents they rebuild for every game.

A spec is a registry name (``"random"``), a name with keyword settings (``"mcts:simulations=100,race_z=1.5"``;
values are Python literals, else strings), a ``(name, kwargs)`` pair, an :class:`AgentSpec`, or a
*factory*: any callable returning an :class:`~five_towers_env.core.agent.Agent`, called as
``factory(seed=...)`` (or ``factory()`` if it takes no ``seed``). Names are looked up among the
agents of the game played.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from five_towers_env.agents.registry import (
    agents_of,
    check_agent_settings,
    make_agent,
    parse_agent_text,
    unknown_agent_message,
)
from five_towers_env.core.agent import Agent
from five_towers_env.core.game import DEFAULT_GAME, get_game

AgentFactory = Callable[..., Agent]
#: what ``evaluate`` and ``round_robin`` accept for an agent
AgentSpecLike = Union[str, "AgentSpec", tuple, AgentFactory]


def _call_factory(factory: Callable[..., Agent], seed: int | None, kwargs: dict[str, Any]) -> Agent:
    try:
        params = inspect.signature(factory).parameters.values()
        takes_seed = any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    except (TypeError, ValueError):
        takes_seed = True
    return factory(seed=seed, **kwargs) if takes_seed else factory(**kwargs)


@dataclass(frozen=True)
class AgentSpec:
    """How to build one agent: a registry ``name`` of ``game`` with ``kwargs``, or a ``factory``;
    ``label`` names it in reports."""

    label: str
    name: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    factory: Callable[..., Agent] | None = None
    game: str = DEFAULT_GAME

    def build(self, seed: int | None = None) -> Agent:
        """A fresh agent seeded with ``seed``."""
        if self.factory is not None:
            return _call_factory(self.factory, seed, dict(self.kwargs))
        assert self.name is not None, "a spec without a factory names a registry agent"
        kwargs = dict(self.kwargs)
        kwargs.pop("game", None)  # the game played (checked when parsed): make_agent fills it in
        return make_agent(self.name, seed=seed, game=self.game, **kwargs)

    def for_game(self, game: str) -> AgentSpec:
        """This spec for ``game``: a registry spec re-checked against that game's agents
        (``ValueError`` if it has no such agent or setting); a factory spec unchanged."""
        game = get_game(game).name
        if self.factory is not None or self.game == game:
            return self
        assert self.name is not None, "a spec without a factory names a registry agent"
        if self.name not in agents_of(game):
            raise ValueError(unknown_agent_message(self.name, game))
        check_agent_settings(self.name, dict(self.kwargs), game=game)
        return dataclasses.replace(self, game=game)


def parse_agent_spec(text: str, game: str = DEFAULT_GAME) -> AgentSpec:
    """``"name"`` or ``"name:key=value,key=value"`` -> :class:`AgentSpec` of ``game`` (values parsed as
    Python literals); ``ValueError`` naming that game's agents for a name it does not have."""
    game = get_game(game).name
    name, settings = parse_agent_text(text, game=game)  # a bad setting fails here, not in the first game
    return AgentSpec(label=text.strip(), name=name, kwargs=tuple(settings.items()), game=game)


def _factory_label(factory: Any) -> str:
    for attr in ("label", "name", "__name__"):
        value = getattr(factory, attr, None)
        if isinstance(value, str) and value:
            return value
    func = getattr(factory, "func", None)  # functools.partial
    if func is not None:
        return _factory_label(func)
    return type(factory).__name__


def to_spec(spec: Any, game: str) -> AgentSpec:
    """Any accepted agent spec (see the module docstring) as an :class:`AgentSpec` of ``game``
    (an :class:`AgentSpec` made for another game is re-checked against this one's agents)."""
    if isinstance(spec, AgentSpec):
        return spec.for_game(game)
    if isinstance(spec, str):
        return parse_agent_spec(spec, game)
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
        name, kwargs = spec
        base = parse_agent_spec(name, game)
        assert base.name is not None
        items = tuple(base.kwargs) + tuple(kwargs.items())
        check_agent_settings(base.name, dict(items), game=base.game)  # names, types and ranges, before any game
        label = base.name + (":" + ",".join(f"{k}={v!r}" for k, v in items) if items else "")
        return AgentSpec(label=label, name=base.name, kwargs=items, game=base.game)
    if callable(spec) and (isinstance(spec, type) or not hasattr(spec, "act")):
        return AgentSpec(label=_factory_label(spec), factory=spec)
    raise TypeError(f"cannot use {spec!r} as an agent spec: give a registry name ('mcts:simulations=100'), "
                    "a (name, kwargs) pair, an AgentSpec or a factory (a callable returning an Agent); "
                    "agent instances are not accepted because every game needs a freshly seeded agent")


def resolve_specs(specs: Iterable[Any], game: str = DEFAULT_GAME) -> list[AgentSpec]:
    """Specs as :class:`AgentSpec` objects of ``game`` with unique labels (repeats get ``#2``, ``#3``...)."""
    out: list[AgentSpec] = []
    seen: dict[str, int] = {}
    for spec in specs:
        s = to_spec(spec, game)
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s = dataclasses.replace(s, label=f"{s.label}#{seen[s.label]}")
        out.append(s)
    if not out:
        raise ValueError("no agents given")
    return out


__all__ = ["AgentFactory", "AgentSpec", "AgentSpecLike", "parse_agent_spec", "resolve_specs", "to_spec"]
