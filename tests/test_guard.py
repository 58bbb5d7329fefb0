"""A bad agent never costs a run (:mod:`five_towers_env.evaluation.guard`, the journal of
:mod:`five_towers_env.evaluation.journal`): each failure is one line naming the agent, seat, game, what it
returned and the legal actions; it forfeits the game or stops the run; a stopped run, run again, ends with
the same files as one never stopped."""
from __future__ import annotations

import csv
import gzip
import json
import textwrap
import time

import numpy as np
import pytest

from five_towers_env.cli import main
from five_towers_env.evaluation.guard import AgentError, GuardedAgent
from five_towers_env.evaluation.journal import Journal
from five_towers_env.evaluation.journal_check import JournalMismatch
from five_towers_env.evaluation.match import evaluate
from five_towers_env.evaluation.tournament import round_robin


class Returns:
    """Returns a fixed value on every decision (or raises it, if it is an exception)."""

    name = "returns"

    def __init__(self, value):
        self.value = value

    def act(self, observation, info):
        if isinstance(self.value, Exception):
            raise self.value
        if isinstance(self.value, str) and self.value == "sleep":
            time.sleep(1.0)
            return info["legal_actions"][0]
        return self.value


@pytest.mark.parametrize("value, kind, words", [
    (-1, "illegal", "returned -1, not a legal action"),
    (2.0, "malformed", "returned 2.0, not an action id"),
    ("a", "malformed", "returned 'a', not an action id"),
    (None, "malformed", "returned None, not an action id"),
    (np.array([1, 2]), "malformed", "not an action id"),
    (True, "malformed", "returned True"),
    (RuntimeError("boom\nsecond line"), "raised", "raised RuntimeError: boom"),
    ("sleep", "timeout", "--move-timeout 0.2 s"),
])
def test_each_failure_is_one_line_naming_agent_seat_game_value_and_legal_actions(value, kind, words):
    guarded = GuardedAgent(Returns(value), "my-agent", seat=1, game_number=7, move_timeout=0.2)
    obs = {"action_mask": np.array([0, 1, 1, 0], dtype=np.int8)}
    with pytest.raises(AgentError) as exc:
        guarded.act(obs, {"legal_actions": [1, 2]})
    message = str(exc.value)
    assert "\n" not in message and words in message
    assert "agent my-agent (seat 1) in game 7" in message and "legal actions [1, 2]" in message
    assert exc.value.kind == kind and exc.value.seat == 1


def test_numpy_and_zero_d_actions_are_accepted():
    for value in (np.int64(2), np.array(2), np.array([2])):
        assert GuardedAgent(Returns(value), "a", 0, 0).act({}, {"legal_actions": [1, 2]}) == 2


def _illegal(seed=None):
    return Returns(-1)


@pytest.mark.parametrize("workers", [1, 2])
def test_stop_raises_the_agents_error_from_any_worker(workers):
    with pytest.raises(AgentError, match="returned -1"):
        evaluate([_illegal, "random"], num_games=4, progress=False, workers=workers)


@pytest.mark.parametrize("players", [2, 3])
def test_forfeit_loses_the_game_and_is_counted(players):
    result = evaluate([_illegal], num_games=2 * players, num_players=players, field="random",
                      on_agent_error="forfeit", progress=False)
    me, field = result.agents
    assert me["forfeits"] == 2 * players and me["wins"] == 0 and field["forfeits"] == 0
    for r in result.records:
        assert r["win_share"][r["forfeit"]] == 0 and sum(r["win_share"]) == pytest.approx(1)
        assert "returned -1" in r["error"]
    assert "forfeited" in result.table()
    t = round_robin([_illegal, "random"], games=2, progress=False, on_agent_error="forfeit")
    assert t.cell(1, 0)["win_rate"] == 1.0 and t.config["forfeits"] == 2


FLAKY = '''
import os
import numpy as np

CALLS = 0


class Flaky:
    """Random play that raises after FAIL_AFTER decisions in this process while FAIL_AFTER is set."""

    name = "flaky"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, info):
        global CALLS
        CALLS += 1
        limit = os.environ.get("FAIL_AFTER")
        if limit and CALLS > int(limit):
            raise RuntimeError("flaky gave up")
        return int(self.rng.choice(info["legal_actions"]))
'''
TIMINGS = {"think_seconds", "wall_seconds", "sec_per_move"}


def _games(folder):
    with gzip.open(folder / "evaluate_games.csv.gz", "rt") as f:
        return [{k: v for k, v in row.items() if k not in TIMINGS} for row in csv.DictReader(f)]


def _summary(folder):
    d = json.loads((folder / "evaluate.json").read_text())
    d["config"].pop("wall_seconds")
    for a in d["agents"]:
        a.pop("sec_per_move")
    return d


def test_a_stopped_run_continues_where_it_stopped_and_ends_with_the_same_files(tmp_path, monkeypatch, capsys):
    agent_file = tmp_path / "flaky.py"
    agent_file.write_text(textwrap.dedent(FLAKY))
    argv = ["evaluate", "--game", "campanile", "--agents", f"py:path={agent_file}:Flaky", "heuristic", "--games",
            "12", "--seed", "4", "--no-progress", "--out"]
    monkeypatch.setenv("FAIL_AFTER", "100")
    stopped = tmp_path / "stopped"
    assert main(argv + [str(stopped)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "flaky gave up" in err[0] and "seat" in err[0] and "run the same command again" in err[0]
    journal = stopped / "evaluate_journal.jsonl"
    kept = len(journal.read_text().splitlines()) - 1
    assert 0 < kept < 12 and not (stopped / "evaluate.json").exists()
    monkeypatch.delenv("FAIL_AFTER")
    assert main(argv + [str(stopped)]) == 0
    assert not journal.exists()
    whole = tmp_path / "whole"
    assert main(argv + [str(whole)]) == 0
    assert _games(stopped) == _games(whole) and _summary(stopped) == _summary(whole)


def test_a_journal_of_another_run_is_refused_and_a_cut_off_line_dropped(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate(["greedy", "random"], num_games=4, progress=False, journal=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 5
    path.write_text("\n".join(lines[:4]) + "\n" + lines[4][:20])  # a crash mid-line
    header = {k: v for k, v in json.loads(lines[0]).items() if k != "format"}
    assert len(Journal(path, header).records) == 3  # the cut-off fourth game is dropped
    result = evaluate(["greedy", "random"], num_games=4, progress=False, journal=path)
    assert len(result.records) == 4 and len(path.read_text().splitlines()) == 5
    with pytest.raises(JournalMismatch, match="another run"):
        evaluate(["greedy", "random"], num_games=4, progress=False, journal=path, num_players=3, field="random")
