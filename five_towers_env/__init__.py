"""five_towers_env: the card game 5 Towers (and its Great Powers expansion) for reinforcement learning.

``five_towers_env.env(num_players=2, variant="base")`` is a PettingZoo AEC environment;
``five_towers_env.engine`` is the pure rules engine underneath it. Importing the package loads
neither PettingZoo nor Gymnasium: ``env``/``raw_env`` load them on first use, and the ids
``five_towers_env/FiveTowers-v0`` are registered with each framework as soon as it is imported.
"""
from __future__ import annotations

import importlib
from typing import Any

from . import registration
from .engine import action_from_name, action_name

__version__ = "0.1.0"
ENV_ID = registration.PETTINGZOO_ID

registration.install()


def env(**kwargs: Any):
    """The PettingZoo AEC environment in PettingZoo's standard wrappers (see ``raw_env`` for arguments)."""
    from .environment.aec import env as make_env

    return make_env(**kwargs)


def raw_env(**kwargs: Any):
    """The unwrapped PettingZoo AEC environment (:class:`five_towers_env.environment.aec.raw_env`)."""
    from .environment.aec import raw_env as make_raw_env

    return make_raw_env(**kwargs)


#: subpackages reachable as attributes after ``import five_towers_env`` (imported on first use, so
#: the package stays light: ``five_towers_env.campanile.env(...)`` works without importing it first)
_LAZY_SUBPACKAGES = ("agents", "campanile", "engine", "environment", "evaluation", "integrations", "training",
                     "wrappers")


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["env", "raw_env", "action_name", "action_from_name", "ENV_ID", "__version__"]
