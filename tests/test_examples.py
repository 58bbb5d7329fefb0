"""Smoke runs of the scripts users start from: they run to the end and print their result."""
from __future__ import annotations

import csv
import importlib.util
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
    from five_towers_env.training.checkpoint_curve import run_checkpoints
    from five_towers_env.training.selfplay import evaluation_table

    with open(run_dir / "checkpoint_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [t for t, _ in run_checkpoints(run_dir)]
    final = evaluation_table(run_dir / "policy.npz", 2, "base", ["greedy"], 6, seed=0, progress=False)[0]
    assert float(rows[-1]["win_rate_vs_greedy"]) == final["win_rate"]
    assert (run_dir / "checkpoint_curve.png").stat().st_size > 0 and "| timesteps |" in out


def test_diagnose_phases_script():
    out = run("training/diagnose_phases.py", "--games", "2", "--opponent", "greedy")
    assert "| teacher only |" in out and "| all (policy alone) |" in out


def test_benchmark_script(tmp_path):
    pytest.importorskip("pettingzoo.classic.connect_four_v3")  # the bench extra (pygame)
    out_json = tmp_path / "bench.json"
    out = run("benchmarks/bench.py", "--seconds", "0.2", "--warmup", "0.05", "--rounds", "2", "--only",
              "engine 5T 2p base", "--only", "connect_four_v3", "--json", str(out_json))
    assert "| engine 5T 2p base |" in out and "Ratios" in out
    import json

    rows = {r["name"]: r for r in json.loads(out_json.read_text())["results"]}
    assert set(rows) == {"engine 5T 2p base", "connect_four_v3"}
    assert all(r["steps"] > 0 and r["games"] >= 0 for r in rows.values())
    assert rows["engine 5T 2p base"]["kind"] == "engine" and rows["connect_four_v3"]["kind"] == "env"


def test_benchmark_repeats_give_medians_and_ranges(tmp_path):
    pytest.importorskip("pettingzoo.classic.connect_four_v3")  # the bench extra (pygame)
    out_json = tmp_path / "bench.json"
    out = run("benchmarks/bench.py", "--seconds", "0.1", "--warmup", "0.02", "--rounds", "1", "--repeats", "2",
              "--only", "engine 5T 2p base", "--only", "connect_four_v3", "--json", str(out_json))
    assert "range over runs" in out and out.count("(fresh process)") == 2
    import json
    import statistics

    data = json.loads(out_json.read_text())
    assert len(data["runs"]) == 2 and [r["name"] for r in data["results"]] == ["engine 5T 2p base", "connect_four_v3"]
    for i, row in enumerate(data["results"]):
        assert row["steps_per_s"] == statistics.median(run[i]["steps_per_s"] for run in data["runs"])
    spec = importlib.util.spec_from_file_location("speed_table", ROOT / "benchmarks" / "speed_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ratios = [run[0]["steps_per_s"] / run[1]["steps_per_s"] for run in data["runs"]]
    line = module.speed_table(data).splitlines()[2]
    assert f"| {statistics.median(ratios):.2f}x | {min(ratios):.2f}-{max(ratios):.2f}x |" in line


def _bench_module():
    pytest.importorskip("pettingzoo.classic.connect_four_v3")  # bench.py imports it
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benchmarks" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = bench  # its dataclasses look their module up
    spec.loader.exec_module(bench)
    return bench


def test_uniform_choices_cover_every_index():
    bench = _bench_module()
    import numpy as np

    u = bench.Uniform(np.random.default_rng(0))
    picks = [u.below(7) for _ in range(10_000)]  # crosses a block boundary
    assert set(picks) == set(range(7)) and abs(picks.count(0) / 10_000 - 1 / 7) < 0.02


def test_benchmark_what_if_rows_do_what_they_say():
    # the stubbed row keeps the real mask and rules but observes zeros; the forced-applied engine row
    # counts only the decisions raw_env puts to the players
    bench = _bench_module()
    import numpy as np

    case = {c.name: c for c in bench.cases()}
    stubbed, real = case["5T 2p base raw_env, observation stubbed"].make(), case["5T 2p base raw_env"].make()
    for env in (stubbed, real):
        env.reset(seed=3)
        for _ in range(40):
            env.step(env.legal_actions()[0])
    a, b = stubbed.observe(stubbed.agent_selection), real.observe(real.agent_selection)
    assert not a["observation"].any() and b["observation"].any()
    assert a["observation"].shape == b["observation"].shape and np.array_equal(a["action_mask"], b["action_mask"])

    assert case["engine 5T 2p base, forced applied"].count_forced is False
    from five_towers_env.games.five_towers import GameState

    class Recording(GameState):  # notes how many legal actions each applied decision had
        def apply_action(self, action):
            sizes.append(len(self.legal_actions()))
            super().apply_action(action)

    for count_forced in (True, False):
        sizes: list[int] = []
        runner = bench.EngineRunner(lambda rng: Recording.new_game(2, "base", rng), seed=0, count_forced=count_forced)
        while runner.games < 2:
            runner.run(0.05)
        real = sum(n > 1 for n in sizes)
        assert 0 < real < len(sizes)  # both kinds occurred
        assert runner.steps == (len(sizes) if count_forced else real)


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
