"""Journals are checked, not trusted (:mod:`five_towers_env.evaluation.journal_check`): a run started again
from its journal refuses, with one line naming the line and exit 2, any line edited by mistake or damaged
(a moved win, rewritten scores, absurd numbers, a replaced lineup, a line that is not JSON, a missing key, a
garbage header, a huge line); ``--discard-bad-journal-lines`` drops those lines and plays their games again,
ending with the table of a run never stopped. A fuzz test feeds the checker mutated lines and files: each is
accepted unchanged, and then valid, or refused with the typed error."""
from __future__ import annotations

import copy
import csv
import gzip
import json
import random
import shutil
import textwrap
import time
import warnings

import pytest

from five_towers_env.cli import main
from five_towers_env.evaluation.journal import FORMAT, LEGACY_FORMAT, Journal
from five_towers_env.evaluation.journal_check import (
    CHECK,
    MAX_LINE,
    BadJournalLine,
    JournalError,
    JournalMismatch,
    check_line,
    check_record,
    line_check,
)
from five_towers_env.evaluation.match import evaluate

STOPPER = '''
import os
import numpy as np

GAMES = 0


class Stopper:
    """Random play that raises in its third game while STOP is set."""

    name = "stopper"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)
        self.started = False

    def act(self, observation, info):
        global GAMES
        if not self.started:
            self.started = True
            GAMES += 1
        if os.environ.get("STOP") and GAMES > 2:
            raise RuntimeError("stopper stops")
        return int(self.rng.choice(info["legal_actions"]))
'''
TIMINGS = {"think_seconds", "wall_seconds", "sec_per_move"}


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """``(argv without --out, the folder of a run stopped after two games, a whole run's folder)``."""
    root = tmp_path_factory.mktemp("trust")
    agent = root / "stopper.py"
    agent.write_text(textwrap.dedent(STOPPER))
    argv = ["evaluate", "--agents", f"py:path={agent}:Stopper", "random", "--games", "8", "--seed", "5",
            "--no-progress", "--out"]
    mp = pytest.MonkeyPatch()
    mp.setenv("STOP", "1")
    try:
        assert main(argv + [str(root / "stopped")]) == 1
    finally:
        mp.undo()
    journal = root / "stopped" / "evaluate_journal.jsonl"
    assert len(journal.read_text().splitlines()) == 3  # the header and two games
    assert main(argv + [str(root / "whole")]) == 0
    return argv, root / "stopped", root / "whole"


def _games(folder):
    with gzip.open(folder / "evaluate_games.csv.gz", "rt") as f:
        return [{k: v for k, v in row.items() if k not in TIMINGS} for row in csv.DictReader(f)]


def _summary(folder):
    d = json.loads((folder / "evaluate.json").read_text())
    d["config"].pop("wall_seconds")
    for a in d["agents"]:
        a.pop("sec_per_move")
    return d


def _swap_scores(r):
    r["scores"] = r["scores"][::-1]
    r["winners"] = [len(r["scores"]) - 1 - w for w in r["winners"]][::-1]
    r["win_share"], r["margins"] = r["win_share"][::-1], r["margins"][::-1]


def _moved_win(r):
    r["winners"] = [s for s in range(2) if s not in r["winners"]] or [0]
    r["win_share"] = [1.0 if s in r["winners"] else 0.0 for s in range(2)]


def _edit(field, value):
    def edit(r):
        r[field] = value
    return edit


def _drop(field):
    def edit(r):
        del r[field]
    return edit


RECORD_EDITS = {
    "moved win": _moved_win,
    "rewritten scores and winners": _swap_scores,
    "win_share 1e308": _edit("win_share", [1e308, 1e308]),
    "lineup replaced": _edit("lineup", [1, 0]),
    "group replaced": _edit("group", 7),
    "agents swapped": lambda r: r.update(agents=r["agents"][::-1]),
    "missing key": _drop("scores"),
}


def _damage(journal, what):
    """Damage the journal the way ``what`` says; return the line number now bad."""
    lines = journal.read_text().splitlines()
    if what in RECORD_EDITS:
        record = json.loads(lines[2])
        RECORD_EDITS[what](record)
        lines[2] = json.dumps(record)
        bad = 3
    elif what == "not JSON":
        lines[1], bad = lines[1][:-5] + "garbage", 2
    elif what == "huge line":
        lines.insert(2, json.dumps({"pad": "x" * 10_000_000}))
        bad = 3
    elif what == "garbage header":
        lines[0], bad = "\x00\x01 not a header {", 1
    elif what == "edited header digest":
        header = json.loads(lines[0])
        header["digest"] = "0" * 64
        lines[0], bad = json.dumps(header), 1
    else:
        raise AssertionError(what)
    journal.write_text("\n".join(lines) + "\n")
    return bad


DAMAGES = [*RECORD_EDITS, "not JSON", "huge line", "garbage header", "edited header digest"]


@pytest.mark.parametrize("what", DAMAGES)
def test_a_damaged_journal_is_refused_with_its_line_and_exit_2(stopped, tmp_path, capsys, what):
    argv, folder, whole = stopped
    out = tmp_path / "out"
    shutil.copytree(folder, out)
    bad = _damage(out / "evaluate_journal.jsonl", what)
    capsys.readouterr()
    assert main(argv + [str(out)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("five-towers evaluate: error: ") and f"line {bad}:" in err[0]
    assert "Traceback" not in captured.err and len(err[0]) < 1000
    assert not (out / "evaluate.json").exists()
    if bad == 1:  # a header that is not this run's is refused whatever the flag says
        assert main(argv + [str(out), "--discard-bad-journal-lines"]) == 2
        assert "line 1:" in capsys.readouterr().err
        return
    assert "--discard-bad-journal-lines" in err[0]
    # with the flag, the bad line is dropped (named in a warning) and its game played again
    assert main(argv + [str(out), "--discard-bad-journal-lines"]) == 0
    captured = capsys.readouterr()
    warned = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warned) == 1 and f"line {bad}:" in warned[0]
    assert _games(out) == _games(whole) and _summary(out) == _summary(whole)


def test_the_stopped_run_resumes_to_the_same_files(stopped, tmp_path):
    argv, folder, whole = stopped
    out = tmp_path / "out"
    shutil.copytree(folder, out)
    assert main(argv + [str(out)]) == 0
    assert _games(out) == _games(whole) and _summary(out) == _summary(whole)


def test_a_line_that_is_not_this_runs_game_is_refused(stopped, tmp_path, capsys):
    """A line whose check is right (someone computed it again) but whose deal is not the game's."""
    argv, folder, whole = stopped
    out = tmp_path / "out"
    shutil.copytree(folder, out)
    journal = out / "evaluate_journal.jsonl"
    lines = journal.read_text().splitlines()
    digest = json.loads(lines[0])["digest"]
    record = json.loads(lines[1])
    record.pop(CHECK)
    record["deal"] += 5
    lines[1] = json.dumps({**record, CHECK: line_check(digest, record)})
    journal.write_text("\n".join(lines) + "\n")
    assert main(argv + [str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 2:" in err[0] and "deal" in err[0]
    assert main(argv + [str(out), "--discard-bad-journal-lines"]) == 0
    assert _games(out) == _games(whole)


def test_a_journal_binds_its_run_and_reads_the_first_format(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate(["greedy", "random"], num_games=4, progress=False, journal=path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == FORMAT and len(header["digest"]) == 64
    assert all(CHECK in json.loads(line) for line in lines[1:])
    with pytest.raises(JournalMismatch, match="line 1: .*another run"):
        evaluate(["greedy", "random"], num_games=4, progress=False, journal=path, seed=1)
    # a journal of the first format (the committed ladder journals): lines without checks, read and rewritten
    old = {k: v for k, v in header.items() if k != "digest"}
    old["format"] = LEGACY_FORMAT
    plain = [{k: v for k, v in json.loads(line).items() if k != CHECK} for line in lines[1:]]
    path.write_text("\n".join(json.dumps(x) for x in [old, *plain]) + "\n")
    settings = {k: v for k, v in header.items() if k not in ("format", "digest")}
    book = Journal(path, settings)
    assert len(book.records) == 4
    assert json.loads(path.read_text().splitlines()[0]) == header  # rewritten in today's format


def test_the_python_api_raises_the_typed_error(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate(["greedy", "random"], num_games=4, progress=False, journal=path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "{", *lines[1:]]) + "\n")
    with pytest.raises(BadJournalLine) as exc:
        evaluate(["greedy", "random"], num_games=4, progress=False, journal=path)
    assert exc.value.line == 2 and "not JSON" in str(exc.value)
    with pytest.warns(UserWarning, match="line 2"):
        result = evaluate(["greedy", "random"], num_games=4, progress=False, journal=path,
                          discard_bad_journal_lines=True)
    assert len(result.records) == 4


# -- fuzz -------------------------------------------------------------------------------------------

ODD_VALUES = [None, True, False, 0, -1, 1, 2, 3, 2 ** 63, 2 ** 64, -(2 ** 63), 10 ** 30, 0.5, -0.0, 1e308, -1e308,
              1.0, "", "x", "x" * 5000, [], [0], [0, 0], [1, 0], [0, 1, 2], [[0]], {}, {"a": 1}, [1e308, 1e308],
              [0.5, 0.5], [None, None], ["a", "b"]]
RAW_PIECES = [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"\xff\xfe", b"\\ud800", b"[" * 5000, b"{", b"}",
              b",", b'"', b"\x00", b"9" * 5000, b'"check":"x",', b"\n"]


def _sample_lines():
    """Real lines: two and three seats, games won, tied and forfeited (``(line, seats, digest)``)."""
    out = []
    for players, on_error in ((2, "stop"), (3, "forfeit")):
        path = _sample_lines.folder / f"{players}.jsonl"
        agents = ["greedy", "random"] if players == 2 else [_bad_agent, "random"]
        evaluate(agents, num_games=6, num_players=players, field="random" if players == 3 else None,
                 progress=False, journal=path, on_agent_error=on_error)
        lines = path.read_text().splitlines()
        digest = json.loads(lines[0])["digest"]
        out += [(line, players, digest) for line in lines[1:]]
    return out


def _bad_agent(seed=None):
    class Bad:
        name = "bad"

        def act(self, observation, info):
            return -1 if seed is not None and seed % 2 else int(info["legal_actions"][0])
    return Bad()


def _odd(rng):
    """One of ODD_VALUES, as a copy: a shared list put into a record and then mutated would change
    ODD_VALUES itself for every later draw (and could come to hold itself)."""
    return copy.deepcopy(rng.choice(ODD_VALUES))


def _mutate_record(rng, record):
    record = json.loads(json.dumps(record))
    for _ in range(rng.randint(1, 3)):
        keys = list(record)
        op = rng.random()
        if op < 0.45 and keys:
            k = rng.choice(keys)
            if isinstance(record[k], list) and record[k] and rng.random() < 0.5:
                record[k][rng.randrange(len(record[k]))] = _odd(rng)
            else:
                record[k] = _odd(rng)
        elif op < 0.6 and keys:
            del record[rng.choice(keys)]
        elif op < 0.7:
            record[rng.choice(["lineup", "group", "game", "extra", "forfeit", "error"])] = _odd(rng)
        elif op < 0.85 and keys:
            k = rng.choice(keys)
            if isinstance(record[k], list):
                record[k] = record[k][::-1] if rng.random() < 0.5 else record[k] + record[k][:1]
        else:  # a consistent rewrite, where the values allow one
            try:
                _swap_scores(record)
            except (KeyError, TypeError):
                pass
    return record


def _mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(data) + 1)
        if op < 0.3 and data:
            data[min(i, len(data) - 1)] = rng.randrange(256)
        elif op < 0.5:
            data[i:i] = rng.choice(RAW_PIECES)
        elif op < 0.7:
            del data[i:i + rng.randint(1, 20)]
        elif op < 0.85:
            data = data[:i]
        else:
            j = rng.randrange(len(data) + 1)
            data[i:i] = data[min(i, j):max(i, j)][:2000]
    return bytes(data)


def _accepted_unchanged(data, players, digest, record):
    """An accepted line holds exactly what was returned, which is valid on its own and again."""
    parsed = json.loads(data)
    if digest is not None:
        assert parsed.pop(CHECK) == line_check(digest, record)
    assert parsed == record
    check_record(record, players)
    again = json.dumps({**record, CHECK: line_check(digest, record)}) if digest is not None else json.dumps(record)
    assert check_line(again, players, digest) == record


def test_fuzzed_journal_lines_are_accepted_unchanged_or_refused_with_the_typed_error(tmp_path):
    _sample_lines.folder = tmp_path
    samples = _sample_lines()
    assert any("forfeit" in json.loads(line) for line, _, _ in samples)
    rng = random.Random(55)
    start = time.monotonic()
    outcomes = {"accepted": 0, "refused": 0}
    for i in range(12_000):
        line, players, digest = rng.choice(samples)
        record = json.loads(line)
        record.pop(CHECK)
        kind = i % 3
        if kind == 0:  # the content changed and its check computed again: the schema alone decides
            mutated = _mutate_record(rng, record)
            data = json.dumps({**mutated, CHECK: line_check(digest, mutated)}).encode()
        elif kind == 1:  # the content changed, the check left as it was
            data = json.dumps({**_mutate_record(rng, record), CHECK: json.loads(line)[CHECK]}).encode()
        else:  # bytes damaged, checked with and without the run's digest
            data = _mutate_bytes(rng, line.encode() if rng.random() < 0.5 else json.dumps(record).encode())
            digest = digest if rng.random() < 0.5 else None
        try:
            accepted = check_line(data, players, digest)
        except BadJournalLine as exc:
            assert exc.reason and "\n" not in str(exc)
            outcomes["refused"] += 1
        else:
            _accepted_unchanged(data, players, digest, accepted)
            outcomes["accepted"] += 1
    assert outcomes["refused"] > 5000 and outcomes["accepted"] > 100
    # whole files: the reader loads them or refuses them with a JournalError, never anything else
    path = tmp_path / "fuzz.jsonl"
    original = (tmp_path / "2.jsonl").read_bytes()
    header = json.loads(original.splitlines()[0])
    settings = {k: v for k, v in header.items() if k not in ("format", "digest")}
    for _ in range(400):
        path.write_bytes(_mutate_bytes(rng, original))
        for discard in (False, True):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    book = Journal(path, settings, discard_bad_lines=discard)
            except JournalError as exc:
                assert "\n" not in str(exc)
                continue
            for record in book.records.values():
                check_record(record, settings["num_players"])
    assert time.monotonic() - start < 60


def test_a_huge_line_is_never_read_whole(tmp_path):
    path = tmp_path / "j.jsonl"
    evaluate(["greedy", "random"], num_games=2, progress=False, journal=path)
    lines = path.read_text().splitlines()
    header = {k: v for k, v in json.loads(lines[0]).items() if k not in ("format", "digest")}
    path.write_text("\n".join([lines[0], "[" * (MAX_LINE + 1), *lines[1:]]) + "\n")
    with pytest.raises(BadJournalLine, match=f"line 2: longer than {MAX_LINE} bytes"):
        Journal(path, header)
    with pytest.warns(UserWarning, match="line 2"):
        assert len(Journal(path, header, discard_bad_lines=True).records) == 2
    assert len(path.read_text().splitlines()) == 3  # the file now holds the good lines alone
