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


def test_no_comment_line_splits_a_table():
    # a <!-- marker --> between a table's rows ends the table there: the rest renders as a paragraph of pipes
    for path in sorted((ROOT / "docs").rglob("*.md")):
        lines = path.read_text().splitlines()
        for i in range(1, len(lines) - 1):
            if lines[i].startswith("<!--") and lines[i - 1].startswith("|") and lines[i + 1].startswith("|"):
                raise AssertionError(f"{path.relative_to(ROOT)}:{i + 1}: a comment inside a table; put it above")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built as CI builds it (strict: a link the hook would show as code fails the build)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_built_pages_render_their_tables_and_images(site):
    import re

    problems = []
    for page in sorted(site.rglob("*.html")):
        html = page.read_text()
        name = page.relative_to(site).as_posix()
        for para in re.findall(r"<p>(.*?)</p>", html, flags=re.S):
            text = re.sub(r"<code>.*?</code>", "", para, flags=re.S)
            if any(re.match(r"\s*\|.*\|\s*$", line) for line in text.splitlines()):
                problems.append(f"{name}: a paragraph of raw table pipes: {para[:80]!r}")
        for head in re.findall(r"<thead>\s*<tr>(.*?)</tr>", html, flags=re.S):
            if not re.sub(r"<[^>]+>|\s", "", head):
                problems.append(f"{name}: a table with an empty header row")
        for src in re.findall(r"<img[^>]*\ssrc=\"([^\"]+)\"", html):
            if not re.match(r"^[a-z]+:|^data:", src) and not (page.parent / src.split("#")[0]).resolve().is_file():
                problems.append(f"{name}: image {src} is missing")
    assert not problems, "\n".join(problems)


def test_the_front_door_and_getting_started_are_on_the_site(site):
    import html
    import re

    def text(page):  # the page's text, the code's highlighting spans removed
        return html.unescape(re.sub(r"<[^>]+>", "", (site / page / "index.html").read_text()))

    home = (site / "index.html").read_text()
    assert 'href="getting_started/"' in home and 'href="cli/"' in home and home.count("<img") >= 3
    assert all(s in text(".") for s in ("torch==2.13.0", "configs/ppo_quick_2p.yaml", "python -m pytest -q"))
    start = text("getting_started")
    assert all(s in start for s in ("sb3:path=runs/my_model.zip", "py:path=my_agents.py:LastLegal", "class LastLegal"))
    assert "quickstart" in (site / "search" / "search_index.json").read_text()
