"""Every result is traceable to its code: ``provenance.json`` beside the files of every command that
writes result files (the command line, the commit, the machine, the libraries, the numerics
environment, the wall time), and one in every folder of ``results/``, whose command is the one
``results/README.md`` shows for that folder."""
from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import five_towers_env
from five_towers_env import provenance
from five_towers_env.cli import main
from five_towers_env.provenance import command_line, write_provenance

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
FIELDS = {"command", "commit", "dirty", "environment", "libraries", "machine", "started", "version", "wall_s",
          "written"}


def _tool():
    path = ROOT / "tools" / "archive" / "reconstruct_provenance.py"
    spec = importlib.util.spec_from_file_location("reconstruct_provenance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- what a command writes ------------------------------------------------------------------------

def test_evaluate_out_writes_provenance_with_its_command(tmp_path, capsys):
    out = tmp_path / "eval"
    argv = ["evaluate", "--agents", "random", "greedy", "--games", "2", "--seed", "3", "--out", str(out),
            "--no-progress"]
    assert main(argv) == 0
    data = json.loads((out / "provenance.json").read_text())
    assert set(data) == FIELDS
    assert data["command"] == shlex.join(["five-towers", *argv])
    assert data["version"] == five_towers_env.__version__
    assert data["commit"] is None or len(data["commit"]) == 40  # this checkout's, where it is one
    assert data["dirty"] in (None, True, False)
    assert data["wall_s"] is not None and 0 <= data["wall_s"] < 600
    assert data["started"].endswith("+00:00") and data["written"] >= data["started"]
    assert set(data["environment"]) == set(provenance.NUMERICS_ENV)
    assert data["libraries"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert data["libraries"]["numpy"] and "torch" in data["libraries"]
    assert {"platform", "cpu", "simd", "cores"} <= set(data["machine"]) and data["machine"]["cores"] >= 1
    assert "provenance.json" not in capsys.readouterr().out  # written quietly, beside the files it names


def test_without_out_no_provenance_is_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "--agents", "random", "greedy", "--games", "2", "--no-progress"]) == 0
    assert list(tmp_path.iterdir()) == []


def test_the_console_script_is_named_as_typed(tmp_path):
    out = tmp_path / "t"
    done = subprocess.run([sys.executable, "-m", "five_towers_env.cli", "tournament", "--agents", "random", "greedy",
                           "--games", "2", "--no-plot", "--no-progress", "--out", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "provenance.json").read_text())
    assert data["command"] == shlex.join(["five-towers", "tournament", "--agents", "random", "greedy", "--games", "2",
                                          "--no-plot", "--no-progress", "--out", str(out)])


def test_command_line_is_what_a_user_types(monkeypatch):
    package = provenance.PACKAGE_DIR
    assert command_line(["/usr/local/bin/five-towers", "evaluate", "--agents", "mcts:simulations=8", "a b"]) == \
        "five-towers evaluate --agents mcts:simulations=8 'a b'"
    # python -m five_towers_env.cli
    assert command_line([str(package / "cli" / "__main__.py"), "zoo"]) == "five-towers zoo"
    assert command_line([str(package / "analysis" / "checkpoint_curve.py"), "runs/x"]) == \
        "python -m five_towers_env.analysis.checkpoint_curve runs/x"
    assert command_line(["benchmarks/bench.py", "--json", "runs/b.json"]) == \
        "python benchmarks/bench.py --json runs/b.json"
    monkeypatch.chdir(ROOT)
    assert command_line([str(ROOT / "benchmarks" / "bench.py")]) == "python benchmarks/bench.py"
    monkeypatch.setattr(sys, "argv", ["training/checkpoint_curve.py", "runs/x", "--out", "runs/c"])
    assert command_line() == "python training/checkpoint_curve.py runs/x --out runs/c"


def test_outside_a_git_checkout_the_commit_is_null(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "five_towers_env"
    package.mkdir(parents=True)
    monkeypatch.setattr(provenance, "PACKAGE_DIR", package)
    data = json.loads(write_provenance(tmp_path / "out", command="x", started=0.0).read_text())
    assert data["commit"] is None and data["dirty"] is None and data["command"] == "x"
    assert data["version"] == five_towers_env.__version__


def test_without_git_the_commit_is_null(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    data = json.loads(write_provenance(tmp_path / "out", command="x").read_text())
    assert data["commit"] is None and data["dirty"] is None


def test_a_continued_run_keeps_its_earlier_invocations(tmp_path):
    folder = tmp_path / "run"
    write_provenance(folder, command="five-towers train --config c.yaml", started=1000.0, keep_earlier=True)
    first = json.loads(write_provenance(folder, command="five-towers train --config c.yaml", started=1000.0,
                                        keep_earlier=True).read_text())
    assert "earlier" not in first  # the same invocation, written again at its end
    write_provenance(folder, command="five-towers train --resume x.zip", started=2000.0, keep_earlier=True)
    data = json.loads(write_provenance(folder, command="five-towers train --resume x.zip", started=2000.0,
                                       keep_earlier=True).read_text())
    assert data["command"] == "five-towers train --resume x.zip"
    assert [e["command"] for e in data["earlier"]] == ["five-towers train --config c.yaml"]
    assert data["earlier"][0]["started"] == first["started"] and data["earlier"][0]["commit"] == first["commit"]
    data = json.loads(write_provenance(folder, command="five-towers evaluate", started=3000.0).read_text())
    assert "earlier" not in data  # another command's files replace the run's


def test_train_writes_provenance_at_start_and_end_and_a_resume_adds_a_leg(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    tiny = {"imitation.games": 0, "ppo.net_arch": [16], "ppo.n_steps": 128, "ppo.batch_size": 128, "eval_games": 2,
            "eval_opponents": ["random"], "pool.promote_games": 4, "pool.baselines": {"random": 1.0},
            "final_eval_games": 0, "total_timesteps": 256, "eval_every": 256, "checkpoint_every": 256,
            "out_dir": tmp_path}
    first = ["train", "--config", str(ROOT / "configs" / "ppo_smoke.yaml"), "--no-progress", "--set",
             *[f"{k}={v}".replace("'", "") for k, v in tiny.items()]]
    assert main(first) == 0, capsys.readouterr().err
    run = tmp_path / "ppo_smoke"
    data = json.loads((run / "provenance.json").read_text())
    assert data["command"] == shlex.join(["five-towers", *first]) and "earlier" not in data
    second = ["train", "--resume", str(run / "checkpoints" / "step_256.zip"), "--no-progress", "--set",
              "total_timesteps=512"]
    assert main(second) == 0, capsys.readouterr().err
    data = json.loads((run / "provenance.json").read_text())
    assert data["command"] == shlex.join(["five-towers", *second])
    assert [e["command"] for e in data["earlier"]] == [shlex.join(["five-towers", *first])]


def test_expert_writes_provenance_and_a_resume_adds_a_leg(tmp_path, capsys):
    pytest.importorskip("torch")
    smoke = ["game=campanile", "architecture=mlp", "games_per_generation=3", "warmup_games=4", "warmup_steps=3",
             "simulations=8", "determinisations=2", "train_steps=3", "batch_size=16", "eval_games=2",
             "eval_mcts_games=2", "eval_mcts=mcts:simulations=8", "workers=1", "torch_threads=1"]
    first = ["expert", "--config", str(ROOT / "configs" / "expert_campanile_2p.yaml"), "--no-progress", "--set",
             f"out_dir={tmp_path}", "name=x", "generations=1", *smoke]
    assert main(first) == 0, capsys.readouterr().err
    run = tmp_path / "x"
    assert json.loads((run / "provenance.json").read_text())["command"] == shlex.join(["five-towers", *first])
    second = ["expert", "--resume", str(run), "--no-progress", "--set", "generations=2"]
    assert main(second) == 0, capsys.readouterr().err
    data = json.loads((run / "provenance.json").read_text())
    assert data["command"] == shlex.join(["five-towers", *second])
    assert [e["command"] for e in data["earlier"]] == [shlex.join(["five-towers", *first])]


# -- results/ ---------------------------------------------------------------------------------------

def test_every_results_folder_has_provenance_with_its_readme_command():
    tool = _tool()
    rows = tool.readme_commands((RESULTS / "README.md").read_text())
    assert rows, "results/README.md has no table of folders and commands"
    for folder, commands in rows.items():
        assert (RESULTS / folder).is_dir(), f"results/README.md names results/{folder}/, which does not exist"
        assert commands, f"results/README.md shows no command for results/{folder}/"
        assert (RESULTS / folder / "provenance.json").is_file(), f"results/{folder}/ has no provenance.json"
    checked = set()
    for path in sorted(RESULTS.rglob("*")):
        if not path.is_file() or path.name == "README.md":
            continue
        folder = path.parent
        while folder != RESULTS and not (folder / "provenance.json").is_file():
            folder = folder.parent
        assert folder != RESULTS, f"{path.relative_to(ROOT)} has no provenance.json in its folder or one above it"
        checked.add(folder.relative_to(RESULTS).as_posix())
    for name in sorted(checked):
        data = json.loads((RESULTS / name / "provenance.json").read_text())
        assert name in rows, f"results/{name}/provenance.json: results/README.md has no row for results/{name}/"
        assert data["command"] in rows[name], \
            f"results/{name}/provenance.json: {data['command']!r} is not the command results/README.md shows"
        for leg in data.get("earlier", []):
            assert leg["command"] in rows[name], f"results/{name}/provenance.json: earlier leg {leg['command']!r}"
        if data.get("reconstructed"):
            command, earlier = tool.provenance_command(rows[name])
            assert (data["command"], [e["command"] for e in data.get("earlier", [])]) == (command, earlier), \
                f"results/{name}/provenance.json is stale: run python tools/archive/reconstruct_provenance.py"
            assert data["note"] and (data["commit"] is None or len(data["commit"]) == 40)


def test_readme_commands_are_parsed_as_provenance_records_them():
    tool = _tool()
    assert tool.normalize("PYTHONPATH=/tmp/x five-towers evaluate --out r/a") == "five-towers evaluate --out r/a"
    assert tool.normalize("python b.py --json r/b/b.json > r/b/stdout.txt 2>&1") == "python b.py --json r/b/b.json"
    table = ("| `a/` | what | `git worktree add /tmp/o 1234`, then `python x.py --json results/a/a.json` |\n"
             "| `b/` | legs | `five-towers train --config c.yaml`, then `five-towers train --resume s.zip` |\n")
    rows = tool.readme_commands(table)
    assert rows == {"a": ["python x.py --json results/a/a.json"],
                    "b": ["five-towers train --config c.yaml", "five-towers train --resume s.zip"]}
    assert tool.provenance_command(rows["a"]) == ("python x.py --json results/a/a.json", [])
    assert tool.provenance_command(rows["b"]) == ("five-towers train --resume s.zip",
                                                  ["five-towers train --config c.yaml"])


def test_other_runs_records_do_not_make_a_checkout_dirty(tmp_path):
    """A run's provenance.json describes a run, not its inputs: another run's, changed, leaves the checkout
    clean; any other change, or a new file, makes it dirty."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "a").mkdir(parents=True)
    (tmp_path / "results" / "a" / "provenance.json").write_text("{}\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    assert provenance.git_state(tmp_path / "pkg")[1] is False
    (tmp_path / "results" / "a" / "provenance.json").write_text('{"run": 2}\n')
    assert provenance.git_state(tmp_path / "pkg", exclude=tmp_path / "results" / "b")[1] is False
    (tmp_path / "pkg" / "code.py").write_text("x = 2\n")
    assert provenance.git_state(tmp_path / "pkg")[1] is True
