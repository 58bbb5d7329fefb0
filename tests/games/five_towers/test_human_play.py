"""A person at the terminal: the human agent's prompt loop, and ``five-towers play`` driven through
its standard input as a person would type, move log with forced moves included."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.agents.human import HumanAgent, QuitGame
from five_towers_env.agents.registry import make_agent
from five_towers_env.games.five_towers import SPEC
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.position import load_position, save_position
from five_towers_env.games.five_towers.state import GameState, Phase
from five_towers_env.games.five_towers.ui import phase_help
from five_towers_env.play import MoveLog, play_game

agent_info = SPEC.agent_info

ROOT = Path(__file__).resolve().parents[3]
PROMPT = "> "
MOVE_LINE = re.compile(r"^\s*(\d+)\. seat (\d) \(([^)]*)\): (.+?)(   \(forced: the only legal move\))?$")


def five_towers(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """Run the real command line with ``stdin`` typed in."""
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=300)


def ask(game: GameState, typed: str, seat: int | None = None) -> tuple[int | None, str]:
    """The human agent's answer for ``game``'s player on move with ``typed`` as its input, and what it printed
    (``None`` for an answer when it quit)."""
    seat = game.current_player if seat is None else seat
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO(typed), output=out)
    try:
        action = agent.act({"action_mask": np.zeros(A.NUM_ACTIONS, np.int8)}, agent_info(game, seat))
    except QuitGame:
        action = None
    return action, out.getvalue()


def new_game(seed: int = 0, variant: str = "base", players: int = 2) -> GameState:
    return GameState.new_game(players, variant, np.random.default_rng(seed))


def advance_to(game: GameState, phase: Phase) -> GameState:
    """Play the highest bid, then the first legal action, until ``phase`` is on move."""
    while game.phase != phase:
        legal = game.legal_actions()
        game.apply_action(max(legal) if game.phase == Phase.BID and A.PASS not in legal else legal[0])
    return game


# -- the prompt loop ---------------------------------------------------------------------------

def test_number_and_name_pick_the_listed_move():
    game = new_game()
    legal = game.legal_actions()
    names = [A.action_name(a) for a in legal]
    action, text = ask(game, "2\n")
    assert action == legal[1]
    for i, name in enumerate(names, 1):  # every legal move is listed, numbered, by its SPEC name
        assert f"{i}. {name}\n" in text
    action, _ = ask(game, f"  {names[-1].upper()} \n")  # any case, spaces around
    assert action == legal[-1]


def test_bad_entries_get_one_line_and_the_same_prompt():
    game = new_game()
    n = len(game.legal_actions())
    action, text = ask(game, f"xyz\n{n + 1}\nbid 99\n\n1\n")
    assert action == game.legal_actions()[0]
    prompt = f"move [1-{n} or a name; ? help, q quit]> "
    assert text.count(prompt) == 5  # asked again after each of the four bad entries
    after = text.split(prompt)[1:-1]
    messages = [part.split("\n")[1] for part in after]  # piped input is echoed, then one message line
    assert messages[0] == "'xyz' is not one of the legal moves listed: type its number or its name"
    assert messages[1] == f"there is no move {n + 1}: choose 1 to {n}"
    assert messages[2].startswith("'bid 99' is not one of the legal moves")
    assert messages[3].startswith("type a number from 1 to")
    assert all(part.count("\n") == 2 for part in after), after


def test_unique_start_of_a_name_and_ambiguous_ones():
    names = ["take candy-3", "take scary-11", "take sand-4"]
    agent = HumanAgent()
    assert agent.choose("take sc", names) == 1 and agent.choose("TAKE  SAND", names) == 2
    assert agent.choose("take s", names) == \
        "'take s' could be take scary-11, take sand-4: type more of it, or its number"
    game = advance_to(new_game(3), Phase.TAKE)
    legal = game.legal_actions()
    assert len(legal) > 1
    action, text = ask(game, "take\n" + A.action_name(legal[-1]) + "\n")
    assert action == legal[-1] and "'take' could be " in text


@pytest.mark.parametrize("phase", [Phase.BID, Phase.TAKE, Phase.BUILD])
def test_help_explains_the_phase_and_asks_again(phase):
    game = advance_to(new_game(3), phase)
    action, text = ask(game, "?\nhelp\n1\n")
    assert action == game.legal_actions()[0]
    assert text.count(phase_help(game)) == 2
    word = {Phase.BID: "Bidding:", Phase.TAKE: "Taking:", Phase.BUILD: "Building:"}[phase]
    assert phase_help(game).startswith(word)


def test_great_powers_help_mentions_its_powers():
    game = advance_to(new_game(1, "great_powers"), Phase.BUILD)
    assert "sand card may go under the bottom" in phase_help(game)
    assert "Great Powers" not in phase_help(advance_to(new_game(1), Phase.BUILD))


def test_quit_and_end_of_input_raise_quit_game():
    game = new_game()
    for typed in ("q\n", "QUIT\n", "", "nonsense\n"):  # "nonsense" then the input ends
        action, text = ask(game, typed)
        assert action is None
    with pytest.raises(QuitGame, match="seat 0 quit"):
        HumanAgent(input=io.StringIO("q\n"), output=io.StringIO()).act({}, agent_info(game, 0))


def test_table_is_the_seats_view_and_never_the_deck_order():
    pos = save_position(new_game(5, players=3))
    # the same public position twice, the deck in two orders: the person must see exactly the same
    seen = []
    for deck in (pos["deck"], pos["deck"][::-1]):
        game = load_position({**pos, "deck": deck}, np.random.default_rng(len(seen)))
        game.apply_action(A.bid_action(1))  # seat 0 bids 1; seat 1 to act
        seen.append(ask(game, "t\n1\n")[1])
    text = seen[0]
    assert seen[1] == text
    assert "seat 1, your move (bid):" in text and "> seat 1 (you): score 0" in text
    assert text.count("seat 1, your move (bid):") == 2  # "t" shows the table and the moves again
    assert "deck: 75 cards" in text and ", ".join(pos["deck"][:2]) not in text


def test_registry_builds_the_human_agent():
    agent = make_agent("human", seed=3)
    assert isinstance(agent, HumanAgent) and agent.name == "human"


# -- the move log, forced moves included -------------------------------------------------------

def test_move_log_names_every_move_forced_ones_too():
    out = io.StringIO()
    labels = ["greedy", "random", "heuristic"]
    agents = [make_agent(name, seed=i) for i, name in enumerate(labels)]
    result = play_game(agents, variant="great_powers", seed=4, watchers=[MoveLog(labels, out=out)])
    lines = out.getvalue().splitlines()
    moves = [MOVE_LINE.match(line) for line in lines if MOVE_LINE.match(line)]
    assert [int(m[1]) for m in moves] == list(range(1, result["moves"] + 1))
    forced = [m for m in moves if m[5]]
    assert len(forced) == result["moves"] - result["steps"] > 0
    assert all(labels[int(m[2])] == m[3] for m in moves)
    # replaying the logged names from the same deal reaches the same end: nothing was left out
    game = GameState.new_game(3, "great_powers", np.random.default_rng(4))
    for m in moves:
        assert game.current_player == int(m[2])
        game.apply_action(A.action_from_name(m[4]))
    assert game.is_terminal() and game.scores() == result["scores"]
    assert sum(line.startswith("-- round ") for line in lines) == game.rounds_played
    assert not any(line.startswith("deck:") for line in lines)  # no table unless asked


def test_move_log_tables_only_where_asked():
    def tables(show):
        out = io.StringIO()
        result = play_game([make_agent("greedy", seed=0), make_agent("random", seed=1)], seed=2,
                           watchers=[MoveLog(show_table=show, out=out)])
        return out.getvalue().count("\ndeck: "), result

    none, _ = tables(None)
    end, _ = tables("end")
    rounds, _ = tables("round")
    every, result = tables("move")
    assert (none, end) == (0, 1)
    assert rounds > 10 and every == result["moves"] + 1


# -- five-towers play through its standard input -----------------------------------------------

def test_cli_human_against_ppo_plays_to_the_end():
    done = five_towers("play", "--agents", "human", "ppo", "--seed", "3", stdin="1\n" * 400)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("seats: 0=human, 1=ppo\n")
    assert "final scores: seat 0 (human) " in out and re.search(r"\nwinners?: seat \d \((human|ppo)\)", out)
    moves = [MOVE_LINE.match(line) for line in out.splitlines()]
    moves = [m for m in moves if m]
    asked = out.count("seat 0, your move (")
    human_choices = [m for m in moves if m[2] == "0" and not m[5]]
    assert asked == len(human_choices) > 5
    assert any(m[5] for m in moves), "forced moves are shown"
    decisions = int(re.search(r"\[(\d+) decisions, (\d+) moves\]", out)[2])
    assert len(moves) == decisions
    # each time the person typed 1, the move played is the first one listed
    for block, move in zip(out.split("seat 0, your move (")[1:], human_choices):
        assert block.split("\n")[1].strip() == f"1. {move[4]}"
    assert "phase game_over" in out  # the final table, for the person


def test_cli_human_any_seat_and_player_count():
    done = five_towers("play", "--agents", "random", "human", "greedy", "--variant", "great_powers",
                       "--seed", "1", stdin="1\n" * 600)
    assert done.returncode == 0, done.stderr
    assert "seats: 0=random, 1=human, 2=greedy" in done.stdout
    assert "seat 1, your move (" in done.stdout and "seat 0, your move" not in done.stdout
    assert "> seat 1 (you): score" in done.stdout


def test_cli_bad_entry_then_quit_stops_cleanly(tmp_path):
    done = five_towers("play", "--agents", "human", "ppo", "--record", str(tmp_path / "g.json"),
                       stdin="hello\n?\nq\n")
    assert done.returncode == 0 and done.stderr == ""
    out = done.stdout
    assert "'hello' is not one of the legal moves listed" in out and "Bidding:" in out
    assert out.count("move [1-") == 3
    assert "game stopped: seat 0 quit; nothing more is played" in out and "Traceback" not in out
    assert "final scores" not in out and (tmp_path / "g.json").exists()


def test_cli_end_of_input_stops_cleanly():
    done = five_towers("play", "--agents", "ppo", "human", stdin="")
    assert done.returncode == 0 and "game stopped: the input of seat 1 ended" in done.stdout


def test_human_is_refused_outside_play():
    done = five_towers("evaluate", "--agents", "human", "random", "--games", "2")
    assert done.returncode == 2 and "human plays only in `five-towers play`" in done.stderr


@pytest.mark.skipif(not hasattr(__import__("os"), "fork") or sys.platform == "win32", reason="needs a POSIX pty")
def test_cli_in_a_pseudo_terminal_echoes_once():
    """At a real terminal the terminal echoes what the person types: the agent must not echo it too."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command at a terminal
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "five_towers_env.cli", "play", "--agents", "human", "ppo"])
    out = b""

    def read_until(marker: bytes, count: int = 1, seconds: float = 60) -> None:
        nonlocal out
        end = time.time() + seconds
        while out.count(marker) < count and time.time() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the child closed the terminal
                    return
                if not chunk:
                    return
                out += chunk

    read_until(b"quit]> ")
    os.write(fd, b"2\r")
    read_until(b"quit]> ", count=2)  # the second prompt, after ppo's moves
    os.write(fd, b"q\r")
    read_until(b"nothing more is played")
    _, status = os.waitpid(pid, 0)
    text = out.decode().replace("\r\n", "\n")
    assert os.waitstatus_to_exitcode(status) == 0
    assert "quit]> 2\n   1. seat 0 (human): bid 1\n" in text  # typed once, echoed once, by the terminal
    assert "game stopped: seat 0 quit" in text
