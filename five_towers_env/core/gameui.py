"""What the game-neutral tools need from a game: the human seat, the move log, ``--record`` and
the HTML replay.

Those tools (:mod:`five_towers_env.agents.human`, :mod:`five_towers_env.play`,
:mod:`five_towers_env.replay`) never import a game's rules. They ask a :class:`GameUI` for every
game-specific step, looked up by the game's name with :func:`get_ui`: a game's
:class:`~five_towers_env.core.game.GameSpec` names its ``GameUI`` (``ui="module:attribute"``),
built from the game's own functions (5 Towers: :data:`five_towers_env.games.five_towers.ui.FIVE_TOWERS`).

The states the hooks take are the game's engine states (:class:`~five_towers_env.core.state.State`).
The game's name, title, action names and positions are its spec's (:class:`~five_towers_env.core.game.GameSpec`),
not repeated here.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameUI:
    """The game-specific hooks of the human seat, the move log, records and replays.

    Attributes:
        text_view: ``(state, seat) -> str``: the table as text as ``seat`` may see it (``seat`` None:
            as a spectator sees it). Must never show what that seat may not know.
        svg: ``(state, labels=None) -> str``: a standalone SVG document of the table as a spectator
            sees it; ``labels`` names the seats (agent names).
        phase_help: ``(state) -> str``: a few lines explaining the decision on move, for ``?``.
        round_summary: ``(state) -> str``: one line opening a round in the move log (what is on
            offer, who starts).
        round_index: ``(state) -> int``: a counter that changes exactly when the game reaches a
            state that the spec's ``save_position`` / :attr:`load_position` can store and restore (5 Towers:
            the rounds played, a position being a round start). Records keep one position per value
            (which may hold hidden information such as the deck order: records are for after the game).
        load_position: ``(position, round_index) -> state``: the state back from the spec's
            ``save_position`` output taken when :attr:`round_index` gave ``round_index``.
        check_continuation: optional ``(reached state, recorded position) -> problem or None``: does
            the state that a record's moves reach agree with the position recorded next (public
            parts only; random events may legitimately differ)? ``None`` skips the check.
        legend: how to read the :attr:`svg` drawing, a sentence or two shown beside it (the replay page).
        public_move_name: optional ``(action id) -> str``: what the table sees of a move as it is made,
            for the move log (``None``: its name). A game whose moves are secret when made (a bid face
            down) names them here, so that a log printed during a game tells a person at the table
            nothing more; records keep the real names.
    """

    text_view: Callable[[Any, int | None], str]
    svg: Callable[..., str]
    phase_help: Callable[[Any], str]
    round_summary: Callable[[Any], str]
    round_index: Callable[[Any], int]
    load_position: Callable[[dict, int], Any]
    check_continuation: Callable[[Any, dict], str | None] | None = None
    legend: str = ""
    public_move_name: Callable[[int], str] | None = None


def get_ui(name: str) -> GameUI:
    """The :class:`GameUI` of the game registered as ``name``; ``ValueError`` naming the known games otherwise."""
    from five_towers_env.core.game import get_game

    spec = get_game(name)
    ui = spec.load_ui()
    if not isinstance(ui, GameUI):
        raise TypeError(f"{spec.ui} is a {type(ui).__name__}, not a GameUI")
    return ui


__all__ = ["GameUI", "get_ui"]
