"""Agents by name, so evaluation, training and the command line can build any of them.

Names are per game: a game's agents are its own (:attr:`~five_towers_env.core.game.GameSpec.agents`) and the
game-neutral ones of the tables here, some of them by what the game declares (:func:`agents_of`), and every
function here takes ``game=`` (default ``"five_towers"``) to say which game's names it means.

Every entry point (``five-towers --agents mcts:simulations=100``, ``evaluate()``, training pools)
builds agents through :func:`make_agent`, which checks the settings against the agent class's
``__init__`` first: an unknown setting lists the valid ones, a value of the wrong type names the
setting and the type wanted, and a value outside the setting's range (the class's ``SETTING_RANGES``,
:mod:`five_towers_env.core.setting_ranges`; every number finite) names the setting and its range. An agent
whose ``__init__`` takes ``**params`` declares the names in a module-level ``DEFAULT_PARAMS`` mapping (the
heuristic's weights); without one it takes any setting and checks them itself (``py:``, which hands them to
the user's factory). A ``game`` setting (the agents that load a file for a game) may only name the game
played, which :func:`make_agent` fills in anyway.
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

from five_towers_env.core.agent import Agent, AgentBase
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.setting_ranges import SettingRange, product_settings, range_problem, setting_ranges

#: the agents every game has, registry name -> ``"module:Class"``: first uniform random (it reads only the mask)
RANDOM_AGENT = {"random": "five_towers_env.core.agent:RandomAgent"}
#: and last, after the game's own: a trained policy (``path=...``, or the one the game ships), a person at the
#: terminal, and a user's own agent (Python code, a Stable-Baselines3 model, an RLlib checkpoint, ``path=...``)
POLICY_AND_USER_AGENTS = {"ppo": "five_towers_env.agents.policy:PolicyAgent",
                          "human": "five_towers_env.agents.human:HumanAgent",
                          "py": "five_towers_env.agents.python_agent:PythonAgent",
                          "sb3": "five_towers_env.agents.sb3_agent:SB3Agent",
                          "rllib": "five_towers_env.agents.rllib_agent:RLlibCheckpointAgent"}
#: the agents a game gets by what its spec declares, after its own (an own agent of the same name wins): the
#: flat search on any game, the network and network-guided search on a game with ``observe``, an OpenSpiel bot
#: on a game with ``chance`` (``openspiel-mcts`` with perfect information, else ``openspiel-ismcts``)
SEARCH_AGENT = {"mcts": "five_towers_env.agents.flat_search:FlatSearchAgent"}
NETWORK_AGENTS = {"net": "five_towers_env.agents.guided:NetworkAgent",
                  "guided": "five_towers_env.agents.guided:GuidedSearchAgent"}
OPENSPIEL_AGENTS = {"openspiel-mcts": "five_towers_env.integrations.openspiel.bots:MCTSAgent",
                    "openspiel-ismcts": "five_towers_env.integrations.openspiel.bots:ISMCTSAgent"}


class AgentSettingError(ValueError):
    """An agent name or setting the registry cannot build; the message lists the valid ones."""


class AgentSettingTypeError(AgentSettingError, TypeError):
    """An agent setting of the wrong type (both a ``ValueError`` and a ``TypeError``)."""


def _capability_agents(spec: GameSpec) -> dict[str, str]:
    """The game-neutral agents ``spec`` can play by what it declares, but for those it has its own of."""
    found = dict(SEARCH_AGENT)
    if spec.observe:
        found.update(NETWORK_AGENTS)
    if spec.chance:
        name = "openspiel-mcts" if spec.perfect_information else "openspiel-ismcts"
        found[name] = OPENSPIEL_AGENTS[name]
    return {name: target for name, target in found.items() if name not in spec.agents}


def agents_of(game: str | GameSpec) -> Mapping[str, str]:
    """Every agent of ``game``: name -> ``"module:Class"`` (``ValueError`` for an unknown game), in this order:
    ``random``, the game's own, the game-neutral ones it declares what they need for (:data:`SEARCH_AGENT`,
    :data:`NETWORK_AGENTS`, :data:`OPENSPIEL_AGENTS`) but has none of its own of, and
    :data:`POLICY_AND_USER_AGENTS` (the entry listed later wins a name)."""
    spec = get_game(game)
    return {**RANDOM_AGENT, **dict(spec.agents), **_capability_agents(spec), **POLICY_AND_USER_AGENTS}


def agent_names(game: str | GameSpec) -> tuple[str, ...]:
    """The names of every agent of ``game``, in the order of :func:`agents_of`."""
    return tuple(agents_of(game))


def pool_opponents(game: str | GameSpec) -> tuple[str, ...]:
    """The agents of ``game`` a trainer may seat as rule-based opponents (a self-play pool, a baseline): those
    whose class says ``pool_opponent`` (:class:`~five_towers_env.core.agent.AgentBase`), in the order of
    :func:`agents_of`; an agent whose optional dependency is missing (OpenSpiel's bots) is none of them."""
    return tuple(name for name in agents_of(game) if _pool_opponent(name, game))


def _pool_opponent(name: str, game: str | GameSpec) -> bool:
    try:
        cls = agent_class(name, game=game)
    except ImportError:  # its module needs an extra that is not installed: it cannot sit in a pool here
        return False
    return bool(getattr(cls, "pool_opponent", AgentBase.pool_opponent))


def unknown_agent_message(name: Any, game: str | GameSpec) -> str:
    """The message for an agent name ``game`` does not have, listing the ones it has."""
    g = get_game(game)
    # the default game's agents need no "for <game>"
    where = "" if g.name == DEFAULT_GAME else f" for {g.title}"
    return f"unknown agent {name!r}{where}; known: {', '.join(agents_of(g))}"


def _check_name(name: Any, game: str | GameSpec) -> str:
    if not isinstance(name, str) or name not in agents_of(game):
        raise AgentSettingError(unknown_agent_message(name, game))
    return name


def agent_class(name: str, *, game: str | GameSpec) -> type:
    """The class registered as ``name`` for ``game`` (imported on first use)."""
    module, cls = agents_of(game)[_check_name(name, game)].split(":")
    return getattr(importlib.import_module(module), cls)


def agent_settings(name: str, *, game: str | GameSpec) -> dict[str, Any]:
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


def agent_setting_ranges(name: str, *, game: str | GameSpec) -> dict[str, SettingRange]:
    """The ranges agent ``name`` of ``game`` declares for its settings (its class's ``SETTING_RANGES``,
    :mod:`five_towers_env.core.setting_ranges`); a ``"a*b"`` key bounds the product of two settings."""
    return setting_ranges(agent_class(_check_name(name, game), game=game))


def agent_setting_defaults(name: str, *, game: str | GameSpec) -> dict[str, Any]:
    """The default of each setting of agent ``name`` of ``game`` that has one (the ``__init__``'s, or the
    module's ``DEFAULT_PARAMS`` for ``**params``)."""
    cls: type[Any] = agent_class(_check_name(name, game), game=game)
    out: dict[str, Any] = dict(getattr(sys.modules[cls.__module__], "DEFAULT_PARAMS", None) or {})
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.default is not inspect.Parameter.empty and p.name != "seed":
            out[p.name] = p.default
    return out


def _number_word(hint: Any) -> str:
    """The kind of number a setting's type hint names, for a range message: ``an integer``, ``a number``."""
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    numbers = [a for a in args if a is not type(None)]
    return _describe(numbers[0]) if len(numbers) == 1 else _describe(hint)


def _check_game_setting(name: str, value: Any, game: str | GameSpec) -> None:
    """A ``game`` setting names the game played (or is None): the registry fills it in from ``game``."""
    played = get_game(game)
    try:
        named = get_game(value).name if value is not None else played.name
    except (ValueError, TypeError):
        named = None
    if named != played.name:
        raise AgentSettingError(f"{name} setting game must be the game played, {played.name!r}, got {value!r}; "
                                f"leave it out (the agent plays the game it is seated in: make_agent(..., "
                                f"game=...), --game)")


def _check_ranges(name: str, settings: Mapping[str, Any], valid: Mapping[str, Any], game: str | GameSpec) -> None:
    """Every declared setting within its class's range, and every number finite (see the module docstring)."""
    ranges = agent_setting_ranges(name, game=game)
    for key, value in settings.items():
        if key in valid:
            problem = range_problem(value, ranges.get(key), _number_word(valid[key]))
            if problem:
                raise AgentSettingError(f"{name} setting {key} {problem}")
    products = [(pair, allowed) for key, allowed in ranges.items() if (pair := product_settings(key))]
    defaults = agent_setting_defaults(name, game=game) if products else {}
    for pair, allowed in products:
        a, b = (settings.get(k, defaults.get(k)) for k in pair)
        if a is not None and b is not None and a * b not in allowed:
            raise AgentSettingError(f"{name} settings {pair[0]} and {pair[1]}: their product (the work of one "
                                    f"decision) must be {allowed}, got {a} * {b} = {a * b}")


def check_agent_settings(name: str, settings: Mapping[str, Any], *,
                         game: str | GameSpec) -> dict[str, Any]:
    """Raise :class:`AgentSettingError` (or :class:`AgentSettingTypeError`) unless every setting is one
    agent ``name`` of ``game`` takes, with a value of its type within its range (see the module docstring);
    return the settings as a dict."""
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
        if key == "game":
            _check_game_setting(name, value, game)
    _check_ranges(name, settings, valid, game)
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


def parse_agent_text(text: str, *, game: str | GameSpec) -> tuple[str, dict[str, Any]]:
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


def is_interactive(text: str, *, game: str | GameSpec) -> bool:
    """Whether the agent ``text`` (a name, or ``"name:key=value,..."``) of ``game`` is played by a person (its
    class says ``interactive``, :class:`~five_towers_env.core.agent.AgentBase`); False for a name ``game`` does
    not have."""
    name = str(text).partition(":")[0].strip()
    if name not in agents_of(game):
        return False
    return bool(getattr(agent_class(name, game=game), "interactive", AgentBase.interactive))


def files_played_from(text: str, num_players: int, variant: str, *,
                      game: str | GameSpec) -> list[Path] | None:
    """The files the agent ``text`` (``"name:key=value,..."``, :func:`parse_agent_text`) of ``game`` plays from
    in the setup (``[]``: none; ``None``: it needs a file the game does not ship for the setup), as its class
    declares them (``files``, :class:`~five_towers_env.core.agent.AgentBase`)."""
    spec = get_game(game)
    name, settings = parse_agent_text(text, game=spec)
    files = getattr(agent_class(name, game=spec), "files", AgentBase.files)
    return files(settings, spec, num_players, variant)


def make_agent_from_text(text: str, /, seed: int | None = None, *, game: str | GameSpec = DEFAULT_GAME) -> Agent:
    """Build an agent from a spec string such as ``"mcts:simulations=50"`` (see :func:`parse_agent_text`)."""
    name, settings = parse_agent_text(text, game=game)
    settings.pop("game", None)  # the game played (checked): make_agent fills it in
    return make_agent(name, seed=seed, game=game, **settings)


def make_agent(name: str, /, seed: int | None = None, *, game: str | GameSpec = DEFAULT_GAME, **kwargs: Any) -> Agent:
    """Build an agent of ``game`` by registry name (``"mcts"`` accepts e.g. ``simulations=200``).

    Unknown names and settings raise :class:`AgentSettingError` listing the valid ones (of that
    game); a setting of the wrong type raises :class:`AgentSettingTypeError` (a ``ValueError`` and a
    ``TypeError``); one outside its range an :class:`AgentSettingError`. An agent with a setting called
    ``game`` (the human seat, the agents that load a file) is given ``game``'s name there, so it knows its
    game before its first decision."""
    check_agent_settings(name, kwargs, game=game)
    cls = agent_class(name, game=game)
    if "game" in agent_settings(name, game=game):
        kwargs["game"] = get_game(game).name
    return cls(seed=seed, **kwargs)


__all__ = ["AgentSettingError", "AgentSettingTypeError", "agents_of", "agent_names", "agent_class", "agent_settings",
           "agent_setting_defaults", "agent_setting_ranges",
           "check_agent_settings", "files_played_from", "is_interactive", "make_agent", "make_agent_from_text",
           "parse_agent_text", "pool_opponents", "unknown_agent_message", "RANDOM_AGENT", "POLICY_AND_USER_AGENTS",
           "SEARCH_AGENT", "NETWORK_AGENTS", "OPENSPIEL_AGENTS"]
