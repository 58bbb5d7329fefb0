"""Game-neutral code names no game, and registering or playing one game loads no other.

* Every module of the package outside ``games/<name>/`` is read with ``ast``: none imports a game's
  package (``import``, ``from ... import``, or a ``"five_towers_env.games.<name>..."`` module or entry-point
  string), and no string equal to a game's name appears outside docstrings (a comparison, a dict key, a
  default). The one exception is the table of the built-in games in ``core/builtin_games.py``
  (``BUILTIN_GAMES``, ``DEFAULT_GAME``): the package's own games must be found by name before any of them is
  imported.
* Nor does it name an agent a built-in game has as its own (``greedy``, ``heuristic``: every name in the
  built-in games' own tables that is not a game-neutral registry name) in a string outside docstrings, and no
  module outside ``agents/`` compares an agent's name to decide what to do (``==``, ``!=``, ``in``,
  ``not in`` against a registry name or a collection of them): what an agent is, its class says.
* No game's folder imports another game's package.
* What a game declares for game-neutral code (its other observations, its network layouts, the ids
  in the built-in table) fits it, and a setting its ``raw_env`` does not take is refused by the game.
* In a fresh interpreter per game: importing the frameworks registers every id and imports no game;
  the game's AEC env (through its PettingZoo id), its Gymnasium env and a game of its agents then load
  none of another game's modules.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.agents import registry as agent_registry
from five_towers_env.core.builtin_games import BUILTIN_GAMES
from five_towers_env.core.game import get_game

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "five_towers_env"
GAMES_DIR = PACKAGE / "games"
#: every game folder of the package (a package: has an __init__.py)
GAME_NAMES = sorted(p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file())
#: the only statements outside a game's folder allowed to name games: (file, assigned name)
ALLOWED = {("core/builtin_games.py", "BUILTIN_GAMES"), ("core/builtin_games.py", "DEFAULT_GAME")}
GAME_MODULE = re.compile(r"^five_towers_env\.games\.({})(\.|:|$)".format("|".join(map(re.escape, GAME_NAMES))))


def _neutral_files() -> list[Path]:
    """Every module of the package outside ``games/<name>/``."""
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if not (p.is_relative_to(GAMES_DIR) and len(p.relative_to(GAMES_DIR).parts) > 1))


def _docstrings(tree: ast.AST) -> set[int]:
    """``id`` of every docstring node (module, class, function) and every bare string statement."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def _allowed_nodes(tree: ast.Module, rel: str) -> set[int]:
    """``id`` of every node inside an allowed assignment of this file."""
    out: set[int] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and (rel, t.id) in ALLOWED for t in targets):
            out.update(id(n) for n in ast.walk(node))
    return out


def _problems(path: Path, rel: str | None = None) -> list[str]:
    """What in the module at ``path`` (``rel``: its path inside the package) names a game."""
    rel = path.relative_to(PACKAGE).as_posix() if rel is None else rel
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree) | _allowed_nodes(tree, rel)
    found = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [f"{where}: imports {a.name}" for a in node.names if GAME_MODULE.match(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [f"{where}: imports {n}" for n in names if GAME_MODULE.match(n)][:1]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if node.value in GAME_NAMES:
                found.append(f"{where}: names the game {node.value!r}")
            elif GAME_MODULE.match(node.value):
                found.append(f"{where}: names the game module {node.value!r}")
    return found


def test_the_scan_sees_every_game_and_would_catch_each_kind_of_naming(tmp_path):
    assert {"five_towers", "campanile"} <= set(GAME_NAMES)
    files = _neutral_files()
    assert PACKAGE / "core" / "builtin_games.py" in files and PACKAGE / "games" / "__init__.py" in files
    assert not any(p.is_relative_to(GAMES_DIR / "campanile") for p in files)
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent('''
        """Docstrings may say five_towers."""
        import five_towers_env.games.campanile.state
        from five_towers_env.games import five_towers
        from five_towers_env.games.five_towers.cards import TYPES
        KIND = {"campanile": 1}
        def f(spec, game="five_towers"):
            return spec.name == "campanile" or load("five_towers_env.games.campanile.aec:raw_env")
    '''))
    assert len(_problems(bad, "bad.py")) == 7, _problems(bad, "bad.py")
    assert _problems(bad, "core/builtin_games.py")  # the allowance is for two named tables, not the file


def test_game_neutral_code_names_no_game():
    problems = [p for path in _neutral_files() for p in _problems(path)]
    assert not problems, "game-neutral modules name a game:\n" + "\n".join(problems)


#: the names of the game-neutral agents (the agent registry's tables)
NEUTRAL_AGENTS = frozenset().union(*(getattr(agent_registry, table) for table in (
    "RANDOM_AGENT", "SEARCH_AGENT", "NETWORK_AGENTS", "OPENSPIEL_AGENTS", "POLICY_AND_USER_AGENTS")))
#: the names the built-in games give agents of their own, besides the game-neutral ones
GAME_AGENTS = frozenset(name for game in BUILTIN_GAMES for name in get_game(game).agents) - NEUTRAL_AGENTS
#: every name of the built-in games' agents
AGENT_NAMES = NEUTRAL_AGENTS | GAME_AGENTS
AGENTS_DIR = PACKAGE / "agents"


def _is_mode(node: ast.AST) -> bool:
    """A name or attribute ending in ``mode``: ``render_mode == "human"`` compares a render mode, not an agent."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.endswith("mode")


def _strings(node: ast.AST) -> set[str]:
    return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)} \
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else set()


def _module_collections(tree: ast.Module) -> dict[str, set[str]]:
    """The module's constant collections of strings by name (``NAMES = ("a", "b")``, also in
    ``frozenset(...)``, ``set(...)`` or ``tuple(...)``)."""
    out: dict[str, set[str]] = {}
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                value.func.id in ("frozenset", "set", "tuple") and len(value.args) == 1:
            value = value.args[0]
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if value is not None and _strings(value):
            out.update({t.id: _strings(value) for t in targets if isinstance(t, ast.Name)})
    return out


def _agent_names_compared(node: ast.Compare, collections: dict[str, set[str]]) -> set[str]:
    """The agent names ``node`` compares with ``==``, ``!=``, ``in`` or ``not in``: a string that is one, or a
    collection (written there or a module constant) whose strings all are."""
    if not all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops):
        return set()
    sides = [node.left, *node.comparators]
    if any(_is_mode(side) for side in sides):
        return set()
    found: set[str] = set()
    for side in sides:
        if isinstance(side, ast.Constant) and side.value in AGENT_NAMES:
            found.add(side.value)
        strings = collections.get(side.id, set()) if isinstance(side, ast.Name) else _strings(side)
        if strings and strings <= AGENT_NAMES:
            found |= strings
    return found


def _agent_problems(path: Path, rel: str | None = None) -> list[str]:
    """What in the module at ``path`` names a built-in game's own agent (outside ``games/<name>/``) or compares
    agent names (outside ``agents/``)."""
    rel = path.relative_to(PACKAGE).as_posix() if rel is None else rel
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree)
    in_a_game = rel.startswith("games/") and rel.count("/") > 1
    collections = _module_collections(tree)
    found = []
    for node in ast.walk(tree):
        where = f"{rel}:{getattr(node, 'lineno', '?')}"
        if not in_a_game and isinstance(node, ast.Constant) and node.value in GAME_AGENTS and id(node) not in skip:
            found.append(f"{where}: names the game's own agent {node.value!r}")
        if not rel.startswith("agents/") and isinstance(node, ast.Compare):
            names = _agent_names_compared(node, collections)
            if names:
                found.append(f"{where}: compares agent names {sorted(names)}: {ast.unparse(node)}")
    return found


def test_the_agent_scan_knows_the_names_and_catches_each_kind(tmp_path):
    assert {"greedy", "heuristic"} <= GAME_AGENTS and not GAME_AGENTS & {"random", "mcts", "ppo", "human"}
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent('''
        """Docstrings and prose may say greedy, and a greedy agent."""
        BASELINES = ("greedy", "heuristic")  # 1
        NOT_POOLED = frozenset({"human", "ppo"})
        MODES = ("human", "ansi")
        def f(name, spec, render_mode, init):
            a = name == "human"  # 2
            b = spec.name in ("net", "guided")  # 3
            c = name not in NOT_POOLED  # 4
            d = render_mode == "human" or render_mode in MODES or init == "zeros" or name in ("random", "zeros")
            return make(name or "heuristic")  # 5
    '''))
    assert len(_agent_problems(bad, "training/bad.py")) == 6, _agent_problems(bad, "training/bad.py")  # 2 on line 1
    assert len(_agent_problems(bad, "games/x/bad.py")) == 3  # a game names its own agents, but compares no names
    assert len(_agent_problems(bad, "agents/bad.py")) == 3  # the agent registry compares names, but names no game's


def test_game_neutral_code_names_no_games_agent_and_compares_no_agent_names():
    problems = [p for path in sorted(PACKAGE.rglob("*.py")) for p in _agent_problems(path)]
    assert not problems, "agents named or compared by name:\n" + "\n".join(problems)


#: the public entry points that may assume 5 Towers when no game is given ("path:function"); every function
#: below them takes a required game, so a caller that forgets it gets a TypeError, not 5 Towers
DEFAULT_GAME_ENTRY_POINTS = {
    "agents/registry.py:make_agent", "agents/registry.py:make_agent_from_text",  # agents by name
    "agents/human.py:__init__", "agents/policy.py:__init__", "agents/guided.py:__init__",  # agent classes
    "evaluation/match.py:evaluate", "evaluation/rate.py:rate", "evaluation/tournament.py:round_robin",
    "evaluation/specs.py:parse_agent_spec", "evaluation/specs.py:resolve_specs",  # evaluation's public API
    "play.py:play_game",
    "wrappers/single_agent.py:__init__", "wrappers/gym_vector.py:__init__", "core/vector_env.py:__init__",  # envs
    "integrations/rllib.py:selfplay_ppo_config", "integrations/rllib.py:evaluate_module",
    "training/ppo/networks.py:__init__",  # a typed SB3 policy saved before its game was recorded is 5 Towers'
}


def _default_game_functions(path: Path, rel: str) -> set[str]:
    """``rel:function`` for each function of ``path`` with a parameter defaulting to ``DEFAULT_GAME`` (or to None
    where the function reads None as the default game: it names ``DEFAULT_GAME`` in its body)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = node.args.posonlyargs + node.args.args
        pairs = list(zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults))
        pairs += [(p, d) for p, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        defaults = [d for _, d in pairs]
        game_none = any(p.arg == "game" and isinstance(d, ast.Constant) and d.value is None for p, d in pairs) and any(
            isinstance(n, ast.Name) and n.id == "DEFAULT_GAME" for n in ast.walk(node))
        if any(isinstance(d, ast.Name) and d.id == "DEFAULT_GAME" for d in defaults) or game_none:
            found.add(f"{rel}:{node.name}")
    return found


def test_only_public_entry_points_assume_a_game():
    found = set()
    for path in _neutral_files():
        found |= _default_game_functions(path, path.relative_to(PACKAGE).as_posix())
    below = found - DEFAULT_GAME_ENTRY_POINTS
    assert not below, f"below the entry points, assuming a game: {below}"
    assert DEFAULT_GAME_ENTRY_POINTS <= found, f"listed, assuming no game now: {DEFAULT_GAME_ENTRY_POINTS - found}"


def test_the_default_game_scan_catches_both_kinds(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(textwrap.dedent('''
        def a(game=DEFAULT_GAME): ...
        def b(*, game: str | None = None):
            return get_game(game or DEFAULT_GAME)
        def c(game): ...
        def d(name, game):
            return "" if game == DEFAULT_GAME else name
    '''))
    assert _default_game_functions(bad, "x.py") == {"x.py:a", "x.py:b"}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_no_game_imports_another(game):
    others = re.compile(r"^five_towers_env\.games\.({})(\.|$)".format("|".join(g for g in GAME_NAMES if g != game)))
    problems = []
    for path in sorted((GAMES_DIR / game).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            problems += [f"{path.relative_to(PACKAGE)}:{node.lineno}: imports {m}" for m in modules if others.match(m)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_what_a_game_declares_for_game_neutral_code_fits_it(game):
    """Its other observations (``SingleAgentGymEnv(observation=...)``) and network layouts (``typed``)."""
    pytest.importorskip("gymnasium")
    from five_towers_env.core.game import get_game
    from five_towers_env.wrappers import SingleAgentGymEnv

    spec = get_game(game)
    for name in spec.observations:
        env = SingleAgentGymEnv(game, observation=name)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
    for name in spec.architectures:
        layout = spec.architecture(name)
        inputs = np.concatenate([layout.type_index.ravel(), layout.global_index])
        assert sorted(inputs.tolist()) == list(range(spec.observation_size))  # every entry read once
        order = layout.action_order.tolist()
        assert len(order) == spec.num_actions and len(set(order)) == len(order) and max(order) < layout.output_size
    with pytest.raises(ValueError, match=f"{spec.title} has no observation 'nope'; its observations: 'flat'"):
        SingleAgentGymEnv(game, observation="nope")
    with pytest.raises(ValueError, match=f"{spec.title} has no nope network"):
        spec.architecture("nope")
    with pytest.raises(TypeError, match="no_such_setting"):
        SingleAgentGymEnv(game, no_such_setting=1)  # the game's raw_env refuses what it does not take


def test_a_builtin_game_must_publish_the_ids_its_table_declares(monkeypatch):
    from five_towers_env.core import game as registry

    spec = registry.get_game("campanile")
    monkeypatch.setattr(registry, "_REGISTRY", {})
    with pytest.raises(ValueError, match="as BUILTIN_GAMES declares them"):
        registry.register_game(dataclasses.replace(spec, gymnasium_id="five_towers_env/Other-v0"))
    assert registry.register_game(spec) is spec


def _run(code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("FIVE_TOWERS_GAMES", None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_one_game_registers_builds_and_plays_without_loading_another(game):
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    out = json.loads(_run(f"""
        import importlib, json, sys
        import five_towers_env
        import gymnasium, pettingzoo
        from five_towers_env.core.game import BUILTIN_GAMES

        def games_loaded():
            return sorted({{m.split(".")[2] for m in sys.modules if m.startswith("five_towers_env.games.")}})

        # PettingZoo before 1.27 has no registry (its ids are then not registered, and make() is absent)
        zoo_registry = getattr(pettingzoo, "aec_registry", None)
        registered = [(zoo_registry is None or b.pettingzoo_id in zoo_registry) and b.gymnasium_id in gymnasium.registry
                      for b in BUILTIN_GAMES.values()]
        before = games_loaded()
        g = importlib.import_module("five_towers_env.games.{game}")
        raw = g.raw_env(num_players=2)
        raw.reset(seed=1)
        raw.step(raw.legal_actions()[0])
        aec = (pettingzoo.make("aec", g.SPEC.pettingzoo_id, num_players=3) if zoo_registry is not None
               else g.env(num_players=3))
        aec.reset(seed=2)
        aec.step(int(aec.observe(aec.agent_selection)["action_mask"].argmax()))
        gym_env = gymnasium.make(g.SPEC.gymnasium_id)
        obs, info = gym_env.reset(seed=3)
        gym_env.step(int(info["action_mask"].argmax()))
        from five_towers_env.agents.registry import make_agent
        from five_towers_env.play import play_game
        agents = [make_agent("random", seed=0, game="{game}"), make_agent("heuristic", seed=1, game="{game}")]
        result = play_game(agents, seed=4, game="{game}")
        print(json.dumps({{"registered": registered, "before": before, "after": games_loaded(),
                          "moves": result["moves"]}}))
    """))
    assert out["registered"] == [True] * len(out["registered"])
    assert out["before"] == []  # registering every id imported no game
    assert out["after"] == [game] and out["moves"] > 0
