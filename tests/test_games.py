"""The game-neutral machinery serves both games: the agent registry, ``play_game``, evaluation,
tournaments, records and replays, the human seat and the command line, with ``game="campanile"``
(5 Towers stays the default)."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.agents.human import HumanAgent
from five_towers_env.agents.registry import AgentSettingError, agent_class, agents_of, make_agent
from five_towers_env.cli import main
from five_towers_env.core.game import GAMES, get_game
from five_towers_env.core.gameui import get_ui
from five_towers_env.evaluation.match import evaluate
from five_towers_env.evaluation.specs import AgentSpec, parse_agent_spec
from five_towers_env.evaluation.tournament import round_robin
from five_towers_env.games.campanile.aec import raw_env as campanile_env
from five_towers_env.games.campanile.state import CampanileState
from five_towers_env.games.campanile.ui import CAMPANILE, render_svg, svg_size, text_view
from five_towers_env.play import GameWatcher, play_game
from five_towers_env.replay import GameRecorder, RecordError, build_html, frame_count, frame_state, replay

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
TIMING = ("think_seconds", "wall_seconds")


def five_towers(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """Run the real command line with ``stdin`` typed in."""
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300)


class Actions(GameWatcher):
    """Keeps every move's action id and the variant of the game played."""

    def start(self, game, spec) -> None:
        self.actions, self.variant, self.spec = [], game.variant, spec

    def move(self, move) -> None:
        assert not move.forced  # Campanile puts every decision to its agent
        self.actions.append(move.action)


class Seats(GameWatcher):
    """Keeps the seat of every move."""

    def start(self, game, spec) -> None:
        self.seats = []

    def move(self, move) -> None:
        self.seats.append(move.seat)


def randoms(n: int, game: str = "campanile") -> list:
    return [make_agent("random", seed=10 + i, game=game) for i in range(n)]


def recorded(players: int = 3, variant: str = "pile", seed: int = 4) -> dict:
    rec = GameRecorder(["random"] * players, {"variant": variant})
    play_game(randoms(players), variant=variant, seed=seed, watchers=[rec], game="campanile")
    return rec.record()


# -- registry ---------------------------------------------------------------------------------

def test_registry_is_per_game_and_five_towers_stays_the_default():
    assert agents_of("five_towers") == agents_of(GAMES["five_towers"]) and "ppo" in agents_of("five_towers")
    assert "greedy" in GAMES["five_towers"].agents and "ppo" not in GAMES["five_towers"].agents  # its own only
    assert agent_class("greedy", game=GAMES["five_towers"]) is agent_class("greedy", game="five_towers")
    assert agent_class("random", game="campanile") is agent_class("random", game="five_towers")
    # below the public entry points (make_agent, evaluate, the command line) the game is never assumed
    with pytest.raises(TypeError):
        agents_of()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        agent_class("greedy")  # type: ignore[call-arg]
    with pytest.raises(AgentSettingError) as err:
        make_agent("alphazero", game="campanile")
    assert str(err.value) == f"unknown agent 'alphazero' for Campanile; known: {', '.join(agents_of('campanile'))}"
    with pytest.raises(AgentSettingError, match=r"^unknown agent 'alphazero'; known: random, greedy"):
        make_agent("alphazero")
    # the human seat learns its game from the registry
    assert make_agent("human", game="campanile").game == "campanile" and make_agent("human").game == "five_towers"


def test_campanile_agents_resolve_to_campanile_classes():
    for name in ("greedy", "heuristic", "mcts"):
        cls = agent_class(name, game="campanile")
        assert cls.__module__.startswith("five_towers_env.games.campanile.agents"), cls
        assert cls is not agent_class(name, game="five_towers")


def test_agent_specs_resolve_against_the_game():
    spec = parse_agent_spec("random:name='r'", game="campanile")
    assert (spec.game, spec.name, spec.build(0).name) == ("campanile", "random", "r")
    with pytest.raises(ValueError, match="for Campanile; known: random"):
        parse_agent_spec("nobody", game="campanile")
    # a 5 Towers spec is re-checked for Campanile, not played as 5 Towers
    assert AgentSpec("random", name="random").for_game("campanile").game == "campanile"
    with pytest.raises(ValueError, match="for Campanile"):
        evaluate([AgentSpec("x", name="nobody"), "random"], num_games=2, game="campanile", progress=False)


# -- play_game ----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", ["pile", "played"])
def test_play_game_campanile_matches_the_env(players, variant):
    log = Actions()
    result = play_game(randoms(players), variant=variant, seed=players, watchers=[log], game="campanile")
    assert log.variant == variant and log.spec is get_game("campanile")
    assert result["steps"] == result["moves"] == len(log.actions)
    # the same moves through the environment itself give the same end
    env = campanile_env(num_players=players, variant=variant)
    env.reset(seed=players)
    for a in log.actions:
        assert env.agent_selection == env.possible_agents[env.game.current_player]
        env.step(a)
    assert env.game.is_terminal()
    assert list(result["scores"]) == env.scores() and list(result["winners"]) == env.winners()
    assert result["rewards"] == [env.rewards[a] for a in env.possible_agents]
    assert sorted(set(result["rewards"])) == ([1.0] if len(result["winners"]) == players else [-1.0, 1.0])


def test_play_game_default_variant_is_the_games():
    log = Actions()
    play_game(randoms(2), seed=1, watchers=[log], game="campanile")
    assert log.variant == "pile"
    # 5 Towers: unchanged defaults
    a = play_game(randoms(2, "five_towers"), seed=3)
    b = play_game(randoms(2, "five_towers"), variant="base", seed=3, game="five_towers")
    assert a == b
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        play_game(randoms(2), game="chess")


# -- evaluation and tournaments ----------------------------------------------------------------------

def _without_timing(records):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in records]


def test_evaluate_campanile_is_the_same_for_any_workers(tmp_path):
    one = evaluate(["random", "random:name='b'"], num_games=6, num_players=3, seed=2, workers=1,
                   progress=False, game="campanile")
    two = evaluate(["random", "random:name='b'"], num_games=6, num_players=3, seed=2, workers=2,
                   progress=False, game="campanile")
    assert _without_timing(one.records) == _without_timing(two.records)
    assert (one.config["game"], one.config["variant"]) == ("campanile", "pile")
    assert one.table().startswith("Campanile: 6 games, 3 players, variant pile")
    paths = one.save(tmp_path)
    assert json.loads(paths["json"].read_text())["config"]["game"] == "campanile"
    with pytest.raises(ValueError, match="variant must be one of 'pile', 'played'"):
        evaluate(["random"], num_games=2, variant="base", game="campanile", progress=False)
    assert evaluate(["random"], num_games=2, progress=False).config["game"] == "five_towers"


def test_round_robin_campanile(tmp_path):
    res = round_robin(["random", "random:name='b'", "random:name='c'"], games=2, num_players=2, seed=1,
                      progress=False, game="campanile", variant="played")
    assert res.config["game"] == "campanile" and res.config["variant"] == "played"
    assert res.table().startswith("round robin (Campanile): 3 agents")
    assert len(res.records) == 6
    data = json.loads(res.save(tmp_path, plot=False)["json"].read_text())
    assert data["config"]["game"] == "campanile"


# -- the game UI, records and replays ------------------------------------------------------------------

def _midgame(seed: int = 0, players: int = 3, turns: int = 10) -> CampanileState:
    state = CampanileState.new_game(players, "pile", np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    while state.turns < turns:
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    return state


def test_campanile_ui_is_registered_and_shows_public_information_only():
    assert get_ui("campanile") is CAMPANILE
    state = _midgame()
    svg = render_svg(state, ["a", "x<&>'\"y"])
    root = ET.fromstring(svg)
    assert (root.tag, root.get("width"), root.get("height")) == (f"{SVG}svg", *map(str, svg_size(3)))
    words = [t.text for t in root.iter(f"{SVG}text")]
    assert "seat 1 - x<&>'\"y" in words and f"turn {state.turns + 1} - play - seat {state.current_player} to act" \
        in words
    assert all(str(h) in words for h in state.heights) and sum(w.startswith("flag ") for w in words) == 5
    # cards hidden from everybody never change the picture; a seat's text shows its own hand only
    other = state.determinize((state.current_player + 1) % 3, np.random.default_rng(9))
    other.hands[state.current_player] = state.hands[state.current_player]
    assert render_svg(other) == render_svg(state)
    seat = state.current_player
    mine = text_view(state, seat)
    assert mine.endswith(f"your hand (seat {seat}): " + " ".join("ABCDE"[c] for c in state.hands[seat]))
    assert "your hand" not in text_view(state, None)
    for _phase in (0, 1):
        assert "Scoring at the end" in CAMPANILE.phase_help(state)
        state.apply_action(state.legal_actions()[0])


def test_a_recorded_campanile_game_replays(tmp_path):
    record = recorded()
    assert record["game"] == "campanile" and record["finished"]
    # one position per turn: a segment holds one turn's play and bet
    assert [s["round"] for s in record["segments"]] == list(range(len(record["segments"])))
    assert all(len(s["moves"]) == 2 for s in record["segments"])
    end = frame_state(record)
    assert end.is_terminal() and end.scores() == record["scores"] and frame_count(record) == 2 * end.turns
    html = build_html(record)
    assert html.count("<svg") == 0 and "Campanile replay" in html  # frames are data for the script
    # a move that does not fit is an error naming it; so is a position the moves do not reach
    bad = json.loads(json.dumps(record))
    bad["segments"][2]["moves"][1]["move"] = "bet 3 on Z"
    with pytest.raises(RecordError, match=r"segments\[2\]"):
        list(replay(bad))
    bad = json.loads(json.dumps(record))
    bad["segments"][3]["position"]["heights"][0] += 1
    with pytest.raises(RecordError, match="heights"):
        list(replay(bad))


# -- the human seat --------------------------------------------------------------------------------

def test_a_person_plays_campanile_to_the_end():
    out = io.StringIO()
    human = HumanAgent(input=io.StringIO("?\nplay\n" + "1\n" * 200), output=out, game="campanile")
    seats = Seats()
    result = play_game([human, make_agent("random", seed=1, game="campanile")], seed=5, watchers=[seats],
                       game="campanile")
    text = out.getvalue()
    assert result["winners"] and "your hand (seat 0): " in text and "Play: put one card" in text
    assert "'play' could be play " in text  # an ambiguous start of a name asks for more
    assert text.count("seat 0, your move (") == seats.seats.count(0) > 5


def test_cli_human_seat_in_campanile():
    done = five_towers("play", "--game", "campanile", "--agents", "random", "human", "--seed", "2",
                       stdin="1\n" * 300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("seats: 0=random, 1=human\n") and "seat 1, your move (play):" in out
    assert "seat 1, your move (bet):" in out and "  1. no bet" in out and "your hand (seat 1): " in out
    assert "final scores: seat 0 (random) " in out and "game over" in out
    quit_ = five_towers("play", "--game", "campanile", "--agents", "human", "random", stdin="?\nq\n")
    assert quit_.returncode == 0 and "Play: put one card" in quit_.stdout and "seat 0 quit" in quit_.stdout


# -- the command line --------------------------------------------------------------------------------

def test_cli_play_record_and_replay_campanile(tmp_path, capsys):
    path = tmp_path / "g.json"
    assert main(["play", "--game", "campanile", "--agents", "random", "random", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "-- turn 1: seat 0 plays; face up pile 1 " in out and "final scores: " in out
    record = json.loads(path.read_text())
    assert record["game"] == "campanile" and record["info"]["variant"] == "pile"
    assert main(["replay", str(path), "--html", str(tmp_path / "r.html"), "--svg", str(tmp_path / "s.svg"),
                 "--move", "5"]) == 0
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    ET.fromstring((tmp_path / "s.svg").read_text())
    capsys.readouterr()
    assert main(["replay", str(path), "--game", "campanile"]) == 0
    assert "final scores: seat 0 (random) " in capsys.readouterr().out
    assert main(["replay", str(path), "--game", "five_towers"]) == 2
    assert "is a game of campanile, not five_towers" in capsys.readouterr().err


def test_cli_evaluate_and_tournament_campanile(tmp_path, capsys):
    assert main(["evaluate", "--game", "campanile", "--agents", "random", "random", "--games", "4",
                 "--variant", "played", "--no-progress", "--out", str(tmp_path / "e")]) == 0
    assert capsys.readouterr().out.startswith("Campanile: 4 games, 2 players, variant played")
    config = json.loads((tmp_path / "e" / "evaluate.json").read_text())["config"]
    assert (config["game"], config["variant"]) == ("campanile", "played")
    assert main(["tournament", "--game", "campanile", "--agents", "random", "random", "--games", "2",
                 "--no-progress", "--no-plot", "--out", str(tmp_path / "t")]) == 0
    assert capsys.readouterr().out.startswith("round robin (Campanile): 2 agents")
    assert json.loads((tmp_path / "t" / "tournament.json").read_text())["config"]["game"] == "campanile"


@pytest.mark.parametrize("args,message", [
    (["play", "--game", "campanile", "--agents", "alphazero"],
     "argument --agents: alphazero: unknown agent 'alphazero' for Campanile; known: random, greedy, heuristic"),
    (["evaluate", "--game", "campanile", "--agents", "random", "--variant", "great_powers"],
     "argument --variant: Campanile has the variants pile, played, got 'great_powers'"),
    (["play", "--variant", "pile"], "argument --variant: 5 Towers has the variants base, great_powers, got 'pile'"),
    (["tournament", "--game", "chess", "--agents", "random"],
     "argument --game: must be a game (five_towers, campanile), got 'chess'"),
    (["play", "--game", "chess"], "argument --game: must be a game (five_towers, campanile), got 'chess'"),
])
def test_cli_game_errors_are_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_play_game_index_and_game_names(capsys):
    assert main(["play", "--agents", "random", "random", "--seed", "5", "--game-index", "3", "--quiet"]) == 0
    assert main(["play", "--game", "campanile", "--game-index", "1", "--agents", "random", "random:name='b'",
                 "--quiet"]) == 0
    assert re.search(r"seats: 0=random:name='b', 1=random\n", capsys.readouterr().out)
    # a number is no longer a game index in disguise; a near miss gets the name it was near
    for value, hint in [("3", "to replay game 3 of an evaluation, use --game-index 3"),
                        ("campanil", "did you mean campanile?")]:
        with pytest.raises(SystemExit) as exc:
            main(["play", "--game", value])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and hint in err and len(err.strip().splitlines()) == 1
        assert ("--game-index" in err) == value.isdigit()
