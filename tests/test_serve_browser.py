"""``five-towers serve`` in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright for Python,
against servers this module starts on free ports. A person plays whole games of both games to their end, a game of
agents is watched to its end with pause and step, a page is reloaded mid-game, illegal clicks and forged requests
change nothing, tabs keep separate games, hints show, a failing agent's error shows, and the page fetches nothing
but the server's own files.

Without Chromium or Playwright the module is skipped, in one line; CI installs both and sets
``FIVE_TOWERS_REQUIRE_BROWSER=1``, which makes their absence a failure. ``FIVE_TOWERS_SCREENSHOTS=1`` writes the
docs' pictures (docs/img/serve_*.png); a plain run leaves them alone.
"""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.cli import main
from five_towers_env.replay import check_replay, read_record

from serve_helpers import ROOT, Server, bad_agents

CHROMIUM = os.environ.get("FIVE_TOWERS_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("FIVE_TOWERS_REQUIRE_BROWSER") == "1"
SCREENSHOTS = os.environ.get("FIVE_TOWERS_SCREENSHOTS") == "1"


def _missing() -> str | None:
    for module, extra in (("starlette", "web"), ("uvicorn", "web"), ("playwright", "dev")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (the {extra} extra)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set FIVE_TOWERS_CHROMIUM)"
    return None


if _missing():
    if REQUIRED:
        raise RuntimeError(f"FIVE_TOWERS_REQUIRE_BROWSER=1, but {_missing()}")
    pytest.skip(f"browser tests skipped: {_missing()}", allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402 - only once it is known to be there

TABLE = "document.getElementById('table')"
SETTLED = (f"['person', 'over', 'stopped'].includes({TABLE}.dataset.waiting) && !{TABLE}.dataset.busy "
           f"&& {TABLE}.dataset.moves !== ''")


@pytest.fixture(scope="module")
def browser():
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
    except Exception as exc:  # a Chromium that does not start here
        playwright.stop()
        if REQUIRED:
            raise
        pytest.skip(f"browser tests skipped: Chromium does not start: {' '.join(str(exc).split())[:200]}")
    yield chromium
    chromium.close()
    playwright.stop()


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """The servers, started on first use: name -> :class:`Server`."""
    agents = bad_agents(tmp_path_factory.mktemp("agents"))
    commands = {
        "play": ("--agents", "human", "random", "--seed", "1", "--hint", "guided"),
        "campanile": ("--game", "campanile", "--agents", "human", "random", "--seed", "2"),
        "watch": ("--game", "campanile", "--agents", "random", "random", "--players", "3", "--seed", "3"),
        "failing": ("--agents", "human", f"py:path={agents}:Boom", "--seed", "0"),
        "remote": ("--agents", "human", "random", "--host", "0.0.0.0", "--allow-remote"),
    }
    started: dict[str, Server] = {}

    class Servers:
        def __getitem__(self, name: str) -> str:
            if name not in started:
                started[name] = Server(*commands[name])
            return started[name].url.replace("0.0.0.0", "127.0.0.1")  # listening everywhere: here too

    yield Servers()
    for server in started.values():
        assert server.stop() == 0, server.output
        assert "Traceback" not in server.output, server.output


@pytest.fixture
def context(browser):
    """A fresh browser context (its own storage); afterwards, every request it made went to a server here."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    ctx.set_default_timeout(30_000)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    errors: list[str] = []
    ctx.on("weberror", lambda e: errors.append(str(e.error)))
    yield ctx
    ctx.close()
    outside = [u for u in requests if not u.startswith(("http://127.0.0.1:", "data:"))]
    assert not outside, f"the page fetched from elsewhere: {outside}"
    assert not errors, errors


def open_table(context, url: str, speed: str = "0") -> Page:
    page = context.new_page()
    page.goto(url)
    page.wait_for_function(f"() => {TABLE}.dataset.id")
    page.select_option("#speed", speed)
    return page


def moves(page: Page) -> int:
    return int(page.get_attribute("#table", "data-moves"))


def server_state(page: Page) -> dict:
    return page.evaluate("fetch('/api/games/' + location.hash.slice(1)).then(r => r.json())")


def settle(page: Page) -> str:
    page.wait_for_function(f"() => {SETTLED}")
    return page.get_attribute("#table", "data-waiting")


def legal_buttons(page: Page):
    return page.get_by_role("group", name="Legal moves").get_by_role("button")


def play_one(page: Page, rng: np.random.Generator, use_list: bool = False) -> None:
    """The person on move makes a random legal move: a button, or the list and "Play selected"."""
    before = moves(page)
    names = legal_buttons(page).all_inner_texts()
    name = names[int(rng.integers(len(names)))]
    if use_list:
        page.get_by_label("Pick a legal move").select_option(label=name)
        page.get_by_role("button", name="Play selected").click()
    else:
        page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_function(f"() => +{TABLE}.dataset.moves > {before}")


def shot(page: Page, name: str) -> None:
    """Write docs/img/<name> where FIVE_TOWERS_SCREENSHOTS=1 (a plain run leaves the committed pictures alone)."""
    if SCREENSHOTS:
        path = ROOT / "docs" / "img" / name
        part = path.with_suffix(".part.png")
        page.screenshot(path=str(part))
        os.replace(part, path)


def download_and_replay(page: Page, tmp_path: Path, capsys) -> dict:
    """The page's record, downloaded, is a finished game that `five-towers replay` opens."""
    with page.expect_download() as download:
        page.get_by_role("link", name="Download record").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    record = check_replay(read_record(path))
    assert main(["replay", str(path)]) == 0 and "final scores" in capsys.readouterr().out
    return record


@pytest.mark.parametrize("name", ["play", "campanile"])
def test_a_person_plays_a_whole_game_to_its_end(name, context, servers, tmp_path, capsys):
    page = open_table(context, servers[name])
    rng = np.random.default_rng(5)
    decisions = 0
    while settle(page) == "person":
        if decisions == 0:  # the deal is secret, and the page says that --seed lets anyone rebuild it
            expect(page.locator("#sub")).to_contain_text("The deal is secret until the game is over")
            expect(page.locator("#seeded")).to_be_visible()
            expect(page.locator("#record")).to_have_attribute("aria-disabled", "true")  # no record yet
        if decisions == 0:  # every legal move is a button named as the command line names it, and in the list
            legal = server_state(page)["legal"]
            assert legal_buttons(page).all_inner_texts() == [m["name"] for m in legal]
            for m in legal:
                expect(page.get_by_role("button", name=m["name"], exact=True)).to_have_count(1)
            listed = page.get_by_label("Pick a legal move").locator("option").all_inner_texts()
            assert listed == [m["name"] for m in legal]
        if decisions == (10 if name == "play" else 12):
            if name == "play":  # the hint agent's top moves, its choice among them
                page.get_by_role("button", name="Hint").click()
                hints = page.get_by_role("list", name="Hints").get_by_role("listitem")
                expect(hints.first).to_be_visible()
                texts = hints.all_inner_texts()
                assert all(t.split(" - ")[0] in legal_buttons(page).all_inner_texts() and "%" in t for t in texts)
                assert sum("its choice" in t for t in texts) == 1
            shot(page, f"serve_{'five_towers' if name == 'play' else name}.png")
        play_one(page, rng, use_list=decisions % 5 == 3)
        decisions += 1
    assert settle(page) == "over" and decisions > 10
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    state = server_state(page)
    expect(page.locator("#sub")).to_contain_text(f"Game {state['index']} of seed {1 if name == 'play' else 2}:")
    expect(page.locator("#result")).to_have_text(state["result"]["line"])
    assert legal_buttons(page).count() == 0
    scores = page.locator("#scores tbody tr td:last-child").all_inner_texts()
    assert scores == [str(s) for s in state["result"]["scores"]]
    record = download_and_replay(page, tmp_path, capsys)
    assert record["scores"] == state["result"]["scores"] and record["seats"] == [s["label"] for s in state["seats"]]


def test_a_game_of_agents_is_watched_to_its_end_with_pause_and_step(context, servers, tmp_path, capsys):
    page = open_table(context, servers["watch"], speed="2000")
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Resume")).to_have_attribute("aria-pressed", "true")
    page.wait_for_function(f"() => !{TABLE}.dataset.busy")
    paused_at = moves(page)
    page.wait_for_timeout(700)
    assert moves(page) == paused_at and server_state(page)["moves"] == paused_at  # paused: nothing moves
    assert page.get_by_role("region", name="Your moves").count() == 0  # watching: no moves to make
    for k in (1, 2):
        page.get_by_role("button", name="Step").click()
        page.wait_for_function(f"() => +{TABLE}.dataset.moves === {paused_at + k} && !{TABLE}.dataset.busy")
    page.wait_for_timeout(300)
    assert moves(page) == paused_at + 2
    page.select_option("#speed", "0")
    page.get_by_role("button", name="Resume").click()
    assert settle(page) == "over"
    expect(page.get_by_role("heading", name="Game over")).to_be_visible()
    state = server_state(page)
    assert page.locator("#log li").count() == len(state["log"]) and state["moves"] > 50
    shot(page, "serve_watch.png")
    assert download_and_replay(page, tmp_path, capsys)["finished"]


def test_a_reload_mid_game_comes_back_to_the_same_game(context, servers):
    page = open_table(context, servers["play"])
    rng = np.random.default_rng(1)
    for _ in range(4):
        assert settle(page) == "person"
        play_one(page, rng)
    settle(page)
    before = server_state(page)
    log = page.locator("#log li").all_inner_texts()
    address = page.url
    page.reload()
    page.wait_for_function(f"() => {TABLE}.dataset.id")
    assert page.url == address and settle(page) == "person"
    assert page.get_attribute("#table", "data-id") == before["id"] and moves(page) == before["moves"]
    assert page.locator("#log li").all_inner_texts() == log
    play_one(page, rng)  # and it goes on from there


def test_illegal_clicks_and_forged_requests_change_nothing(context, servers):
    page = open_table(context, servers["play"])
    rng = np.random.default_rng(2)
    assert settle(page) == "person"
    at = moves(page)
    for target in ("#picture", "#scores", "#status", "#log", "#legend"):  # nothing there is a move
        page.click(target, force=True)
    legal = {m["action"] for m in server_state(page)["legal"]}
    illegal = next(a for a in range(300) if a not in legal)
    forged = page.evaluate("""([illegal, at]) => {
        const url = '/api/games/' + location.hash.slice(1);
        const post = (what, body, type) => fetch(url + '/' + what, {method: 'POST', body: body,
            headers: {'Content-Type': type || 'application/json'}}).then(r => r.status);
        return Promise.all([post('move', JSON.stringify({action: illegal, at: at})),
                            post('move', JSON.stringify({action: illegal, at: at + 1})),
                            post('advance', JSON.stringify({at: at})),
                            post('move', 'action=1', 'application/x-www-form-urlencoded'),
                            post('move', JSON.stringify({action: 1, at: at, pad: 'x'.repeat(5000)}))]);
    }""", [illegal, at])
    assert forged == [422, 409, 409, 415, 413]
    page.wait_for_timeout(300)
    assert moves(page) == at and server_state(page)["moves"] == at and settle(page) == "person"
    page.get_by_role("button", name="Pause").click()  # agents wait; a person still moves
    while settle(page) == "person":
        play_one(page, rng)
        page.wait_for_function(f"() => !{TABLE}.dataset.busy")
        if page.get_attribute("#table", "data-waiting") != "person":
            break
    waiting = page.get_attribute("#table", "data-waiting")
    assert waiting in ("agent", "forced")
    assert legal_buttons(page).count() == 0 and page.get_by_role("button", name="Play selected").is_hidden()
    at = moves(page)
    page.click("#picture")
    page.wait_for_timeout(400)
    assert moves(page) == at == server_state(page)["moves"]  # paused, and no move of a person's to click
    page.get_by_role("button", name="Step").click()
    page.wait_for_function(f"() => +{TABLE}.dataset.moves === {at + 1}")


def test_tabs_play_separate_games(context, servers):
    first, second = open_table(context, servers["play"]), open_table(context, servers["play"])
    for page in (second, first):  # a tab in the background gets its timers slowed: each waits in front
        page.bring_to_front()
        assert settle(page) == "person"
    assert first.get_attribute("#table", "data-id") != second.get_attribute("#table", "data-id")
    kept = moves(second), server_state(second)["log"]
    play_one(first, np.random.default_rng(3))
    settle(first)
    assert (moves(second), server_state(second)["log"]) == kept


def test_a_failing_agent_shows_its_error_and_the_server_goes_on(context, servers):
    page = open_table(context, servers["failing"])
    rng = np.random.default_rng(4)
    while settle(page) == "person":
        play_one(page, rng)
    expect(page.get_by_role("alert")).to_contain_text("raised ValueError: boom")
    expect(page.locator("#status")).to_have_text("The game is stopped")
    page.get_by_role("button", name="New game").click()  # the server still serves
    page.wait_for_function(f"() => {TABLE}.dataset.moves === '0' || {TABLE}.dataset.waiting === 'stopped'")


def test_a_server_open_to_the_network_needs_its_token(context, browser, servers):
    address = servers["remote"]
    assert "?token=" in address
    page = open_table(context, address)  # the printed address: the page keeps the token in a cookie
    rng = np.random.default_rng(6)
    assert settle(page) == "person"
    expect(page.locator("#seeded")).to_be_hidden()  # no --seed: nothing to say
    play_one(page, rng)
    settle(page)
    game_id, at = page.get_attribute("#table", "data-id"), moves(page)
    page.goto(address.split("?")[0] + "#" + game_id)  # the address without its token: the cookie carries it
    page.wait_for_function(f"() => {TABLE}.dataset.id")
    assert page.get_attribute("#table", "data-id") == game_id and moves(page) == at
    stranger = browser.new_context()  # without the token (a page that only resolves here, say): nothing
    try:
        response = stranger.new_page().goto(address.split("?")[0])
        assert response.status == 403 and "needs its token" in response.text()
    finally:
        stranger.close()
