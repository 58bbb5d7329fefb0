"""Every snippet marked ``<!-- snippet: NAME -->`` in the README and the docs pages below runs as written,
each in a fresh process; one whose last line is a ``# prints: TEXT`` comment must print TEXT.

A fresh process checks what a user's script sees: ids registered only by the imports the snippet
itself makes. Snippets needing an optional framework are skipped when it is not installed.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *(ROOT / "docs" / f"{page}.md" for page in ("integrations", "environment", "campanile",
                                                                       "openspiel", "getting_started"))]
PATTERN = r"<!-- snippet: (\w+)(?: after: (\w+))? -->\n```python\n(.*?)```"
SNIPPETS = {name: code for doc in DOCS for name, _, code in re.findall(PATTERN, doc.read_text(), flags=re.S)}
#: a snippet that uses what another one wrote (``<!-- snippet: B after: A -->``) runs after it, in its folder
AFTER = {name: first for doc in DOCS for name, first, _ in re.findall(PATTERN, doc.read_text(), flags=re.S) if first}
README_SNIPPETS = set(re.findall(r"<!-- snippet: (\w+)", DOCS[0].read_text()))
NEEDS = {"sb3": "sb3_contrib", "own_sb3": "sb3_contrib", "start_sb3": "sb3_contrib",
         "start_sb3_evaluate": "sb3_contrib", "tianshou": "tianshou", "rllib": "ray", "openspiel": "pyspiel"}


def test_readme_has_the_snippets():
    assert README_SNIPPETS >= {"pettingzoo", "sb3", "own_sb3", "own_agent"}, sorted(README_SNIPPETS)
    in_docs = {"engine", "campanile", "openspiel", "tianshou", "rllib", "start_loop", "start_sb3", "start_sb3_evaluate",
               "start_agent", "start_reinforce"}
    assert set(SNIPPETS) >= README_SNIPPETS | in_docs, sorted(SNIPPETS)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_runs(name, tmp_path):
    module = NEEDS.get(name)
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"the {name} snippet needs {module}, which is not installed")
    (tmp_path / "runs").mkdir()
    for step in ([AFTER[name]] if name in AFTER else []) + [name]:
        script = tmp_path / f"snippet_{step}.py"  # not {name}.py: it would shadow the framework
        script.write_text(SNIPPETS[step])
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, f"README snippet {step!r} failed:\n{done.stderr[-3000:]}"
    promised = re.search(r"# prints: (.*)\n*$", SNIPPETS[name].rstrip("\n").splitlines()[-1] + "\n")
    if promised:
        assert done.stdout.strip() == promised.group(1).strip(), f"snippet {name!r} printed {done.stdout!r}"
