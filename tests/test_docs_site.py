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


#: the environment variables mkdocs.yml reads the site's and the repository's addresses from
ADDRESS_VARIABLES = ("FIVE_TOWERS_SITE_URL", "FIVE_TOWERS_REPO_URL")


def _mkdocs_yml() -> dict:
    """mkdocs.yml as data; its ``!ENV [VARIABLE, default]`` values read as None."""
    yaml = pytest.importorskip("yaml")

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", lambda loader, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)


def test_site_nav_lists_every_docs_page():
    config = _mkdocs_yml()
    assert config["docs_dir"] == "docs" and config["strict"] is True
    listed = _nav_pages(config["nav"])
    # the repository's Markdown files the hook renders into the site as pages (tools/mkdocs_hooks.py)
    mounted = [page for page in listed if page.startswith("repo/")]
    assert "repo/CHANGELOG.md" in mounted, "the changelog belongs in the site's navigation"
    for page in mounted:
        assert (ROOT / page.removeprefix("repo/")).is_file(), f"mkdocs.yml's nav names {page}: no such file"
    listed = [page for page in listed if page not in mounted]
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


def test_site_and_repository_addresses_come_from_the_environment(monkeypatch):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    from mkdocs.config import load_config

    for variable in ADDRESS_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert not config.site_url and not config.repo_url  # none yet: nothing on the site may need them
    monkeypatch.setenv("FIVE_TOWERS_SITE_URL", "https://example.org/five_towers_env/")
    monkeypatch.setenv("FIVE_TOWERS_REPO_URL", "https://github.com/example/five_towers_env")
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert config.site_url == "https://example.org/five_towers_env/"
    assert config.repo_url == "https://github.com/example/five_towers_env"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built as CI builds it (strict: a link the hook would show as code fails the build), without a
    site or repository address."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    import os
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("site")
    env = {key: value for key, value in os.environ.items() if key not in ADDRESS_VARIABLES}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)
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
    assert '<code><span class="whole">five-towers</span></code>' in home  # not split at its hyphen
    assert 'href="getting_started/"' in home and 'href="cli/"' in home and home.count("<img") >= 3
    assert all(s in text(".") for s in ("torch==2.13.0", "configs/ppo_quick_2p.yaml", "python -m pytest -q"))
    start = text("getting_started")
    assert all(s in start for s in ("sb3:path=runs/my_model.zip", "py:path=my_agents.py:LastLegal", "class LastLegal"))
    assert "quickstart" in (site / "search" / "search_index.json").read_text()


def _site_folder(markdown: str) -> str:
    """The folder of the site a repository Markdown file becomes: docs/x.md -> x/, other.md -> repo/other/."""
    rel = markdown.removeprefix("docs/") if markdown.startswith("docs/") else f"repo/{markdown}"
    rel = rel.removesuffix(".md").removesuffix("index").rstrip("/")
    return f"{rel}/" if rel else ""


def test_no_link_is_left_as_code(site):
    """A code span that names a Markdown file of the repository (``results/README.md``, ``README.md#install``)
    where a reader would follow a link: on a page written in docs/, with no link to that file's page beside it
    (in the same paragraph, item or cell). Docstrings (api/) and files rendered from the repository (repo/)
    are not written for the site, and a bare name (``table.md``, a file a command writes) is no link."""
    import html
    import posixpath
    import re

    problems = []
    for page in sorted(site.rglob("index.html")):
        name = page.relative_to(site).as_posix()
        if name.startswith(("api/", "repo/")):
            continue
        folder = posixpath.dirname(name)
        text = re.sub(r"<pre.*?</pre>", "", page.read_text(), flags=re.S)
        for block in re.findall(r"<(?:p|li|td)>(.*?)</(?:p|li|td)>", text, flags=re.S):
            targets = (posixpath.normpath(posixpath.join(folder, href.split("#")[0]))
                       for href in re.findall(r'<a [^>]*href="([^"]*)"', block) if ":" not in href)
            linked = {"" if target == "." else f"{target}/" for target in targets}
            for code in re.findall(r"<code>(.*?)</code>", re.sub(r"<a\b.*?</a>", "", block, flags=re.S), flags=re.S):
                shown = html.unescape(re.sub(r"<[^>]+>", "", code)).strip()
                path = shown.split("#")[0]
                if not path.endswith(".md") or ("/" not in path and "#" not in shown
                                                and path not in ("README.md", "CHANGELOG.md")):
                    continue
                if (ROOT / path).is_file() and _site_folder(path) not in linked:
                    problems.append(f"{name}: `{shown}` is shown as code: link the page it becomes")
    assert not problems, "\n".join(problems)


def test_nothing_on_the_site_needs_its_address(site):
    """Built without site_url: no page links by absolute path (``/api/``), which would be wrong wherever the site
    is served below a server's root; the 404 page, which MkDocs gives such links, finds the site's root with a
    script first in its head (tools/mkdocs_hooks.py), and writes its styles and scripts only after it."""
    import re

    problems = []
    for page in sorted(site.rglob("*.html")):
        name = page.relative_to(site).as_posix()
        for url in re.findall(r"""\b(?:href|src)=["'](/[^/"'][^"']*|/)["']""", page.read_text()):
            problems.append(f"{name}: an absolute link {url}")
    assert not problems, "\n".join(problems[:20])
    missing = (site / "404.html").read_text()
    head = missing[:missing.index("</head>")]
    assert 'document.createElement("base")' in head.split("<link", 1)[0], "the 404 page's root script comes first"
    scripted = re.sub(r"<noscript>.*?</noscript>", "", missing, flags=re.S)  # a browser without JavaScript's
    assert '<link rel="stylesheet"' not in scripted and '<script src="' not in scripted
    assert '"base": "."' in missing


def test_the_changelog_is_in_the_navigation(site):
    home = (site / "index.html").read_text()
    assert 'href="repo/CHANGELOG/" class="md-nav__link' in home
    changelog = (site / "repo" / "CHANGELOG" / "index.html").read_text()
    assert "<h1" in changelog and "Changelog" in changelog
