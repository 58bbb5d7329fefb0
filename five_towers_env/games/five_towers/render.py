"""A readable text picture of the table (public information only: never the deck order)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from five_towers_env.games.five_towers.cards import CARD_NAMES, TYPES
from five_towers_env.games.five_towers.lookahead import END_BOTTOM, END_TOP
from five_towers_env.games.five_towers.state import PASSED, GameState, Phase

if TYPE_CHECKING:
    from collections.abc import Iterable

    import numpy as np


def _cards(cards: Iterable[int]) -> str:
    return ", ".join(CARD_NAMES[c] for c in cards) or "-"


def render_text(state: GameState, seat: int | None = None) -> str:
    """The table as text: deck size, display, bids, each seat's towers, teardown pile and score;
    ``seat`` (the reader's, if given) is marked ``(you)``."""
    scores = state.scores()
    lines = [
        f"5 Towers ({state.variant}, {state.num_players} players) - round {state.rounds_played + 1}, "
        f"phase {state.phase_name}" + (f", seat {state.current_player} to act" if state.current_player >= 0 else ""),
        f"deck: {len(state.deck)} cards{' (ran out once)' if state.deck_ran_out else ''}   "
        f"discard: {len(state.discard)} cards   start player: seat {state.start_player}",
        f"display: {_cards(state.display)}",
        "(towers are listed bottom to top; a tower topped by a 0 scores its cards twice)",
    ]
    if state.phase in (Phase.TAKE, Phase.TEARDOWN, Phase.BUILD, Phase.RECOVER):
        extra = f", paid {state.paid} tree" if state.paid else ""
        ends = {END_TOP: ", sand end: top", END_BOTTOM: ", sand end: bottom"}.get(state.sand_end, "")
        lines.append(f"builder: seat {state.builder}, bid {state.target}, hand: {_cards(state.hand)}{extra}{ends}")
    for p in range(state.num_players):
        b = state.bids[p]
        bid = "" if b is None else (" passed" if b == PASSED else f" bid {b}")
        marker = ">" if p == state.current_player else " "
        you = " (you)" if p == seat else ""
        lines.append(f"{marker} seat {p}{you}: score {scores[p]}{bid}")
        for t, tw in enumerate(state.towers[p]):
            if tw:
                top = " (topped)" if tw[-1] == 0 else ""
                lines.append(f"      {TYPES[t]:<5} {' '.join(map(str, tw))}{top}")
        if state.piles[p]:
            lines.append(f"      torn down: {_cards(state.piles[p])}")
    return "\n".join(lines)


def render_frame(state: GameState | None, mode: str | None, num_players: int) -> str | np.ndarray | None:
    """What ``render()`` gives in ``mode`` for both environments: the text (``"ansi"``), the text
    printed (``"human"``, returns None) or the ``(H, W, 3)`` uint8 picture (``"rgb_array"``; a blank
    one before the first reset). Public information only."""
    if mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'.")
        return None
    if mode == "rgb_array":
        import numpy as np

        from five_towers_env.games.five_towers.picture import picture_shape, render_rgb

        return np.zeros(picture_shape(num_players), dtype=np.uint8) if state is None else render_rgb(state)
    if state is None:
        return None if mode == "human" else ""
    text = render_text(state)
    if mode == "human":
        print(text + "\n")
        return None
    return text
