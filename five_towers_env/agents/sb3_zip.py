"""Reading a Stable-Baselines3 ``.zip`` without unpickling anything: how ``sb3:path=`` and ``ppo:path=*.zip``
load a model unless told ``trust_pickles=true``.

``model.save(...)`` writes a zip of ``data`` (JSON: the algorithm's settings; each one that is not plain JSON,
such as the policy class, the spaces and the schedules, is a base64 cloudpickle under ``":serialized:"``
beside a few readable attributes) and ``policy.pth`` (the policy's ``state_dict``). SB3's own ``load`` unpickles
every ``":serialized:"`` entry (``json_to_data``), and unpickling runs whatever code the file carries. This
reader never does:

* ``data`` is parsed with :func:`json.loads`; every serialised entry is skipped, only its readable
  attributes kept (as SB3 skips the entries named in its ``custom_objects``);
* the policy class is looked up by the module and name the entry declares, among the installed
  ``stable_baselines3`` / ``sb3_contrib`` ``*.policies`` modules and this package's ``TypedPolicy``, never
  taken from the file; the observation space is rebuilt as a ``Box`` of the declared shape and dtype (or a
  ``Dict`` of them), the action space as a ``Discrete`` of the declared ``n``, the policy's settings
  (``policy_kwargs``) from their plain values, ``activation_fn`` by its name among torch's activations and
  ``features_extractor_class`` among SB3's MLP extractors (the optimiser, unused in play, is left out);
* ``policy.pth`` is read with ``torch.load(..., weights_only=True)``, and every weight must fit the policy.

A model this cannot rebuild is refused with :class:`PickledModelError`: one line naming the setting
``trust_pickles``, which loads the file through SB3's own ``load`` (unpickling it: running its code).
"""
from __future__ import annotations

import importlib
import inspect
import io
import json
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

#: the agent setting that loads a model through SB3's ``load``, unpickling what the file carries
TRUST_SETTING = "trust_pickles"
INSTALL_HINT = 'pip install -e ".[rl]" (torch, stable-baselines3, sb3-contrib)'

SERIALIZED = ":serialized:"
TYPE = ":type:"  # beside ":serialized:": the type of the pickled object, as text

_POLICY_MODULE = re.compile(r"(?:stable_baselines3|sb3_contrib)(?:\.\w+)*\.policies")
_OWN_POLICIES = {("five_towers_env.training.ppo.networks", "TypedPolicy")}
_INIT = re.compile(r"<function (\w+)\.__init__ at ")
_ACTIVATION = re.compile(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>")
_EXTRACTORS = ("FlattenExtractor", "CombinedExtractor")
_UNUSED = ("optimizer_class", "optimizer_kwargs")  # playing takes no optimiser step
#: the most values a rebuilt space or layer may declare: a crafted size allocates nothing
SIZE_LIMIT = 1 << 22
_BOX = re.compile(r"'(\w+)': Box\((.*?), (.*?), \((\d+(?:, \d+)*,?)\), (\w+)\)", re.S)


class PickledModelError(ValueError):
    """A model that cannot be read without unpickling it; the one-line message names ``trust_pickles``."""


def one_line(e: BaseException) -> str:
    """An exception as one line of at most 300 characters."""
    return " ".join(f"{type(e).__name__}: {e}".split())[:300]


def refusal(agent: str, path: Path, why: str) -> PickledModelError:
    """The one-line refusal of a model that cannot be read without unpickling it."""
    return PickledModelError(" ".join(
        f"{agent}: {path} cannot be read without unpickling it, which runs code from the file ({why}); "
        f"if you trust the file, {agent}:path={path},{TRUST_SETTING}=true loads it with SB3's own load".split()))


def read_member(path: Path, name: str) -> bytes:
    """The entry ``name`` of the zip ``path``, read whole; ``ValueError`` for a zip that cannot be read (a bad
    CRC, a broken or unknown compression, an encrypted entry, a cut-off file) or that lacks it."""
    try:
        with zipfile.ZipFile(path) as z:
            return z.read(name)
    except KeyError:
        raise ValueError(f"{path} has no {name!r} entry") from None
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError, OSError) as e:
        raise ValueError(f"{path}: its {name!r} entry cannot be read ({one_line(e)})") from None


def read_data(text: str) -> dict[str, Any]:
    """The settings of a model's ``data`` entry: plain JSON values as saved, a serialised entry as its readable
    attributes alone (a dict with ``":type:"``; its pickle is dropped unread). ``ValueError`` if not JSON."""
    try:
        saved = json.loads(text)
    except RecursionError:
        raise ValueError("its data entry nests too deeply to be a model's settings") from None
    if not isinstance(saved, dict):
        raise ValueError("its data entry is not a JSON object")
    return {key: ({k: v for k, v in value.items() if k != SERIALIZED}
                  if isinstance(value, dict) and SERIALIZED in value else value) for key, value in saved.items()}


def _declared(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A serialised entry's readable attributes ({} if the entry is missing or not serialised)."""
    entry = data.get(key)
    return entry if isinstance(entry, dict) and TYPE in entry else {}


def policy_class(data: dict[str, Any], path: Path, agent: str) -> type:
    """The policy class ``data`` declares, imported from the installed packages (``ImportError`` naming the
    module if it is not installed; :class:`PickledModelError` for one this reader does not know)."""
    entry = _declared(data, "policy_class")
    module, init = entry.get("__module__"), entry.get("__init__")
    found = _INIT.match(init) if isinstance(init, str) else None
    if not isinstance(module, str) or found is None:
        raise refusal(agent, path, "its data does not name its policy class")
    name = found.group(1)
    if (module, name) not in _OWN_POLICIES and not _POLICY_MODULE.fullmatch(module):
        raise refusal(agent, path, f"its policy class {module}.{name} is not one of Stable-Baselines3's")
    try:
        cls = getattr(importlib.import_module(module), name, None)
    except ModuleNotFoundError as e:
        raise ImportError(f"{agent}: {path} needs the module {e.name!r} to load: {INSTALL_HINT}") from e
    from stable_baselines3.common.policies import BasePolicy

    if not (isinstance(cls, type) and issubclass(cls, BasePolicy)):
        raise refusal(agent, path, f"the installed {module} has no policy class {name}")
    return cls


def _number(text: Any, default: float) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def _box(shape: Any, dtype: Any, low: Any = None, high: Any = None) -> spaces.Box:
    """A ``Box`` of this shape and dtype; its bounds where they were one number, else the dtype's range."""
    if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)) \
            or int(np.prod(shape, dtype=np.float64)) > SIZE_LIMIT:
        raise ValueError(f"shape {shape!r}")
    if not (isinstance(dtype, str) and re.fullmatch(r"u?int\d+|float\d+|bool", dtype)):
        raise ValueError(f"dtype {dtype!r}")
    kind = np.dtype(dtype)
    lo, hi = (-np.inf, np.inf) if kind.kind == "f" else (0, 1) if kind.kind == "b" else \
        (np.iinfo(kind).min, np.iinfo(kind).max)
    return spaces.Box(_number(low, lo), _number(high, hi), tuple(shape), kind)


def observation_space(data: dict[str, Any], path: Path, agent: str) -> spaces.Space:
    """The observation space ``data`` declares: a ``Box``, or a ``Dict`` of ``Box`` es."""
    entry = _declared(data, "observation_space")
    kind = entry.get(TYPE)
    try:
        if kind == "<class 'gymnasium.spaces.box.Box'>":
            return _box(entry.get("_shape"), entry.get("dtype"))
        text = entry.get("spaces")
        if kind == "<class 'gymnasium.spaces.dict.Dict'>" and isinstance(text, str):
            boxes = _BOX.findall(text)
            if not boxes or re.sub(r"[{},\s]", "", _BOX.sub("", text)):
                raise ValueError("a Dict of spaces other than Box")
            return spaces.Dict([(key, _box([int(n) for n in shape.replace(",", " ").split()], dtype, low, high))
                                for key, low, high, shape, dtype in boxes])
    except ValueError as e:
        raise refusal(agent, path, f"its observation space is not one this reader rebuilds: {e}") from None
    raise refusal(agent, path, f"its observation space {kind or 'is not declared'}; this reader rebuilds Box and "
                  "Dict observations")


def action_space(data: dict[str, Any]) -> spaces.Discrete | str:
    """The ``Discrete`` action space ``data`` declares, else the declared type of the space (text)."""
    entry = _declared(data, "action_space")
    kind = str(entry.get(TYPE, "an undeclared action space"))
    try:
        n, start = int(entry.get("n")), int(entry.get("start", 0))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return kind
    if kind != "<class 'gymnasium.spaces.discrete.Discrete'>":
        return kind
    return spaces.Discrete(n, start=start) if 0 < n <= SIZE_LIMIT else f"Discrete({n}), over {SIZE_LIMIT} actions"


def _ints(value: Any) -> list[int]:
    """Every integer in a JSON value (a ``net_arch``)."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in _ints(v)]
    if isinstance(value, list):
        return [n for v in value for n in _ints(v)]
    return [value] if isinstance(value, int) else []


def policy_kwargs(data: dict[str, Any], cls: type, path: Path, agent: str) -> dict[str, Any]:
    """The settings the policy was built with: plain values as saved, classes by their names."""
    import torch.nn as nn
    from stable_baselines3.common import torch_layers

    saved = data.get("policy_kwargs") or {}
    if not isinstance(saved, dict) or saved.get(TYPE, "<class 'dict'>") != "<class 'dict'>":
        raise refusal(agent, path, "its policy_kwargs are not a dict")
    out: dict[str, Any] = {}
    for key, value in saved.items():
        if key == TYPE or key in _UNUSED:
            continue
        if key == "activation_fn":
            found = _ACTIVATION.fullmatch(str(value))
            act = getattr(nn.modules.activation, found.group(1), None) if found else None
            if not (isinstance(act, type) and issubclass(act, nn.Module)):
                raise refusal(agent, path, f"its activation_fn {value} is not one of torch's activations")
            out[key] = act
        elif key == "features_extractor_class":
            name = next((n for n in _EXTRACTORS if value == f"<class 'stable_baselines3.common.torch_layers.{n}'>"),
                        None)
            if name is None:
                raise refusal(agent, path, f"its features_extractor_class {value} is not one of SB3's MLP extractors")
            out[key] = getattr(torch_layers, name)
        elif key == "net_arch" and any(n > SIZE_LIMIT for n in _ints(value)):
            raise refusal(agent, path, f"its net_arch {value} has a layer over {SIZE_LIMIT} units")
        else:
            out[key] = value
    n_quantiles = data.get("n_quantiles")  # QR-DQN's: the policy's own count, saved beside it
    if isinstance(n_quantiles, int) and "n_quantiles" in inspect.signature(cls).parameters:
        out.setdefault("n_quantiles", n_quantiles)
    if not isinstance(out.get("n_quantiles", 1), int) or out.get("n_quantiles", 1) > SIZE_LIMIT:
        raise refusal(agent, path, f"its n_quantiles {out['n_quantiles']!r} is not a count up to {SIZE_LIMIT}")
    return out


def build_policy(path: Path, cls: type, observation: spaces.Space, action: spaces.Space,
                 kwargs: dict[str, Any], agent: str) -> Any:
    """The policy ``cls(observation, action, ..., **kwargs)`` holding the weights of ``policy.pth``, read with
    ``weights_only=True``, in evaluation mode on the CPU."""
    import pickle

    import torch

    try:
        policy = cls(observation, action, lambda _: 0.0, **kwargs)
    except Exception as e:  # settings the class refuses: whatever it raises
        raise refusal(agent, path, f"its policy settings did not build a {cls.__name__}: {one_line(e)}") from None
    raw = read_member(path, "policy.pth")
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        raise refusal(agent, path, f"its policy.pth holds more than weights: {one_line(e)}") from None
    except Exception as e:  # a torch file torch cannot read
        raise ValueError(f"{agent}: {path} has weights torch cannot read (policy.pth: {one_line(e)})") from None
    try:
        policy.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as e:
        raise refusal(agent, path, f"its weights do not fit the {cls.__name__} its data declares: "
                      f"{one_line(e)}") from None
    policy.set_training_mode(False)
    return policy


__all__ = ["INSTALL_HINT", "PickledModelError", "TRUST_SETTING", "action_space", "build_policy",
           "observation_space", "one_line", "policy_class", "policy_kwargs", "read_data", "refusal"]
