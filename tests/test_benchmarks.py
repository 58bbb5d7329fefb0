"""The benchmark scripts: bench.py's fresh-process rounds, its tables and its what-if rows; no timed assertions."""
from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    path = ROOT / "benchmarks" / f"{name}.py"
    if not path.exists():  # archived: kept for the figures it reproduces from results/
        path = ROOT / "benchmarks" / "archive" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _bench_module():
    pytest.importorskip("pettingzoo.classic.connect_four_v3")  # the bench extra (pygame)
    return _load("bench")


def _sample(name: str, rate: float, ref: str = "connect_four_v3") -> dict:
    return {"name": name, "ref": ref, "steps_per_s": rate, "games_per_s": rate / 100, "steps_per_game": 100.0}


def _data() -> dict:
    """Three rounds of three rows; A is a headline row, B is not."""
    rates = [(1000, 3000, 1000), (1100, 3300, 1000), (1300, 3000, 1000)]  # A, B, connect_four_v3
    runs = [[_sample("A", a), _sample("B", b), _sample("connect_four_v3", c)] for a, b, c in rates]
    results = [_sample("A", 1100) | {"headline": True}, _sample("B", 3000),
               _sample("connect_four_v3", 1000) | {"headline": True}]
    return {"results": results, "runs": runs}


def test_speed_table_gives_median_ratios_ranges_and_a_headline(capsys, tmp_path):
    table = _load("speed_table")
    lines = table.speed_table(_data()).splitlines()
    assert lines[0] == "| row | agent-steps/s | range | games/s | steps/game | ratio | range | compared with |"
    assert lines[2] == "| A | 1,100 | 1,000-1,300 | 11.0 | 100.0 | 1.10x | 1.00-1.30x | connect_four_v3 |"
    assert lines[3] == "| B | 3,000 | 3,000-3,300 | 30.0 | 100.0 | 3.00x | 3.00-3.30x | connect_four_v3 |"
    assert lines[4] == "| connect_four_v3 | 1,000 | 1,000-1,000 | 10.0 | 100.0 | - | - |  |"
    headline = table.speed_table(_data(), headline=True).splitlines()
    assert headline == lines[:3] + lines[4:]
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(_data()))
    table.main([str(path), "--headline"])
    assert capsys.readouterr().out.strip() == "\n".join(headline)


def test_benchmark_script_runs_every_row_in_its_own_process(tmp_path):
    pytest.importorskip("pettingzoo.classic.connect_four_v3")
    out_json = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, "benchmarks/bench.py", "--seconds", "0", "--warmup", "0", "--rounds", "2",
                           "--only", "engine 5T 2p base", "--only", "connect_four_v3", "--json", str(out_json)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "| engine 5T 2p base |" in done.stdout and "Goals (informational)" in done.stdout
    data = json.loads(out_json.read_text())
    names = ["engine 5T 2p base", "connect_four_v3"]
    assert [r["name"] for r in data["results"]] == names and len(data["runs"]) == 2
    samples = [s for run in data["runs"] for s in run]
    assert all([s["name"] for s in run] == names for run in data["runs"])
    assert len({s["pid"] for s in samples}) == 4  # a fresh process per row and round
    # connect_four_v3's process never imported five_towers_env
    assert [s["five_towers_env_loaded"] for s in samples] == [True, False, True, False]
    assert all(s["steps"] > 0 and s["games"] >= 1 for s in samples)
    for i, row in enumerate(data["results"]):
        assert row["steps_per_s"] == statistics.median(run[i]["steps_per_s"] for run in data["runs"])
        assert row["headline"] is True and row["constructor"]


def test_rounds_alternate_the_order_of_the_rows(monkeypatch):
    bench = _bench_module()
    calls = []
    monkeypatch.setattr(bench, "in_fresh_process", lambda row, *a: calls.append(row.name) or {"name": row.name})
    rows = bench.select(["5T 2p base", "connect_four_v3", "leduc"])
    runs = bench.measure(rows, 0, 0, 0, rounds=3)
    names = [r.name for r in rows]
    assert calls == names + names[::-1] + names
    assert all([s["name"] for s in run] == names for run in runs)


def test_select_picks_an_exact_name_or_else_a_substring():
    bench = _bench_module()
    assert [r.name for r in bench.select(["5T 2p base"])] == ["5T 2p base"]
    assert {r.name for r in bench.select(["Campanile"])} == {"Campanile 2p", "Campanile 2p raw_env",
                                                              "engine Campanile 2p"}
    assert len(bench.select(None)) == len(bench.ROWS)
    headline = {r.name for r in bench.ROWS if r.headline}
    assert {"5T 2p base", "engine 5T 2p base", "connect_four_v3"} <= headline
    assert not headline & {r.name for r in bench.ROWS if r.extra}  # the what-if rows stay out of the headline


def test_benchmark_what_if_rows_do_what_they_say(monkeypatch):
    # the stubbed row keeps the real mask and rules but observes zeros; the forced-applied engine row
    # counts only the decisions raw_env puts to the players (the Python engine's, as bench.py runs them)
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")
    bench = _bench_module()
    row = {r.name: r for r in bench.ROWS}
    stubbed, real = bench.build(row["5T 2p base raw_env, observation stubbed"]), bench.build(row["5T 2p base raw_env"])
    for env in (stubbed, real):
        env.reset(seed=3)
        for _ in range(40):
            env.step(env.legal_actions()[0])
    a, b = stubbed.observe(stubbed.agent_selection), real.observe(real.agent_selection)
    assert not a["observation"].any() and b["observation"].any()
    assert a["observation"].shape == b["observation"].shape and np.array_equal(a["action_mask"], b["action_mask"])

    assert row["engine 5T 2p base, forced applied"].count_forced is False
    from five_towers_env.games.five_towers import GameState

    class Recording(GameState):  # notes how many legal actions each applied decision had
        def apply_action(self, action):
            sizes.append(len(self.legal_actions()))
            super().apply_action(action)

    for count_forced in (True, False):
        sizes: list[int] = []
        decisions, games = bench.play_engine(lambda rng: Recording.new_game(2, "base", rng),
                                             np.random.default_rng(0), 0, count_forced)
        real_choices = sum(n > 1 for n in sizes)
        assert games == 1 and 0 < real_choices < len(sizes)  # one whole game, both kinds occurred
        assert decisions == (len(sizes) if count_forced else real_choices)


def test_interleaved_process_plays_every_row_and_the_tables_compare_ways():
    _bench_module()
    interleaving = _load("interleaving")
    got = interleaving.interleaved(0, 0, 1, 0)  # one whole game per row
    assert set(got) == {r.name for r in interleaving.bench.ROWS}
    assert all(s["games"] == 1 and s["steps"] > 0 for s in got.values())

    def way(c4: float, ft: float) -> dict:
        return {"connect_four_v3": _sample("connect_four_v3", c4) | {"gc_collections": [0, 0, 0]},
                "5T 2p base": _sample("5T 2p base", ft) | {"gc_collections": [9, 3, 1]}}

    rounds = [{"interleaved": way(900, 1000), "fresh": way(1000, 1000)},
              {"interleaved": way(800, 1000), "fresh": way(1000, 1100)}]
    names = ["connect_four_v3", "5T 2p base"]
    ratios = interleaving.table(rounds, names, interleaving.ratio, ".3f").splitlines()
    assert ratios[0] == "| row | interleaved | fresh |"
    assert ratios[3] == "| 5T 2p base | 1.181 (1.111-1.250) | 1.050 (1.000-1.100) |"
    to_alone = interleaving.table(rounds, names, interleaving.to_alone, ".2f").splitlines()
    assert to_alone[2] == "| connect_four_v3 | 0.85 (0.80-0.90) | - |"
    gcs = interleaving.table(rounds, names, interleaving.full_gcs, "g").splitlines()
    assert gcs[3] == "| 5T 2p base | 1 (1-1) | 1 (1-1) |"


def test_twin_rows_in_one_process_replay_each_others_games(monkeypatch):
    # why the earlier one-process benchmark flattered some five_towers rows: seeded alike, the wrapped
    # and the raw Great Powers env played the very same games, so the second found every look-ahead
    # in the memos the first had filled. bench.py gives every row a process of its own.
    monkeypatch.setenv("FIVE_TOWERS_ENGINE", "python")  # the Python engine's memos, as bench.py runs by default
    bench = _bench_module()
    from five_towers_env.games.five_towers import lookahead_base as lookahead  # its memos

    def misses() -> int:
        return sum(memo.cache_info().misses for memo in lookahead._MEMOS)

    row = {r.name: r for r in bench.ROWS}
    wrapped, raw = row["5T 2p great_powers"], row["5T 2p great_powers raw_env"]
    for memo in lookahead._MEMOS:
        memo.cache_clear()
    decisions, games = bench.play_env(bench.build(wrapped), np.random.default_rng(0), 0, 0)  # one whole game
    filled = misses()
    assert games == 1 and filled > 0
    assert bench.play_env(bench.build(raw), np.random.default_rng(0), 0, 0) == (decisions, 1)  # the same game
    assert misses() == filled  # ... and every look-ahead it asked was already memoised
    bench.play_env(bench.build(raw), np.random.default_rng(1), 1, 0)  # another game
    assert misses() > filled


def test_speed_doc_tables_are_the_result_files(capsys):
    # docs/speed.md pastes speed_table.py's two tables and quotes interleaving.py's report; both from results/
    table = _load("speed_table")
    data = json.loads((ROOT / "results" / "benchmark" / "benchmark.json").read_text())
    doc = (ROOT / "docs" / "speed.md").read_text()
    assert table.speed_table(data) in doc and table.speed_table(data, headline=True) in doc
    _bench_module().report(data)  # ... and the stdout file is what bench.py printed for that file
    assert capsys.readouterr().out + "\nwrote results/benchmark/benchmark.json\n" == (
        ROOT / "results" / "benchmark" / "stdout.txt").read_text()
    _load("interleaving").main(["--report", str(ROOT / "results" / "interleaving" / "interleaving.json")])
    assert capsys.readouterr().out == (ROOT / "results" / "interleaving" / "stdout.txt").read_text()
