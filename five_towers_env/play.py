"""Play whole games between agents through the PettingZoo environment.

:func:`play_game` is the one game loop: evaluations, tournaments, ``five-towers play`` and the
examples all run through it. Watchers (:class:`GameWatcher`) follow a game move by move, forced
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
    g = get_game(game)
    if variant is None:
        variant = g.default_variant
    kwargs: dict[str, Any] = {"num_players": len(agents), "variant": variant, "render_mode": render_mode}
    if g.explicit:
        # explicit=True hands every decision to this loop, which applies the forced ones itself (the
        # same ones, in the same order, as the environment would), so that watchers see each of them
        kwargs["explicit"] = True
    env = g.make_raw_env(**kwargs)
    env.reset(seed=seed, options=options)
    state = env.game
    for w in watchers:
        w.start(state, g)
    steps = moves = 0
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        forced = g.explicit and len(legal) == 1
        if forced:
            action = legal[0]
        else:
            action = agents[seat].act(env.observe(env.possible_agents[seat]), g.agent_info(state, seat))
            steps += 1
        env.step(action)
        moves += 1
        if watchers:
            move = Move(moves, seat, int(action), g.action_name(int(action)), forced, state)
            for w in watchers:
                w.move(move)
    result = {"scores": env.scores(), "winners": env.winners(),
              "rewards": [env.rewards[a] for a in env.possible_agents], "steps": steps, "moves": moves}
    for w in watchers:
        w.end(result)
    return result


__all__ = ["play_game", "Move", "GameWatcher", "MoveLog"]
