"""``five-towers serve`` against someone who wants more than the page offers: the deal of a game a person plays
(no answer before the end rebuilds it, with the public ``five-towers play``), agents that never return (their
threads do not lock the server), the ``Host`` check compared exactly, the token of a server open to the network,
and a client that leaves mid-request. The rest of the server: tests/test_serve.py."""
from __future__ import annotations

import asyncio
import http.client
import json
import re
import socket
import time
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e \".[web]\")")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")

from five_towers_env.cli import main
from five_towers_env.core.game import GAMES
from five_towers_env.evaluation.jobs import derive_seed
from five_towers_env.limits import DEFAULT_TABLES, MAX_TABLES
from five_towers_env.web.app import create_app
from five_towers_env.web.tables import RequestError, Setup
from five_towers_env.web.thinkers import Thinkers

from serve_helpers import JSON, Server, bad_agents, client, finish, new, step, tables_of

# -- the deal stays secret while a person plays ------------------------------------------------------------


def _walk(value: Any, key: str = "") -> list[tuple[str, Any]]:
    """Every (key, value) pair of a JSON answer, nested ones included."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in [(k, v), *_walk(v, k)]]
    if isinstance(value, list):
        return [pair for v in value for pair in _walk(v, key)]
    return []


def _rebuilt(texts: list[str], deal_seed: int, games: int) -> list[tuple[int, int]]:
    """The (seed, game number) pairs, among every number in ``texts`` and the server's game numbers so far,
    that deal as ``deal_seed`` under ``five-towers play --seed S --game-index N --unpaired``."""
    numbers = {int(n) for text in texts for n in re.findall(r"\d+", text) if len(n) < 40}
    return [(s, n) for s in numbers for n in range(games + 1) if derive_seed(s, 0, n) == deal_seed]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_no_answer_before_the_end_rebuilds_the_deal(game, tmp_path):
    """A person plays a game through the server; everything it answered before the end (the page, every game
    state with its picture and text, refusals, hints, the record's refusal) holds neither the game's seed nor
    any number that rebuilds its deal with the game numbers an onlooker could guess. At the end the page gets
    the seed and number, and `five-towers play` with them deals the same cards: what was kept back was enough."""
    c = client(game, hint="mcts:simulations=8")
    answers: list[str] = [c.get(path).text for path in ("/", "/table.js", "/table.css")]
    new(c)  # an earlier game: the numbers of two games are in play
    s = new(c)
    table = tables_of(c).get(s["id"])
    info = table.recorder.record()["info"]  # what the server knows: the seed and game number that deal this game
    assert table.people and info["game_index"] == 1
    answers.append(json.dumps(s))
    gid = s["id"]
    while s["waiting"] != "over":
        for method, path, body in (("GET", f"/api/games/{gid}/record", None),
                                   ("POST", f"/api/games/{gid}/move", {"action": 10**6, "at": s["moves"]}),
                                   ("POST", f"/api/games/{gid}/advance", {"at": s["moves"] + 7})):
            r = c.request(method, path, json=body)
            assert 400 <= r.status_code < 500
            answers.append(r.text)
            if path.endswith("record"):
                assert r.status_code == 409  # the record names the hidden cards and the seeds
        if s["waiting"] == "person" and s["moves"] < 6:
            answers.append(c.post(f"/api/games/{gid}/hint", json={"at": s["moves"]}).text)
        s = step(c, s)
        if s["waiting"] != "over":
            answers.append(json.dumps(s))
    assert len(answers) > 40
    deal_seed = info["deal_seed"]
    assert _rebuilt(answers, deal_seed, tables_of(c).made) == []
    assert not any(str(info["seed"]) in text or str(deal_seed) in text for text in answers)
    for text in answers:  # and nothing named like a seed, a game number or a generator's state
        for key, value in _walk(json.loads(text)) if text.startswith("{") else ():
            if re.search("seed|index|rng|generator|deal", key):
                assert value is None or isinstance(value, bool), (key, value)
    # at the end: the numbers, the record, and the public command line rebuilds the deal from them
    assert s["seed"] == info["seed"] and s["index"] == 1 and s["record"]
    assert _rebuilt([json.dumps(s)], deal_seed, tables_of(c).made) == [(info["seed"], 1)]
    served = json.loads(c.get(f"/api/games/{gid}/record").text)
    path = tmp_path / "rebuilt.json"
    assert main(["play", "--game", game, "--agents", "random", "random", "--seed", str(s["seed"]), "--game-index",
                 str(s["index"]), "--unpaired", "--quiet", "--record", str(path)]) == 0
    assert json.loads(path.read_text())["segments"][0]["position"] == served["segments"][0]["position"]


def test_each_game_has_its_own_seed_from_the_operating_system():
    c = client(agents=("random", "random"))
    games = [tables_of(c).get(new(c)["id"]) for _ in range(4)]
    assert len({t.seed for t in games}) == 4 and all(t.seed >= 2**20 for t in games)
    watched = c.get(f"/api/games/{games[0].id}").json()  # no person at this server: nothing to keep back
    assert watched["seed"] == games[0].seed and watched["index"] == 0 and watched["record"]


def test_a_server_with_a_person_keeps_every_game_secret_even_one_of_agents_alone():
    c = client(agents=("human", "random", "random"), players=2)
    new(c)
    s = new(c)  # game 1: the agents rotate, and two randoms sit at this table
    assert not any(seat["person"] for seat in s["seats"])
    assert s["seed"] is None and s["index"] is None and not s["record"]
    assert c.get(f"/api/games/{s['id']}/record").status_code == 409
    s = finish(c, s)
    assert s["seed"] is not None and s["index"] == 1 and c.get(f"/api/games/{s['id']}/record").status_code == 200


def test_a_stopped_game_shows_its_numbers_and_record(tmp_path):
    path = bad_agents(tmp_path)
    c = client(agents=("human", f"py:path={path}:Boom"), seed=None)
    s = new(c)
    assert s["seed"] is None and not s["record"]
    while s["waiting"] in ("person", "forced", "agent"):
        s = step(c, s)
    assert s["waiting"] == "stopped" and s["seed"] is not None and s["record"]  # it goes no further


def test_a_fixed_seed_is_said_plainly_and_still_not_sent_before_the_end():
    c = client(seed=12345)
    s = new(c)
    assert s["fixed_seed"] is True and s["seed"] is None and s["index"] is None
    assert "12345" not in json.dumps(s)
    page = c.get("/").text
    assert "started with <code>--seed</code>: anyone who knows the seed can" in page
    assert 'game.fixed_seed' in c.get("/table.js").text
    s = finish(c, s)
    assert s["seed"] == 12345 and s["index"] == 0
    assert new(client())["fixed_seed"] is False  # a server without --seed says nothing of the kind


def test_the_announced_line_names_no_seed_without_seed():
    server = Server("--agents", "human", "random")
    try:
        assert "a fresh seed each game" in server.first_line and not re.search(r"seed \d", server.first_line)
    finally:
        assert server.stop() == 0


# -- agents that never return ---------------------------------------------------------------------------


def _wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def test_twenty_games_of_an_agent_that_never_returns_on_one_server(tmp_path):
    """Every move of a stuck agent times out and stops its game; the server goes on for game after game (at
    988ebee the ninth answered 503 "8 agents are thinking already" until a restart)."""
    release = tmp_path / "release"
    stuck = f"py:path={bad_agents(tmp_path)}:Stuck,release={release}"
    c = client(agents=(stuck, stuck), move_timeout=0.15)
    for _ in range(20):
        s = step(c, new(c))
        assert s["waiting"] == "stopped" and "made no move within 0.15 s (--move-timeout)" in s["error"], s
    thinkers = c.app.state.thinkers
    assert thinkers.thinking == 0 and thinkers.abandoned == 20
    release.write_text("")  # the threads end, and are no longer counted
    _wait_for(lambda: thinkers.abandoned == 0)
    assert thinkers.thinking == 0


ENDLESS_SEARCH = """
from five_towers_env.games.five_towers.agents.mcts import MCTSAgent


def Endless(seed=None):
    return MCTSAgent(seed=seed, simulations=10**9, race_z=None)
"""


def test_a_search_past_the_move_timeout_stops_and_frees_its_thread(tmp_path):
    """The table's decisions run under the decision's deadline (core/deadline.py): an endless search, native or
    Python, stops at the timeout, so its thread ends instead of searching on for ever."""
    path = tmp_path / "endless.py"
    path.write_text(ENDLESS_SEARCH)
    c = client(agents=(f"py:path={path}:Endless", "random"), move_timeout=0.5)
    thinkers = c.app.state.thinkers
    for _ in range(2):
        s = step(c, new(c))
        assert s["waiting"] == "stopped" or s["moves"] >= 1, s
    _wait_for(lambda: thinkers.abandoned == 0 and thinkers.thinking == 0, seconds=30)


def test_a_stuck_hint_frees_its_slot_but_its_agent_stays_busy_until_it_returns(tmp_path):
    release = tmp_path / "release"
    c = client(hint=f"py:path={bad_agents(tmp_path)}:Stuck,release={release}", move_timeout=0.15, seed=1)
    thinkers = c.app.state.thinkers
    s = new(c)
    r = c.post(f"/api/games/{s['id']}/hint", json={"at": 0})
    assert r.status_code == 200 and "gave no hint within 0.15 s" in r.json()["hint"]["error"]
    assert thinkers.thinking == 0 and thinkers.abandoned == 1
    again = c.post(f"/api/games/{s['id']}/hint", json={"at": 0})  # one agent is never asked two things at once
    assert again.status_code == 409 and "still working on a hint" in again.json()["error"]
    other = new(c)  # the other games' agents are not held up
    assert step(c, other)["moves"] == 1
    release.write_text("")
    table = tables_of(c).get(s["id"])
    _wait_for(lambda: not table.hint_busy and thinkers.abandoned == 0)
    hinted = c.post(f"/api/games/{s['id']}/hint", json={"at": 0}).json()["hint"]
    assert "error" not in hinted and hinted["moves"][0]["chosen"]


def test_abandoned_threads_are_bounded_and_counted_until_they_end():
    import threading

    gate = threading.Event()

    async def scenario() -> list[str]:
        thinkers = Thinkers(limit=2, abandoned_limit=3)
        seen = []
        for _ in range(3):
            with pytest.raises(asyncio.TimeoutError):
                await thinkers.run(gate.wait, 0.05)
        assert (thinkers.thinking, thinkers.abandoned) == (0, 3)
        with pytest.raises(RequestError) as refused:
            await thinkers.run(lambda: 1, 1.0)
        seen.append(refused.value.message)
        assert refused.value.status == 503
        gate.set()
        for _ in range(200):
            if thinkers.abandoned == 0:
                break
            await asyncio.sleep(0.01)
        seen.append(str(await thinkers.run(lambda: 7, 1.0)))
        assert (thinkers.thinking, thinkers.abandoned) == (0, 0)
        return seen

    message, answer = asyncio.run(scenario())
    assert "3 agents ran past --move-timeout and have not returned" in message and answer == "7"


# -- who may ask: the Host check, the token, a client that leaves -------------------------------------------


async def _asgi(app: Any, path: str, headers: list[tuple[bytes, bytes]], method: str = "GET",
                messages: list[dict] | None = None) -> int:
    """Send one request straight to the ASGI application; its status (the body's ``messages`` as given)."""
    sent: list[dict] = []
    pending = list(messages or [{"type": "http.request", "body": b"", "more_body": False}])

    async def receive() -> dict:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    path, _, query = path.partition("?")
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": headers, "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8765)}
    await app(scope, receive, send)
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


@pytest.mark.parametrize("hosts, status", [
    ([b"localhost:8765"], 200), ([b"LOCALHOST:8765"], 200), ([b"127.0.0.1"], 200), ([b"[::1]:8765"], 200),
    ([b"127.0.0.1 "], 421), ([b" 127.0.0.1"], 421), ([b"127.0.0.1:8765 "], 421), ([b"localhost."], 421),
    ([b"127.0.0.1\t"], 421), ([b"localhost:80x"], 421), ([b"localhost:"], 421), ([b"127.0.0.1.evil.example"], 421),
    ([b"localhost@evil.example"], 421), ([b"localhost, evil.example"], 421), ([b"[::1]x"], 421), ([], 421),
    ([b"localhost", b"evil.example"], 421), ([b"localhost", b"localhost"], 421),
])
def test_host_names_are_compared_exactly(hosts, status):
    app = create_app(Setup("five_towers", "base", 2, ("human", "random")),
                     allowed_hosts=["localhost", "127.0.0.1", "::1"])
    headers = [(b"host", h) for h in hosts]
    assert asyncio.run(_asgi(app, "/", headers)) == status


def test_a_token_server_refuses_every_request_without_it():
    c = client(token="s3cret-Token")
    for method, path in (("GET", "/"), ("GET", "/table.js"), ("POST", "/api/games"), ("GET", "/api/games/x"),
                         ("GET", "/?token=wrong"), ("GET", "/?token=")):
        r = c.request(method, path, json={} if method == "POST" else None)
        assert r.status_code == 403 and "needs its token" in r.json()["error"], (method, path, r.text)
    c.cookies.set("five_towers_token_80", "wrong")
    assert c.post("/api/games", json={}).status_code == 403
    c.cookies.clear()
    c.cookies.set("other_cookie", "s3cret-Token")
    assert c.post("/api/games", json={}).status_code == 403  # only its own cookie counts
    c.cookies.clear()
    page = c.get("/?token=s3cret-Token")  # the printed address: the page, and the cookie its requests carry
    assert page.status_code == 200 and page.text.startswith("<!DOCTYPE html>")
    cookie = page.headers["set-cookie"]
    assert cookie.startswith("five_towers_token_80=s3cret-Token") and "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    s = new(c)  # the cookie, set by the page's address
    assert step(c, s)["moves"] == 1
    c.cookies.clear()
    assert c.get(f"/api/games/{s['id']}").status_code == 403
    assert c.get(f"/api/games/{s['id']}?token=s3cret-Token").status_code == 200


def test_a_client_that_leaves_mid_body_is_one_log_line(caplog):
    app = create_app(Setup("five_towers", "base", 2, ("human", "random")))
    headers = [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"), (b"content-length", b"40")]
    partial = [{"type": "http.request", "body": b'{"at"', "more_body": True}, {"type": "http.disconnect"}]
    with caplog.at_level("WARNING", logger="five_towers_env.web"):
        status = asyncio.run(_asgi(app, "/api/games", headers, "POST", partial))
    assert status == 400
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["a client left before its request was read (POST /api/games)"], lines
    assert not any(r.exc_info for r in caplog.records)


def _usage_error(capsys, monkeypatch, *argv: str) -> str:
    import five_towers_env.web.app as web_app

    def never(*args, **kwargs):  # what the command must not reach (at 988ebee it served with a warning)
        raise AssertionError("the server was started")

    monkeypatch.setattr(web_app, "serve", never)
    with pytest.raises(SystemExit) as exc:
        main(["serve", *argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "example.com", "127.evil.example"])
def test_a_host_other_machines_reach_needs_allow_remote(capsys, monkeypatch, host):
    assert "add --allow-remote" in _usage_error(capsys, monkeypatch, "--host", host)


@pytest.mark.parametrize("host", ["127.0.0.1 ", " localhost", "127.0.0.1\n", "local host"])
def test_a_host_with_junk_is_refused(capsys, monkeypatch, host):
    assert "argument --host: must be an address" in _usage_error(capsys, monkeypatch, "--host", host)


def test_serve_refuses_a_remote_host_without_allow_remote_in_python(monkeypatch):
    import uvicorn

    from five_towers_env.web.app import serve

    def never(*args, **kwargs):
        raise AssertionError("the server was started")

    monkeypatch.setattr(uvicorn.Server, "run", never)
    with pytest.raises(ValueError, match="allow_remote"):
        serve(Setup("five_towers", "base", 2, ("human", "random")), "0.0.0.0", 0, lambda address: None)


def test_a_remote_server_prints_its_token_and_a_client_leaving_is_one_line():
    server = Server("--agents", "human", "random", "--host", "0.0.0.0", "--allow-remote")
    try:
        address = server.url
        assert re.fullmatch(r"http://0\.0\.0\.0:\d+/\?token=[A-Za-z0-9_-]{32}", address), address
        port, token = int(address.split(":")[2].split("/")[0]), address.split("token=")[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/api/games", body="{}", headers=JSON)
        refused = conn.getresponse()
        assert refused.status == 403 and b"needs its token" in refused.read()
        conn.request("POST", f"/api/games?token={token}", body="{}", headers=JSON)
        assert conn.getresponse().status == 201
        conn.close()
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:  # leaves before its body is sent
            sock.sendall(f"POST /api/games?token={token} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         "Content-Length: 200\r\n\r\n{\"at\"".encode())
            time.sleep(0.3)
        time.sleep(0.5)
    finally:
        code = server.stop()
    assert code == 0 and "Traceback" not in server.output, server.output
    assert "listening on 0.0.0.0 for other machines" in server.output
    assert server.output.count("a client left before its request was read (POST /api/games)") == 1, server.output


def test_one_limit_on_the_games_kept():
    from five_towers_env.cli import serve as serve_cli

    assert serve_cli.tables(str(MAX_TABLES)) == MAX_TABLES and Setup("five_towers", "base", 2, ("random",)) \
        .max_tables == DEFAULT_TABLES
    for bad in (0, MAX_TABLES + 1, True, 2.0):
        with pytest.raises(ValueError, match="max_tables"):
            Setup("five_towers", "base", 2, ("random",), max_tables=bad)
    for bad in (0, -1, float("nan"), float("inf"), "5"):
        with pytest.raises(ValueError, match="move_timeout"):
            Setup("five_towers", "base", 2, ("random",), move_timeout=bad)
    with pytest.raises(ValueError, match="seed"):
        Setup("five_towers", "base", 2, ("random",), seed=-1)
