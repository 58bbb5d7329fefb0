"""``five-towers train`` and ``five-towers expert`` behave alike: usage errors exit 2 with one line
``five-towers <command>: error: ...``, Ctrl-C and SIGTERM exit 130 and 143 naming the checkpoint to resume
from, and ``--resume`` takes a checkpoint file or a run folder."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from five_towers_env.cli import main

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
CONFIGS = {"train": REPO / "configs" / "ppo_smoke.yaml", "expert": REPO / "configs" / "expert_campanile_2p.yaml"}
#: one generation of a few games, no evaluation
EXPERT_TINY = ["game=campanile", "architecture=mlp", "generations=1", "games_per_generation=2", "warmup_games=2",
               "warmup_steps=2", "simulations=4", "determinisations=1", "train_steps=2", "batch_size=8",
               "eval_games=0", "eval_mcts_games=0", "workers=1", "torch_threads=1"]


def cli(capsys, *argv: object) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, command: str) -> str:
    assert code == 2, err
    assert err.startswith(f"five-towers {command}: error: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


@pytest.fixture(params=["train", "expert"])
def command(request) -> str:
    if request.param == "train":
        pytest.importorskip("sb3_contrib")
    return request.param


@pytest.mark.parametrize("argv, words", [
    (["--resume", "{tmp}/none", "--force"], "--force starts a new run (--config)"),
    (["--config", "{tmp}/missing.yaml"], "config file {tmp}/missing.yaml does not exist"),
    (["--config", "{config}", "--set", "no_such_setting=1"], "--set no_such_setting=1: unknown key(s) no_such_setting"),
    (["--config", "{config}", "--set", "seed=-1"], "--set seed=-1: seed: must be"),
    (["--resume", "{tmp}/notes.txt"], "--resume {tmp}/notes.txt"),
])
def test_usage_errors_are_alike(command, tmp_path, capsys, argv, words):
    (tmp_path / "notes.txt").write_text("mine\n")
    fill = {"tmp": tmp_path, "config": CONFIGS[command]}
    code, _, err = cli(capsys, command, *[a.format(**fill) for a in argv], "--no-progress")
    assert words.format(**fill) in one_line_error(code, err, command)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # nothing written


def test_an_unwritable_run_folder_is_a_usage_error_for_both(command, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    code, _, err = cli(capsys, command, "--config", CONFIGS[command], "--no-progress", "--set", f"out_dir={blocker}")
    assert "cannot be made" in one_line_error(code, err, command)


# -- expert: --resume a file or a folder; Ctrl-C and SIGTERM ----------------------------------------

def _expert_run(tmp_path: Path, capsys) -> Path:
    code, _, err = cli(capsys, "expert", "--config", CONFIGS["expert"], "--no-progress",
                       "--set", f"out_dir={tmp_path}", "name=run", *EXPERT_TINY)
    assert code == 0, err
    return tmp_path / "run"


def test_expert_resumes_from_its_checkpoint_file_or_its_folder(tmp_path, capsys):
    run = _expert_run(tmp_path, capsys)
    code, out, err = cli(capsys, "expert", "--resume", run / "checkpoints" / "step_1.pt", "--no-progress",
                         "--set", "generations=2")
    assert code == 0, err
    assert f"run folder: {run}" in out and (run / "networks" / "gen_2.npz").is_file()
    assert "generations: 2" in (run / "config.yaml").read_text()  # the run's own config, as train's
    # the checkpoint of generation 2 replaced generation 1's: a run keeps only its newest (the buffer is big)
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_2.json", "step_2.npz", "step_2.pt"]
    # any file of a checkpoint names it
    for generations, name in ((3, "step_2.json"), (4, "step_3.npz")):
        code, out, err = cli(capsys, "expert", "--resume", run / "checkpoints" / name, "--no-progress",
                             "--set", f"generations={generations}")
        assert code == 0, err
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_4.json", "step_4.npz", "step_4.pt"]
    code, _, err = cli(capsys, "expert", "--resume", run, "--no-progress", "--set", "name=other")
    assert "name cannot change on resume" in one_line_error(code, err, "expert")
    # a damaged part: the checkpoint is not whole, and the error names the file at fault
    buffer = run / "checkpoints" / "step_4.npz"
    buffer.write_bytes(buffer.read_bytes()[:-10])
    code, _, err = cli(capsys, "expert", "--resume", run / "checkpoints" / "step_4.json", "--no-progress")
    assert f"checkpoint file {buffer} is incomplete" in one_line_error(code, err, "expert")
    code, _, err = cli(capsys, "expert", "--resume", run, "--no-progress")
    assert f"--resume {run}: no whole checkpoint in it" in one_line_error(code, err, "expert")


def test_an_expert_run_of_the_old_layout_is_refused_saying_how_to_move_it(tmp_path, capsys):
    for name in ("config.yaml", "checkpoint.pt", "buffer.npz", "state.json"):
        (tmp_path / name).write_text("an earlier version's\n")
    code, _, err = cli(capsys, "expert", "--resume", tmp_path, "--no-progress")
    assert "its checkpoint is in an earlier version's layout" in one_line_error(code, err, "expert")


def test_a_moved_expert_run_resumes_where_it_is(tmp_path, capsys):
    run = _expert_run(tmp_path, capsys)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    run.rename(moved)
    code, out, err = cli(capsys, "expert", "--resume", moved, "--no-progress", "--set", "generations=2")
    assert code == 0, err
    assert f"run folder: {moved}" in out and (moved / "networks" / "gen_2.npz").is_file() and not run.exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_expert_interrupted_exits_as_train_does(tmp_path, capsys, monkeypatch, signum):
    from five_towers_env.training.expert.trainer import ExpertTrainer

    run = _expert_run(tmp_path, capsys)
    real = ExpertTrainer._generation

    def interrupted(self, *args):
        if signum == signal.SIGTERM:
            os.kill(os.getpid(), signal.SIGTERM)  # to this process alone, as a job scheduler's stop
        raise KeyboardInterrupt  # Ctrl-C

    monkeypatch.setattr(ExpertTrainer, "_generation", interrupted)
    code, _, err = cli(capsys, "expert", "--resume", run, "--no-progress", "--set", "generations=2")
    checkpoint = run / "checkpoints" / "step_1.pt"
    assert code == 128 + signum, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == (
        f"interrupted: no checkpoint saved; the newest is {checkpoint}; resume with five-towers expert --resume "
        f"{checkpoint}")
    monkeypatch.setattr(ExpertTrainer, "_generation", real)
    code, _, err = cli(capsys, "expert", "--resume", checkpoint, "--no-progress", "--set", "generations=2")
    assert code == 0, err


def test_expert_interrupted_before_a_checkpoint_says_none(tmp_path, capsys, monkeypatch):
    from five_towers_env.training.expert.trainer import ExpertTrainer

    def interrupted(self, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(ExpertTrainer, "_warmup", interrupted)
    code, _, err = cli(capsys, "expert", "--config", CONFIGS["expert"], "--no-progress",
                       "--set", f"out_dir={tmp_path}", "name=run", *EXPERT_TINY)
    assert code == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == "interrupted: no checkpoint saved; none to resume from"
