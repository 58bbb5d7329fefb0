"""Your own Python agent by its import path (``py:path=...``), for every command and ``evaluate()``.

``path`` is ``package.module.attr`` (or ``package.module:attr``) of an importable module, or
``some/file.py:attr`` of a file. The attribute is one of:

* an agent class (anything with ``act(observation, info) -> action``): built as ``cls(seed=..., **settings)``,
  ``seed`` left out if it takes none;
* a factory, any other callable returning such an agent: called the same way;
* a plain function ``(observation, info) -> action`` (a callable with exactly two required positional
  parameters): it plays as it is, and takes no settings.

Settings other than ``path`` go to the class or factory: ``py:path=my_agents.Greedy,depth=3``. Every game
builds a fresh agent with its own seed. A path that does not import, an attribute that is missing or not
callable, and settings the factory refuses are each a ``ValueError`` with a one-line message.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.core.agent import AgentBase

#: modules loaded from files, by resolved path: a file is executed once per process
_FILES: dict[str, Any] = {}


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def _module_of_file(file: Path) -> Any:
    key = str(file.resolve())
    if key not in _FILES:
        if not file.is_file():
            raise ValueError(f"py: no file {file}")
        name = "five_towers_user_" + hashlib.sha1(key.encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:
            raise ValueError(f"py: {file} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # so that pickle and dataclasses find what it defines
        try:
            spec.loader.exec_module(module)
        except (Exception, SystemExit) as exc:  # its code failed, or called sys.exit() as it loaded
            del sys.modules[name]
            raise ValueError(f"py: {file} does not import: {_one_line(exc)}") from None
        _FILES[key] = module
    return _FILES[key]


def load_attribute(path: str) -> Any:
    """The object ``path`` names (see the module docstring); ``ValueError`` with one line if it cannot."""
    text = path.strip()
    if ".py:" in text or text.endswith(".py"):
        file, _, attr = text.rpartition(":") if ".py:" in text else (text, "", "")
        if not attr:
            raise ValueError(f"py: {text}: name the attribute after the file, e.g. {text}:MyAgent")
        module = _module_of_file(Path(file))
    else:
        module_name, sep, attr = text.partition(":")
        if not sep:
            module_name, _, attr = text.rpartition(".")
        if not module_name or not attr:
            raise ValueError(f"py: {text!r} names no attribute; write package.module.attr or file.py:attr")
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise ValueError(f"py: module {module_name} does not import: {_one_line(exc)}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ValueError(f"py: {module.__name__} has no attribute {attr!r}") from None


def _takes_seed(target: Any) -> bool:
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def is_policy_function(target: Any) -> bool:
    """Whether ``target`` is a plain ``(observation, info) -> action`` function rather than a factory: not a
    class, no ``seed`` parameter, and exactly two required parameters, both positional."""
    if isinstance(target, type):
        return False
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return False
    required = [p for p in params if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return (len(required) == 2 and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in required)
            and not any(p.name == "seed" for p in params))


class PythonAgent(AgentBase):
    """Plays the Python agent, factory or function at ``path`` (see the module docstring)."""

    pool_opponent = False  # a user's code plays it

    def __init__(self, path: str, seed: int | None = None, name: str | None = None, **settings: Any) -> None:
        target = load_attribute(path)
        self.path = path
        if hasattr(target, "act") and not isinstance(target, type):
            raise ValueError(f"py: {path} is an agent object; give its class or a factory, so that every game "
                             "gets a freshly seeded agent")
        if not callable(target):
            raise ValueError(f"py: {path} is a {type(target).__name__}, not callable; give an agent class, a factory "
                             "or a function (observation, info) -> action")
        if is_policy_function(target):
            if settings:
                raise ValueError(f"py: {path} is a function (observation, info) -> action; it takes no settings, "
                                 f"got {', '.join(settings)}")
            self.inner: Any = None
            self.policy = target
        else:
            try:
                built = target(seed=seed, **settings) if _takes_seed(target) else target(**settings)
            except TypeError as exc:
                raise ValueError(f"py: {path} refused its settings: {_one_line(exc)}") from None
            except (Exception, SystemExit) as exc:  # the user's code failed as it built the agent
                raise ValueError(f"py: {path} failed to build an agent: {_one_line(exc)}") from None
            if not callable(getattr(built, "act", None)):
                raise ValueError(f"py: {path} returned a {type(built).__name__}, which has no act(observation, info)")
            self.inner, self.policy = built, built.act
        try:
            own = getattr(self.inner, "name", None)
        except Exception as exc:  # a name property of the user's that fails
            raise ValueError(f"py: {path}: its name failed: {_one_line(exc)}") from None
        self.name = name or (own if isinstance(own, str) else None) or path.replace(":", ".").rpartition(".")[2]

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The wrapped agent's (or function's) action."""
        return self.policy(observation, info)

    def check_setup(self, num_players: int, variant: str) -> None:
        """Pass the setup on to a wrapped agent that checks it."""
        check = getattr(self.inner, "check_setup", None)
        if callable(check):
            try:
                check(num_players, variant)
            except ValueError:
                raise
            except Exception as exc:  # the user's check failed rather than refused the setup
                raise ValueError(f"py: {self.name}: its check_setup failed: {_one_line(exc)}") from None


__all__ = ["PythonAgent", "is_policy_function", "load_attribute"]
