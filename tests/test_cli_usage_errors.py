"""The command line's answers to bad arguments and unwritable paths: exit 2, one line, no traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from five_towers_env.cli import main

UNWRITABLE = "/proc/five_towers_nope"  # /proc refuses new folders, even to root
needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")


def usage_error(capsys, *argv: str) -> str:
    """Run the CLI, check it is a one-line usage error (exit 2), return that line."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@needs_proc
@pytest.mark.parametrize("argv, words", [
    (["evaluate", "--agents", "random", "random", "--games", "2", "--out", UNWRITABLE],
     f"argument --out: must be a folder to write in (made if missing): {UNWRITABLE} cannot be written"),
    (["tournament", "--agents", "random", "greedy", "--games", "2", "--out", UNWRITABLE + "/t"],
     "argument --out"),
    (["play", "--record", UNWRITABLE + "/g.json"], "argument --record: must be a file to write"),
    (["replay", "any.json", "--html", UNWRITABLE + "/r.html"], "argument --html: must be a file to write"),
])
def test_unwritable_paths_are_usage_errors(capsys, argv, words):
    assert words in usage_error(capsys, *argv)


def test_tournament_of_one_agent_is_a_usage_error(capsys):
    err = usage_error(capsys, "tournament", "--agents", "heuristic")
    assert "a tournament needs at least two agents, got 1" in err


def test_usage_errors_are_one_line_with_a_pointer_to_help(capsys):
    err = usage_error(capsys, "evaluate", "--agents", "nobody")
    assert err.startswith("five-towers evaluate: error: argument --agents: nobody: unknown agent 'nobody'")
    assert err.rstrip().endswith("(see five-towers evaluate --help)")


@pytest.mark.parametrize("argv", [["replay", "no_such_record.json"], ["replay", "bad.json"]])
def test_replay_errors_exit_2(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("five-towers replay: error: ") and len(err.strip().splitlines()) == 1


def test_output_cut_short_by_the_reader_is_no_traceback():
    # `five-towers play ... | head -1`: the pipe closes while the game is still being written
    script = ("import sys; from five_towers_env.cli import main; "
              "sys.exit(main(['play', '--agents', 'random', 'random', '--show-table']))")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # the reader goes away
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
