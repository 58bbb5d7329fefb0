"""A new run never overwrites an old one: ``five-towers train --config`` and ``five-towers expert --config``
into a run folder that holds a run are a one-line error (exit 2) naming ``--resume`` and ``--force``, and
change nothing; ``--force`` deletes that run's files (and only those) and starts over."""
from __future__ import annotations

from pathlib import Path

import pytest

from five_towers_env.cli import main

pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
PPO_SMOKE = REPO / "configs" / "ppo_smoke.yaml"
EXPERT = REPO / "configs" / "expert_campanile_2p.yaml"
#: a run of one 256-step rollout (2 envs x 128): an evaluation and a checkpoint, no warm start, no final table
TINY = ["imitation.games=0", "ppo.net_arch=[16]", "ppo.n_steps=128", "ppo.batch_size=128", "total_timesteps=256",
        "eval_every=256", "checkpoint_every=256", "eval_games=2", "eval_opponents=[random]", "pool.promote_games=2",
        "final_eval_games=0"]
#: one generation of a few games, no evaluation
EXPERT_TINY = ["game=campanile", "architecture=mlp", "generations=1", "games_per_generation=2", "warmup_games=2",
               "warmup_steps=2", "simulations=4", "determinisations=1", "train_steps=2", "batch_size=8",
               "eval_games=0", "eval_mcts_games=0", "workers=1", "torch_threads=1"]


def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time (to see that nothing changed)."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def cli(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, command: str) -> str:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"five-towers {command}: error: ") and "--resume" in err and "--force" in err, err
    return err


def old_run(folder: Path, names: list[str]) -> None:
    """Stand-ins for an old run's files (their content is not read), and a file of the user's."""
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("the old run's\n")
    (folder / "notes.txt").write_text("mine\n")


# -- train ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("names", [["config.yaml", "eval_log.csv", "tb/events.out.tfevents.1"],
                                   ["checkpoints/step_256.zip", "checkpoints/step_256.json"], ["policy.npz"]],
                         ids=["config", "checkpoints", "policy"])
def test_train_into_a_folder_holding_a_run_is_an_error_that_changes_nothing(tmp_path, capsys, names):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "ppo_smoke"
    old_run(run, names)
    before = files(run)
    code, _, err = cli(capsys, "train", "--config", PPO_SMOKE, "--no-progress", "--set", f"out_dir={tmp_path}", *TINY)
    err = one_line_error(code, err, "train")
    assert f"the run folder {run} holds a run already ({Path(names[0]).parts[0]}" in err
    assert files(run) == before


def test_train_error_names_the_newest_whole_checkpoint_to_resume(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    assert cli(capsys, "train", "--config", PPO_SMOKE, "--no-progress", "--set", f"out_dir={tmp_path}", *TINY)[0] == 0
    run = tmp_path / "ppo_smoke"
    before = files(run)
    code, _, err = cli(capsys, "train", "--config", PPO_SMOKE, "--no-progress", "--set", f"out_dir={tmp_path}", *TINY)
    assert f"five-towers train --resume {run / 'checkpoints' / 'step_256.zip'}" in one_line_error(code, err, "train")
    assert files(run) == before


def test_train_with_force_deletes_the_old_run_and_starts_over(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "ppo_smoke"
    old_run(run, ["config.yaml", "checkpoints/step_9999.zip", "snapshots/step_9999.npz", "final_eval.md"])
    code, out, err = cli(capsys, "train", "--config", PPO_SMOKE, "--no-progress", "--force",
                         "--set", f"out_dir={tmp_path}", *TINY)
    assert code == 0, err
    assert f"--force: deleted the old run's files in {run}" in out
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_256.json", "step_256.zip"]
    assert not (run / "snapshots" / "step_9999.npz").exists() and not (run / "final_eval.md").exists()
    assert "the old run's" not in (run / "config.yaml").read_text()
    assert (run / "notes.txt").read_text() == "mine\n"  # not a file of the run: left alone


def test_train_into_a_folder_without_a_run_needs_no_force(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    run = tmp_path / "ppo_smoke"
    (run / "checkpoints").mkdir(parents=True)  # empty: a run that wrote nothing
    (run / "notes.txt").write_text("mine\n")
    code, _, err = cli(capsys, "train", "--config", PPO_SMOKE, "--no-progress", "--set", f"out_dir={tmp_path}", *TINY)
    assert code == 0, err


def test_train_force_does_not_go_with_resume(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    code, _, err = cli(capsys, "train", "--resume", tmp_path / "checkpoints" / "step_1.zip", "--force")
    assert code == 2 and "--force starts a new run (--config)" in err and len(err.strip().splitlines()) == 1


# -- expert -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("names", [["config.yaml", "checkpoints/step_1.json", "checkpoints/step_1.pt"],
                                   ["networks/gen_1.npz", "curve.csv"]], ids=["checkpoint", "curve"])
def test_expert_into_a_folder_holding_a_run_is_an_error_that_changes_nothing(tmp_path, capsys, names):
    run = tmp_path / "old"
    old_run(run, names)
    before = files(run)
    code, _, err = cli(capsys, "expert", "--config", EXPERT, "--no-progress",
                       "--set", f"out_dir={tmp_path}", "name=old", *EXPERT_TINY)
    err = one_line_error(code, err, "expert")
    assert f"the run folder {run} holds a run already ({Path(names[0]).parts[0]}" in err
    assert f"five-towers expert --resume {run}" in err
    assert files(run) == before


def test_expert_with_force_deletes_the_old_run_and_starts_over(tmp_path, capsys):
    run = tmp_path / "old"
    old_run(run, ["config.yaml", "checkpoints/step_7.json", "curve.csv", "networks/gen_7.npz"])
    code, out, err = cli(capsys, "expert", "--config", EXPERT, "--no-progress", "--force",
                         "--set", f"out_dir={tmp_path}", "name=old", *EXPERT_TINY)
    assert code == 0, err
    assert f"--force: deleted the old run's files in {run}" in out
    assert sorted(p.name for p in (run / "networks").iterdir()) == ["gen_1.npz"]
    assert (run / "curve.csv").read_text().splitlines()[1].startswith("1,")  # generation 1 of the new run
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_1.json", "step_1.npz", "step_1.pt"]
    assert (run / "notes.txt").read_text() == "mine\n"
    # and the new run resumes as any run does, with no --force
    code, _, err = cli(capsys, "expert", "--resume", run, "--no-progress", "--set", "generations=1")
    assert code == 0, err


def test_expert_force_does_not_go_with_resume(tmp_path, capsys):
    code, _, err = cli(capsys, "expert", "--resume", tmp_path, "--force")
    assert code == 2 and "--force starts a new run (--config)" in err and len(err.strip().splitlines()) == 1
