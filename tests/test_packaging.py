"""The package's import contract: a light engine, no name clashes, ids registered in any import order.

Each check runs in a fresh interpreter, since this test process has long since imported everything.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HEAVY = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("module", ["five_towers_env.games.five_towers", "five_towers_env.games.campanile",
                                    "five_towers_env", "five_towers_env.core.game"])
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
        from five_towers_env.games.five_towers import GameState
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
        import five_towers_env.games.five_towers.observation as O
        e = five_towers_env.games.five_towers.env(num_players=2)
        e.reset(seed=0)
        print(callable(five_towers_env.games.five_towers.env), O.OBS_SIZE, type(e.unwrapped).__name__)
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
               else five_towers_env.games.five_towers.env(num_players=3))  # PettingZoo < 1.27 has no registry
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
        before = "five_towers_env.games.campanile" in sys.modules
        env = five_towers_env.games.campanile.env(num_players=2)
        env.reset(seed=0)
        print(before, type(env.unwrapped).__name__, five_towers_env.games.five_towers.GameState.__name__)
        try:
            five_towers_env.no_such_thing
        except AttributeError as e:
            print(e)
    """)
    assert out == ("False raw_env GameState\n"
                   "module 'five_towers_env' has no attribute 'no_such_thing'")


@pytest.mark.parametrize("game, other", [("five_towers", "campanile"), ("campanile", "five_towers")])
def test_importing_one_game_never_imports_the_other(game, other):
    loaded = _run(f"""
        import sys
        import five_towers_env.games.{game} as g
        state_type = g.GameState if hasattr(g, "GameState") else g.CampanileState
        print(any(m.startswith("five_towers_env.games.{other}") for m in sys.modules), state_type.__name__)
    """)
    assert loaded.split()[0] == "False", loaded


def test_the_package_installs_no_import_finder_but_the_frameworks_registration():
    """No module of the package answers to another name: the only finder ``import five_towers_env`` puts on
    ``sys.meta_path`` is the one registering the ids with PettingZoo and Gymnasium."""
    out = _run("""
        import importlib, sys
        before = list(sys.meta_path)
        import five_towers_env
        added = sorted({type(f).__module__ for f in sys.meta_path if f not in before})
        print(added)
        for name in ("five_towers_env.engine", "five_towers_env.environment", "five_towers_env.campanile",
                     "five_towers_env.gameui", "five_towers_env.agents.heuristic", "five_towers_env.agents.base"):
            try:
                importlib.import_module(name)
                print("found", name)
            except ModuleNotFoundError:
                pass
        print(hasattr(five_towers_env, "env"))
    """)
    assert out.splitlines() == ["['five_towers_env.registration']", "False"]


def test_package_data_covers_every_data_file():
    """An installed wheel carries each file the package reads (policies, the replay page): every
    non-Python file in the package matches a ``[tool.setuptools.package-data]`` pattern."""
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parents[1]
    patterns = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]
    shipped = {p for package, globs in patterns.items() for g in globs
               for p in (root / package.replace(".", "/")).glob(g)}
    # the compiled native cores (.so / .pyd) are build outputs: the wheel carries them as extension modules
    data = {p for p in (root / "five_towers_env").rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc", ".so", ".pyd") and "__pycache__" not in p.parts}
    assert data and data <= shipped, sorted(str(p.relative_to(root)) for p in data - shipped)


def test_modules_are_at_most_500_lines():
    """Every module of the package stays readable in one sitting: at most 500 lines."""
    package = Path(__file__).resolve().parents[1] / "five_towers_env"
    sizes = {str(p.relative_to(package)): len(p.read_text(encoding="utf-8").splitlines())
             for p in package.rglob("*.py")}
    assert not {name: n for name, n in sizes.items() if n > 500}
