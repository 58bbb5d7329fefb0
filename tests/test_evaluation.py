"""Evaluation, tournaments and the command line: reproducibility, seat rotation, statistics, end-to-end CLI."""
from __future__ import annotations

import csv
import importlib.util
import json
import math
import sys

import pytest

from five_towers_env.agents.base import RandomAgent
from five_towers_env.cli import main
from five_towers_env.evaluation import (AgentSpec, elo_ratings, evaluate, parse_agent_spec, round_robin,
                                        seat_lineup, wilson_interval)
from five_towers_env.evaluation.match import summarize
from five_towers_env.evaluation.tournament import pairwise_counts

HAS_MPL = importlib.util.find_spec("matplotlib") is not None
TIMING = ("think_seconds", "wall_seconds")


def named_random(seed=None):
    """A top-level (picklable) agent factory."""
    return RandomAgent(seed=seed, name="named")


def _strip(records):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in records]


def _summary(rows):
    return [{k: v for k, v in r.items() if k != "sec_per_move"} for r in rows]


# -- statistics -------------------------------------------------------------------------------

def test_wilson_interval_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.403832, abs=1e-6) and hi == pytest.approx(0.596168, abs=1e-6)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=1e-6)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.722467, abs=1e-6) and hi == 1.0
    lo, hi = wilson_interval(81, 263)  # Wilson (1927)-style textbook example
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)
    # symmetric, and fractional (shared) wins are allowed
    lo, hi = wilson_interval(3.5, 10)
    lo2, hi2 = wilson_interval(6.5, 10)
    assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_elo_from_bradley_terry():
    a, b = elo_ratings([[0, 75], [25, 0]], prior=0.0)
    assert a - b == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert (a + b) / 2 == pytest.approx(1500)
    # an unbeaten agent still gets a finite rating; equal records give equal ratings
    r = elo_ratings([[0, 10, 10], [0, 0, 5], [0, 5, 0]])
    assert all(math.isfinite(x) for x in r) and r[0] > r[1] == pytest.approx(r[2])


def test_shared_wins_count_fractionally():
    records = [
        {"lineup": [0, 1, 2], "scores": [5, 5, 3], "win_share": [0.5, 0.5, 0.0], "margins": [0, 0, -2],
         "moves": [1, 1, 1], "think_seconds": [0.1, 0.1, 0.1]},
        {"lineup": [1, 2, 0], "scores": [9, 2, 4], "win_share": [1.0, 0.0, 0.0], "margins": [5, -7, -5],
         "moves": [2, 2, 2], "think_seconds": [0.2, 0.2, 0.2]},
    ]
    rows = {r["agent"]: r for r in summarize(["a", "b", "c"], records)}
    assert rows["a"]["wins"] == 0.5 and rows["a"]["shared_wins"] == 1 and rows["a"]["games"] == 2
    assert rows["b"]["wins"] == 1.5 and rows["b"]["win_rate"] == 0.75
    assert rows["c"]["wins"] == 0.0
    assert rows["a"]["mean_margin"] == -2.5 and rows["b"]["mean_score"] == 7.0
    assert rows["a"]["sec_per_move"] == pytest.approx(0.1)
    assert sum(r["wins"] for r in rows.values()) == len(records)
    wins, n = pairwise_counts(3, records)
    assert wins[0][1] == 0.5 + 0.0 and n[0][1] == 2 and wins[1][0] == 0.5 + 1.0


# -- agent specs ------------------------------------------------------------------------------

def test_agent_specs():
    spec = parse_agent_spec("mcts:simulations=100,c=1.4,mode=fast,flag=true")
    assert spec.name == "mcts" and dict(spec.kwargs) == {"simulations": 100, "c": 1.4, "mode": "fast", "flag": True}
    assert spec.label == "mcts:simulations=100,c=1.4,mode=fast,flag=true"
    with pytest.raises(ValueError, match="unknown agent"):
        parse_agent_spec("nope")
    with pytest.raises(ValueError, match="bad agent setting"):
        parse_agent_spec("random:oops")
    assert AgentSpec("f", factory=named_random).build(3).name == "named"


# -- seat rotation and reproducibility --------------------------------------------------------

def test_seat_lineup_patterns():
    assert [seat_lineup(i, 2, 2) for i in range(2)] == [(0, 1), (1, 0)]
    assert [seat_lineup(i, 2, 4) for i in range(2)] == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert [seat_lineup(i, 3, 2) for i in range(3)] == [(0, 1), (1, 2), (2, 0)]
    for k, p in [(2, 3), (3, 3), (4, 5), (5, 2)]:
        cycle = [seat_lineup(i, k, p) for i in range(k)]
        for seat in range(p):  # every agent sits in every seat exactly once per cycle
            assert sorted(c[seat] for c in cycle) == list(range(k))


@pytest.mark.parametrize("agents,players,games", [(["random", "random"], 2, 6), (["random", "random", "random"], 3, 6),
                                                  (["random", "random"], 4, 4)])
def test_seats_rotated(agents, players, games):
    res = evaluate(agents, num_games=games, num_players=players, seed=1, progress=False)
    per_seat = games * players // len(agents) // players
    for row in res.agents:
        assert row["seat_games"] == [per_seat] * players
        assert row["games"] == games * players // len(agents)
    for i, rec in enumerate(res.records):
        assert rec["lineup"] == list(seat_lineup(i, len(agents), players))
    assert res.config["balanced"]
    # paired deals: the rotations of a cycle replay one deal, and cycles differ
    seeds = [r["deal_seed"] for r in res.records]
    k = len(agents)
    assert all(seeds[i] == seeds[i - i % k] for i in range(games)) and len(set(seeds)) == games // k


def test_results_reproducible_regardless_of_workers():
    kwargs = dict(num_games=6, num_players=2, seed=11, progress=False)
    one = evaluate(["random", named_random], workers=1, **kwargs)
    two = evaluate(["random", named_random], workers=2, **kwargs)
    assert one.labels == ["random", "named_random"]
    assert _strip(one.records) == _strip(two.records)
    assert _summary(one.agents) == _summary(two.agents)
    other = evaluate(["random", named_random], workers=1, **{**kwargs, "seed": 12})
    assert _strip(other.records) != _strip(one.records)
    unpaired = evaluate(["random", named_random], workers=1, paired=False, **kwargs)
    assert len({r["deal_seed"] for r in unpaired.records}) == 6
    # the other variant and more seats, too
    kwargs = dict(num_games=3, num_players=3, variant="great_powers", seed=2, progress=False)
    assert _strip(evaluate(["random"] * 3, workers=1, **kwargs).records) == \
        _strip(evaluate(["random"] * 3, workers=3, **kwargs).records)


def test_unbalanced_games_warn():
    with pytest.warns(UserWarning, match="not a multiple"):
        res = evaluate(["random", "random"], num_games=3, seed=0, progress=False)
    assert not res.config["balanced"]


# -- tournament -------------------------------------------------------------------------------

def test_round_robin_matrix_and_ratings(monkeypatch):
    res = round_robin(["random", "random", "random"], games=4, num_players=2, seed=3, progress=False)
    assert res.groups == [["random", "random#2"], ["random", "random#3"], ["random#2", "random#3"]]
    m = res.matrix()
    for i in range(3):
        assert math.isnan(m[i][i])
        for j in range(3):
            if i != j:
                assert res.counts[i][j] == 4 and m[i][j] + m[j][i] == pytest.approx(1.0)
    assert sum(r["elo"] for r in res.overall) / 3 == pytest.approx(1500)
    # the pairs' games do not depend on which other agents are in the tournament
    small = round_robin(["random", "random"], games=4, num_players=2, seed=3, progress=False)
    assert _strip(small.records) == _strip([r for r in res.records if r["group"] == 0])
    # optional openskill: skipped gracefully without it
    monkeypatch.setitem(sys.modules, "openskill", None)
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    no_skill = round_robin(["random", "random", "random"], games=3, num_players=3, seed=3, progress=False)
    assert no_skill.openskill is None and "OpenSkill ratings skipped" in no_skill.table()


def test_plot_skipped_without_matplotlib(monkeypatch, tmp_path):
    res = round_robin(["random", "random"], games=2, seed=0, progress=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        assert res.plot(tmp_path / "m.png") is None
    assert not (tmp_path / "m.png").exists()


# -- command line -----------------------------------------------------------------------------

def _read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_cli_evaluate(tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["evaluate", "--agents", "random", "random", "--games", "4", "--players", "2", "--variant", "base",
                 "--seed", "0", "--workers", "2", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "random#2" in text
    summary = _read_csv(out / "evaluate_summary.csv")
    assert [r["agent"] for r in summary] == ["random", "random#2"]
    assert sum(float(r["wins"]) for r in summary) == pytest.approx(4)
    assert len(_read_csv(out / "evaluate_games.csv")) == 4
    data = json.loads((out / "evaluate.json").read_text())
    assert data["config"]["num_games"] == 4 and len(data["games"]) == 4 and len(data["agents"]) == 2
    assert all(0 <= a["ci_low"] <= a["win_rate"] <= a["ci_high"] <= 1 for a in data["agents"])


def test_cli_tournament(tmp_path, capsys):
    out = tmp_path / "tour"
    assert main(["tournament", "--agents", "random", "random", "random", "--games", "2", "--players", "2",
                 "--seed", "1", "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    assert "Elo" in capsys.readouterr().out
    matrix = _read_csv(out / "tournament_matrix.csv")
    assert [r["agent"] for r in matrix] == ["random", "random#2", "random#3"] and matrix[0]["random"] == ""
    assert len(_read_csv(out / "tournament_pairs.csv")) == 6
    assert len(_read_csv(out / "tournament_ratings.csv")) == 3
    data = json.loads((out / "tournament.json").read_text())
    assert len(data["matrix"]) == 3 and data["matrix"][0][0] is None and len(data["games"]) == 6
    assert (out / "tournament.md").read_text().startswith("# round robin")
    assert (out / "tournament_matrix.png").exists() == HAS_MPL
    if HAS_MPL:
        assert (out / "tournament_matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_play_replays_an_evaluation_game(capsys):
    res = evaluate(["random", named_random], num_games=4, num_players=2, seed=5, progress=False)
    rec = res.records[3]
    assert main(["play", "--agents", "random", "random:name='named'", "--seed", "5", "--game", "3", "--quiet"]) == 0
    text = capsys.readouterr().out
    # game 3 puts agent 1 in seat 0; RandomAgent's name does not change its moves
    labels = ["random", "random:name='named'"]
    expected = ", ".join(f"seat {s} ({labels[a]}) {sc}" for s, (a, sc) in enumerate(zip(rec["lineup"], rec["scores"])))
    assert f"final scores: {expected}" in text


def test_cli_rejects_bad_agents(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--agents", "random", "no_such_agent", "--games", "2"])
    assert "unknown agent" in capsys.readouterr().err
