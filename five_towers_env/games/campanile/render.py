"""A readable text picture of a Campanile table: public information only (SPEC C5).

Never shows a hand (not even the one of the player on move), a pile card below the face-up
one, or the set-aside leftovers: the text is the same for every seat, so it hides what any
seat must not see.
"""
from __future__ import annotations

from collections.abc import Sequence

from five_towers_env.games.campanile.rules import CHIP_VALUES, FLAGS, TOWERS
from five_towers_env.games.campanile.state import CampanileState


def chips_text(held: Sequence[int]) -> str:
    """A seat's chips left, written the one way every view writes them: ``5 of 1, 3 of 2, 1 of 3``
    (how many chips of each value, 1 to 3)."""
    return ", ".join(f"{count} of {value}" for value, count in zip(CHIP_VALUES, held))


def render_text(state: CampanileState) -> str:
    """The table as text: towers with heights, flags and the chips under them (``s0:2``: a chip of
    value 2 of seat 0), the piles, each seat's chips left (:func:`chips_text`) and score."""
    scores = state.scores()
    status = "game over" if state.done else f"phase {state.phase_name}, seat {state.current_player} to act"
    rule = "" if state.bet_chip == "at_least" else ", exact chips"
    lines = [f"Campanile ({state.variant}{rule}, {state.num_players} players) - turn {state.turns + 1}, {status}"]
    if state.played_storeys and not state.done:
        lines.append(f"just played: tower {TOWERS[state.played_tower]} +{state.played_storeys}")
    flags = {t: f"{hi}/{lo}" for (hi, lo), t in zip(FLAGS, state.flag_order())}
    for t in range(len(TOWERS)):
        chips = " ".join(f"s{s}:{v}" for s, v in state.bets[t]) or "-"
        lines.append(f"  tower {TOWERS[t]}: height {state.heights[t]:>2}  flag {flags.get(t, '-'):>3}  chips {chips}")
    piles = "   ".join(f"pile {i + 1}: {TOWERS[p[-1]] if p else '-'} ({len(p)} cards)"
                       for i, p in enumerate(state.piles))
    lines.append(f"  {piles}")
    for p in range(state.num_players):
        marker = ">" if p == state.current_player and not state.done else " "
        known = "".join(TOWERS[c] for c in state.revealed[p]) or "-"
        lines.append(f"{marker} seat {p}: score {scores[p]:>2}  chips {chips_text(state.chips[p])}  "
                     f"{len(state.hands[p])} cards (known: {known})")
    return "\n".join(lines)


__all__ = ["chips_text", "render_text"]
