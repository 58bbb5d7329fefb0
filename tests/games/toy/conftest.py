"""The toy game is imported here as any game kept outside the package is: its folder (this one) on
``sys.path``, then ``import goofspiel``, which registers it. The registration is taken back at once
and made again for each test that asks for it (:func:`registered`): the other test files expect the
built-in games alone."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from five_towers_env.core import game as registry
from five_towers_env.core.game import GameSpec, register_game

sys.path.insert(0, str(Path(__file__).resolve().parent))
import goofspiel  # registers the game ...

registry._REGISTRY.pop(goofspiel.SPEC.name, None)  # ... for the tests that ask for it only


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> GameSpec:
    """The toy registered for this test (in a copy of the registry, put back after it)."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    return register_game(goofspiel.SPEC)
