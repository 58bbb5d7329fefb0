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

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

from five_towers_env.core.gameui import GameUI
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.position import load_position, save_position
from five_towers_env.games.campanile.render import chips_text, render_text
from five_towers_env.games.campanile.rules import FLAGS, NUM_PILES, NUM_TOWERS, TOWERS
from five_towers_env.games.campanile.state import CampanileState, Phase

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


def load_turn(position: dict[str, Any], round_index: int) -> CampanileState:
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


# -- the SVG drawing ---------------------------------------------------------------------------

#: fill of towers and cards A..E, and the text on each
STYLE_FILLS = ("#e05a4f", "#4f8fe0", "#55b45a", "#e0b84f", "#a066d6")
STYLE_INKS = ("#ffffff", "#ffffff", "#ffffff", "#1c1e26", "#ffffff")
#: one colour per seat, for its chips
SEAT_FILLS = ("#f2f2f2", "#ff9f1c", "#2ec4b6", "#e71d73", "#9bc53d")
GOLD = "#ffc800"

MARGIN = 12
WIDTH = 760
HEADER_H = 52
TOWER_PITCH = 104
TOWER_W = 56
TOWER_MAX_H = 210              # pixels of the tallest tower the drawing has room for
STOREY_MIN = 6                 # pixels per storey while every tower fits at this scale
BASE_Y = HEADER_H + TOWER_MAX_H + 30
CHIP_R, CHIP_PITCH = 9, 21
CHIP_ROWS = 4                  # chips per column under a tower; more columns to the right
CHIPS_H = CHIP_ROWS * CHIP_PITCH + 8
PILES_Y = BASE_Y + 40 + CHIPS_H
CARD_W, CARD_H = 44, 60
PILES_H = CARD_H + 30
SEAT_H = 26

STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#e6e8ef}"
         ".h{font-size:17px;font-weight:bold}.s{font-size:12px;fill:#b4b8c6}.l{font-size:12px}"
         ".v{font-weight:bold;text-anchor:middle}.p{fill:#2c2f3a;stroke:#5a5e6e;stroke-width:1}"
         ".turn{stroke:#ffffff;stroke-width:3}.win{stroke:#ffc800;stroke-width:3}.c{font-size:11px}"
         + "".join(f".k{t}{{fill:{STYLE_FILLS[t]}}}.i{t}{{fill:{STYLE_INKS[t]}}}" for t in range(NUM_TOWERS))
         + "".join(f".q{s}{{fill:{SEAT_FILLS[s]}}}" for s in range(len(SEAT_FILLS))))


def svg_size(num_players: int) -> tuple[int, int]:
    """``(width, height)`` of the drawing for ``num_players`` seats (one size per count: replays do not jump)."""
    return WIDTH, PILES_Y + PILES_H + 8 + num_players * SEAT_H + MARGIN


def _seat_name(p: int, labels: Sequence[str]) -> str:
    label = labels[p] if p < len(labels) and labels[p] else ""
    return f"seat {p}" + (f" - {label}" if label else "")


def render_svg(state: CampanileState, labels: Sequence[str] | None = None) -> str:
    """A standalone SVG document of the table as a spectator sees it (SPEC C5: never a hand's
    cards, a pile card below the face-up one or the leftovers): the five towers with their heights,
    flags and the chips under them, the three piles' face-up cards and sizes, and each seat's
    chips, hand size and score. The seat on move is framed in white, the winners in gold at the end."""
    labels = list(labels or [])
    n = state.num_players
    width, height = svg_size(n)
    over = state.done
    winners = set(state.winners()) if over else set()
    scores = state.scores()
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">', f"<style>{STYLE}</style>",
           f'<rect width="{width}" height="{height}" fill="#15161c"/>']

    status = ("game over" if over
              else f"turn {state.turns + 1} - {state.phase_name} - seat {state.current_player} to act")
    rule = "" if state.bet_chip == "at_least" else " - exact chips"
    out.append(f'<g><text x="{MARGIN}" y="26" class="h">Campanile - {state.variant}{rule} - {n} players</text>'
               f'<text x="{width - MARGIN}" y="26" class="l" text-anchor="end">{escape(status)}</text>')
    if state.phase == Phase.BET and not over:
        out.append(f'<text x="{MARGIN}" y="44" class="s">just played: tower {TOWERS[state.played_tower]} '
                   f'+{state.played_storeys} - draws from pile {state.played_storeys}</text>')
    out.append("</g>")

    # towers: one scale for all five, shrunk once the tallest would not fit
    tallest = max(state.heights)
    storey = min(float(STOREY_MIN * 3), TOWER_MAX_H / tallest) if tallest else float(STOREY_MIN * 3)
    flags = {t: f"{hi}/{lo}" for (hi, lo), t in zip(FLAGS, state.flag_order())}
    left = (width - NUM_TOWERS * TOWER_PITCH) / 2
    for t in range(NUM_TOWERS):
        x = left + t * TOWER_PITCH + (TOWER_PITCH - TOWER_W) / 2
        cx = x + TOWER_W / 2
        h = state.heights[t] * storey
        g = [f'<g><rect x="{x:.1f}" y="{BASE_Y - h:.1f}" width="{TOWER_W}" height="{h:.1f}" class="k{t}"/>',
             f'<line x1="{x - 6:.1f}" y1="{BASE_Y}" x2="{x + TOWER_W + 6:.1f}" y2="{BASE_Y}" stroke="#5a5e6e" '
             'stroke-width="2"/>',
             f'<text x="{cx:.1f}" y="{BASE_Y - h - 6:.1f}" class="v">{state.heights[t]}</text>',
             f'<text x="{cx:.1f}" y="{BASE_Y + 18}" class="v">{TOWERS[t]}</text>',
             f'<text x="{cx:.1f}" y="{BASE_Y + 32}" class="v c">flag {flags.get(t, "-")}</text>']
        for i, (seat, value) in enumerate(state.bets[t]):
            col, row = divmod(i, CHIP_ROWS)
            chip_x = x + CHIP_R + col * CHIP_PITCH
            chip_y = BASE_Y + 40 + CHIP_R + row * CHIP_PITCH
            g.append(f'<circle cx="{chip_x:.1f}" cy="{chip_y:.1f}" r="{CHIP_R}" class="q{seat % len(SEAT_FILLS)}"/>'
                     f'<text x="{chip_x:.1f}" y="{chip_y + 4:.1f}" class="v c" style="fill:#1c1e26">{value}</text>')
        g.append("</g>")
        out.append("".join(g))

    # piles: the face-up card of each, and how many cards it holds
    pile_left = (width - NUM_PILES * (CARD_W + 90)) / 2
    g = ["<g>"]
    for i, pile in enumerate(state.piles):
        x = pile_left + i * (CARD_W + 90)
        g.append(f'<text x="{x + CARD_W / 2:.1f}" y="{PILES_Y + 12}" class="v c">pile {i + 1}</text>')
        y = PILES_Y + 18
        if pile:
            t = pile[-1]
            g.append(f'<rect x="{x:.1f}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" class="k{t}"/>'
                     f'<text x="{x + CARD_W / 2:.1f}" y="{y + CARD_H / 2 + 6:.1f}" class="v i{t}" '
                     f'style="font-size:20px">{TOWERS[t]}</text>')
        else:
            g.append(f'<rect x="{x:.1f}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="5" class="p"/>')
        g.append(f'<text x="{x + CARD_W + 8:.1f}" y="{y + CARD_H / 2 + 4:.1f}" class="s">{len(pile)} cards</text>')
    g.append("</g>")
    out.append("".join(g))

    # seats: chips left, hand size, score
    y0 = PILES_Y + PILES_H + 8
    for p in range(n):
        y = y0 + p * SEAT_H
        frame = " win" if p in winners else " turn" if p == state.current_player and not over else ""
        out.append(f'<g><rect x="{MARGIN}" y="{y}" width="{width - 2 * MARGIN}" height="{SEAT_H - 4}" rx="4" '
                   f'class="p{frame}"/>'
                   f'<circle cx="{MARGIN + 14}" cy="{y + (SEAT_H - 4) / 2}" r="7" class="q{p % len(SEAT_FILLS)}"/>'
                   f'<text x="{MARGIN + 28}" y="{y + 16}" class="l">{escape(_seat_name(p, labels))}</text>'
                   f'<text x="{MARGIN + 300}" y="{y + 16}" class="l">chips {chips_text(state.chips[p])}'
                   f'</text><text x="{MARGIN + 520}" y="{y + 16}" class="l">{len(state.hands[p])} cards</text>'
                   f'<text x="{width - MARGIN - 10}" y="{y + 16}" class="l" text-anchor="end">'
                   f'{scores[p]} point{"" if scores[p] == 1 else "s"}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


#: Campanile (both variants) for :func:`five_towers_env.core.gameui.get_ui`
CAMPANILE = GameUI(
    name="campanile",
    title="Campanile",
    text_view=text_view,
    svg=render_svg,
    action_name=A.action_name,
    action_from_name=A.action_from_name,
    phase_help=phase_help,
    round_summary=round_summary,
    round_index=round_index,
    save_position=save_position,
    load_position=load_turn,
    check_continuation=check_continuation,
    legend=("Towers grow upwards, one storey per step; the flag above a tower is the one it would earn now "
            "(8/4 for the tallest). Under a tower, the chips bet on it, in their seats' colours, in the order "
            "placed. \"chips 5 of 1, 3 of 2, 1 of 3\": how many chips of each value a seat has left."),
)

__all__ = ["CAMPANILE", "phase_help", "round_summary", "round_index", "load_turn", "check_continuation",
           "text_view", "render_svg", "svg_size"]
