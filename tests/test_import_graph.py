"""The package's own import graph has no circle: every module imports only modules below it, so each
layer can be read, tested and replaced without the ones above it. Imports inside functions count as well
(a lazy import that climbs back up is still a circle); imports only for type checking do not. A package's
``__init__``, which runs before any module in it, is not counted as imported by its modules unless they
import a name it defines."""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "five_towers_env"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported(path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports (``from a.b import c`` counts ``a.b.c`` when that is a module)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                submodules = {f"{base}.{a.name}" for a in child.names} & modules
                found.update(submodules)  # ``from package import module`` imports the module
                if len(submodules) < len(child.names):
                    found.add(base)  # and a name defined in ``base`` itself imports ``base``
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    paths = [p for p in PACKAGE.rglob("*.py") if "native" not in p.relative_to(PACKAGE).parts[:-1]
             or p.parent.name == "native"]
    modules = {module_name(p) for p in paths}
    return {module_name(p): imported(p, modules) for p in paths}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:  # recursive: the package's graph is a few hundred modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_package_has_no_import_circle():
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


#: the package's lowest layer, which imports nothing of the package above it and names no module above it in a
#: ``"module:attribute"`` string (what a game or an agent table would load): it can be read and tested alone
CORE = "five_towers_env.core"


TARGET = re.compile(r"^five_towers_env(\.\w+)+:\w+(\.\w+)*$")  # "module:attribute"


def _in_core(module: str) -> bool:
    return module == CORE or module.startswith(CORE + ".")


def test_the_core_imports_and_names_nothing_above_it():
    graph = import_graph()
    upward = [f"{m} imports {d}" for m in sorted(graph) if _in_core(m) for d in sorted(graph[m]) if not _in_core(d)]
    assert not upward, "the core imports modules above it:\n" + "\n".join(upward)
    named = []
    for path in sorted((PACKAGE / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.match(node.value):
                module = node.value.partition(":")[0]
                if module in graph and not _in_core(module):
                    named.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert not named, "the core names modules above it:\n" + "\n".join(named)


#: the layers of ``five_towers_env.evaluation``, bottom to top: a module imports modules of its own layer or
#: below, never above (lazily inside a function neither)
EVALUATION_LAYERS = [
    # what everything stands on: statistics, writing files, game outcomes, agent specs, the agent guard, the
    # journal's schema
    ["stats", "report", "outcomes", "specs", "guard", "journal_check"],
    # jobs and seeds, and playing a job
    ["jobs", "playing"],
    # the backends: the local process pool and Ray
    ["process_pool", "distributed"],
    # the runner and the journal; the summaries and ratings made of their records
    ["journal", "runner", "summary", "ratings"],
    # the products
    ["match", "tournament", "ladder", "rate", "zoo"],
]


def test_evaluation_is_layered():
    graph = import_graph()
    package = "five_towers_env.evaluation"
    layer_of = {f"{package}.{m}": i for i, layer in enumerate(EVALUATION_LAYERS) for m in layer}
    modules = {m for m in graph if m.startswith(f"{package}.")}
    assert modules == set(layer_of), (f"evaluation modules in no layer: {sorted(modules - set(layer_of))}; "
                                      f"layers naming no module: {sorted(set(layer_of) - modules)}")
    upward = [f"{m} (layer {layer_of[m] + 1}) imports {d} (layer {layer_of[d] + 1})"
              for m in sorted(modules) for d in sorted(graph[m]) if d in layer_of and layer_of[d] > layer_of[m]]
    assert not upward, "a lower layer imports a higher one:\n" + "\n".join(upward)
    # the package loads its modules on first use (its module __getattr__), importing none of them itself
    assert not {d for d in graph[package] if d.startswith(f"{package}.")}
