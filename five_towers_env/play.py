"""Play whole games between agents through the PettingZoo environment.

:func:`play_game` is the one game loop: evaluations, tournaments, ``five-towers play`` and the
examples all run through it; :class:`LiveGame` is its steps, for a caller that drives a game move by move
(``five-towers serve``). Watchers (:class:`GameWatcher`) follow a game move by move, forced
moves included: :class:`MoveLog` prints it, :class:`five_towers_env.replay.GameRecorder` records it.

The loop serves every game of :mod:`five_towers_env.core.game` (``game="campanile"``): it builds the
game's environment, its agents' ``info`` and its :class:`~five_towers_env.core.gameui.GameUI` from the
registry and imports no game's rules itself.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from five_towers_env.core.agent import Agent
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.gameui import get_ui


@dataclass(frozen=True)
class Move:
    """One move of a game, as watchers see it.

    ``number`` counts every move from 1, forced ones included; ``forced`` marks a move that was the
    only legal one and was applied without asking the agent; ``game`` is the live state right after
    the move (read it during the call, do not keep it: the next move changes it).
    """

    number: int
    seat: int
    action: int
    name: str
    forced: bool
    game: Any


class GameWatcher:
    """Follows games through :func:`play_game` (or a replay); every hook does nothing here."""

    def start(self, game: Any, spec: GameSpec) -> None:
        """The game is set up (before any move, forced or not); ``spec`` is its :class:`GameSpec`
        (``get_ui(spec.name)`` gives its :class:`~five_towers_env.core.gameui.GameUI`)."""

    def move(self, move: Move) -> None:
        """A move was applied."""

    def end(self, result: dict[str, Any]) -> None:
        """The game is over; ``result`` is what :func:`play_game` returns."""


class MoveLog(GameWatcher):
    """Prints a game one line per move (forced moves marked), a line opening each round, and the
    table where asked: ``show_table="end"`` at the end, ``"round"`` at each round start too,
    ``"move"`` after every move as well. The final scores are the caller's to print."""

    TABLE = (None, "end", "round", "move")

    def __init__(self, labels: Sequence[str] | None = None, show_table: str | None = None,
                 out: TextIO | None = None) -> None:
        if show_table not in self.TABLE:
            raise ValueError(f"show_table must be one of {self.TABLE}, got {show_table!r}")
        self.labels = list(labels or [])
        self.show_table = show_table
        self._out = out
        self._round: int | None = None

    @property
    def out(self) -> TextIO:
        """The stream written to (``sys.stdout`` at the time of writing unless one was given)."""
        return self._out if self._out is not None else sys.stdout

    def _write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()  # a human at the terminal reads these lines before being prompted

    def _seat(self, seat: int) -> str:
        label = self.labels[seat] if seat < len(self.labels) else ""
        return f"seat {seat}" + (f" ({label})" if label else "")

    def _open_round(self, game: Any) -> None:
        self._round = self.ui.round_index(game)
        if self.show_table in ("round", "move"):
            self._write("\n" + self.ui.text_view(game, None) + "\n")
        self._write("-- " + self.ui.round_summary(game))

    def start(self, game: Any, spec: GameSpec) -> None:
        """Open the first round."""
        self.ui = get_ui(spec.name)
        self._open_round(game)

    def move(self, move: Move) -> None:
        """One line for the move; a new round's opening line (and table) if the move began one."""
        forced = "   (forced: the only legal move)" if move.forced else ""
        name = self.ui.public_move_name(move.action) if self.ui.public_move_name else move.name
        self._write(f"{move.number:>4}. {self._seat(move.seat)}: {name}{forced}")
        game = move.game
        if game.is_terminal():
            if self.show_table:
                self._write("\n" + self.ui.text_view(game, None) + "\n")
        elif self.ui.round_index(game) != self._round:
            self._open_round(game)
        elif self.show_table == "move":
            self._write("\n" + self.ui.text_view(game, None) + "\n")


class LiveGame:
    """One game of ``game`` (a name or a spec) played move by move, by whoever drives it: :func:`play_game`'s
    loop, or a caller that waits between moves (the browser table of ``five-towers serve`` asks a person or an
    agent for each decision in its own time). Both drive the same steps, so a game is the same game either way.

    Set up as :func:`play_game` describes (``explicit`` environments where the game has forced moves); the
    ``watchers`` see the start now, every move as :meth:`apply` makes it, and the end once. Read the position
    from :attr:`state` (the live engine state: do not change it).
    """

    def __init__(self, game: str | GameSpec, num_players: int, variant: str | None = None, seed: int | None = None,
                 render_mode: str | None = None, options: dict | None = None,
                 watchers: Sequence[GameWatcher] = ()) -> None:
        g = self.spec = get_game(game)
        if variant is None:
            variant = g.default_variant
        kwargs: dict[str, Any] = {"num_players": num_players, "variant": variant, "render_mode": render_mode}
        if g.explicit:
            # explicit=True hands every decision to this loop, which applies the forced ones itself (the
            # same ones, in the same order, as the environment would), so that watchers see each of them
            kwargs["explicit"] = True
        self.env = g.make_raw_env(**kwargs)
        self.env.reset(seed=seed, options=options)
        self.state = self.env.game
        self.watchers = list(watchers)
        self.steps = self.moves = 0
        self._legal: list[int] | None = None  # the legal actions of the position on move, once asked
        self._result: dict[str, Any] | None = None
        for w in self.watchers:
            w.start(self.state, g)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.state.is_terminal())

    @property
    def seat(self) -> int:
        """The seat on move."""
        return int(self.state.current_player)

    def legal(self) -> list[int]:
        """The legal actions of the seat on move."""
        if self._legal is None:
            self._legal = list(self.state.legal_actions())
        return self._legal

    @property
    def forced(self) -> bool:
        """Whether the decision on move is forced (the only legal move, in a game with forced moves): it is
        applied without asking the seat's agent."""
        return bool(self.spec.explicit and len(self.legal()) == 1)

    def ask(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The ``(observation, info)`` the agent on move is asked with."""
        seat = self.seat
        return self.env.observe(self.env.possible_agents[seat]), self.spec.agent_info(self.state, seat)

    def apply(self, action: int) -> Move:
        """Apply the seat on move's ``action`` (an illegal one raises and changes nothing), tell the watchers,
        and the end too if the move ended the game; return the move (its ``name`` is left empty where nobody
        watches: naming every move of an evaluation costs time and is never read)."""
        seat, forced = self.seat, self.forced
        self.env.step(action)
        self._legal = None
        self.moves += 1
        if not forced:
            self.steps += 1
        move = Move(self.moves, seat, int(action), self.spec.action_name(int(action)) if self.watchers else "",
                    forced, self.state)
        for w in self.watchers:
            w.move(move)
        if self.watchers and self.over:
            result = self.result()
            for w in self.watchers:
                w.end(result)
        return move

    def result(self) -> dict[str, Any]:
        """What :func:`play_game` returns: scores, winners, rewards, ``steps`` (decisions the agents were asked)
        and ``moves`` (every move, forced ones included); ``ValueError`` before the end."""
        if not self.over:
            raise ValueError("the game is not over yet")
        if self._result is None:
            env = self.env
            self._result = {"scores": env.scores(), "winners": env.winners(),
                            "rewards": [env.rewards[a] for a in env.possible_agents], "steps": self.steps,
                            "moves": self.moves}
        return self._result


def play_game(agents: Sequence[Agent], variant: str | None = None, seed: int | None = None,
              render_mode: str | None = None, options: dict | None = None,
              watchers: Sequence[GameWatcher] = (), game: str | GameSpec = DEFAULT_GAME) -> dict[str, Any]:
    """Play one game of ``game`` (a :mod:`five_towers_env.core.game` name), ``agents[i]`` in seat ``i``;
    return scores, winners, rewards, ``steps`` (the decisions the agents were asked) and ``moves``
    (every move, forced ones included).

    ``variant`` None is the game's default variant (5 Towers ``"base"``, Campanile ``"pile"``).
    In a game with forced moves (5 Towers) agents are asked only real choices: a decision with a
    single legal action is applied for them, as the environment does by default, and ``watchers``
    are shown it as a forced :class:`Move`. A game without them (Campanile) puts every decision to
    its agent, as its environment does.
    """
    live = LiveGame(game, len(agents), variant, seed, render_mode, options, watchers)
    while not live.over:
        if live.forced:
            live.apply(live.legal()[0])
        else:
            live.apply(agents[live.seat].act(*live.ask()))
    return live.result()


__all__ = ["play_game", "LiveGame", "Move", "GameWatcher", "MoveLog"]
