"""Goofspiel's hooks for the human seat, move logs, records and replays (:data:`GOOFSPIEL`).

See :class:`five_towers_env.core.gameui.GameUI` for what each hook is for. Texts and pictures show
what a spectator sees (for a seated player, its own hand and bid too); the move log names a bid
only as "bids face down", and each round's opening line shows the bids of the round before. A
position can be saved after every bid; a record keeps one per round (:func:`round_index`).
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from five_towers_env.core.gameui import GameUI

from .position import load_position, save_position
from .state import CARDS, GoofState

RULES = ("Every round a prize card (1-5) is turned up and each player in turn bids one of their cards 1-5 "
         "face down. Then the bids are shown: the sole highest bid wins the prize's points; a tie loses the "
         "prize (variant discard) or adds it to the next prize (variant carry). Bid cards are spent. "
         "After five rounds the most points win.")


def _cards(cards: Sequence[int]) -> str:
    """Cards as ``1 3 5`` (``-`` for none)."""
    return " ".join(map(str, cards)) or "-"


def _shown(state: GoofState) -> str:
    """The bids shown at the end of the last round, seat by seat ("" before the first)."""
    return ", ".join(f"seat {p} bid {b}" for p, b in enumerate(state.shown)) if any(state.shown) else ""


def text_view(state: GoofState, seat: int | None = None) -> str:
    """The table as text, as ``seat`` may see it (``None``: a spectator): never another seat's bid."""
    status = "game over" if state.done else f"round {state.round + 1} of {CARDS}, seat {state.current_player} to bid"
    lines = [f"Goofspiel ({state.variant}, {state.num_players} players) - {status}"]
    if not state.done:
        carried = f" (+{state.pot} carried over)" if state.pot else ""
        lines.append(f"  prize {state.prize}{carried}; still face down: {_cards(sorted(state.deck))}")
    if _shown(state):
        lines.append(f"  last round: {_shown(state)}")
    for p in range(state.num_players):
        unshown = sorted((*state.hands[p], state.bids[p])) if state.bids[p] else state.hands[p]
        bid = ", has bid" if state.bids[p] else ""
        lines.append(f"  seat {p}: {state.won[p]} points, cards not shown {_cards(unshown)}{bid}")
    if seat is not None:
        mine = f", your bid: {state.bids[seat]}" if state.bids[seat] else ""
        lines.append(f"your hand (seat {seat}): {_cards(state.hands[seat])}{mine}")
    return "\n".join(lines)


def render_svg(state: GoofState, labels: Sequence[str] | None = None) -> str:
    """A standalone SVG of the table as a spectator sees it: the text view, one line per row."""
    rows = text_view(state, None).splitlines()
    labels = list(labels or [])
    rows += [f"  seat {p}: {name}" for p, name in enumerate(labels) if name]
    width, height = 640, 24 * len(rows) + 16
    text = "".join(f'<text x="12" y="{28 + 24 * i}">{escape(row)}</text>' for i, row in enumerate(rows))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} '
            f'{height}"><rect width="{width}" height="{height}" fill="#15161c"/><g font-family="monospace" '
            f'font-size="15" fill="#e6e8ef" xml:space="preserve">{text}</g></svg>')


def phase_help(state: GoofState) -> str:
    """The rules in a few lines, for a person's ``?``."""
    return "The game is over.\n" + RULES if state.done else "Bid a card: bid C (C one of your cards).\n" + RULES


def round_summary(state: GoofState) -> str:
    """One line opening a round in the move log."""
    if state.done:
        return "game over"
    carried = f" (+{state.pot} carried over)" if state.pot else ""
    shown = f" - last round: {_shown(state)}" if _shown(state) else ""
    return f"round {state.round + 1}: prize {state.prize}{carried}{shown}"


def round_index(state: GoofState) -> int:
    """Rounds completed: a record keeps the position at the start of each round."""
    return state.round


def load_position_at(position: dict[str, Any], round_index: int) -> GoofState:
    """The state of a saved position (the round is in the position itself)."""
    return load_position(position)


def public_move_name(action: int) -> str:
    """What the table sees of a bid as it is made: not the card (the round's end shows them all)."""
    return "bids face down"


def check_continuation(reached: GoofState, position: dict[str, Any]) -> str | None:
    """Nothing is random after the shuffle: the moves must reach the recorded position exactly."""
    mine = save_position(reached)
    wrong = [key for key in position if mine.get(key) != position[key]]
    return f"the moves lead to another {', '.join(wrong)} than the record's next position" if wrong else None


#: Goofspiel for :func:`five_towers_env.core.gameui.get_ui`
GOOFSPIEL = GameUI(
    text_view=text_view, svg=render_svg, phase_help=phase_help, round_summary=round_summary,
    round_index=round_index, load_position=load_position_at,
    check_continuation=check_continuation, public_move_name=public_move_name,
    legend="The table as text: the prize on offer, and per seat its points and the cards it has not shown yet.",
)

__all__ = ["GOOFSPIEL", "text_view", "render_svg", "phase_help", "round_summary", "round_index", "load_position_at",
           "public_move_name", "check_continuation"]
