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

Hyphenated words in inline code (``five-towers``) are kept on one line (``on_page_content``).

A Markdown file of the repository that the ``nav`` of mkdocs.yml names as ``repo/<its path>``
(``Changelog: repo/CHANGELOG.md``) is rendered the same way, and is in the navigation.

The 404 page: MkDocs gives it absolute links (``/api/``) made from ``site_url``, or from ``/`` without
one, which are wrong wherever the site is served below the server's root (``https://<owner>.github.io/
five_towers_env/``). Without ``site_url`` the hook makes its links relative and puts a small script first
in its head that finds the site's root (a folder of the address where the server has ``404.html``) and
sets it as the page's ``<base>``; the page's styles and scripts are written after it. The page's look,
navigation and search then work at any address of the site (checked in headless Chromium below
``/five_towers_env/`` and ``/org/projects/ft/``, at depths 1 to 3). Without JavaScript its links and
styles are right one level below the site's root.
"""
from __future__ import annotations

import json
import logging
import posixpath
import re
from html import unescape
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
_state: dict[str, Any] = {"page": None, "copied": set(), "repo_url": "", "root": None, "docs": None, "tops": []}


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


def _nav_uris(entry: Any) -> list[str]:
    """Every page ``nav`` names (``- Title: page.md``, nested sections), in order."""
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [uri for value in entry.values() for uri in _nav_uris(value)]
    if isinstance(entry, list):
        return [uri for item in entry for uri in _nav_uris(item)]
    return []


def on_files(files: Files, config: Any) -> Files:
    """Copy into the site every file outside docs/ that a page links to; a Markdown file becomes a page. The
    repository's Markdown files that ``nav`` names (``repo/CHANGELOG.md``) become pages in the navigation."""
    for uri in _nav_uris(config.nav or []):
        source = uri[len(MOUNT) + 1:] if uri.startswith(f"{MOUNT}/") else ""
        if source.endswith(".md") and source not in _state["copied"] and (_state["root"] / source).is_file():
            _state["copied"].add(source)
            files.append(File.generated(config, uri, content=_rendered_markdown(source),
                                        inclusion=InclusionLevel.INCLUDED))
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
    # the site's top folders, for the 404 page's script: the first folder of a page's address
    _state["tops"] = sorted({f.dest_uri.split("/", 1)[0] for f in files if "/" in f.dest_uri})
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


#: the longest hyphenated word of inline code kept on one line (a longer one may still break: a phone's line
#: is short)
WHOLE_WORD = 32
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)
_INLINE_CODE = re.compile(r"<code>([^<]*)</code>")


def _whole_words(match: re.Match) -> str:
    words = re.split(r"(\S*-\S*)", match.group(1))
    for i in range(1, len(words), 2):
        if len(unescape(words[i])) <= WHOLE_WORD:
            words[i] = f'<span class="whole">{words[i]}</span>'
    return f"<code>{''.join(words)}</code>"


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Hyphenated words in inline code (``five-towers``, ``--agents``) on one line: a browser breaks a line
    after a hyphen, which splits a command or an option in two. Each becomes a ``<span class="whole">``
    inside its ``<code>`` (docs/stylesheets/extra.css keeps it whole); code blocks are left as they are."""
    parts = _PRE.split(html)
    for i in range(0, len(parts), 2):  # the parts between code blocks
        parts[i] = _INLINE_CODE.sub(lambda m: _whole_words(m) if "-" in m.group(1) else m.group(0), parts[i])
    return "".join(parts)


#: first in the 404 page's head: find the site's root and make it the page's base, so that the page's relative
#: links (its styles, scripts and navigation) work at any address. The root is a folder of the address where
#: the server has 404.html (a HEAD request each, asked synchronously, before anything loads), tried in this
#: order: the folder before the first of the site's top folders in the address (``/five_towers_env/`` in
#: ``/five_towers_env/games/typo/``), the first folder (a GitHub project site's), then every folder from the
#: deepest up. None found, or a file: address: no base, and the links are relative to the address.
_ROOT_SCRIPT = """<script>(function () {
  var tops = %s, path = location.pathname, segs = path.split("/").slice(1),
      dirs = path.replace(/\\/+$/, "").split("/").slice(1, -1), order = [], k, root = null;
  function at(k) { return "/" + dirs.slice(0, k).map(function (s) { return s + "/"; }).join(""); }
  for (k = 0; k <= dirs.length; k++) if (tops.indexOf(segs[k]) >= 0) { order.push(k); break; }
  if (dirs.length && order.indexOf(1) < 0) order.push(1);
  for (k = dirs.length; k >= 0; k--) if (order.indexOf(k) < 0) order.push(k);
  for (k = 0; k < order.length && !root && location.protocol !== "file:"; k++) {
    try {
      var r = new XMLHttpRequest();
      r.open("HEAD", at(order[k]) + "404.html", false);
      r.send();
      if (r.status === 200) root = at(order[k]);
    } catch (e) {}
  }
  if (root) { var b = document.createElement("base"); b.href = root; document.head.appendChild(b); }
})();</script>
"""
#: after the theme's configuration (``<script id="__config">``): its base and search worker, relative to the
#: page's base, made absolute, as the theme's scripts resolve them against the address
_CONFIG_SCRIPT = ("<script>(function (c) { var j = JSON.parse(c.textContent); "
                  "j.base = new URL(\".\", document.baseURI).href; "
                  "j.search = new URL(j.search, document.baseURI).href; "
                  "c.textContent = JSON.stringify(j); })(document.getElementById(\"__config\"));</script>")


def on_post_template(output: str, template_name: str, config: Any) -> str:
    """The 404 page without ``site_url``: relative links, and the script that finds the site's root."""
    if template_name != "404.html" or config.site_url:
        return output
    output = re.sub(r"""(\b(?:href|src)=["'])/(?!/)""", r"\1", output)
    output = output.replace('"base": "/"', '"base": "."').replace('"search": "/', '"search": "')
    output = output.replace('new URL("/",location)', 'new URL(".",document.baseURI)')  # the theme's storage scope
    head = output.find("<link")
    config_end = output.find("</script>", output.find('id="__config"'))
    if head < 0 or config_end < 0 or 'id="__config"' not in output:
        log.warning("404.html: the theme's markup changed: its links stay absolute (set site_url)")
        return output
    config_end += len("</script>")
    output = output[:config_end] + _CONFIG_SCRIPT + output[config_end:]
    output = output[:head] + _ROOT_SCRIPT % json.dumps(_state["tops"]) + output[head:]
    # the styles and scripts written by a script, after the base is set: the browser's look-ahead would
    # fetch them from the address's folder before the base is known
    return re.sub(r'<link rel="stylesheet" href="[^"]+">|<script src="[^"]+"></script>',
                  lambda m: _written(m.group(0)), output)


def _written(tag: str) -> str:
    """``tag`` written by a script (``<script>document.write("...")</script>``); a stylesheet also as it is for
    a browser without JavaScript (``<noscript>``)."""
    written = "<script>document.write(" + json.dumps(tag).replace("</", "<\\/") + ")</script>"
    return written + (f"<noscript>{tag}</noscript>" if tag.startswith("<link") else "")


class _RepoLinksProcessor(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        page = _state["page"]
        if page is None:
            return
        for element in root.iter():
            key = {"a": "href", "img": "src"}.get(element.tag)
            url = element.get(key) if key else None
            rel = _outside(page, url) if url else None
            if key is None or url is None or rel is None:
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


__all__ = ["on_config", "on_files", "on_page_content", "on_page_markdown", "on_post_template"]
