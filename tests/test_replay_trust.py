"""Replays check what they show (issue 55): forged winners, records that stop early, placeholders in
labels, unreadable files and a user's own ``provenance.json``; and a fuzz test of the record reader.

Every crafted record is made here from a real recorded game; nothing is stored as a blob.
"""
from __future__ import annotations

import copy
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from five_towers_env.agents.registry import make_agent
from five_towers_env.play import play_game
from five_towers_env.replay import (
    GameRecorder,
    RecordError,
    build_html,
    check_replay,
    dumps_record,
    frame_state,
    loads_record,
    result_line,
)

ROOT = Path(__file__).resolve().parents[1]


def record_game(game: str = "five_towers", labels: tuple[str, ...] = ("greedy", "random"), seed: int = 3) -> dict:
    recorder = GameRecorder(list(labels), {"variant": "base" if game == "five_towers" else "pile"})
    play_game([make_agent(name, seed=i, game=game) for i, name in enumerate(labels)], seed=seed,
              watchers=[recorder], game=game)
    return recorder.record()


@pytest.fixture(scope="module")
def record() -> dict:
    return record_game()


def five_towers(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def refused(path: Path, *more: str) -> str:
    """Run ``replay path`` with ``more`` options; it must exit 2 with one line on stderr and no traceback."""
    done = five_towers("replay", str(path), *more)
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("five-towers replay: error: ")
    return done.stderr


def forged_winners(record: dict) -> dict:
    bad = copy.deepcopy(record)
    bad["winners"] = [s for s in range(len(record["scores"])) if s not in record["winners"]][:1]
    return bad


def stops_early(record: dict) -> dict:
    bad = copy.deepcopy(record)
    bad["segments"] = bad["segments"][:-1]
    return bad


# -- forged results --------------------------------------------------------------------------------

def test_forged_winners_are_refused_by_every_output(record, tmp_path):
    assert record["winners"] and len(record["winners"]) < len(record["scores"])
    bad = forged_winners(record)
    with pytest.raises(RecordError, match="make the winner"):
        check_replay(bad)
    for run in (build_html, frame_state, lambda r: frame_state(r, 0)):
        with pytest.raises(RecordError, match="make the winner"):
            run(bad)
    path = tmp_path / "forged.json"
    path.write_text(dumps_record(bad))
    for more in ((), ("--html", str(tmp_path / "r.html")), ("--svg", str(tmp_path / "m.svg"), "--move", "3")):
        assert "make the winner" in refused(path, *more)
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "m.svg").exists()
    # and a tie claimed where the scores have none, or winners out of order
    tie = copy.deepcopy(record)
    tie["winners"] = list(range(len(record["scores"])))
    with pytest.raises(RecordError, match="make the winner"):
        check_replay(tie)


def test_a_record_that_stops_before_its_claimed_end_is_refused_with_svg_too(record, tmp_path):
    bad = stops_early(record)
    path = tmp_path / "early.json"
    path.write_text(dumps_record(bad))
    for more in (("--svg", str(tmp_path / "m.svg")), ("--svg", str(tmp_path / "m.svg"), "--move", "0"),
                 ("--html", str(tmp_path / "r.html")), ()):
        assert "stop before the end" in refused(path, *more)
    assert not (tmp_path / "m.svg").exists()
    # the other way round: moves that finish a game the record calls unfinished
    unfinished = copy.deepcopy(record)
    unfinished.update(finished=False)
    del unfinished["scores"], unfinished["winners"]
    with pytest.raises(RecordError, match="did not finish"):
        check_replay(unfinished)
    # a move marked forced that was a choice (or the reverse)
    flipped = copy.deepcopy(record)
    move = next(m for s in flipped["segments"] for m in s["moves"] if not m.get("forced"))
    move["forced"] = True
    with pytest.raises(RecordError, match="forced"):
        check_replay(flipped)


def test_the_genuine_record_passes_every_output(record, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(dumps_record(record))
    for more in ((), ("--html", str(tmp_path / "r.html")), ("--svg", str(tmp_path / "m.svg"))):
        done = five_towers("replay", str(path), *more)
        assert done.returncode == 0 and not done.stderr, done.stderr
    assert frame_state(record).scores() == record["scores"]
    campanile = record_game("campanile", ("greedy", "random"), 4)
    assert check_replay(campanile) is campanile and frame_state(campanile).winners() == campanile["winners"]


# -- the HTML page ----------------------------------------------------------------------------------

def test_placeholders_in_seat_labels_stay_literal(record):
    plain = build_html(record)
    labels = ["__DATA__ __TITLE__", "__SUB__ __LEGEND__"]
    tricky = {**copy.deepcopy(record), "seats": labels}
    html = build_html(tricky, title="__DATA__")
    assert len(html) < 1.2 * len(plain)  # the 35 MB page of the issue: the data expanded in every label
    assert html.count("__DATA__") >= 2 and "<title>__DATA__</title>" in html
    assert html.count("const D = ") == 1
    assert "__SUB__ __LEGEND__" in html and "__DATA__ __TITLE__" in html


# -- unreadable records: one line and exit 2 --------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda text: b"\xff\xfe" + text.encode(),  # not UTF-8
    lambda text: text.encode()[:200] + b"\xc3\x28" + text.encode()[200:],  # a broken sequence inside
    lambda text: b"[" * 200_000 + b"]" * 200_000,  # nesting deeper than the JSON reader's recursion
    lambda text: b'{"format": "five_towers_env.record", "version": 1, "info": ' + b'{"a": ' * 100 + b"1"
                 + b"}" * 100 + b"}",  # nested deep, though not as deep as the reader's limit
    lambda text: json.dumps({**json.loads(text), "winners": ["x"]}).encode(),
    lambda text: json.dumps({**json.loads(text), "winners": None}).encode(),
    lambda text: json.dumps({**json.loads(text), "scores": [1.5, 2]}).encode(),
    lambda text: json.dumps({**json.loads(text), "seats": [1, 2]}).encode(),
    lambda text: json.dumps({**json.loads(text), "game": ["five_towers"]}).encode(),
    lambda text: json.dumps({**json.loads(text), "finished": "yes"}).encode(),
    lambda text: text.replace('"scores": [', '"scores": [NaN, ', 1).encode(),
], ids=["bom", "broken-utf8", "deep", "deep-info", "winners-x", "winners-null", "float-score", "int-seats",
        "list-game", "finished-string", "nan"])
def test_unreadable_records_are_one_line_and_exit_2(record, tmp_path, make):
    path = tmp_path / "bad.json"
    path.write_bytes(make(dumps_record(record)))
    refused(path)
    refused(path, "--html", str(tmp_path / "r.html"))
    refused(path, "--svg", str(tmp_path / "m.svg"))


# -- provenance.json ---------------------------------------------------------------------------------

def test_a_users_provenance_json_beside_the_output_is_left_alone(record, tmp_path):
    game = tmp_path / "game.json"
    game.write_text(dumps_record(record))
    out = tmp_path / "out"
    out.mkdir()
    mine = out / "provenance.json"
    mine.write_text("my own notes, not JSON\n")
    for more in (("--html", str(out / "x.html")), ("--svg", str(out / "x.svg"))):
        done = five_towers("replay", str(game), *more)
        assert done.returncode == 0, done.stderr
        assert "left as it is" in done.stderr and "Traceback" not in done.stderr
        assert mine.read_text() == "my own notes, not JSON\n"
    # another command's provenance (an evaluation's folder) is left alone as well
    other = {"command": "five-towers evaluate --agents random random --out out", "written": "2024-01-01T00:00:00+00:00"}
    mine.write_text(json.dumps(other))
    assert five_towers("replay", str(game), "--html", str(out / "x.html")).returncode == 0
    assert json.loads(mine.read_text()) == other
    # where there is none, or an earlier replay's, the replay writes its own
    fresh = tmp_path / "fresh"
    for _ in range(2):
        done = five_towers("replay", str(game), "--html", str(fresh / "x.html"))
        assert done.returncode == 0 and not done.stderr, done.stderr
        assert json.loads((fresh / "provenance.json").read_text())["command"].startswith("five-towers replay ")


# -- fuzz ----------------------------------------------------------------------------------------------

JSON_TOKENS = [b"__DATA__", b"NaN", b"Infinity", b"-1", b"1e999", b"[" * 3000, b'{"a":', b"true", b"null", b'"x"',
               b'"\\ud800"', b"99999999999999999999999", b"0.5", b",", b"}", b"]", b'"', b"\xff", b"\xc3"]
VALUES: list[Any] = [0, 1, -1, 2, 7, 99, 10**30, -10**30, True, False, None, "", "x", "__DATA__", "bid 2",
                     "pass", [], [0], ["x"], [[0]], {}, {"a": 1}, 0.5, "</script>"]


def _paths(node: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


def _mutate_structure(record: dict, rng: random.Random) -> bytes:
    bad = copy.deepcopy(record)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        paths = [p for p in _paths(bad) if p]
        path = rng.choice(paths)
        parent = bad
        for key in path[:-1]:
            parent = parent[key]
        key, roll = path[-1], rng.random()
        if roll < 0.5:
            parent[key] = copy.deepcopy(rng.choice(VALUES))
        elif roll < 0.65:
            del parent[key]
        elif roll < 0.8 and isinstance(parent[key], int) and not isinstance(parent[key], bool):
            parent[key] += rng.choice((-1, 1))
        elif roll < 0.9 and isinstance(parent, list) and len(parent) > 1:
            j = rng.randrange(len(parent))
            parent[key], parent[j] = parent[j], parent[key]
        else:  # wrapped in a list, or buried under many levels
            value = parent[key]
            for _ in range(1 if rng.random() < 0.5 else 40):
                value = [value]
            parent[key] = value
    return json.dumps(bad).encode()


def _mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 4))):
        i = rng.randrange(len(out) + 1)
        roll = rng.random()
        if roll < 0.3 and out:
            out[min(i, len(out) - 1)] = rng.randrange(256)
        elif roll < 0.5:
            del out[i:i + rng.randrange(1, 40)]
        elif roll < 0.6:
            del out[i:]
        elif roll < 0.75:
            j = rng.randrange(len(out) + 1)
            out[i:i] = out[min(i, j):max(i, j)][:200]
        else:
            out[i:i] = rng.choice(JSON_TOKENS)
    return bytes(out)


def _short(record: dict, keep: int, start: int = 0) -> dict:
    """A cheap record to replay: ``keep`` segments from ``start`` (a finished one when they reach the end)."""
    short = copy.deepcopy(record)
    short["segments"] = short["segments"][start:start + keep]
    if start + keep < len(record["segments"]):
        short["finished"] = False
        short.pop("scores"), short.pop("winners")
    return short


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer")
def test_fuzzed_records_are_accepted_unchanged_or_refused_with_record_error(record):
    """10,000 mutated records: each is read and replayed to the end (the checks every output runs),
    and is either accepted exactly as it is or refused with RecordError; nothing else, nothing slow."""
    campanile = record_game("campanile", ("greedy", "random"), 4)
    n = len(record["segments"])
    bases = [_short(record, 2), _short(record, 3, n - 3), _short(campanile, 3),
             _short(campanile, 3, len(campanile["segments"]) - 3)]
    assert [b["finished"] for b in bases] == [False, True, False, True]
    texts = [dumps_record(b).encode() for b in bases]
    for base in bases:
        check_replay(base)
    rng = random.Random(55)
    outcomes = {"accepted": 0, "refused": 0}
    previous = signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    try:
        for count in range(10_000):
            k = rng.randrange(len(bases))
            data = _mutate_structure(bases[k], rng) if rng.random() < 0.6 else _mutate_bytes(texts[k], rng)
            signal.setitimer(signal.ITIMER_REAL, 2.0)
            try:
                parsed = loads_record(data)
                kept = copy.deepcopy(parsed)
                check_replay(parsed)
                if count % 50 == 0:  # the outputs themselves, now and then
                    build_html(parsed), result_line(parsed), frame_state(parsed, 0)
            except RecordError:
                outcomes["refused"] += 1
                continue
            except _Hang:
                pytest.fail(f"record {count} took over 2 s: {data[:300]!r}")
            except Exception as exc:
                pytest.fail(f"record {count}: {type(exc).__name__}: {exc}\n{data[:600]!r}")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            outcomes["accepted"] += 1
            assert parsed == kept == json.loads(data.decode("utf-8")), f"record {count} was changed while read"
    finally:
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - started
    assert outcomes["accepted"] > 100 and outcomes["refused"] > 5000, outcomes
    assert elapsed < 120, elapsed
