"""SPEC §9: every rules case in ../shared/rules-cases, tests/rules_cases and $FIVE_TOWERS_CASES."""
from __future__ import annotations

import pytest

from rules_case_runner import case_files, run_case

CASES = case_files()


def _case_id(path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.mark.parametrize("path", CASES, ids=[_case_id(p) for p in CASES])
def test_rules_case(path):
    run_case(path)


def test_shared_cases_are_found():
    assert any(p.parent.name == "rules-cases" for p in CASES), "../shared/rules-cases was not found"
