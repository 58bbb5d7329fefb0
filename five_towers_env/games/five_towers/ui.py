"""5 Towers' hooks for the human seat, the move log, records and replays (:data:`FIVE_TOWERS`).

See :class:`five_towers_env.core.gameui.GameUI` for what each hook is for.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.gameui import GameUI
from five_towers_env.games.five_towers.cards import CARD_NAMES
from five_towers_env.games.five_towers.position import load_position, save_position
from five_towers_env.games.five_towers.render import render_text
from five_towers_env.games.five_towers.state import GameState, Phase
from five_towers_env.games.five_towers.svg import render_svg

_PLACEMENT = ("Placement: a card goes on a higher card of its own type (an 8 takes anything, a 9 goes on "
              "anything, nothing goes on a 0); a card of a type you have no tower of starts one.")
_SCORING = ("Scoring at the end: 1 point per tower card, 2 per card of a tower topped by a 0, plus the height "
            "of your tallest tower, minus 1+2+...+m for m torn-down cards.")


def phase_help(state: GameState) -> str:
    """What the decision on move means, in a few lines (for a human's ``?``)."""
    gp = state.variant == "great_powers"
    phase = state.phase
    if phase == Phase.BID:
        lines = [f"Bidding: a bid is how many display cards you promise to take AND build this round "
                 f"(display: {len(state.display)} cards).",
                 "The start player must bid (0 is allowed); each later player raises or passes, once. "
                 "The highest bidder becomes the builder; nobody else takes anything.",
                 "Only bids you can carry out are offered."]
        if gp:
            lines.append("Great Powers: you may bid beyond the display and pay the rest with cards from the top "
                         "of your tree tower (stop, while taking).")
    elif phase == Phase.TAKE:
        need = state.target - state.taken
        lines = [f"Taking: take display cards one at a time; you still owe {need} of your bid {state.target}.",
                 "Every card you take must then be built, so only takes that keep that possible are offered."]
        if gp:
            lines.append("stop: end taking and pay what you still owe with the top cards of your tree tower "
                         "(not after taking a tree card).")
    elif phase == Phase.TEARDOWN:
        lines = ["Teardown: before building you may move the top card of ONE tower to your teardown pile, "
                 "to make room for a card that would not fit; or choose no teardown.",
                 "Torn-down cards cost points at the end (the first 1, the second 2, ...); a 0 is never torn down."]
    elif phase == Phase.BUILD:
        lines = [f"Building: build every card in your hand ({', '.join(CARD_NAMES[c] for c in state.hand)}), "
                 "one at a time, in any order; the order matters for what still fits."]
        if gp:
            lines.append("Great Powers: a sand card may go under the bottom of the sand tower (build sand-V bottom), "
                         "one end per round; a scrap card lets you recover a torn-down card.")
    elif phase == Phase.RECOVER:
        lines = ["Recover (Great Powers, scrap power): build one card from your teardown pile now (it stops "
                 "costing points), or choose no recover."]
    else:
        lines = ["The game is over."]
    return "\n".join(lines + [_PLACEMENT, _SCORING])


def round_summary(state: GameState) -> str:
    """One line opening a round in the move log: the display, who bids first, the deck left."""
    if state.is_terminal():
        return "game over"
    display = ", ".join(CARD_NAMES[c] for c in state.display)
    ran_out = ", ran out once" if state.deck_ran_out else ""
    return (f"round {state.rounds_played + 1}: display {display}; seat {state.start_player} bids first "
            f"(deck {len(state.deck)} cards{ran_out})")


def round_index(state: GameState) -> int:
    """Rounds played: a 5 Towers position (rules §8) is a round start, so a record keeps one per round."""
    return state.rounds_played


def load_position_at(position: dict[str, Any], round_index: int) -> GameState:
    """The round-start state of a saved position, counting ``round_index`` rounds played before it.

    A record names every card, so loading consumes no randomness; the generator only matters for
    the one reshuffle, and a record's next position holds the real outcome of that.
    """
    state = load_position(position, np.random.default_rng(0))
    # positions do not carry the round number; it is only shown (text and pictures), never a rule
    state.rounds_played = int(round_index)
    return state


def check_continuation(reached: GameState, position: dict[str, Any]) -> str | None:
    """Whether the state a record's moves reach agrees with the record's next round-start position.

    Towers, teardown piles and the start player follow from the moves and must agree; the display
    and the deck may not, since the reshuffle (rules §3.7) is random.
    """
    mine = save_position(reached)
    for key in ("players", "start_player"):
        if mine.get(key) != position.get(key, [] if key == "players" else 0):
            return (f"the moves lead to {key} {mine.get(key)!r}, but the record's next position has "
                    f"{position.get(key)!r}")
    return None


def text_view(state: GameState, seat: int | None = None) -> str:
    """The table as text; every part of it is public (rules §6), so any seat may see all of it."""
    return render_text(state, seat)


#: 5 Towers (both variants) for :func:`five_towers_env.core.gameui.get_ui`
FIVE_TOWERS = GameUI(
    text_view=text_view,
    svg=render_svg,
    phase_help=phase_help,
    round_summary=round_summary,
    round_index=round_index,
    load_position=load_position_at,
    check_continuation=check_continuation,
    legend=("Towers grow upwards, first card at the bottom. x2 over a tower: it is topped (its top card is a 0), "
            "which doubles the points of its cards. A white frame marks the seat to act, gold the winners; "
            "the torn-down cards under a panel cost 1 + 2 + ... points."),
)

__all__ = ["FIVE_TOWERS", "phase_help", "round_summary", "round_index", "load_position_at", "check_continuation",
           "text_view"]
