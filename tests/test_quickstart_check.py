"""The quick-start check CI runs (.ci/quickstart.py): it finds the README's command and table, and a
figure that differs from the README fails it. The real run happens in CI (about 6.5 minutes)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
COMMITTED = ROOT / "results" / "ppo_quick_2p"


def _check():
    spec = importlib.util.spec_from_file_location("quickstart", ROOT / ".ci" / "quickstart.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_quick_start_check():
    assert "python .ci/quickstart.py" in (ROOT / ".ci" / "run").read_text()


def test_the_readme_command_is_the_main_job():
    command = _check().fenced_block(README, "command: main-job")
    assert command.endswith("five-towers train --config configs/ppo_quick_2p.yaml") and "\n" not in command


def test_the_committed_run_printed_the_readme_table(capsys):
    check = _check()
    assert check.main(["--output", str(COMMITTED / "stdout.txt")]) == 0
    printed = check.printed_table((COMMITTED / "stdout.txt").read_text())
    assert printed.count("\n") == 4 and printed in (COMMITTED / "final_eval.md").read_text()


def test_one_changed_figure_fails_the_check(tmp_path, capsys):
    check = _check()
    stdout = (COMMITTED / "stdout.txt").read_text()
    table = check.printed_table(stdout)
    last = table.splitlines()[-1]
    changed = last[:-1] + ("0" if last[-1] != "0" else "1")
    (tmp_path / "out.txt").write_text(stdout.replace(last, changed))
    assert check.main(["--output", str(tmp_path / "out.txt")]) == 1
    assert changed in capsys.readouterr().err
    (tmp_path / "none.txt").write_text("no table here\n")
    assert check.main(["--output", str(tmp_path / "none.txt")]) == 2


def test_a_committed_config_is_the_config_a_fresh_run_writes():
    yaml = pytest.importorskip("yaml")
    from five_towers_env.core.game import get_game
    from five_towers_env.training.ppo.config import config_to_dict, load_config

    committed = yaml.safe_load((COMMITTED / "config.yaml").read_text())
    overrides = {"out_dir": committed["out_dir"]}
    if get_game(committed["game"]).backend() != "native":  # vector_env: auto takes the Python games here
        overrides["vector_env"] = committed["vector_env"]
    fresh = config_to_dict(load_config(ROOT / "configs" / "ppo_quick_2p.yaml", overrides))
    assert committed == fresh  # a run that predates the current config keys would differ
