"""Nothing a run writes can be torn: a training run killed with SIGKILL at 20 random moments leaves
every file of its run folder whole, and ``--resume`` goes on from the newest whole checkpoint until
the run completes.

One run folder throughout: a first short run to the end (which also times how long a run spends
writing), then 20 times: resume from the newest whole checkpoint for one more rollout, wait
until the resumed run has rewritten ``config.yaml`` (the start of its writes; the imports before it
write nothing), sleep a seeded random delay within that time, SIGKILL the process group and check
every file. At last one resume runs to the end. The run is tiny (an evaluation, a pool snapshot
and a checkpoint at every 128-step rollout, no worker processes): 70 to 90 s on 2 cores, most of it
the 22 starts of the interpreter and its imports.
"""
from __future__ import annotations

import csv
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from five_towers_env.atomic import PARTIAL
from five_towers_env.training.ppo.checkpoints import is_whole, is_whole_zip, newest_whole_checkpoint
from five_towers_env.training.ppo.config import config_to_dict, load_config

pytest.importorskip("sb3_contrib")

REPO = Path(__file__).resolve().parent.parent
SMOKE = REPO / "configs" / "ppo_smoke.yaml"
KILLS = 20
ROLLOUT = 128  # learner steps per rollout: n_envs 2 x n_steps 64; an evaluation and a checkpoint after each
MORE = ROLLOUT  # what each resume adds to total_timesteps: it ends (policy, curve) unless killed
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"  # the IEND chunk: length 0, type, CRC


def tiny_config(path: Path, out_dir: Path) -> Path:
    """Write the tiny config to ``path``; return ``path``."""
    data = yaml.safe_load(SMOKE.read_text())
    data.update(name="killed", out_dir=str(out_dir), total_timesteps=MORE, n_envs=2, subproc=False,
                eval_every=ROLLOUT, checkpoint_every=ROLLOUT, eval_games=2, eval_opponents=["random"],
                final_eval_games=0)
    data["ppo"].update(n_steps=ROLLOUT // 2, batch_size=ROLLOUT, net_arch=[16])
    data["pool"].update(baselines={"random": 1.0}, promote_games=2, promote_win_rate=0.0001)
    data["imitation"]["games"] = 0
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def launch(args: list[str], stderr: Path) -> subprocess.Popen:
    """``five-towers train *args`` in its own process group (SIGKILL reaches all of it)."""
    with open(stderr, "w") as err:
        return subprocess.Popen([sys.executable, "-m", "five_towers_env.cli", "train", "--no-progress", *args],
                                cwd=REPO, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


def stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def wait_for_write(proc: subprocess.Popen, config: Path, before: tuple[int, int] | None, stderr: Path) -> float:
    """Wait until ``config`` is written anew (the run's first write); return the time then."""
    deadline = time.monotonic() + 180  # a loaded machine is slow, not stuck
    while stamp(config) == before:
        if proc.poll() is not None:
            pytest.fail(f"the run ended (status {proc.returncode}) before writing its config:\n{stderr.read_text()}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("the run wrote no config.yaml in 180 s")
        time.sleep(0.005)
    return time.monotonic()


def finish(proc: subprocess.Popen, stderr: Path) -> None:
    try:
        proc.wait(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail("the run did not end in 300 s")
    assert proc.returncode == 0, stderr.read_text()


def expected_configs(tiny: Path, totals: set[int]) -> list[dict[str, Any]]:
    """``config.yaml`` as a run of ``tiny`` with each of ``totals`` writes it."""
    return [yaml.safe_load(yaml.safe_dump(config_to_dict(load_config(tiny, {"total_timesteps": total}))))
            for total in sorted(totals)]


def check_whole(run: Path, configs: list[dict[str, Any]], seen: dict[Path, Any]) -> int:
    """Check every file of ``run`` (not ``tb/``, not a ``.partial-`` temporary) is whole; return how many
    were checked. ``seen`` remembers files already checked and unchanged since."""
    checked = 0
    for path in sorted(run.rglob("*")):
        rel = path.relative_to(run)
        if path.is_dir() or rel.parts[0] == "tb" or PARTIAL in path.name:
            continue
        key = (path.stat().st_ino, path.stat().st_mtime_ns, path.stat().st_size)
        if seen.get(path) == key:
            continue
        where = f"{rel} ({path.stat().st_size} bytes)"
        data = path.read_bytes()
        if path.suffix == ".yaml":
            assert yaml.safe_load(data) in configs, f"{where} is not the run's config (torn?)"
        elif path.suffix == ".json":
            state = json.loads(data)  # a checkpoint's state, or provenance.json
            assert isinstance(state, dict) and (rel.parts[0] != "checkpoints" or "eval_rows" in state), where
        elif path.suffix == ".csv":
            text = data.decode()
            assert text.endswith("\n"), f"{where} does not end with a whole row"
            rows = list(csv.reader(io.StringIO(text)))
            assert rows and rows[0][:2] == ["timesteps", "wall_s"], where
            assert all(len(row) == len(rows[0]) for row in rows), f"{where}: rows of different lengths"
            assert [int(row[0]) for row in rows[1:]] == sorted(int(row[0]) for row in rows[1:]), where
        elif path.suffix == ".npz":
            with np.load(path) as npz:  # reading every array checks every member's CRC
                assert npz.files and all(npz[name] is not None for name in npz.files), where
        elif path.suffix == ".zip":
            # whole as a file; its state .json, renamed in just after it, is checked on its own above
            assert is_whole_zip(path), f"{where} is not a whole save"
        elif path.suffix == ".png":
            assert data.startswith(b"\x89PNG\r\n\x1a\n") and data.endswith(PNG_END), f"{where}: a cut-off PNG"
        else:
            pytest.fail(f"{where}: a file the run was not expected to write")
        seen[path] = key
        checked += 1
    return checked


def test_sigkill_at_random_moments_leaves_every_file_whole_and_the_run_resumes(tmp_path):
    start = time.monotonic()
    tiny = tiny_config(tmp_path / "tiny.yaml", tmp_path)
    run = tmp_path / "killed"
    config = run / "config.yaml"
    stderr = tmp_path / "stderr.txt"
    seen: dict[Path, Any] = {}
    rng = random.Random(20261126)

    # a first run to its end: checkpoints to resume from, and how long a run spends writing
    proc = launch(["--config", str(tiny)], stderr)
    began = wait_for_write(proc, config, None, stderr)
    finish(proc, stderr)
    window = time.monotonic() - began
    totals = {MORE}
    check_whole(run, expected_configs(tiny, totals), seen)

    kills = launches = 0
    while kills < KILLS:
        launches += 1
        assert launches <= 2 * KILLS, f"only {kills} of {launches} kills landed before the run ended"
        newest = newest_whole_checkpoint(run)
        assert newest is not None, "no whole checkpoint to resume from"
        total = int(newest.stem[len("step_"):]) + MORE
        totals.add(total)
        before = stamp(config)
        proc = launch(["--resume", str(newest), "--set", f"total_timesteps={total}"], stderr)
        began = wait_for_write(proc, config, before, stderr)
        time.sleep(max(0.0, began + rng.uniform(0, window) - time.monotonic()))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
        check_whole(run, expected_configs(tiny, totals), seen)

    # and the run goes on to its end from the newest whole checkpoint
    newest = newest_whole_checkpoint(run)
    assert newest is not None
    total = int(newest.stem[len("step_"):]) + ROLLOUT
    totals.add(total)
    finish(launch(["--resume", str(newest), "--set", f"total_timesteps={total}"], stderr), stderr)
    check_whole(run, expected_configs(tiny, totals), seen)
    assert is_whole(run / "checkpoints" / f"step_{total}.zip")
    with open(run / "eval_log.csv", newline="") as f:
        assert int(list(csv.DictReader(f))[-1]["timesteps"]) == total
    assert (run / "policy.npz").is_file() and (run / "learning_curve.png").is_file()
    elapsed = time.monotonic() - start
    print(f"{kills} kills in {launches} resumed runs, {elapsed:.0f} s; {len(seen)} file versions checked")
