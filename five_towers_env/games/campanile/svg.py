"""The Campanile table as an SVG drawing, built from plain strings (no drawing library).

:func:`render_svg` draws what a spectator may see (SPEC C5): the five towers with their heights,
flags and the chips under them, the three piles' face-up cards and sizes, and each seat's chips,
hand size and score. The drawing has one size per player count, so the frames of a replay do not
jump.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from five_towers_env.games.campanile.render import chips_text
from five_towers_env.games.campanile.rules import FLAGS, NUM_PILES, NUM_TOWERS, TOWERS
from five_towers_env.games.campanile.state import CampanileState, Phase

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


__all__ = ["render_svg", "svg_size", "STYLE_FILLS", "SEAT_FILLS"]
