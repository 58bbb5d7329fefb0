"""The package's import contract: a light engine, no name clashes, ids registered in any import order.

Each check runs in a fresh interpreter, since this test process has long since imported everything.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

HEAVY = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("module", ["five_towers_env.engine", "five_towers_env"])
def test_engine_imports_without_frameworks(module):
    loaded = _run(f"""
        import sys, {module}
        print(",".join(m for m in {HEAVY!r} if m in sys.modules))
    """)
    assert loaded == "", f"import {module} loaded {loaded}"


def test_engine_plays_a_game_without_frameworks():
    out = _run(f"""
        import sys
        for name in {HEAVY!r}:
            sys.modules[name] = None      # any import of them now fails
        import numpy as np
        from five_towers_env.engine import GameState
        state = GameState.new_game(3, "great_powers", np.random.default_rng(1))
        rng = np.random.default_rng(2)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        print(len(state.scores()))
    """)
    assert out == "3"


def test_env_function_and_subpackage_do_not_clash():
    out = _run("""
        import five_towers_env
        import five_towers_env.environment.observation as O
        e = five_towers_env.env(num_players=2)
        e.reset(seed=0)
        print(callable(five_towers_env.env), O.OBS_SIZE, type(e.unwrapped).__name__)
    """)
    assert out == "True 2116 raw_env"


@pytest.mark.parametrize("order", ["package_first", "frameworks_first"])
def test_ids_registered_in_either_import_order(order):
    imports = ("import five_towers_env\nimport gymnasium, pettingzoo" if order == "package_first"
               else "import gymnasium, pettingzoo\nimport five_towers_env")
    out = _run(imports + """
        gym = gymnasium.make("five_towers_env/FiveTowers-v0", opponents=["random"])
        obs, info = gym.reset(seed=0)
        aec = (pettingzoo.make("aec", "five_towers_env/FiveTowers-v0", num_players=3) if hasattr(pettingzoo, "make")
               else five_towers_env.env(num_players=3))  # PettingZoo < 1.27 has no registry
        aec.reset(seed=0)
        print(obs.shape[0], len(aec.agents), aec.metadata["name"])
    """.replace("\n        ", "\n"))
    assert out == "2116 3 five_towers_v0"


def test_gymnasium_module_prefix_imports_the_package():
    out = _run("""
        import gymnasium
        env = gymnasium.make("five_towers_env:five_towers_env/FiveTowers-v0")
        print(env.reset(seed=0)[0].dtype)
    """)
    assert out == "float32"


def test_subpackages_are_attributes_of_the_package_loaded_on_first_use():
    out = _run("""
        import sys
        import five_towers_env
        before = "five_towers_env.campanile" in sys.modules
        env = five_towers_env.campanile.env(num_players=2)
        env.reset(seed=0)
        print(before, type(env.unwrapped).__name__, five_towers_env.engine.GameState.__name__)
        try:
            five_towers_env.no_such_thing
        except AttributeError as e:
            print(e)
    """)
    assert out == ("False raw_env GameState\n"
                   "module 'five_towers_env' has no attribute 'no_such_thing'")
