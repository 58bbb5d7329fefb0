"""Training keeps its data: checkpoints are written atomically, a cut-off one is a clear error that
names the newest whole one, a resumed run writes only into its checkpoint's run folder (or a new
one), Ctrl-C and SIGTERM save a checkpoint, and the progress bar stops at the run's total."""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from five_towers_env.cli import main
from five_towers_env.training.ppo.config import load_config

pytest.importorskip("sb3_contrib")

REPO = Path(__file__).resolve().parent.parent
SMOKE = REPO / "configs" / "ppo_smoke.yaml"
#: a run of two 256-step rollouts (2 envs x 128), evaluated and checkpointed after each
TINY = {"imitation.games": 0, "ppo.net_arch": [16], "ppo.n_steps": 128, "ppo.batch_size": 128, "eval_games": 2,
        "eval_opponents": ["random"], "pool.promote_games": 4, "pool.baselines": {"random": 1.0},
        "final_eval_games": 0, "total_timesteps": 512, "eval_every": 256, "checkpoint_every": 256}


def tiny_set(out: Path, **more: object) -> list[str]:
    """``--set`` arguments for a :data:`TINY` run in ``out``."""
    settings = {**TINY, "out_dir": out, **more}
    return [f"{k}={v}".replace("'", "") for k, v in settings.items()]


def run_cli(capsys, *argv: object) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time (to see that nothing changed)."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A finished :data:`TINY` run: checkpoints step_256 and step_512, and a snapshot at each evaluation."""
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(SMOKE, {**TINY, "out_dir": str(tmp_path_factory.mktemp("runs"))})
    PPOTrainer(cfg, progress=False).run()
    return cfg.run_dir


@pytest.fixture
def run_copy(tiny_run, tmp_path) -> Path:
    """A copy of :func:`tiny_run` to damage or resume."""
    copy = tmp_path / "copy"
    shutil.copytree(tiny_run, copy)
    return copy


# -- writing: atomic saves ------------------------------------------------------------------------

def test_a_save_cut_off_leaves_no_partial_file_and_the_previous_checkpoint_whole(tmp_path):
    from five_towers_env.training.ppo.checkpoints import checkpoint_state
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(SMOKE, {**TINY, "out_dir": str(tmp_path)})
    trainer = PPOTrainer(cfg, progress=False)
    first = trainer.checkpoint()
    trainer.model.num_timesteps = 256

    def dies_midway(target):
        # what SIGKILL or a full disk leaves: the first bytes of a zip, then nothing
        with open(target, "wb") if isinstance(target, (str, Path)) else contextlib.nullcontext(target) as f:
            f.write(b"PK\x03\x04" + bytes(1000))
        raise OSError(28, "No space left on device")

    trainer.model.save = dies_midway
    with pytest.raises(OSError, match="No space left"):
        trainer.checkpoint()
    folder = cfg.run_dir / "checkpoints"
    assert sorted(p.name for p in folder.iterdir()) == ["step_0.json", "step_0.zip"]  # no step_256, no .partial
    assert checkpoint_state(first)["timesteps"] == 0
    trainer.venv.close()


def test_checkpoint_files_are_renamed_into_place_json_last(tmp_path, monkeypatch):
    from five_towers_env.training.ppo import checkpoints

    class Model:
        def save(self, f):
            f.write(b"zip")

    renames = []
    real_replace = os.replace
    monkeypatch.setattr(checkpoints.os, "replace",
                        lambda a, b: (renames.append((Path(a).name, Path(b).name)), real_replace(a, b)))
    path = checkpoints.save_checkpoint(Model(), {"timesteps": 5}, tmp_path / "step_5.zip")
    pid = os.getpid()  # five_towers_env.atomic's temporary names: hidden, never a step_*.zip
    assert renames == [(f".step_5.partial-{pid}.zip", "step_5.zip"), (f".step_5.partial-{pid}.json", "step_5.json")]
    assert path.read_bytes() == b"zip" and sorted(p.name for p in tmp_path.iterdir()) == ["step_5.json", "step_5.zip"]


# -- the scheme both trainers share (checkpoint_files) ---------------------------------------------

def _two_part_kind(keep):
    from five_towers_env.training.checkpoint_files import CheckpointKind, zip_problem

    return CheckpointKind(parts=(".pt", ".npz"), state_keys=("step",), command="expert", part_problem=zip_problem,
                          holds={".pt": "the model", ".npz": "the buffer", ".json": "the counters"}, keep=keep)


def _write(kind, run: Path, step: int) -> Path:
    import zipfile

    from five_towers_env.training.checkpoint_files import checkpoint_path, write_checkpoint

    def parts(temps):
        for temp in temps:
            with zipfile.ZipFile(temp, "w") as z:
                z.writestr("x", f"{temp.suffix} {step}")

    return write_checkpoint(checkpoint_path(run, step, kind), kind, {"step": step}, parts)


def test_the_scheme_keeps_the_newest_k_and_takes_only_whole_ones(tmp_path):
    from five_towers_env.training import checkpoint_files as cf

    kind, run = _two_part_kind(keep=2), tmp_path / "run"
    for step in (1, 2, 3):
        newest = _write(kind, run, step)
    folder = run / "checkpoints"
    assert newest == folder / "step_3.pt" and cf.newest_whole(run, kind) == newest
    names = [f"step_{n}{suffix}" for n in (2, 3) for suffix in (".json", ".npz", ".pt")]
    assert sorted(p.name for p in folder.iterdir()) == names
    # what a kill leaves between the renames (parts without their state) or a damaged part is never taken
    (folder / "step_9.pt").write_bytes(b"PK")
    (folder / "step_3.npz").write_bytes((folder / "step_3.npz").read_bytes()[:-5])
    assert cf.newest_whole(run, kind) == folder / "step_2.pt" == cf.resolve_checkpoint(run, kind)
    with pytest.raises(cf.CheckpointError, match=f"checkpoint file {folder / 'step_3.npz'} is incomplete .*the newest "
                       f"whole checkpoint is {folder / 'step_2.pt'} \\(five-towers expert --resume"):
        cf.checked_state(cf.resolve_checkpoint(folder / "step_3.json", kind), kind)
    # any file of a checkpoint names it; a missing part is named
    assert cf.resolve_checkpoint(folder / "step_2.npz", kind) == cf.resolve_checkpoint(folder / "step_2.json", kind) \
        == folder / "step_2.pt"
    assert cf.checked_state(folder / "step_2.pt", kind) == {"step": 2}
    (folder / "step_2.npz").unlink()
    with pytest.raises(cf.MissingCheckpointError, match=f"has no companion {folder / 'step_2.npz'} \\(the buffer"):
        cf.checked_state(folder / "step_2.pt", kind)
    # the next save prunes what is not among the newest whole ones (keep=1 here), the one just written kept
    _write(_two_part_kind(keep=1), run, 4)
    assert sorted(p.name for p in folder.iterdir()) == ["step_4.json", "step_4.npz", "step_4.pt"]
    assert cf.checkpoint_run_dir(folder / "step_4.pt") == run


def test_the_scheme_keeps_every_checkpoint_without_keep(tmp_path):
    kind = _two_part_kind(keep=None)
    for step in (1, 2, 3):
        _write(kind, tmp_path, step)
    assert len(list((tmp_path / "checkpoints").iterdir())) == 9


# -- reading: a cut-off checkpoint ----------------------------------------------------------------

def _cut_inside_a_member(data: bytes) -> int:
    # just past the end record of a torch .pth stored inside the save: zipfile then opens the cut
    # file as that inner archive, which has no "data" (SB3's AssertionError before the fix)
    return data.index(b"PK\x05\x06") + 22


@pytest.mark.parametrize("cut", ["empty", "3 bytes", "1000 bytes", "half", "inside a member", "last byte"])
def test_a_truncated_checkpoint_is_a_clear_error_naming_the_newest_whole_one(run_copy, capsys, cut):
    newest, whole = run_copy / "checkpoints" / "step_512.zip", run_copy / "checkpoints" / "step_256.zip"
    data = newest.read_bytes()
    size = {"empty": 0, "3 bytes": 3, "1000 bytes": 1000, "half": len(data) // 2,
            "inside a member": _cut_inside_a_member(data), "last byte": len(data) - 1}[cut]
    newest.write_bytes(data[:size])
    before = files(run_copy)
    code, out, err = run_cli(capsys, "train", "--resume", newest, "--no-progress")
    assert code == 2, err
    assert f"checkpoint {newest} is incomplete ({size:,} bytes" in err
    assert f"the newest whole checkpoint is {whole} (five-towers train --resume {whole})" in err
    assert "Traceback" not in err and err.count("\n") == 1 and out == ""
    assert files(run_copy) == before  # config.yaml and everything else untouched
    # --resume <run folder> takes its newest whole checkpoint
    from five_towers_env.training.ppo.checkpoints import resolve_checkpoint

    assert resolve_checkpoint(run_copy) == resolve_checkpoint(run_copy / "checkpoints") == whole


def test_a_checkpoint_without_any_whole_one_says_so(run_copy, capsys):
    folder = run_copy / "checkpoints"
    for ckpt in folder.glob("*.zip"):
        ckpt.write_bytes(b"")
    code, _, err = run_cli(capsys, "train", "--resume", folder / "step_512.zip")
    assert code == 2 and "is incomplete (0 bytes" in err and f"there is no other whole checkpoint in {folder}" in err
    code, _, err = run_cli(capsys, "train", "--resume", run_copy)
    assert code == 2 and f"--resume {run_copy}: no whole checkpoint in it" in err and err.count("\n") == 1


# -- resuming: which folder is written ------------------------------------------------------------

def test_resuming_a_copied_run_writes_only_into_the_copy(tiny_run, run_copy, capsys):
    original = files(tiny_run)
    (run_copy / "checkpoints" / "step_512.zip").unlink()
    (run_copy / "checkpoints" / "step_512.json").unlink()
    code, out, err = run_cli(capsys, "train", "--resume", run_copy / "checkpoints" / "step_256.zip", "--no-progress")
    assert code == 0, err
    assert f"run folder: {run_copy}" in out
    assert files(tiny_run) == original
    resumed = load_config(run_copy / "config.yaml")
    assert resumed.run_dir == run_copy
    from five_towers_env.training.ppo.checkpoints import checkpoint_state

    state = checkpoint_state(run_copy / "checkpoints" / "step_512.zip")
    assert state["snapshots"] and all(Path(s).parent == run_copy / "snapshots" for s in state["snapshots"])


def test_resuming_a_run_folder_continues_from_its_newest_checkpoint(run_copy, capsys):
    (run_copy / "checkpoints" / "step_512.zip").unlink()
    (run_copy / "checkpoints" / "step_512.json").unlink()
    code, out, err = run_cli(capsys, "train", "--resume", run_copy, "--no-progress")
    assert code == 0, err
    assert f"run folder: {run_copy}" in out
    from five_towers_env.training.ppo.checkpoints import checkpoint_state

    assert checkpoint_state(run_copy)["timesteps"] == 512  # from step_256, one more rollout


@pytest.mark.parametrize("loop, key", [("sb3", "time/total_timesteps"), ("lean", "time/rollout_s")])
def test_a_resumed_run_continues_sb3s_progress_csv(tmp_path, capsys, loop, key):
    """The earlier leg's rows stay in ``tb/progress.csv`` (SB3's writer truncates the file it opens), with
    either PPO loop (``key``: a column the loop writes once per rollout)."""
    import csv

    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(SMOKE, {**TINY, "ppo.loop": loop, "out_dir": str(tmp_path)})
    PPOTrainer(cfg, progress=False).run()
    progress = cfg.run_dir / "tb" / "progress.csv"
    before = progress.read_text()
    code, _, err = run_cli(capsys, "train", "--resume", cfg.run_dir / "checkpoints" / "step_256.zip", "--no-progress")
    assert code == 0, err
    after = progress.read_text()
    assert after.startswith(before) and len(after) > len(before)
    with open(progress, newline="") as f:
        rows = [row for row in csv.DictReader(f) if row[key]]
    assert len(rows) == 3, "the first leg's two rollouts, then the resumed leg's one"
    if loop == "sb3":
        assert [int(float(row[key])) for row in rows] == [256, 512, 512]


def test_resume_into_a_new_folder_named_by_set(tiny_run, capsys):
    original = files(tiny_run)
    code, _, err = run_cli(capsys, "train", "--resume", tiny_run / "checkpoints" / "step_512.zip", "--no-progress",
                           "--set", "name=fork")
    assert code == 0, err
    fork = tiny_run.parent / "fork"
    assert (fork / "policy.npz").is_file() and load_config(fork / "config.yaml").run_dir == fork
    assert files(tiny_run) == original


def test_resume_refuses_another_runs_folder_and_a_config_that_does_not_fit(tiny_run, tmp_path, capsys):
    original = files(tiny_run)
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.yaml").write_text("name: other\n")
    ckpt = tiny_run / "checkpoints" / "step_256.zip"
    code, _, err = run_cli(capsys, "train", "--resume", ckpt, "--set", f"out_dir={tmp_path}", "name=other")
    assert code == 2 and f"the run folder {other} already holds files" in err and err.count("\n") == 1
    # the checkpoint is whole but cannot be loaded for this game: refused before anything is written
    code, _, err = run_cli(capsys, "train", "--resume", ckpt, "--no-progress",
                           "--set", "game=campanile", "variant=pile")
    assert code == 2 and f"checkpoint {ckpt} cannot be resumed with this config" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert files(tiny_run) == original and (other / "config.yaml").read_text() == "name: other\n"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (a folder nobody can write in)")
def test_an_unwritable_run_folder_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "train", "--config", SMOKE, "--set", "out_dir=/proc/five_towers_runs")
    assert code == 2 and "the run folder /proc/five_towers_runs/ppo_smoke cannot be made" in err
    assert "cannot be written" in err and "Traceback" not in err and err.count("\n") == 1


# -- Ctrl-C ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("loop", ["sb3", "lean"])
def test_ctrl_c_mid_rollout_saves_a_checkpoint_that_resumes(tmp_path, capsys, monkeypatch, loop):
    from five_towers_env.training.ppo import lean
    from five_towers_env.training.ppo import trainer as selfplay

    real, real_lean = selfplay.episode_callback, lean.LeanProgress.__call__

    def interrupting(total: int, start: int, progress: bool, *args):
        callback = real(total, start, progress, *args)
        on_step = callback._on_step

        def step() -> bool:
            if callback.num_timesteps >= 100:  # in the middle of the first rollout
                raise KeyboardInterrupt
            return on_step()
        callback._on_step = step
        return callback

    def interrupting_lean(self, infos):
        if self.model.num_timesteps >= 100:  # the same, in the lean loop
            raise KeyboardInterrupt
        return real_lean(self, infos)

    monkeypatch.setattr(selfplay, "episode_callback", interrupting)
    monkeypatch.setattr(lean.LeanProgress, "__call__", interrupting_lean)
    try:
        code, _, err = run_cli(capsys, "train", "--config", SMOKE, "--no-progress",
                               "--set", *tiny_set(tmp_path, **{"ppo.loop": loop}))
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped five-towers train: a traceback, and nothing saved")
    ckpt = tmp_path / "ppo_smoke" / "checkpoints" / "step_100.zip"
    assert code == 130, err
    assert f"interrupted: saved checkpoint {ckpt}; resume with five-towers train --resume {ckpt}" in err
    from five_towers_env.training.ppo.checkpoints import is_whole

    assert "Traceback" not in err and is_whole(ckpt)
    # the curve is drawn at every evaluation, so a stopped run has one (of its first evaluation here)
    assert (tmp_path / "ppo_smoke" / "learning_curve.png").stat().st_size > 1000
    monkeypatch.setattr(selfplay, "episode_callback", real)
    monkeypatch.setattr(lean.LeanProgress, "__call__", real_lean)
    code, _, err = run_cli(capsys, "train", "--resume", ckpt, "--no-progress", "--set", "total_timesteps=256")
    assert code == 0, err
    assert is_whole(tmp_path / "ppo_smoke" / "checkpoints" / "step_356.zip")  # 100 + one 256-step rollout


def test_ctrl_c_before_training_says_nothing_was_saved(tmp_path, capsys, monkeypatch):
    from five_towers_env.training.ppo.trainer import PPOTrainer

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(PPOTrainer, "imitate", interrupted)  # Ctrl-C during the warm start
    try:
        code, _, err = run_cli(capsys, "train", "--config", SMOKE,
                               "--set", *tiny_set(tmp_path, **{"imitation.games": 1}))
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped five-towers train")
    assert code == 130 and "interrupted: no checkpoint saved; none to resume from" in err and "Traceback" not in err


def _ctrl_c_as_at_a_terminal() -> None:
    """In the trainer's process, before Python starts: SIGINT as a terminal's foreground job has it. A
    process started in the background by a non-interactive shell (a CI job, pytest-xdist's workers)
    ignores SIGINT, its children inherit that, and Python then installs no KeyboardInterrupt for it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum, subproc", [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_saves_a_checkpoint_and_exits_without_a_traceback(tmp_path, signum, subproc):
    """A real signal: SIGINT to the whole process group, as a terminal's Ctrl-C sends it (the
    environment workers get it too), or SIGTERM to the trainer alone."""
    argv = [sys.executable, "-m", "five_towers_env.cli", "train", "--config", str(SMOKE), "--no-progress", "--set",
            *tiny_set(tmp_path, total_timesteps=10**7, eval_every=10**6, checkpoint_every=10**6, subproc=subproc)]
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_ctrl_c_as_at_a_terminal)
    eval_log = tmp_path / "ppo_smoke" / "eval_log.csv"
    try:
        deadline = time.time() + 120
        while not eval_log.exists() and proc.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # into the first rollouts
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=180)  # a loaded CI machine is slow, not stuck
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err, err
    saved = re.search(r"interrupted: saved checkpoint (\S+); resume with five-towers train --resume (\S+)\n", err)
    assert saved and saved.group(1) == saved.group(2), err
    from five_towers_env.training.ppo.checkpoints import is_whole

    assert is_whole(Path(saved.group(1)))


def test_ctrl_c_during_the_warm_start_exits_with_worker_processes(tmp_path):
    """Ctrl-C before training proper (the imitation warm start), with environment workers running:
    no checkpoint to save, and the exit must not wait forever for workers that ignore the signal."""
    argv = [sys.executable, "-m", "five_towers_env.cli", "train", "--config", str(SMOKE), "--set",
            *tiny_set(tmp_path, subproc=True, **{"imitation.games": 10**5})]
    with open(tmp_path / "stderr.txt", "w") as errors:  # progress bars: a file never fills up as a pipe can
        proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=errors, text=True,
                                start_new_session=True, preexec_fn=_ctrl_c_as_at_a_terminal)
        try:
            assert proc.stdout is not None
            for line in proc.stdout:  # the warm start has begun, workers included
                if line.startswith("imitation:"):
                    break
            time.sleep(1.0)
            os.killpg(proc.pid, signal.SIGINT)
            proc.communicate(timeout=180)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    err = (tmp_path / "stderr.txt").read_text()
    assert proc.returncode == 130, err
    assert "interrupted: no checkpoint saved" in err and "Traceback" not in err, err


# -- the progress bar -----------------------------------------------------------------------------

def test_the_progress_bar_stops_at_the_total(tmp_path, capsys):
    from five_towers_env.training.ppo.trainer import PPOTrainer

    # learn(300) runs two whole rollouts of 256: 512 steps, past the total of 300
    cfg = load_config(SMOKE, {**TINY, "out_dir": str(tmp_path), "total_timesteps": 300, "eval_every": 300})
    trainer = PPOTrainer(cfg, progress=True)
    trainer.run()
    err = capsys.readouterr().err
    assert trainer.model.num_timesteps == 512
    assert "300/300" in err and "512/300" not in err
