"""Pictures of the table (SVG and ``rgb_array``), game records and the self-contained HTML replay."""
from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.agents.registry import make_agent
from five_towers_env.core.gameui import get_ui
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.aec import raw_env
from five_towers_env.games.five_towers.picture import picture_shape
from five_towers_env.games.five_towers.position import load_position, save_position
from five_towers_env.games.five_towers.state import GameState
from five_towers_env.games.five_towers.svg import render_svg, svg_size
from five_towers_env.play import play_game
from five_towers_env.replay import (
    GameRecorder,
    RecordError,
    build_html,
    dumps_record,
    frame_count,
    frame_state,
    read_record,
    replay,
    write_html,
)

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


def played(seed: int = 0, players: int = 2, variant: str = "base") -> GameState:
    """A game part-way through: towers, piles and a display to draw."""
    game = GameState.new_game(players, variant, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while game.rounds_played < 8:
        legal = game.legal_actions()
        game.apply_action(legal[rng.integers(len(legal))])
    return game


def texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def record_game(labels=("greedy", "heuristic"), seed=3, variant="base") -> dict:
    recorder = GameRecorder(list(labels), {"variant": variant})
    agents = [make_agent(name, seed=i) for i, name in enumerate(labels)]
    play_game(agents, variant=variant, seed=seed, watchers=[recorder])
    return recorder.record()


# -- pictures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 5])
def test_rgb_array_follows_pettingzoo_conventions(players):
    assert "rgb_array" in raw_env.metadata["render_modes"] and raw_env.metadata["render_fps"] > 0
    env = raw_env(num_players=players, render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.shape == picture_shape(players) and first.dtype == np.uint8 and first.ndim == 3
    env.step(env.legal_actions()[-1])
    assert env.render().shape == first.shape and not np.array_equal(env.render(), first)


@pytest.mark.parametrize("players,variant", [(2, "base"), (4, "great_powers"), (5, "base")])
def test_svg_is_well_formed_and_shows_the_table(players, variant):
    game = played(players, players, variant)
    svg = render_svg(game, ["ppo", "x<&>'\"y"])
    root = ET.fromstring(svg)  # well-formed XML, labels escaped
    width, height = svg_size(players)
    assert (root.tag, root.get("width"), root.get("height")) == (f"{SVG}svg", str(width), str(height))
    words = texts(svg)
    assert "seat 0 - ppo" in words and "seat 1 - x<&>'\"y" in words
    assert f"round {game.rounds_played + 1} - {game.phase_name} - seat {game.current_player} to act" in words
    # every tower card's value is written on it, and each seat's score
    values = [int(w) for w in words if w.isdigit()]
    cards = [v for p in range(players) for tower in game.towers[p] for v in tower]
    cards += [c % 16 for c in game.display] + [c % 16 for c in game.hand]
    cards += [c % 16 for p in range(players) for c in game.piles[p]]
    assert sorted(values) == sorted(cards)
    assert [f"{s} VP" for s in game.scores()] == [w for w in words if w.endswith(" VP")]
    assert sum(1 for t in game.towers for tw in t if tw and tw[-1] == 0) == words.count("x2")


def test_svg_of_different_states_differs_and_hides_the_deck_order():
    game = played(2)
    before = render_svg(game)
    game.apply_action(game.legal_actions()[0])
    assert render_svg(game) != before
    pos = save_position(played(4))
    pos.pop("hand", None)
    twins = [load_position({**pos, "deck": deck}, np.random.default_rng(0))
             for deck in (pos["deck"], pos["deck"][::-1])]
    assert render_svg(twins[0]) == render_svg(twins[1])
    assert svg_size(2) == svg_size(2) and svg_size(5)[0] > svg_size(2)[0]


def test_svg_of_a_finished_game_marks_the_winners():
    game = played(0)
    rng = np.random.default_rng(0)
    while not game.is_terminal():
        legal = game.legal_actions()
        game.apply_action(legal[rng.integers(len(legal))])
    words = texts(render_svg(game))
    winners = game.winners()
    assert any(w.startswith("game over - winner") and all(f"seat {s}" in w for s in winners) for w in words)
    assert words.count("winner") == len(winners)


# -- records -----------------------------------------------------------------------------------

def test_record_round_trips_and_replays_to_the_same_end(tmp_path):
    record = record_game()
    assert json.loads(dumps_record(record)) == record
    assert record["finished"] and record["game"] == "five_towers" and record["seats"] == ["greedy", "heuristic"]
    # positions are rules §8 round starts, one per round; moves are SPEC names
    assert all("hand" not in seg["position"] and seg["moves"] for seg in record["segments"])
    assert [seg["round"] for seg in record["segments"]] == list(range(len(record["segments"])))
    names = [m["move"] for seg in record["segments"] for m in seg["moves"]]
    assert all(A.action_from_name(n) >= 0 for n in names) and any(m.get("forced") for s in record["segments"]
                                                                  for m in s["moves"])
    steps = list(replay(record))
    assert len(steps) == frame_count(record) + 1 == len(names) + 1
    assert steps[-1][0].is_terminal() and steps[-1][0].scores() == record["scores"]
    path = tmp_path / "g.json"
    path.write_text(dumps_record(record))
    assert read_record(path) == record
    # a 5-player Great Powers game too (the reshuffle happens mid-game)
    big = record_game(("random", "greedy", "heuristic", "random", "greedy"), seed=8, variant="great_powers")
    assert frame_state(big).scores() == big["scores"]


def test_records_that_do_not_replay_are_errors_naming_the_move():
    record = record_game()

    def broken(change):
        bad = copy.deepcopy(record)
        change(bad)
        with pytest.raises(RecordError) as info:
            list(replay(bad))
        return str(info.value)

    first = record["segments"][0]["moves"][0]
    assert "move 1 " in broken(lambda r: r["segments"][0]["moves"][0].update(move="bid 25"))
    assert "unknown action name 'fly'" in broken(lambda r: r["segments"][0]["moves"][0].update(move="fly"))
    assert f"it is seat {first['seat']}'s turn" in broken(lambda r: r["segments"][0]["moves"][0].update(
        seat=1 - first["seat"]))
    assert "the record says" in broken(lambda r: r.update(scores=[s + 1 for s in r["scores"]]))
    # the next round's towers must be where the moves led
    seg = record["segments"][3]["position"]["players"][0]
    assert "the moves lead to players" in broken(
        lambda r: r["segments"][3]["position"]["players"][0].update(towers={"candy": [9]}, teardown=[]))
    assert seg == record["segments"][3]["position"]["players"][0]
    with pytest.raises(RecordError, match="not a game record"):
        list(replay({"segments": []}))


def test_an_unfinished_record_replays(tmp_path):
    record = record_game()
    record["segments"] = record["segments"][:2]
    record["segments"][-1]["moves"] = record["segments"][-1]["moves"][:1]
    record.update(finished=False)
    record.pop("scores"), record.pop("winners")
    last = frame_state(record)
    assert not last.is_terminal() and last.rounds_played == 1
    assert "game not finished" in build_html(record)


# -- the HTML replay ---------------------------------------------------------------------------

def test_html_replay_is_self_contained_and_holds_every_frame(tmp_path):
    record = record_game()
    html = build_html(record)
    # nothing fetched from anywhere: no external scripts, styles, fonts or images
    assert not re.search(r"<script[^>]+src|<link|@import|url\(|<img|<iframe", html)
    assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}
    for part in ('type="range"', 'id="prev"', 'id="next"', "ArrowLeft", "ArrowRight", "keydown"):
        assert part in html
    data = json.loads(re.search(r"const D = (.*);\n", html)[1])
    ui = get_ui("five_towers")
    assert len(data["frames"]) == frame_count(record) + 1 == len(data["captions"])
    for k in (0, 1, 57, frame_count(record)):  # each frame rebuilt from its pieces is the drawing of that state
        assert "".join(data["pieces"][i] for i in data["frames"][k]) == ui.svg(frame_state(record, k), record["seats"])
    moves = [e["text"] for e in data["entries"] if not e.get("round")]
    assert moves[0].startswith("1. seat ") and len(moves) == frame_count(record)
    assert data["captions"][-1].endswith("game over") and data["result"].startswith("final scores: seat 0 (greedy)")
    assert "</script" not in json.dumps(data).replace("<", "\\u003c")  # a label cannot close the script
    pieces = sum(map(len, data["pieces"]))
    whole = sum(len(ui.svg(state, record["seats"])) for state, _ in replay(record))
    assert pieces < whole / 3  # shared pieces stored once


@pytest.mark.skipif(BROWSER is None, reason="no chromium / google-chrome on this machine")
def test_html_replay_runs_in_a_headless_browser(tmp_path):
    path = write_html(record_game(), tmp_path / "replay.html")
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                           f"file://{path.resolve()}#12"], capture_output=True, text=True, timeout=120)
    dom = done.stdout
    assert 'data-frame="12"' in dom, done.stderr[-2000:]  # the script ran and opened frame 12 of the address
    assert "<svg" in dom and '<div id="caption">move 12: seat ' in dom
    assert len(re.findall(r'<li [^>]*class="[^"]*\bcur\b', dom)) == 1  # move 12 marked in the list


# -- the command line --------------------------------------------------------------------------

def five_towers(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_cli_record_then_replay(tmp_path):
    game = tmp_path / "game.json"
    done = five_towers("play", "--agents", "greedy", "random", "--players", "3", "--seed", "2", "--record", str(game))
    assert done.returncode == 0, done.stderr
    played_lines = [line for line in done.stdout.splitlines() if re.match(r"^\s*\d+\. seat ", line)]
    again = five_towers("replay", str(game))
    assert again.returncode == 0, again.stderr
    replayed = [line for line in again.stdout.splitlines() if re.match(r"^\s*\d+\. seat ", line)]
    assert replayed == played_lines and len(played_lines) > 100  # the same moves, forced ones included
    assert "final scores: seat 0 (greedy)" in again.stdout
    out = five_towers("replay", str(game), "--html", str(tmp_path / "r.html"), "--svg", str(tmp_path / "m.svg"),
                      "--move", "20")
    assert out.returncode == 0, out.stderr
    record = read_record(game)
    assert (tmp_path / "m.svg").read_text() == render_svg(frame_state(record, 20), record["seats"])
    assert (tmp_path / "r.html").read_text() == build_html(record)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**record, "scores": [0, 0, 0]}))
    out = five_towers("replay", str(bad))
    assert out.returncode == 2 and "the record says" in out.stderr
    out = five_towers("replay", str(game), "--svg", str(tmp_path / "x.svg"), "--move", "100000")
    assert out.returncode == 2 and "outside the game's frames" in out.stderr


def test_readme_command_line_block_works(tmp_path):
    """Every command of the README's command-line block runs as written (the person answers 1), except
    that evaluations and tournaments play 6 games instead of hundreds."""
    import shlex

    readme = (ROOT / "README.md").read_text()
    section = readme.split("<!-- commands: cli -->", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) == 5 and all(c.startswith("five-towers ") for c in commands)
    for command in commands:
        argv = shlex.split(re.sub(r"--games \d+", "--games 6", command))[1:]
        done = subprocess.run([sys.executable, "-m", "five_towers_env.cli", *argv, *(["--no-progress"] if argv[0] in
                              ("evaluate", "tournament") else [])], cwd=tmp_path, input="1\n" * 400,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{command}:\n{done.stderr[-2000:]}"
    assert {p.name for p in tmp_path.iterdir()} >= {"game.json", "replay.html", "runs"}
    image = re.search(r"!\[[^\]]*\]\(([^)]+)\)", section)[1]
    assert (ROOT / image).stat().st_size < 300_000
