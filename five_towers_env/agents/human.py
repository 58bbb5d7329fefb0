"""A person at the terminal as an agent (``"human"``): ``five-towers play --agents human ppo``.

On each of its decisions :class:`HumanAgent` prints the table as its seat sees it (the game's
``text_view`` of the public view in ``info["view"]``: never the deck order), numbers the legal
moves with their names, and reads one line:

* a number from the list, or a move's name (``bid 3``, ``take candy-5``; any case; a unique start
  of a legal name such as ``take sand`` will do);
* ``?`` or ``help``: what the decision means; ``t`` or ``table``: the table and the moves again;
* ``q`` or ``quit`` (or the end of the input): raises :class:`QuitGame`, which ``five-towers play``
  turns into a clean stop.

Anything else gets a one-line message and the same prompt again. Everything game-specific comes
from the game's :class:`~five_towers_env.core.gameui.GameUI` (``info["game"]``, default 5 Towers), so
the same agent seats a person at any game that provides one.
"""
from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np

from five_towers_env.core.agent import AgentBase
from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.core.gameui import GameUI, get_ui

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "help", "h")
TABLE_WORDS = ("t", "table")


def _is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal (which echoes what is typed)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class QuitGame(Exception):
    """The person chose to stop the game (``q``) or their input ended."""


class HumanAgent(AgentBase):
    """Asks a person for every decision (see the module docstring).

    ``input`` / ``output`` default to ``sys.stdin`` / ``sys.stdout`` as they are when asked (so a
    test can swap them); ``seed`` is accepted like every agent's and unused: people choose freely.
    """

    pool_opponent = False  # a person plays it
    interactive = True

    def __init__(self, seed: int | None = None, name: str = "human", game: str = DEFAULT_GAME,
                 input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.name = name
        self.game = game
        self._input = input
        self._output = output

    @property
    def input(self) -> TextIO:
        """The stream the moves are read from."""
        return self._input if self._input is not None else sys.stdin

    @property
    def output(self) -> TextIO:
        """The stream the table, the moves and the prompt go to."""
        return self._output if self._output is not None else sys.stdout

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def _show(self, ui: GameUI, info: dict[str, Any], names: list[str]) -> None:
        """The table from this seat, then the numbered legal moves."""
        seat = int(info["seat"])
        view = info["view"]
        self._say("\n" + ui.text_view(view, seat))
        self._say(f"\nseat {seat}, your move ({view.phase_name}):")
        width = len(str(len(names)))
        for i, n in enumerate(names, 1):
            self._say(f"  {i:>{width}}. {n}")

    def choose(self, text: str, names: list[str]) -> int | str:
        """The index into ``names`` that the entry ``text`` picks, or a one-line reason it picks none."""
        if text.isdigit():
            k = int(text)
            return k - 1 if 1 <= k <= len(names) else f"there is no move {k}: choose 1 to {len(names)}"
        wanted = " ".join(text.lower().split())
        lowered = [n.lower() for n in names]
        if wanted in lowered:
            return lowered.index(wanted)
        starts = [i for i, n in enumerate(lowered) if n.startswith(wanted)]
        if len(starts) == 1:
            return starts[0]
        if starts:
            return f"{text!r} could be {', '.join(names[i] for i in starts)}: type more of it, or its number"
        return f"{text!r} is not one of the legal moves listed: type its number or its name"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """Show the table and the legal moves, and read the person's choice (see the module docstring)."""
        game = info.get("game", self.game)
        ui, spec = get_ui(game), get_game(game)
        legal = list(info.get("legal_actions") or np.flatnonzero(observation["action_mask"]).tolist())
        names = [spec.action_name(a) for a in legal]
        self._show(ui, info, names)
        prompt = f"move [1-{len(names)} or a name; ? help, q quit]> "
        while True:
            self.output.write(prompt)
            self.output.flush()
            line = self.input.readline()
            if not line:  # end of input: stop cleanly rather than wait forever
                self._say("")
                raise QuitGame(f"the input of seat {info['seat']} ended")
            text = line.strip()
            if not _is_terminal(self.input):
                self._say(text)  # piped input is not echoed: write it, so the transcript reads as a session
            low = text.lower()
            if low in QUIT_WORDS:
                raise QuitGame(f"seat {info['seat']} quit")
            if low in HELP_WORDS:
                self._say(ui.phase_help(info["view"]))
                continue
            if low in TABLE_WORDS:
                self._show(ui, info, names)
                continue
            if not text:
                self._say(f"type a number from 1 to {len(names)}, a move's name, ? for help or q to quit")
                continue
            choice = self.choose(text, names)
            if isinstance(choice, int):
                return int(legal[choice])
            self._say(choice)


__all__ = ["HumanAgent", "QuitGame"]
