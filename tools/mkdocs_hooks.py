"""MkDocs hooks (``hooks:`` in mkdocs.yml): links from docs/ to the rest of the repository.

The pages in ``docs/`` link to files beside them, such as ``../results/ppo_2p_v2/learning_curve.png``
or ``../README.md``, so that they work when the folder is browsed on GitHub. The site holds only
``docs/``, and MkDocs' strict mode rejects such links; this hook rewrites each link that leaves
``docs/`` but stays inside the repository, before MkDocs checks it:

* an image (``![...](../results/.../curve.png)``) is copied into the site, under ``repo/<its path>``,
  and shown from there: the pages show their pictures with no network;
* a Markdown file (``../results/README.md``) is rendered into the site as a page of its own, under
  ``repo/<its path>`` (not in the navigation), its links into ``docs/`` pointed at the site's pages: the
  site holds what its pages link to, whether or not a repository address is known;
* any other link goes to the file on the repository's site, ``<repo_url>/blob/HEAD/<path>``
  (``tree`` for a folder), when a repository address is known: mkdocs.yml's ``repo_url``, else a
  ``github.com`` address in pyproject.toml's ``[project.urls]``;
* without one, any other file is copied into the site as an image is, and a folder becomes its path in
  code (``results/ppo_2p_v2/``), with the link's text kept and a warning (an error in strict mode): no
  link on the site degrades to code.

A link that leaves the repository, or names a file that does not exist, is left as it is, so MkDocs
still reports it. Links inside code spans and code blocks are not links and are never touched.
"""
from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as etree

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.structure.files import File, Files, InclusionLevel

#: where files from outside docs/ go in the site
MOUNT = "repo"
log = logging.getLogger("mkdocs.hooks.five_towers_repo_links")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)|\bsrc=[\"']([^\"']+)[\"']")
_state: dict[str, Any] = {"page": None, "copied": set(), "repo_url": "", "root": None, "docs": None}


def _repo_url(config: Any, root: Path) -> str:
    """mkdocs.yml's ``repo_url``, else the first github.com address in pyproject.toml's [project.urls]."""
    if config.repo_url:
        return str(config.repo_url).rstrip("/")
    try:
        import tomllib
    except ImportError:  # Python 3.10: no TOML reader in the standard library
        return ""
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return ""
    urls = tomllib.loads(pyproject.read_text()).get("project", {}).get("urls", {})
    return next((str(u).rstrip("/") for u in urls.values() if "github.com/" in str(u)), "")


def _outside(page_uri: str, url: str) -> str | None:
    """The repository path a page's relative ``url`` points to, if it leaves docs/ and stays in the
    repository and exists; else None."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^[/#\\]", url):
        return None
    path = url.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return None
    inside = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), path))
    if not inside.startswith("../"):
        return None
    target = (_state["docs"] / posixpath.dirname(page_uri) / path).resolve()
    root = _state["root"]
    if not target.is_relative_to(root) or not target.exists():
        return None
    return target.relative_to(root).as_posix()


def on_config(config: Any) -> Any:
    root = Path(config.config_file_path).resolve().parent
    _state.update(root=root, docs=Path(config.docs_dir).resolve(), repo_url=_repo_url(config, root), copied=set())
    config.markdown_extensions.append(_RepoLinks())
    return config


def _rendered_markdown(rel: str) -> str:
    """The text of the repository's Markdown file ``rel`` as a page at ``repo/<rel>``: its relative links
    into docs/ point at the site's pages."""
    root, docs = _state["root"], _state["docs"]
    folder = posixpath.dirname(rel)

    def point(match: re.Match) -> str:
        lead, url = match.group(1), match.group(2)
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^[/#\\]", url):
            return match.group(0)
        path, fragment = url.split("#", 1)[0], url[len(url.split("#", 1)[0]):]
        target = (root / folder / path).resolve()
        if not target.is_relative_to(docs):
            return match.group(0)
        inside = target.relative_to(docs).as_posix()
        return lead + posixpath.relpath(inside, f"{MOUNT}/{folder}".rstrip("/")) + fragment
    return re.sub(r"(\]\(\s*<?)([^)\s>]+)", point, (root / rel).read_text())


def on_files(files: Files, config: Any) -> Files:
    """Copy into the site every file outside docs/ that a page links to; a Markdown file becomes a page."""
    for page in list(files.documentation_pages()):
        for groups in _LINK.findall(page.content_string):
            url = groups[0] or groups[1]
            rel = _outside(page.src_uri, url)
            if rel is None or rel in _state["copied"] or not (_state["root"] / rel).is_file():
                continue
            _state["copied"].add(rel)
            if rel.endswith(".md"):
                files.append(File.generated(config, f"{MOUNT}/{rel}", content=_rendered_markdown(rel),
                                            inclusion=InclusionLevel.NOT_IN_NAV))
            else:
                files.append(File.generated(config, f"{MOUNT}/{rel}", abs_src_path=str(_state["root"] / rel)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    _state["page"] = page.file.src_uri
    return markdown


def _mounted(rel: str, url: str) -> str:
    """``url`` pointing at the copy of ``rel`` in the site, relative to the page being rendered."""
    fragment = url[len(url.split("#", 1)[0]):]
    start = posixpath.dirname(_state["page"]) or "."
    return posixpath.relpath(f"{MOUNT}/{rel}", start) + fragment


def _plain(element: etree.Element, rel: str) -> None:
    """Turn a link into its text and the repository path (with its ``#section``) in code, with a warning (an
    error in strict mode): a reader cannot follow it, so a page should link a file the site holds or the page
    that holds the same content."""
    log.warning("%s: the link to %s is shown as code: neither the site nor a repo_url holds it; link a "
                "file or a page instead", _state["page"], rel)
    text = "".join(element.itertext()).strip().strip("`")
    element.attrib.clear()
    if text in (rel, posixpath.basename(rel)):
        rel = rel.split("#", 1)[0]
        for child in list(element):
            element.remove(child)
        element.tag, element.text = "code", rel
        return
    element.tag = "span"
    children = list(element)
    if children:
        children[-1].tail = (children[-1].tail or "") + " ("
    else:
        element.text = (element.text or "") + " ("
    code = etree.SubElement(element, "code")
    code.text, code.tail = rel, ")"


class _RepoLinksProcessor(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        page = _state["page"]
        if page is None:
            return
        for element in root.iter():
            key = {"a": "href", "img": "src"}.get(element.tag)
            url = element.get(key) if key else None
            rel = _outside(page, url) if url else None
            if rel is None:
                continue
            fragment = url[len(url.split("#", 1)[0]):]
            if (element.tag == "img" or rel.endswith(".md")) and rel in _state["copied"]:
                element.set(key, _mounted(rel, url))
            elif _state["repo_url"]:
                kind = "tree" if (_state["root"] / rel).is_dir() else "blob"
                element.set(key, f"{_state['repo_url']}/{kind}/HEAD/{rel}{fragment}")
            elif rel in _state["copied"]:
                element.set(key, _mounted(rel, url))
            else:
                _plain(element, rel + fragment)


class _RepoLinks(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        # before MkDocs' own link check ("relpath", priority 0)
        md.treeprocessors.register(_RepoLinksProcessor(md), "five_towers_repo_links", 1)


__all__ = ["on_config", "on_files", "on_page_markdown"]
