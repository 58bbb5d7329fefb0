"""The documentation site's command-line page (docs/cli.md) is what tools/cli_reference.py writes from the
``five-towers`` parser: a new option, command or help text fails here until the page is written again."""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from five_towers_env.cli.main import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "tools" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_page_is_the_parser_s(tool):
    path = ROOT / "docs" / "cli.md"
    assert path.is_file(), "docs/cli.md is missing: run python tools/cli_reference.py"
    assert path.read_text() == tool.page(), "docs/cli.md is stale: run python tools/cli_reference.py"


def test_page_covers_every_subcommand_and_option(tool):
    text = tool.page()
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert len(sub.choices) == len(COMMANDS)
    for name, subparser in sub.choices.items():
        section = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for action in subparser._actions:
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                for option in action.option_strings:
                    assert f"`{option}" in section, (name, option)


def test_check_finds_a_stale_page_and_writes_nothing(tool, tmp_path, monkeypatch, capsys):
    stale = tmp_path / "cli.md"
    stale.write_text(tool.page().replace("--games", "--rounds"))
    monkeypatch.setattr(tool, "OUT", stale)
    assert tool.main(["--check"]) == 1
    assert "cli.md" in capsys.readouterr().err
    assert "--rounds" in stale.read_text()
    assert tool.main([]) == 0 and tool.main(["--check"]) == 0
