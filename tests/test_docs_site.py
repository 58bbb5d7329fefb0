"""The documentation site (mkdocs.yml) covers every page under docs/; its build runs in CI (.ci/run)."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _nav_pages(entry) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [page for value in entry.values() for page in _nav_pages(value)]
    return [page for item in entry for page in _nav_pages(item)]


def test_site_nav_lists_every_docs_page():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = _nav_pages(config["nav"])
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert sorted(set(listed)) == sorted(listed), "mkdocs.yml's nav lists a page twice"
    assert not set(listed) - set(pages), f"mkdocs.yml's nav lists missing pages: {sorted(set(listed) - set(pages))}"
    assert not set(pages) - set(listed), f"add these pages to mkdocs.yml's nav: {sorted(set(pages) - set(listed))}"
