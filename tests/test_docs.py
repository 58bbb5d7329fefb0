"""The docs state what is true: their tables are the code's layout, and the README's commands are CI's."""
from pathlib import Path

from five_towers_env.engine import actions as A
from five_towers_env.environment.observation import layout_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
ENV_DOC = (ROOT / "docs" / "environment.md").read_text()


def test_layout_table_matches_code():
    start = ENV_DOC.index("<!-- layout-table:start -->") + len("<!-- layout-table:start -->")
    end = ENV_DOC.index("<!-- layout-table:end -->")
    assert ENV_DOC[start:end].strip() == layout_table().strip(), \
        "docs/environment.md observation table is stale: regenerate it from layout_table()"


def test_action_table_offsets():
    for first, size, name in A.BLOCKS:
        row = f"| {first}-{first + size - 1} |" if size > 1 else f"| {first} |"
        assert row in ENV_DOC, f"docs/environment.md action table lacks the row for block {name!r} ({row})"
    assert f"Discrete({A.NUM_ACTIONS})" in ENV_DOC


def test_ci_runs_the_readme_test_command():
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    command = ('python -m pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu'
               ' && python -m pip install -q -e ".[dev]" && python -m pytest -q')
    assert command in README and command in ci


def test_dict_table_matches_code():
    from five_towers_env.wrappers.dict_obs import dict_layout_table

    start = ENV_DOC.index("<!-- dict-table:start -->") + len("<!-- dict-table:start -->")
    end = ENV_DOC.index("<!-- dict-table:end -->")
    assert ENV_DOC[start:end].strip() == dict_layout_table().strip(), "docs/environment.md dict table is stale"
