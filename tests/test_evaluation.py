"""Evaluation, tournaments and the command line: reproducibility, seat rotation, statistics, end-to-end CLI."""
from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import math
import sys

import pytest

from five_towers_env.agents.registry import _parse_value
from five_towers_env.cli import main
from five_towers_env.core.agent import RandomAgent
from five_towers_env.evaluation import (
    AgentSpec,
    cluster_rate,
    elo_ratings,
    evaluate,
    parse_agent_spec,
    round_robin,
    seat_lineup,
    wilson_interval,
)
from five_towers_env.evaluation.outcomes import pairwise_counts, pairwise_outcomes
from five_towers_env.evaluation.summary import seat_summary, summarize

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
    # strict: only b's sole win in the second game counts
    assert [rows[x]["strict_wins"] for x in "abc"] == [0, 1, 0]
    assert rows["a"]["strict_win_rate"] == 0.0 and rows["b"]["strict_win_rate"] == 0.5
    assert rows["b"]["strict_ci_high"] < rows["b"]["ci_high"] and rows["a"]["strict_ci_low"] == 0.0
    # records without a deal index are each their own cluster: the plain Wilson interval
    assert rows["b"]["deals"] == 2 and (rows["b"]["ci_low"], rows["b"]["ci_high"]) == wilson_interval(1.5, 2)
    assert rows["a"]["mean_margin"] == -2.5 and rows["b"]["mean_score"] == 7.0
    assert rows["a"]["sec_per_move"] == pytest.approx(0.1)
    assert sum(r["wins"] for r in rows.values()) == len(records)
    wins, n = pairwise_counts(3, records)
    assert wins[0][1] == 0.5 + 0.0 and n[0][1] == 2 and wins[1][0] == 0.5 + 1.0


# -- agent specs ------------------------------------------------------------------------------

def test_agent_specs():
    spec = parse_agent_spec("mcts:simulations=100,race_z=1.5,rollout_rounds=none")
    assert spec.name == "mcts" and dict(spec.kwargs) == {"simulations": 100, "race_z": 1.5, "rollout_rounds": None}
    assert spec.label == "mcts:simulations=100,race_z=1.5,rollout_rounds=none"
    assert [_parse_value(v) for v in ("true", "False", "none", "'x'", "fast")] == [True, False, None, "x", "fast"]
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
        assert row["games"] == games  # every agent sits in every game here (no more agents than seats)
        assert row["n_seat_games"] == games * players // len(agents) == sum(row["seat_games"])
        assert row["deals"] == games // len(agents)
    for i, rec in enumerate(res.records):
        assert rec["lineup"] == list(seat_lineup(i, len(agents), players))
        assert rec["deal"] == i // len(agents)
    assert res.config["balanced"]
    # paired deals: the rotations of a cycle replay one deal, and cycles differ
    seeds = [r["deal_seed"] for r in res.records]
    k = len(agents)
    assert all(seeds[i] == seeds[i - i % k] for i in range(games)) and len(set(seeds)) == games // k


def test_results_reproducible_regardless_of_workers():
    kwargs = {"num_games": 6, "num_players": 2, "seed": 11, "progress": False}
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
    kwargs = {"num_games": 3, "num_players": 3, "variant": "great_powers", "seed": 2, "progress": False}
    assert _strip(evaluate(["random"] * 3, workers=1, **kwargs).records) == \
        _strip(evaluate(["random"] * 3, workers=3, **kwargs).records)


def test_one_agent_counts_games_not_seats(capsys):
    """One agent fills every seat: ``games`` is the number of games played; the seat-games are separate."""
    res = evaluate(["random"], num_games=4, seed=0, progress=False)
    (row,) = res.agents
    assert row["games"] == 4 and row["n_seat_games"] == 8 and row["seat_games"] == [4, 4]
    assert row["wins"] == 4 and row["win_rate"] == 0.5  # itself against itself: 1/players by construction
    text = res.table()
    assert "seat-games" in text and "plays itself" in text
    assert main(["evaluate", "--agents", "random", "--games", "4", "--workers", "1", "--no-progress"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("random "))
    assert line.split()[1:4] == ["4", "8", "4"]  # games, seat-games, wins
    # two agents in four seats: 6 games, 12 seat-games each
    two = evaluate(["random", "random"], num_games=6, num_players=4, seed=0, progress=False)
    assert [(r["games"], r["n_seat_games"]) for r in two.agents] == [(6, 12), (6, 12)]


def _deal_records(winners, paired=True):
    """2-player records, two seatings per deal when ``paired``: ``winners[i]`` (agent 0 or 1) wins game i."""
    recs = []
    for i, w in enumerate(winners):
        lineup = [0, 1] if i % 2 == 0 else [1, 0]
        share = [1.0 if a == w else 0.0 for a in lineup]
        recs.append({"group": 0, "game": i, "deal": i // 2 if paired else i, "lineup": lineup,
                     "scores": [10 if x else 5 for x in share], "win_share": share,
                     "margins": [5 if x else -5 for x in share], "moves": [1, 1], "think_seconds": [0.0, 0.0]})
    return recs


def test_intervals_are_clustered_by_deal():
    # 30 deals: agent 0 wins both seatings of 20, agent 1 both seatings of 10 (perfect correlation)
    winners = [0, 0] * 20 + [1, 1] * 10
    paired = summarize(["a", "b"], _deal_records(winners))[0]
    naive = wilson_interval(40, 60)
    assert paired["win_rate"] == pytest.approx(2 / 3) and paired["deals"] == 30
    assert paired["design_effect"] == pytest.approx(2 * 59 / 58)
    width = paired["ci_high"] - paired["ci_low"]
    assert width > 1.35 * (naive[1] - naive[0])
    assert (paired["ci_low"], paired["ci_high"]) == pytest.approx(wilson_interval(20, 30), abs=2e-3)
    assert paired["ci_low"] < 2 / 3 < paired["ci_high"]
    # the same games as independent deals: exactly the plain Wilson interval
    unpaired = summarize(["a", "b"], _deal_records(winners, paired=False))[0]
    assert unpaired["deals"] == 60 and (unpaired["ci_low"], unpaired["ci_high"]) == pytest.approx(naive, abs=1e-12)
    # seats: each seat won 30 of 60 games; seat intervals are clustered too
    seats = seat_summary(_deal_records(winners))
    assert [s["games"] for s in seats] == [60, 60] and all(s["win_rate"] == 0.5 for s in seats)
    # (within a deal the seat outcomes are opposite: no inflation, the plain interval)
    assert (seats[0]["ci_low"], seats[0]["ci_high"]) == pytest.approx(wilson_interval(30, 60), abs=1e-12)


def test_seeded_baselines():
    res = evaluate(["random", "greedy"], num_games=20, seed=0, progress=False)
    rnd, greedy = res.agents
    assert rnd["win_rate"] < 0.3 and rnd["ci_high"] < 0.5 and greedy["ci_low"] > 0.5
    assert rnd["wins"] + greedy["wins"] == 20
    # 2 players: every game is a sole win of one agent or a tie shared by both
    assert rnd["strict_wins"] + greedy["strict_wins"] + rnd["shared_wins"] == 20
    assert rnd["shared_wins"] == greedy["shared_wins"]
    for row in (rnd, greedy):
        assert row["strict_win_rate"] <= row["win_rate"] and row["deals"] == 10
        assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
        shares = [r["win_share"][r["lineup"].index(res.labels.index(row["agent"]))] for r in res.records]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            (lambda c: (c.ci_low, c.ci_high))(cluster_rate(shares, [r["deal"] for r in res.records])), abs=1e-12)
    assert [s["games"] for s in res.seats] == [20, 20]
    assert res.seats[0]["wins"] + res.seats[1]["wins"] == 20


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
    # pair cells: 4 comparisons from 2 deals; the interval clusters them by deal
    cell = res.cell(0, 1)
    values, clusters = pairwise_outcomes(res.records)[(0, 1)]
    assert cell["games"] == 4 and cell["deals"] == 2 and len(set(clusters)) == 2
    ref = cluster_rate(values, clusters)
    assert (cell["ci_low"], cell["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high), abs=1e-12)
    assert cell["strict_win_rate"] <= cell["win_rate"] and cell["strict_wins"] == sum(v == 1.0 for v in values)
    unpaired = round_robin(["random", "random"], games=4, num_players=2, seed=3, progress=False, paired=False)
    c = unpaired.cell(0, 1)
    assert c["deals"] == 4 and (c["ci_low"], c["ci_high"]) == pytest.approx(wilson_interval(c["wins"], 4), abs=1e-12)
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
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", newline="") as fh:
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
    assert len(_read_csv(out / "evaluate_games.csv.gz")) == 4
    games = _read_csv(out / "evaluate_games.csv.gz")
    assert [int(g["deal"]) for g in games] == [0, 0, 1, 1]
    data = json.loads((out / "evaluate.json").read_text())
    assert data["config"]["num_games"] == 4 and "games" not in data and len(data["agents"]) == 2  # games: CSV
    assert "clusters = deals" in data["config"]["win_convention"] and "sole wins" in data["config"]["win_convention"]
    # the CSV's intervals are those of the games, clustered by deal, for both rates
    for row in summary:
        seat = [g["agents"].split(";").index(row["agent"]) for g in games]
        shares = [float(g["win_share"].split(";")[s]) for g, s in zip(games, seat)]
        deals = [g["deal"] for g in games]
        for prefix, values in (("", shares), ("strict_", [float(x == 1.0) for x in shares])):
            ref = cluster_rate(values, deals)
            assert float(row[f"{prefix}win_rate"]) == pytest.approx(ref.rate)
            assert float(row[f"{prefix}ci_low"]) == pytest.approx(ref.ci_low)
            assert float(row[f"{prefix}ci_high"]) == pytest.approx(ref.ci_high)
    assert "strict win rate" in text


def test_cli_tournament(tmp_path, capsys):
    out = tmp_path / "tour"
    assert main(["tournament", "--agents", "random", "random", "random", "--games", "2", "--players", "2",
                 "--seed", "1", "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    assert "Elo" in capsys.readouterr().out
    matrix = _read_csv(out / "tournament_matrix.csv")
    assert [r["agent"] for r in matrix] == ["random", "random#2", "random#3"] and matrix[0]["random"] == ""
    pairs = _read_csv(out / "tournament_pairs.csv")
    assert len(pairs) == 6 and all(p["deals"] == "1" for p in pairs)  # 2 games per pair = 1 paired deal
    assert {"strict_win_rate", "strict_ci_low", "strict_ci_high"} <= set(pairs[0])
    ratings = _read_csv(out / "tournament_ratings.csv")
    assert len(ratings) == 3 and all(r["games"] == "4" and r["deals"] == "2" for r in ratings)
    assert {"strict_win_rate", "strict_ci_low", "strict_ci_high"} <= set(ratings[0])
    data = json.loads((out / "tournament.json").read_text())
    assert len(data["matrix"]) == 3 and data["matrix"][0][0] is None and "games" not in data
    assert len(_read_csv(out / "tournament_games.csv.gz")) == 6
    md = (out / "tournament.md").read_text()
    assert md.startswith("# round robin") and "clusters = deals" in md and "strict win rate" in md
    assert (out / "tournament_matrix.png").exists() == HAS_MPL
    if HAS_MPL:
        assert (out / "tournament_matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_play_replays_an_evaluation_game(capsys):
    res = evaluate(["random", named_random], num_games=4, num_players=2, seed=5, progress=False)
    rec = res.records[3]
    assert main(["play", "--agents", "random", "random:name='named'", "--seed", "5", "--game-index", "3",
                 "--quiet"]) == 0
    text = capsys.readouterr().out
    # game 3 puts agent 1 in seat 0; RandomAgent's name does not change its moves
    labels = ["random", "random:name='named'"]
    expected = ", ".join(f"seat {s} ({labels[a]}) {sc}" for s, (a, sc) in enumerate(zip(rec["lineup"], rec["scores"])))
    assert f"final scores: {expected}" in text


def test_cli_rejects_bad_agents(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--agents", "random", "no_such_agent", "--games", "2"])
    assert "unknown agent" in capsys.readouterr().err


def test_final_evaluation_table_saved(tmp_path):
    """The table ``five-towers train`` prints at the end is also written into the run folder."""
    from five_towers_env.core.game import get_game
    from five_towers_env.training.ppo.config import TrainConfig
    from five_towers_env.training.ppo.eval_games import final_evaluation

    cfg = TrainConfig(name="run", out_dir=str(tmp_path), eval_opponents=["random"], seed=0)
    text = final_evaluation(get_game("five_towers").policy_path(2, "base"), cfg, 4, progress=False)
    md = (tmp_path / "run" / "final_eval.md").read_text()
    table = text.splitlines()[1:-1]
    assert "strict win rate" in table[0] and table[2].split()[:2] == ["random", "4"]
    assert "\n".join(table) in md and text.splitlines()[0] in md and "clusters = deals" in md
    data = json.loads((tmp_path / "run" / "final_eval.json").read_text())
    (row,) = data["rows"]
    assert row["opponent"] == "random" and row["games"] == 4 and row["deals"] == 2 and data["games"] == 4
    assert row["win_rate"] == pytest.approx(float(table[2].split()[2]), abs=5e-4)
    assert {"strict_win_rate", "strict_ci_low", "strict_ci_high"} <= set(row)


def test_importing_the_package_loads_none_of_its_modules():
    """``import five_towers_env.evaluation`` loads only the package: each name is loaded from the module that
    defines it on first use (and then is that module's object), as is each module named as an attribute."""
    import subprocess

    code = ("import sys\nimport five_towers_env\nbefore = set(sys.modules)\nimport five_towers_env.evaluation as ev\n"
            "print(sorted(m for m in set(sys.modules) - before if m.startswith('five_towers_env')))\n"
            "from five_towers_env.evaluation import stats, tournament\n"
            "print(ev.elo_ratings is stats.elo_ratings, ev.round_robin is tournament.round_robin, "
            "'five_towers_env.evaluation.ladder' in sys.modules, ev.ladder.__name__, 'evaluate' in dir(ev))\n"
            "try:\n    ev.no_such_thing\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["['five_towers_env.evaluation']",
                                "True True False five_towers_env.evaluation.ladder True",
                                "module 'five_towers_env.evaluation' has no attribute 'no_such_thing'"]
