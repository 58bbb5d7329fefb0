"""Agents by name, so evaluation, training and the command line can build any of them.

Every entry point (``five-towers --agents mcts:simulations=100``, ``evaluate()``, training pools)
builds agents through :func:`make_agent`, which checks the settings against the agent class's
``__init__`` first: an unknown setting lists the valid ones, a value of the wrong type names the
setting and the type wanted. An agent whose ``__init__`` takes ``**params`` declares the names in
a module-level ``DEFAULT_PARAMS`` mapping (the heuristic's weights).
"""
from __future__ import annotations

import importlib
import inspect
import sys
import types
import typing
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .base import Agent

#: name -> "module:Class"; every class takes ``seed=`` plus its own keyword settings
AGENTS: dict[str, str] = {
    "random": "five_towers_env.agents.base:RandomAgent",
    "greedy": "five_towers_env.agents.greedy:GreedyAgent",
    "heuristic": "five_towers_env.agents.heuristic:HeuristicAgent",
    "mcts": "five_towers_env.agents.mcts:MCTSAgent",
    "ppo": "five_towers_env.agents.policy:PolicyAgent",  # path=... (default: the shipped policy)
    "human": "five_towers_env.agents.human:HumanAgent",  # a person at the terminal (five-towers play)
}


class AgentSettingError(ValueError):
    """An agent name or setting the registry cannot build; the message lists the valid ones."""


class AgentSettingTypeError(AgentSettingError, TypeError):
    """An agent setting of the wrong type (both a ``ValueError`` and a ``TypeError``)."""


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or name not in AGENTS:
        raise AgentSettingError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
    return name


def agent_class(name: str) -> type:
    """The class registered as ``name``."""
    module, cls = AGENTS[_check_name(name)].split(":")
    return getattr(importlib.import_module(module), cls)


@lru_cache(maxsize=None)
def agent_settings(name: str) -> dict[str, Any]:
    """The keyword settings agent ``name`` accepts (``seed`` excluded), each with its type hint."""
    cls = agent_class(name)
    try:
        hints = typing.get_type_hints(cls.__init__)
    except Exception:  # unresolvable annotations: accept any value
        hints = {}
    out: dict[str, Any] = {}
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:  # skip self
        if p.name == "seed" or p.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            extra = getattr(sys.modules[cls.__module__], "DEFAULT_PARAMS", None)
            for key in extra or ():
                out[key] = hints.get(p.name, Any)
            continue
        out[p.name] = hints.get(p.name, Any)
    return out


def _accepts(hint: Any, value: Any) -> bool:
    if hint is Any:
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_accepts(h, value) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, (bool, np.bool_))
    if isinstance(value, (bool, np.bool_)):
        return False  # True is not a 1
    if hint is int:
        return isinstance(value, (int, np.integer))
    if hint is float:
        return isinstance(value, (int, float, np.integer, np.floating))
    if hint is str:
        return isinstance(value, str)
    if hint is Path:
        return isinstance(value, Path)
    return isinstance(hint, type) and isinstance(value, hint)


_WORDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false", Path: "a path",
          type(None): "None"}


def _describe(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if str in args and Path in args:  # str | Path: a path
            args = tuple(a for a in args if a is not str)
        words = list(dict.fromkeys(_describe(a) for a in args))
        return " or ".join(words)
    return _WORDS.get(hint, getattr(hint, "__name__", str(hint)))


def check_agent_settings(name: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """Raise :class:`AgentSettingError` (or :class:`AgentSettingTypeError`) unless every setting is one
    agent ``name`` takes, with a value of its type; return the settings as a dict."""
    valid = agent_settings(_check_name(name))
    known = ", ".join(valid) or "none"
    for key, value in settings.items():
        if key == "seed":
            raise AgentSettingError(f"{name}: seed is not an agent setting; every game's agents are seeded "
                                    f"from the run's seed (--seed); {name} settings: {known}")
        if key not in valid:
            raise AgentSettingError(f"{name} has no setting {key!r}; its settings: {known}")
        hint = valid[key]
        if not _accepts(hint, value):
            wanted = _describe(hint)
            hint_text = ""
            if isinstance(value, (float, np.floating)) and float(value).is_integer() and "integer" in wanted:
                hint_text = f"; write {int(value)}"
            raise AgentSettingTypeError(f"{name} setting {key} must be {wanted}, got {value!r}{hint_text}")
    return dict(settings)


def make_agent(name: str, /, seed: int | None = None, **kwargs: Any) -> Agent:
    """Build an agent by registry name (``"mcts"`` accepts e.g. ``simulations=200``).

    Unknown names and settings raise :class:`AgentSettingError` listing the valid ones; a setting of
    the wrong type raises :class:`AgentSettingTypeError` (a ``ValueError`` and a ``TypeError``)."""
    check_agent_settings(name, kwargs)
    return agent_class(name)(seed=seed, **kwargs)
