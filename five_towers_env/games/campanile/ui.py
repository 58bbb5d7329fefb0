"""Campanile's hooks for the human seat, the move log, records and replays (:data:`CAMPANILE`).

See :class:`five_towers_env.core.gameui.GameUI` for what each hook is for. Everything here is built
from this package's own engine, position format (SPEC C7) and action names (SPEC C6); the
pictures and texts show public information only (SPEC C5), plus, for a seated player, its own hand.

Campanile has no rounds. A SPEC C7 position can be taken at the start of every turn, so a
record keeps one per turn: :func:`round_index` is the number of turns completed. A position
leaves out what the rules never need again (the set-aside leftovers, which drawn cards are known
to be in a hand, how many cards were played); a replay that restarts from a turn's position
therefore shows no known hand cards, which is why the drawing shows each hand's size only.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.gameui import GameUI
from five_towers_env.games.campanile.position import load_position, save_position
from five_towers_env.games.campanile.render import chips_text, render_text
from five_towers_env.games.campanile.rules import TOWERS
from five_towers_env.games.campanile.state import CampanileState, Phase
from five_towers_env.games.campanile.svg import render_svg, svg_size

_SCORING = ("Scoring at the end: the towers take the flags tallest first (8/4, 6/3, 4/2, 2/1; the fifth gets "
            "none; equal heights: the one further left first). Under each flagged tower the largest stake "
            "scores the high number and the second the low one; equal stakes: the earlier first chip wins.")
_END = "The game ends at once when a draw empties a pile."


def phase_help(state: CampanileState) -> str:
    """What the decision on move means, in a few lines (for a human's ``?``)."""
    if state.done:
        return "\n".join(["The game is over.", _SCORING])
    if state.phase == Phase.PLAY:
        lines = ["Play: put one card from your hand on the tower of its style and raise it 1, 2 or 3 storeys "
                 "(play T K).",
                 "The storeys also choose the pile you draw from at the end of your turn: pile 1, 2 or 3.",
                 "Face up now: " + _face_up(state) + "."]
    else:
        k = state.played_storeys
        chip = (f"a chip worth exactly {k}" if state.bet_chip == "exact" else f"a chip worth at least {k}")
        where = (f"on tower {TOWERS[state.played_tower]}, the one just played onto" if state.variant == "played"
                 else "on a tower shown face up on a pile")
        lines = [f"Bet: you may place {chip} {where} (bet V on T), or not bet (no bet).",
                 "A chip stays there for the rest of the game and is spent for good; your chips: "
                 + chips_text(state.chips[state.current_player]) + " (how many of each value).",
                 f"Then you draw the face-up card of pile {k} into your hand (everybody sees it)."]
    return "\n".join(lines + [_END, _SCORING])


def _face_up(state: CampanileState) -> str:
    return ", ".join(f"pile {i + 1} {TOWERS[t] if t >= 0 else '-'}" for i, t in enumerate(state.face_up()))


def round_summary(state: CampanileState) -> str:
    """One line opening a turn in the move log: who plays, the face-up pile cards and pile sizes."""
    if state.done:
        return "game over"
    sizes = "/".join(str(len(p)) for p in state.piles)
    return (f"turn {state.turns + 1}: seat {state.current_player} plays; face up {_face_up(state)} "
            f"(piles {sizes} cards)")


def round_index(state: CampanileState) -> int:
    """Turns completed: a position (SPEC C7) is taken at each turn start, so a record keeps one per turn."""
    return state.turns


def load_position_at(position: dict[str, Any], round_index: int) -> CampanileState:
    """The turn-start state of a saved position, counting ``round_index`` turns completed before it.

    The engine draws nothing after the deal, so the generator given is never used.
    """
    state = load_position(position, np.random.default_rng(0))
    # positions do not carry the turn number; it is only shown (text and pictures), never a rule
    state.turns = int(round_index)
    return state


def check_continuation(reached: CampanileState, position: dict[str, Any]) -> str | None:
    """Whether the state a record's moves reach is the record's next turn-start position.

    Nothing is random after the deal, so every part of the position must agree.
    """
    mine = save_position(reached)
    for key in sorted(set(mine) | set(position)):
        if mine.get(key) != position.get(key):
            return (f"the moves lead to {key} {mine.get(key)!r}, but the record's next position has "
                    f"{position.get(key)!r}")
    return None


def text_view(state: CampanileState, seat: int | None = None) -> str:
    """The table as text (public information only); for a seat, its own hand below."""
    text = render_text(state)
    if seat is None:
        return text
    hand = " ".join(TOWERS[c] for c in state.hands[seat]) or "-"
    return f"{text}\nyour hand (seat {seat}): {hand}"


#: Campanile (both variants) for :func:`five_towers_env.core.gameui.get_ui`
CAMPANILE = GameUI(
    text_view=text_view,
    svg=render_svg,
    phase_help=phase_help,
    round_summary=round_summary,
    round_index=round_index,
    load_position=load_position_at,
    check_continuation=check_continuation,
    legend=("Towers grow upwards, one storey per step; the flag above a tower is the one it would earn now "
            "(8/4 for the tallest). Under a tower, the chips bet on it, in their seats' colours, in the order "
            "placed. \"chips 5 of 1, 3 of 2, 1 of 3\": how many chips of each value a seat has left."),
)

__all__ = ["CAMPANILE", "phase_help", "round_summary", "round_index", "load_position_at", "check_continuation",
           "text_view", "render_svg", "svg_size"]
