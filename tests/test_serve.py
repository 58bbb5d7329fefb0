"""``five-towers serve`` without a browser: its games through the HTTP interface (Starlette's TestClient), more
than a thousand bad or forged requests that must each be refused with a 4xx and change no game, failing and slow
agents, hints, records ``five-towers replay`` opens, the command line's errors, and a real server stopped by
Ctrl-C. The page in a real browser: tests/test_serve_browser.py."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e \".[web]\")")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")
with warnings.catch_warnings():  # Starlette 1.10 suggests httpx2, which needs Python 3.11+
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from five_towers_env.cli import main
from five_towers_env.core.game import GAMES, get_game
from five_towers_env.replay import check_replay, loads_record
from five_towers_env.web.app import MAX_BODY, create_app
from five_towers_env.web.hints import candidate_values, hint_rows
from five_towers_env.web.tables import Setup

from serve_helpers import JSON, Server, bad_agents, client, fingerprint, finish, new, step, tables_of


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_person_plays_a_whole_game_and_replay_opens_its_record(game, tmp_path, capsys):
    c = client(game, seed=4)
    s = new(c)
    assert s["record"] is False and c.get(f"/api/games/{s['id']}/record").status_code == 409  # it names hidden cards
    assert [seat["person"] for seat in s["seats"]] == [True, False]
    s = finish(c, s)
    assert s["result"]["line"].startswith("final scores: seat 0 (human)") and s["legal"] == [] and s["record"]
    assert s["result"]["scores"] == [seat["score"] for seat in s["seats"]]
    r = c.get(f"/api/games/{s['id']}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = check_replay(loads_record(r.text))
    assert record["finished"] and record["scores"] == s["result"]["scores"] and record["info"]["paired"] is False
    path = tmp_path / "game.json"
    path.write_text(r.text)
    assert main(["replay", str(path)]) == 0
    assert s["result"]["line"] in capsys.readouterr().out


def test_every_setup_of_both_games_is_served():
    for game, spec in GAMES.items():
        for variant in spec.variants:
            for players in range(spec.min_players, spec.max_players + 1):
                c = client(game, agents=("random",), players=players, variant=variant)
                s = new(c)
                assert s["players"] == players and s["variant"] == variant and not any(x["person"] for x in s["seats"])
                for _ in range(12):
                    s = step(c, s)
                assert s["moves"] == 12 and s["svg"].startswith("<svg") and s["record"]  # watching: no hidden cards


def test_a_watched_game_is_the_game_five_towers_play_plays(tmp_path):
    """Game N of a server with --seed S is `play --game-index N --seed S --unpaired`: same seats, deal, moves."""
    c = client(agents=("random", "greedy"), seed=7)
    new(c)
    s = finish(c, new(c))  # the server's game 1
    path = tmp_path / "played.json"
    argv = ["play", "--agents", "random", "greedy", "--seed", "7", "--game-index", "1", "--unpaired", "--quiet",
            "--record", str(path)]
    assert main(argv) == 0
    played = json.loads(path.read_text())
    served = json.loads(c.get(f"/api/games/{s['id']}/record").text)
    assert served["seats"] == played["seats"] == ["greedy", "random"]  # game 1: the seats rotated
    assert served["segments"] == played["segments"] and served["scores"] == played["scores"]


def test_separate_games_at_once_under_unguessable_ids():
    c = client()
    games = [new(c) for _ in range(6)]
    ids = [g["id"] for g in games]
    assert len(set(ids)) == 6 and all(len(i) == 24 for i in ids)
    first = step(c, games[0])
    assert first["moves"] >= 1
    assert all(c.get(f"/api/games/{i}").json()["moves"] == 0 for i in ids[1:])
    c2 = client(max_tables=2)
    a, b, d = new(c2), new(c2), new(c2)
    assert c2.get(f"/api/games/{a['id']}").status_code == 404  # forgotten: the one left alone longest
    assert c2.get(f"/api/games/{b['id']}").status_code == c2.get(f"/api/games/{d['id']}").status_code == 200


# -- bad and forged requests ---------------------------------------------------------------------------

def _requests(tables: dict[str, dict], rng: np.random.Generator) -> list[tuple[str, str, dict]]:
    """Bad or forged requests for the games ``tables`` (name -> snapshot), each a (method, path, httpx keywords)."""
    out: list[tuple[str, str, dict]] = []
    alphabet = list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    wrong_ids = ["".join(rng.choice(alphabet, 24)) for _ in range(20)]
    wrong_ids += ["", "x", "0" * 23, "0" * 25, "%2e%2e", "..%2f..%2fetc", "ä" * 24, "a" * 500, "null", "-1"]
    for i in wrong_ids:  # a game nobody made: every endpoint
        out.append(("GET", f"/api/games/{i}", {}))
        for what in ("move", "advance", "hint"):
            out.append(("POST", f"/api/games/{i}/{what}", {"json": {"action": 0, "at": 0}}))
        out.append(("GET", f"/api/games/{i}/record", {}))
    for name, s in tables.items():
        gid, at = s["id"], s["moves"]
        base = f"/api/games/{gid}"
        spec = get_game(s["game"])
        legal = {m["action"] for m in s["legal"]}
        illegal = [a for a in range(spec.num_actions) if a not in legal]
        picks = list(rng.choice(illegal, min(40, len(illegal)), replace=False))
        for action in picks + [-1, -(10**9), spec.num_actions, 10**30, 2**63]:  # illegal moves
            out.append(("POST", f"{base}/move", {"json": {"action": int(action), "at": at}}))
        a = next(iter(legal), 0)
        for wrong_at in (at + 1, at + 50, max(0, at - 1) if at else at + 2, 10**12):  # an old or future position
            out.append(("POST", f"{base}/move", {"json": {"action": a, "at": wrong_at}}))
            out.append(("POST", f"{base}/advance", {"json": {"at": wrong_at}}))
            out.append(("POST", f"{base}/hint", {"json": {"at": wrong_at}}))
        if s["waiting"] == "person":  # out of turn: an agent's move asked on a person's turn
            out += [("POST", f"{base}/advance", {"json": {"at": at}})] * 5
        else:  # a person's move sent on an agent's turn, or after the end
            out += [("POST", f"{base}/move", {"json": {"action": int(x), "at": at}}) for x in range(5)]
            out.append(("POST", f"{base}/hint", {"json": {"at": at}}))
        for bad in ("3", 3.0, True, None, [3], {"a": 3}, 2.5e300, "bid 3"):  # wrong types
            out.append(("POST", f"{base}/move", {"json": {"action": bad, "at": at}}))
            out.append(("POST", f"{base}/move", {"json": {"action": a, "at": bad}}))
            out.append(("POST", f"{base}/advance", {"json": {"at": bad}}))
            out.append(("POST", f"{base}/hint", {"json": {"at": bad}}))
        for body in ({}, {"action": a}, {"at": at}, {"action": a, "at": at, "seat": 0},  # fields missing or forged
                     {"action": a, "at": at, "agents": ["py:path=evil.py:Agent"]}, {"at": -1, "action": a}):
            out.append(("POST", f"{base}/move", {"json": body}))
        out.append(("POST", f"{base}/advance", {"json": {"at": at, "agent": "sb3:path=/tmp/x.zip"}}))
        for raw in (b"", b"{", b"[]", b"3", b'"x"', b"null", b'{"at": NaN}', b'{"at": Infinity}', b'{"at": 1e400}',
                    b"\xff\xfe{}", b"[" * 600 + b"]" * 400, b'{"at": 0, "at": "0"}', b"{'at': 0}",
                    b'{"at": ' + b"9" * 900 + b"}"):
            out.append(("POST", f"{base}/advance", {"content": raw, "headers": JSON}))
        for size in (MAX_BODY + 1, 10 * MAX_BODY, 2_000_000):  # oversized bodies
            padding = json.dumps({"action": a, "at": at, "pad": "x" * size})
            out.append(("POST", f"{base}/move", {"content": padding, "headers": JSON}))
        out.append(("POST", f"{base}/advance", {"content": (b"{}" for _ in range(2000)), "headers": JSON}))  # chunked
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""):  # a form's post
            out.append(("POST", f"{base}/move", {"content": json.dumps({"action": a, "at": at}),
                                                 "headers": {"content-type": kind}}))
        for method, path in (("GET", f"{base}/move"), ("PUT", base), ("DELETE", base), ("PATCH", f"{base}/advance"),
                             ("GET", "/api/games"), ("POST", f"{base}/record"), ("GET", f"{base}/nothing")):
            out.append((method, path, {}))
        if s["waiting"] == "person":
            out.append(("GET", f"{base}/record", {}))  # the deck's order, before the end
        if name != "hinted":
            out.append(("POST", f"{base}/hint", {"json": {"at": at}}))
    for body in ({"game": "campanile"}, {"agents": ["py:path=/tmp/evil.py:Agent"]}, {"players": 5}, []):
        out.append(("POST", "/api/games", {"json": body}))  # a new game takes no settings from the page
    out.append(("POST", "/api/games", {"content": b"{}", "headers": {"content-type": "text/plain"}}))
    return out


def test_a_thousand_bad_or_forged_requests_are_refused_and_change_no_game():
    hinted = client(seed=1, hint="mcts:simulations=8")
    plain = client("campanile", seed=2)
    watched = client(agents=("random", "random"), seed=3)
    games: dict[str, tuple[TestClient, dict]] = {}
    s = new(hinted)
    games["hinted"] = (hinted, s)  # a person's decision, with hints
    s = new(plain)
    while s["waiting"] == "person" and s["moves"] < 3:
        s = step(plain, s)
    games["campanile"] = (plain, s)
    s = new(watched)
    for _ in range(5):
        s = step(watched, s)
    games["agent to move"] = (watched, s)
    games["over"] = (watched, finish(watched, new(watched)))
    before = {name: fingerprint(tables_of(c).get(s["id"])) for name, (c, s) in games.items()}
    counts = {name: len(tables_of(c).tables) for name, (c, _) in games.items()}
    rng = np.random.default_rng(0)
    sent = 0
    for name, (c, s) in games.items():
        for method, path, kwargs in _requests({name: s}, rng):
            r = c.request(method, path, **kwargs)
            sent += 1
            assert 400 <= r.status_code < 500, (method, path, kwargs.get("json"), r.status_code, r.text[:200])
            error = r.json()["error"]
            assert error and "\n" not in error and "Traceback" not in error, error
    assert sent >= 1000, sent
    assert {name: fingerprint(tables_of(c).get(s["id"])) for name, (c, s) in games.items()} == before
    assert {name: len(tables_of(c).tables) for name, (c, _) in games.items()} == counts  # no game made either
    for name in ("hinted", "campanile", "agent to move"):  # and the games go on
        c, s = games[name]
        assert step(c, s)["moves"] == s["moves"] + 1


def test_refusals_say_what_is_wrong():
    c = client(seed=1)
    s = new(c)
    url = f"/api/games/{s['id']}"
    legal = {m["action"] for m in s["legal"]}
    illegal = next(a for a in range(get_game("five_towers").num_actions) if a not in legal)
    cases = [
        (c.post(f"{url}/move", json={"action": illegal, "at": 0}), 422, "not a legal move now; the legal moves: bid"),
        (c.post(f"{url}/move", json={"action": 5000, "at": 0}), 422, "is no action of 5 Towers"),
        (c.post(f"{url}/move", json={"action": min(legal), "at": 3}), 409, "reload to see where it stands"),
        (c.post(f"{url}/advance", json={"at": 0}), 409, "no agent is on move: it is a person's move"),
        (c.post(f"{url}/move", json={"action": "bid 1", "at": 0}), 422, 'action must be an integer, got "bid 1"'),
        (c.post(f"{url}/move", json={"action": 1, "at": 0, "agents": []}), 422, "unknown field 'agents'"),
        (c.post("/api/games", json={"agents": ["x"]}), 422, "a new game takes no settings"),
        (c.post(f"{url}/move", content="x" * (MAX_BODY + 1), headers=JSON), 413, f"over {MAX_BODY} bytes"),
        (c.post(f"{url}/move", content="{}"), 415, "Content-Type: application/json"),
        (c.post(f"{url}/hint", json={"at": 0}), 404, "start it with --hint AGENT"),
        (c.get("/api/games/" + "A" * 24), 404, "no game with this id"),
        (c.get(f"{url}/record"), 409, "once the game is over"),
    ]
    for response, status, words in cases:
        assert response.status_code == status and words in response.json()["error"], response.text


def test_the_page_and_its_answers_fetch_nothing_from_elsewhere():
    c = client()
    page = c.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    for name in ("/table.js", "/table.css"):
        assert c.get(name).status_code == 200
    for text in (page.text, c.get("/table.js").text, c.get("/table.css").text):
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    assert c.get("/api/games/x").headers["x-content-type-options"] == "nosniff"
    guarded = TestClient(create_app(Setup("five_towers", "base", 2, ("human", "random")), allowed_hosts=["localhost"]))
    assert guarded.get("/", headers={"host": "evil.example:8765"}).status_code == 421  # DNS rebinding
    assert guarded.get("/", headers={"host": "localhost:8765"}).status_code == 200


# -- agents that fail, hang or give hints --------------------------------------------------------------

def test_a_failing_agent_stops_its_game_with_the_reason_and_nothing_else(tmp_path):
    path = bad_agents(tmp_path)
    for name, words in (("Boom", "raised ValueError: boom"), ("Illegal", "returned -5, not a legal action")):
        c = client(agents=(f"py:path={path}:{name}", "random"), seed=1)
        s = step(c, new(c))
        assert s["waiting"] == "stopped" and words in s["error"] and s["record"], s["error"]
        assert c.post(f"/api/games/{s['id']}/advance", json={"at": s["moves"]}).status_code == 409
        record = loads_record(c.get(f"/api/games/{s['id']}/record").text)  # the game so far
        assert record["finished"] is False and check_replay(record)
        again = new(c)  # the server goes on: the next game seats the agents the other way round
        assert again["seats"][1]["label"].endswith(name) and step(c, again)["moves"] == 1


def test_a_slow_agent_thinks_off_the_event_loop_and_times_out(tmp_path):
    path = bad_agents(tmp_path)
    c = client(agents=(f"py:path={path}:Slow,seconds=1.0", "random"), move_timeout=0.3, seed=1)
    s = new(c)
    t = time.monotonic()
    s = step(c, s)
    assert time.monotonic() - t < 0.9 and s["waiting"] == "stopped" and "made no move within 0.3 s" in s["error"]
    c = client(agents=(f"py:path={path}:Slow,seconds=0.8", "random"), move_timeout=30, seed=1)
    s = new(c)
    answer: dict = {}
    worker = threading.Thread(target=lambda: answer.update(step(c, s)))
    worker.start()
    time.sleep(0.3)  # the agent is thinking: the server still answers at once
    t = time.monotonic()
    now = c.get(f"/api/games/{s['id']}").json()
    busy = c.post(f"/api/games/{s['id']}/advance", json={"at": 0})
    other = new(c)
    assert time.monotonic() - t < 0.4, "a request waited for the thinking agent"
    assert now["thinking"]["seat"] == 0 and busy.status_code == 409 and "is thinking" in busy.json()["error"]
    assert other["moves"] == 0
    worker.join()
    assert answer["moves"] == 1 and answer["thinking"] is None and answer["error"] is None


def test_hints_are_a_search_agents_top_moves_with_values():
    c = client(seed=2, hint="mcts:simulations=24")
    s = new(c)
    r = c.post(f"/api/games/{s['id']}/hint", json={"at": 0})
    hint = r.json()["hint"]
    assert r.status_code == 200 and hint["at"] == 0 and hint["agent"] == "mcts:simulations=24"
    names = {m["name"] for m in s["legal"]}
    assert 1 <= len(hint["moves"]) <= 5 and {m["name"] for m in hint["moves"]} <= names
    assert sum(m["chosen"] for m in hint["moves"]) == 1
    values = [m["value"] for m in hint["moves"]]
    assert values == sorted(values, reverse=True) and all(0 <= v <= 1 for v in values)
    again = c.post(f"/api/games/{s['id']}/hint", json={"at": 0}).json()["hint"]
    assert again == hint  # kept for the position, not searched again
    s = step(c, c.get(f"/api/games/{s['id']}").json())
    assert s["hint"] is None or s["hint"]["at"] == s["moves"]


def test_candidate_values_read_both_kinds_of_search():
    class Flat:
        last_values = {3: 0.25, 5: 0.75, 9: 0.5}

    class Turns:  # values of whole turns (play, bet): a play's value is its best turn's
        last_values = {(4, 20): 0.2, (4, 21): 0.6, (7,): 0.4, (8, 22): float("nan")}

    class Result:
        actions, values, visits = [1, 2, 3], np.array([0.9, 0.4, 0.6]), np.array([0, 10, 30])

    class Tree:
        last = Result()
        last_values: dict = {}

    assert candidate_values(Flat(), [3, 5]) == [(5, 0.75, None), (3, 0.25, None)]
    assert candidate_values(Turns(), [4, 7, 8]) == [(4, 0.6, None), (7, 0.4, None)]
    assert candidate_values(Tree(), [1, 2, 3]) == [(3, 0.6, 30), (2, 0.4, 10)]  # by visits; unvisited left out
    rows = hint_rows(Flat(), 3, [3, 5, 9], str, top=1)
    assert [(r["name"], r["chosen"]) for r in rows] == [("3", True)]
    assert hint_rows(Flat(), 1, [1], str)[0] == {"action": 1, "name": "1", "value": None, "visits": None,
                                                  "chosen": True}


# -- the command line ----------------------------------------------------------------------------------

def _usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv, words", [
    (["--port", "70000"], "argument --port: must be a port number"),
    (["--hint", "random"], "keeps no values of the moves it weighs"),
    (["--hint", "human"], "is a person"),
    (["--hint", "guided", "--players", "3"], "5 Towers ships no file it plays in 3p-base"),
    (["--hint", "mcts:sims=3"], "argument --hint: mcts:sims=3"),
    (["--agents", "nobody"], "argument --agents: nobody: unknown agent"),
    (["--agents", "human", "ppo:version=1", "--players", "4"], "ships no policy version 1 for 4 players"),
    (["--agents", *["random"] * 7], "seats 2 to 5 players"),
    (["--game", "campanile", "--variant", "base"], "Campanile has the variants pile, played"),
    (["--host", " "], "argument --host"),
    (["--max-games", "0"], "argument --max-games"),
])
def test_bad_serve_arguments_are_one_line_and_exit_2(capsys, argv, words):
    assert words in _usage_error(capsys, "serve", *argv)


def test_serve_without_the_web_extra_says_how_to_install_it(capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    assert 'pip install -e ".[web]"' in _usage_error(capsys, "serve")


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        code = main(["serve", "--port", str(taken.getsockname()[1])])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "cannot listen on 127.0.0.1:" in err, err


def test_other_commands_import_nothing_of_the_web_stack():
    code = ("import sys; from five_towers_env.cli import main; main(['play', '--agents', 'random', 'random', "
            "'--quiet']); print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn', "
            "'httpx', 'playwright') or m.startswith('five_towers_env.web')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_real_server_answers_on_its_address_and_stops_on_ctrl_c():
    server = Server("--agents", "random", "random", "--seed", "3")
    try:
        assert ("(5 Towers, 2 players, base; agents random, random; seed 3: anyone who knows it can rebuild the "
                "deals; Ctrl-C stops)") in server.first_line
        host, port = server.url.split("//")[1].rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request("GET", "/")
        assert conn.getresponse().read().startswith(b"<!DOCTYPE html>")
        conn.request("POST", "/api/games", body="{}", headers=JSON)
        made = conn.getresponse()
        assert made.status == 201 and json.loads(made.read())["waiting"] == "agent"
        conn.request("GET", "/", headers={"Host": "rebound.example"})
        refused = conn.getresponse()
        assert refused.status == 421 and b"its own address" in refused.read()
        conn.close()
    finally:
        code = server.stop()
    assert code == 0 and "five-towers serve: stopped" in server.output and "Traceback" not in server.output
