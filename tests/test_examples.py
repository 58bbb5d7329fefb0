"""Smoke runs of the scripts users start from: they run to the end and print their result."""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_play_game_example():
    out = run("examples/play_game.py", "--agents", "greedy", "random", "--players", "3", "--seed", "2")
    assert "seats: player_0=greedy, player_1=random, player_2=greedy" in out
    assert "final scores:" in out and "winners:" in out
    # one line per move naming the player and the action, forced moves included; no table unless asked
    moves = [line for line in out.splitlines() if line[:6].strip().endswith(".") and " seat " in line]
    assert moves[0] == "   1. seat 0 (greedy): bid 5" and any(line.endswith("(forced: the only legal move)")
                                                              for line in moves)
    assert len(out.splitlines()) < 2 * len(moves) and "deck:" not in out
    assert out.count("\ndeck: ") == 0 < run("examples/play_game.py", "--agents", "greedy", "random", "--players",
                                             "3", "--seed", "2", "--show-table").count("\ndeck: ")


def test_train_maskable_ppo_example():
    pytest.importorskip("sb3_contrib")
    out = run("examples/train_maskable_ppo.py", "--timesteps", "256", "--envs", "2", "--games", "2")
    assert "win rate after 256 timesteps" in out


def test_training_script(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = run("training/ppo_selfplay.py", "--config", "configs/ppo_smoke.yaml", "--no-progress", "--eval-games", "2",
              "--set", f"out_dir={tmp_path}", "total_timesteps=512", "eval_every=512")
    assert "against the baselines" in out
    run_dir = tmp_path / "ppo_smoke"
    assert (run_dir / "policy.npz").exists()

    # the checkpoint curve: one row per checkpoint, and the last one scores exactly what the
    # exported final policy (the same weights) scores over the same seeded games
    out = run("training/checkpoint_curve.py", str(run_dir), "--opponents", "greedy", "--games", "6")
    from five_towers_env.analysis.checkpoint_curve import run_checkpoints
    from five_towers_env.training.ppo.eval_games import evaluation_table

    with open(run_dir / "checkpoint_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [t for t, _ in run_checkpoints(run_dir)]
    final = evaluation_table(run_dir / "policy.npz", 2, "base", ["greedy"], 6, seed=0, progress=False,
                             game="five_towers")[0]
    assert float(rows[-1]["win_rate_vs_greedy"]) == final["win_rate"]
    assert (run_dir / "checkpoint_curve.png").stat().st_size > 0 and "| timesteps |" in out
    assert all(float(r["wall_s"]) > 0 for r in rows)  # each checkpoint's time into the run

    # time to strength: the scan stops at the first checkpoint that reaches the goal, and keeps its policy
    goal = tmp_path / "goal"
    out = run("training/checkpoint_curve.py", str(run_dir), "--opponents", "random", "--games", "6", "--until", "0",
              "--out", str(goal))
    with open(goal / "checkpoint_curve.csv") as f:
        assert len(list(csv.DictReader(f))) == 1
    assert (goal / "policy_at_goal.npz").exists() and "first checkpoint reaching 0.0: step" in out
    out = run("training/checkpoint_curve.py", str(run_dir), "--opponents", "random", "--games", "6", "--until",
              "1.01", "--out", str(tmp_path / "never"))
    assert "no checkpoint reached 1.01" in out and not (tmp_path / "never" / "policy_at_goal.npz").exists()


def test_diagnose_phases_script():
    out = run("training/diagnose_phases.py", "--games", "2", "--opponent", "greedy")
    assert "| teacher only |" in out and "| all (policy alone) |" in out


def test_mcts_ab_script(tmp_path):
    out_json = tmp_path / "ab.json"
    run("benchmarks/mcts_ab.py", "--old", ".", "--new", ".", "--games", "1", "--per-game", "2", "--simulations",
        "20", "--repeats", "1", "--json", str(out_json))
    import json

    out = json.loads(out_json.read_text())
    assert out["decisions"] == 2 and out["same_choices"] is True
    assert set(out["best_ms_per_decision"]) == {"old", "new"} and out["new_over_old"] > 0


def test_mcts_decision_time_script(tmp_path):
    out_json = tmp_path / "times.json"
    run("benchmarks/mcts_decision_time.py", "--simulations", "10", "--opponents", "random", "--games", "2",
        "--json", str(out_json))
    import json

    out = json.loads(out_json.read_text())
    assert out["games_per_opponent"] == 2 and out["all_decisions"]["decisions"] > 0
    assert set(out["per_opponent"]) == {"random"} and out["machine"]


def test_decision_time_benchmark(tmp_path):
    out_json = tmp_path / "times.json"
    run("benchmarks/decision_time.py", "--game", "campanile", "--agents", "greedy", "mcts:simulations=8",
        "--games", "1", "--rounds", "2", "--json", str(out_json))
    import json

    out = json.loads(out_json.read_text())
    assert out["decisions"] > 10 and [a["agent"] for a in out["agents"]] == ["greedy", "mcts:simulations=8"]
    assert out["agents"][0]["cpu_ratio_to_first"] == 1.0 and out["agents"][1]["cpu_ms"] > 0


def test_train_throughput_benchmark(tmp_path):
    pytest.importorskip("sb3_contrib")
    import json

    row = json.loads(run("benchmarks/train_throughput.py", "--inner", "configs/ppo_smoke.yaml", "--steps", "512")
                     .strip().splitlines()[-1])
    assert row["steps"] >= 512 and row["steps_per_s"] > 0 and row["update_s"] > 0
    assert row["opponents_cpu_s"] > 0 and row["env_cpu_s"] > 0  # the games' split was measured
    out_json = tmp_path / "throughput.json"
    run("benchmarks/train_throughput.py", "--games", "campanile", "--steps", "512", "--rounds", "1",
        "--checkout", f"{ROOT}=same", "--json", str(out_json))
    result = json.loads(out_json.read_text())
    assert set(result["rows"]) == {"campanile/new", "campanile/same"}
    assert result["ratios"]["campanile: new / same, steps_per_s"]["median"] > 0


def test_vector_env_training_example():
    pytest.importorskip("torch")
    from five_towers_env.core.backend import native_built

    if not native_built()[0]:
        pytest.skip("the native core is not built: no batched vector environment")
    if not hasattr(pytest.importorskip("gymnasium.vector"), "AutoresetMode"):
        pytest.skip("gymnasium < 1.0: no vector entry points")
    out = run("examples/vector_env_training.py", "--envs", "16", "--steps", "4", "--updates", "3")
    assert "update    3:      192 learner steps, win rate" in out
