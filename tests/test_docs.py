"""The README states what is true: its observation table is the code's layout."""
from pathlib import Path

from five_towers_env.engine import actions as A
from five_towers_env.environment.observation import layout_table

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_readme_layout_table_matches_code():
    start = README.index("<!-- layout-table:start -->") + len("<!-- layout-table:start -->")
    end = README.index("<!-- layout-table:end -->")
    assert README[start:end].strip() == layout_table().strip(), \
        "README observation table is stale: regenerate it from layout_table()"


def test_readme_action_table_offsets():
    for first, size, name in A.BLOCKS:
        row = f"| {first}-{first + size - 1} |" if size > 1 else f"| {first} |"
        assert row in README, f"README action table lacks the row for block {name!r} ({row})"
    assert f"Discrete({A.NUM_ACTIONS})" in README


def test_ci_runs_the_readme_test_command():
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    command = 'python -m pip install -q -e ".[dev]" && python -m pytest -q'
    assert command in README and command in ci


def test_readme_dict_table_matches_code():
    from five_towers_env.wrappers.dict_obs import dict_layout_table

    start = README.index("<!-- dict-table:start -->") + len("<!-- dict-table:start -->")
    end = README.index("<!-- dict-table:end -->")
    assert README[start:end].strip() == dict_layout_table().strip(), "README dict table is stale"
