"""The documentation site's game pages (docs/games/<name>.md) are what tools/game_pages.py writes from the code."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from five_towers_env.agents.registry import agents_of
from five_towers_env.core.game import BUILTIN_GAMES, get_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("game_pages", ROOT / "tools" / "game_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pages(tool):
    # a page lists every agent with its class's docstring: the OpenSpiel bots' need the openspiel extra
    pytest.importorskip("pyspiel", reason="the game pages describe the OpenSpiel bots: needs the openspiel extra")
    return tool.pages()


def test_committed_pages_are_the_code_s(pages):
    assert {p.name for p in pages} == {f"{name}.md" for name in BUILTIN_GAMES}
    for path, text in pages.items():
        assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run python tools/game_pages.py"
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run python tools/game_pages.py"


def test_check_finds_a_stale_page_and_writes_nothing(tool, pages, tmp_path, monkeypatch, capsys):
    for path, text in pages.items():
        (tmp_path / path.name).write_text(text)
    stale = tmp_path / "campanile.md"
    stale.write_text(stale.read_text().replace("Discrete(31)", "Discrete(32)"))
    monkeypatch.setattr(tool, "OUT", tmp_path)
    assert tool.main(["--check"]) == 1
    assert "campanile.md" in capsys.readouterr().err
    assert "Discrete(32)" in stale.read_text()
    assert tool.main([]) == 0 and tool.main(["--check"]) == 0


@pytest.mark.parametrize("name", list(BUILTIN_GAMES))
def test_page_covers_the_game(pages, name):
    spec = get_game(name)
    text = pages[ROOT / "docs" / "games" / f"{name}.md"]
    for section in ("## Arguments", "## Actions", "## Observation", "## Rewards", "## Built-in agents", "## Rules",
                    "## Version history"):
        assert section in text
    assert f"`Discrete({spec.num_actions})`" in text and f"**{spec.observation_size}**" in text
    assert spec.pettingzoo_id in text and "the first version" in text
    # how a game plays, in a paragraph under the picture and above the facts table
    assert text.find("![") < text.index("**How a game plays.**") < text.index("| fact | value |")
    for agent in agents_of(spec):
        assert f"| `{agent}` |" in text
    # the action table's rows cover every id once, in order
    ids = []
    actions = text[text.index("## Actions"):text.index("## Observation")]
    for first, last in re.findall(r"^\| (\d+)(?:-(\d+))? \| \d+ \|", actions, flags=re.M):
        ids += list(range(int(first), int(last or first) + 1))
    assert ids == list(range(spec.num_actions))
    for link in re.findall(r"\]\((\.\./[^)#]+)", text):  # the rules pages, relative to docs/games/
        assert (ROOT / "docs" / "games" / link).resolve().is_file(), link


@pytest.mark.parametrize("name", list(BUILTIN_GAMES))
def test_page_example_runs(pages, name):
    text = pages[ROOT / "docs" / "games" / f"{name}.md"]
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, f"docs/games/{name}.md", "exec"), namespace)
    env = namespace["env"]
    assert not env.agents  # played to the end


def test_committed_pictures_are_the_renderer_s(tool):
    # each page's picture is drawn by the game's own SVG renderer from a seeded position, the same on both engines
    drawn = tool.pictures()
    assert {p.name for p in drawn} == {f"{name}.svg" for name in BUILTIN_GAMES}
    for path, text in drawn.items():
        assert path.is_file(), f"{path.relative_to(ROOT)} is missing: run python tools/game_pages.py"
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run python tools/game_pages.py"
        page = (ROOT / "docs" / "games" / f"{path.stem}.md").read_text()
        assert f"](img/{path.name})" in page.split("| fact | value |")[0]  # at the top, above the facts
