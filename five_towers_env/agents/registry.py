"""Agents by name, so evaluation, training and the command line can build any of them.

Names are per game: each :class:`~five_towers_env.core.game.GameSpec` maps its registry names to classes
(:attr:`~five_towers_env.core.game.GameSpec.agents`), and every function here takes ``game=`` (default
``"five_towers"``) to say which game's names it means; ``random`` and ``human`` serve every game.

Every entry point (``five-towers --agents mcts:simulations=100``, ``evaluate()``, training pools)
builds agents through :func:`make_agent`, which checks the settings against the agent class's
``__init__`` first: an unknown setting lists the valid ones, a value of the wrong type names the
setting and the type wanted. An agent whose ``__init__`` takes ``**params`` declares the names in
a module-level ``DEFAULT_PARAMS`` mapping (the heuristic's weights); without one it takes any setting and
checks them itself (``py:``, which hands them to the user's factory).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import sys
import types
import typing
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.core.agent import Agent
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game


class AgentSettingError(ValueError):
    """An agent name or setting the registry cannot build; the message lists the valid ones."""


class AgentSettingTypeError(AgentSettingError, TypeError):
    """An agent setting of the wrong type (both a ``ValueError`` and a ``TypeError``)."""


def agents_of(game: str | GameSpec = DEFAULT_GAME) -> Mapping[str, str]:
    """The registry of ``game``: name -> ``"module:Class"`` (``ValueError`` for an unknown game)."""
    return get_game(game).agents


def unknown_agent_message(name: Any, game: str | GameSpec = DEFAULT_GAME) -> str:
    """The message for an agent name ``game`` does not have, listing the ones it has."""
    g = get_game(game)
    # the default game's agents need no "for <game>"
    where = "" if g.name == DEFAULT_GAME else f" for {g.title}"
    return f"unknown agent {name!r}{where}; known: {', '.join(g.agents)}"


def _check_name(name: Any, game: str | GameSpec = DEFAULT_GAME) -> str:
    if not isinstance(name, str) or name not in agents_of(game):
        raise AgentSettingError(unknown_agent_message(name, game))
    return name


def agent_class(name: str, *, game: str | GameSpec = DEFAULT_GAME) -> type:
    """The class registered as ``name`` for ``game`` (imported on first use)."""
    module, cls = agents_of(game)[_check_name(name, game)].split(":")
    return getattr(importlib.import_module(module), cls)


def agent_settings(name: str, *, game: str | GameSpec = DEFAULT_GAME) -> dict[str, Any]:
    """The keyword settings agent ``name`` of ``game`` accepts (``seed`` excluded), each with its type hint."""
    return _agent_settings(name, get_game(game).name)


@cache
def _agent_settings(name: str, game: str) -> dict[str, Any]:
    # cached per (name, game): the same name may be a different class in another game
    cls: type[Any] = agent_class(name, game=game)
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
            if extra is None:
                out[ANY_SETTING] = Any
            for key in extra or ():
                out[key] = hints.get(p.name, Any)
            continue
        out[p.name] = hints.get(p.name, Any)
    return out


#: in :func:`agent_settings`: the agent takes settings of any name (``**settings`` without ``DEFAULT_PARAMS``)
ANY_SETTING = "**"


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


def check_agent_settings(name: str, settings: Mapping[str, Any], *,
                         game: str | GameSpec = DEFAULT_GAME) -> dict[str, Any]:
    """Raise :class:`AgentSettingError` (or :class:`AgentSettingTypeError`) unless every setting is one
    agent ``name`` of ``game`` takes, with a value of its type; return the settings as a dict."""
    valid = agent_settings(_check_name(name, game), game=game)
    known = ", ".join(k for k in valid if k != ANY_SETTING) or "none"
    for key, value in settings.items():
        if key == "seed":
            raise AgentSettingError(f"{name}: seed is not an agent setting; every game's agents are seeded "
                                    f"from the run's seed (--seed); {name} settings: {known}")
        if key not in valid and ANY_SETTING in valid:
            continue
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


def _parse_value(text: str) -> Any:
    """A setting's value: a Python literal, ``true``/``false``/``none``/``null`` in any case, else the text."""
    text = text.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        low = text.lower()
        if low in ("true", "false"):
            return low == "true"
        if low in ("none", "null"):
            return None
        return text


def parse_agent_text(text: str, *, game: str | GameSpec = DEFAULT_GAME) -> tuple[str, dict[str, Any]]:
    """``"name"`` or ``"name:key=value,key=value"`` -> ``(name, settings)``, checked against ``game``'s
    agents (values are Python literals, else strings); :class:`AgentSettingError` says what is wrong."""
    if not isinstance(text, str):
        raise AgentSettingError(unknown_agent_message(text, game))
    name, _, rest = text.strip().partition(":")
    name = _check_name(name.strip(), game)
    settings: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise AgentSettingError(f"bad agent setting {item!r} in {text!r}; expected name:key=value,key=value")
        settings[key.strip()] = _parse_value(value)
    check_agent_settings(name, settings, game=game)
    return name, settings


def make_agent_from_text(text: str, /, seed: int | None = None, *, game: str | GameSpec = DEFAULT_GAME) -> Agent:
    """Build an agent from a spec string such as ``"mcts:simulations=50"`` (see :func:`parse_agent_text`)."""
    name, settings = parse_agent_text(text, game=game)
    return make_agent(name, seed=seed, game=game, **settings)


def make_agent(name: str, /, seed: int | None = None, *, game: str | GameSpec = DEFAULT_GAME, **kwargs: Any) -> Agent:
    """Build an agent of ``game`` by registry name (``"mcts"`` accepts e.g. ``simulations=200``).

    Unknown names and settings raise :class:`AgentSettingError` listing the valid ones (of that
    game); a setting of the wrong type raises :class:`AgentSettingTypeError` (a ``ValueError`` and a
    ``TypeError``). An agent with a setting called ``game`` (the human seat) is given ``game``'s name
    there, so it knows its game before its first decision."""
    check_agent_settings(name, kwargs, game=game)
    cls = agent_class(name, game=game)
    if "game" in agent_settings(name, game=game):
        kwargs["game"] = get_game(game).name
    return cls(seed=seed, **kwargs)


__all__ = ["AgentSettingError", "AgentSettingTypeError", "agents_of", "agent_class", "agent_settings",
           "check_agent_settings", "make_agent", "make_agent_from_text", "parse_agent_text", "unknown_agent_message"]
