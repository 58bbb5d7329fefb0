"""A Griffe extension for the API reference (mkdocs.yml): the docstrings' Sphinx roles as links.

The package's docstrings are Google style (``Args:``, ``Attributes:``) with reST-ish inline markup:
````name```` literals, which Markdown reads as code already, and Sphinx roles such as
``:class:`~five_towers_env.core.game.GameSpec``` or ``:meth:`winners```, which it would print as they
are. This extension rewrites each role, once the package is loaded, as an *optional* cross-reference
(mkdocs-autorefs' ``<autoref ... optional>``) around the name in code: a link where the object is on
a page of the site, plain code where it is not (no warning either way). A name is looked up from the
docstring's object outwards (its members, its class's, its module's), then as a full dotted path;
``~`` shows only the last part of the name, as in Sphinx.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|mod|func|meth|attr|data|exc|obj|const):`(~?)([^`<>]+)`")


def _identifier(obj: Any, name: str) -> str:
    """The full path ``name`` means in ``obj``'s docstring (itself if it cannot be found)."""
    name = name.strip().lstrip(".")
    first = name.split(".", 1)[0]
    scope = obj
    while scope is not None:
        member = getattr(scope, "members", {}).get(first)
        if member is not None:  # an imported name: the object it stands for
            found = member.target_path if member.is_alias else member.path
            return found + name[len(first):]
        if getattr(scope, "name", None) == first and "." in name:
            return f"{scope.path}.{name.split('.', 1)[1]}"
        scope = scope.parent
    return name


def _rewrite(obj: Any, text: str) -> str:
    def link(match: re.Match[str]) -> str:
        target = match.group(2).strip()
        shown = target.rsplit(".", 1)[-1] if match.group(1) else target.lstrip(".")
        return f'<autoref identifier="{_identifier(obj, target)}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring in the loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        todo: list[Any] = [pkg]
        while todo:
            obj = todo.pop()
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = _rewrite(obj, obj.docstring.value)
            todo.extend(member for member in obj.members.values() if not member.is_alias)
