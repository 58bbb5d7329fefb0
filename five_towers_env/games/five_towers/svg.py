"""The table as an SVG drawing, built from plain strings (no drawing library).

:func:`render_svg` draws what every player may see (rules §6; never the deck order)::

    +--------------------------------------------------------------+
    | 5 Towers - base - 2 players               round 4 - build    |
    | deck 41 cards - discard 12 - seat 1 starts                   |
    | display  [card] [card] [card] ...                            |
    | builder  seat 0 - bid 3 - hand [card] [card]                 |
    | +- seat 0 - ppo --------+  +- seat 1 - human -------+        |
    | | score, bid or pass     |  |                        |        |
    | | five tower columns     |  |  (one panel per seat)  |        |
    | | candy scary tree ...   |  |                        |        |
    | | torn down [card] ...   |  |                        |        |
    | +------------------------+  +------------------------+        |
    +--------------------------------------------------------------+

Cards are rounded boxes in their tower type's colour (the colours of ``render_mode="rgb_array"``)
with the value written on them. Towers grow upwards; a topped tower (its top card is a 0, which
doubles its cards) has gold outlines and a ``x2`` mark. The seat to act has a white frame, the
winners a gold one once the game is over. The drawing has one size per player count, so the
frames of a replay do not jump.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, TYPES
from five_towers_env.games.five_towers.lookahead import END_BOTTOM, END_TOP
from five_towers_env.games.five_towers.state import PASSED, GameState, Phase

#: fill of each tower type (``TYPES`` order), as in :mod:`five_towers_env.games.five_towers.picture`
TYPE_FILLS = ("#ff69b4", "#963cdc", "#28aa3c", "#8c96aa", "#ebcd5a")
#: text on each type's fill: dark on the light fills, white on the dark ones
TYPE_INKS = ("#1c1e26", "#ffffff", "#ffffff", "#1c1e26", "#1c1e26")
GOLD, TURN = "#ffc800", "#ffffff"

MARGIN = 12
MIN_WIDTH = 660
CARD_W, CARD_H, CARD_PITCH = 46, 32, 52       # display and hand cards
CELL_W, CELL_H, CELL_PITCH = 36, 15, 17       # tower cells
COL_PITCH = 40
MAX_CELLS = 12                                # cells at full pitch; taller towers are squeezed
PILE_W, PILE_H, PILE_PITCH, PILE_PER_ROW = 22, 16, 25, 8
PANEL_W = NUM_TYPES * COL_PITCH + 12
PANEL_GAP = 10
HEADER_H = 136
PANEL_HEAD = 44
TOWERS_H = MAX_CELLS * CELL_PITCH + 16        # room for the x2 marks above full columns
LABELS_H = 16
PILE_H_TOTAL = 18 + 2 * (PILE_H + 4)
PANEL_H = PANEL_HEAD + TOWERS_H + LABELS_H + PILE_H_TOTAL + 8

STYLE = ("text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#e6e8ef}"
         ".h{font-size:17px;font-weight:bold}.s{font-size:12px;fill:#b4b8c6}.l{font-size:11px;fill:#b4b8c6}"
         ".v{font-weight:bold;text-anchor:middle}.p{fill:#2c2f3a;stroke:#5a5e6e;stroke-width:1}"
         ".turn{stroke:#ffffff;stroke-width:3}.win{stroke:#ffc800;stroke-width:3}"
         ".top{stroke:#ffc800;stroke-width:2}.n{font-size:13px;font-weight:bold}.c{font-size:11px}"
         + "".join(f".k{t}{{fill:{TYPE_FILLS[t]}}}.i{t}{{fill:{TYPE_INKS[t]}}}" for t in range(NUM_TYPES)))


def svg_size(num_players: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of the drawing of a ``num_players`` game."""
    width = max(MIN_WIDTH, 2 * MARGIN + num_players * PANEL_W + (num_players - 1) * PANEL_GAP)
    return width, MARGIN + HEADER_H + PANEL_H + MARGIN


def _card(out: list[str], x: float, y: float, card: int, w: int = CARD_W, h: int = CARD_H,
          type_name: bool = True) -> None:
    """One card: a box in its type's colour, the value on it (and the type's name under it)."""
    t, v = divmod(card, NUM_VALUES)
    out.append(f'<rect x="{x:g}" y="{y:g}" width="{w}" height="{h}" rx="4" class="k{t}"/>')
    size = 15 if h >= 30 else 11
    vy = y + (h / 2 + 1 if type_name else h / 2 + size * 0.36)
    out.append(f'<text x="{x + w / 2:g}" y="{vy:g}" class="v i{t}" font-size="{size}">{v}</text>')
    if type_name:
        out.append(f'<text x="{x + w / 2:g}" y="{y + h - 4:g}" class="v i{t}" font-size="9">{TYPES[t]}</text>')


def _cards(out: list[str], x: float, y: float, cards: Sequence[int]) -> None:
    for i, c in enumerate(cards):
        _card(out, x + i * CARD_PITCH, y, c)


def _seat_status(state: GameState, p: int, over: bool, winners: set[int]) -> str:
    """The panel's second line: what this seat did or does this round."""
    if over:
        return "winner" if p in winners else ""
    parts = []
    if p == state.start_player:
        parts.append("starts")
    b = state.bids[p]
    if b == PASSED:
        parts.append("passed")
    elif b is not None:
        parts.append(f"bid {b}")
    if p == state.builder and state.phase in (Phase.TAKE, Phase.TEARDOWN, Phase.BUILD, Phase.RECOVER):
        parts.append("builds")
    if p == state.current_player:
        parts.append("to act")
    return " - ".join(parts)


def render_svg(state: GameState, labels: Sequence[str] | None = None) -> str:
    """The table as a standalone SVG document (public information only; see the module docstring).

    ``labels`` names the seats (e.g. the agents playing them); missing ones are left out.
    """
    n = state.num_players
    width, height = svg_size(n)
    over = state.is_terminal()
    winners = set(state.winners()) if over else set()
    scores = state.scores()
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}"><style>{STYLE}</style>'
           f'<rect width="{width}" height="{height}" fill="#1c1e26"/>']

    # Each part is a <g> of its own (the header's three lines, each seat's status, towers and
    # pile): a replay stores a part once for all the frames that share it (see
    # five_towers_env.replay), and from one move to the next most parts stay the same.
    # header: what game, which round and decision; the deck as a count (its order is hidden)
    x0, y = MARGIN, MARGIN
    out.append("<g>")
    out.append(f'<text x="{x0}" y="{y + 16}" class="h">5 Towers - {escape(state.variant)} - {n} players</text>')
    if over:
        right = "game over - " + ("winner" if len(winners) == 1 else "winners") + ": " + \
            ", ".join(f"seat {w}" for w in sorted(winners))
    else:
        right = f"round {state.rounds_played + 1} - {state.phase_name} - seat {state.current_player} to act"
    out.append(f'<text x="{width - MARGIN}" y="{y + 16}" class="h" text-anchor="end">{escape(right)}</text>')
    ran_out = " - ran out once" if state.deck_ran_out else ""
    out.append(f'<text x="{x0}" y="{y + 36}" class="s">deck {len(state.deck)} cards{ran_out} - discard '
               f'{len(state.discard)} - seat {state.start_player} starts</text>')
    y += 46
    out.append('</g><g>')
    out.append(f'<text x="{x0}" y="{y + 20}" class="l">display</text>')
    _cards(out, x0 + 62, y, state.display)
    if not state.display:
        out.append(f'<text x="{x0 + 62}" y="{y + 20}" class="l">(empty)</text>')
    y += CARD_H + 10
    out.append('</g><g>')
    out.append(f'<text x="{x0}" y="{y + 20}" class="l">builder</text>')
    if state.phase in (Phase.TAKE, Phase.TEARDOWN, Phase.BUILD, Phase.RECOVER):
        extra = [f"seat {state.builder}", f"bid {state.target}"]
        if state.paid:
            extra.append(f"paid {state.paid} tree")
        ends = {END_TOP: "sand on top", END_BOTTOM: "sand at the bottom"}.get(state.sand_end)
        if ends:
            extra.append(ends)
        out.append(f'<text x="{x0 + 62}" y="{y + 20}" class="n">{escape(" - ".join(extra))}</text>')
        hand_x = x0 + 62 + 190
        out.append(f'<text x="{hand_x - 8}" y="{y + 20}" class="l" text-anchor="end">hand</text>')
        _cards(out, hand_x, y, state.hand)
        if not state.hand:
            out.append(f'<text x="{hand_x}" y="{y + 20}" class="l">(empty)</text>')
    else:
        out.append(f'<text x="{x0 + 62}" y="{y + 20}" class="l">'
                   f'{"-" if over else "none yet: bidding (the highest bid builds)"}</text>')
    out.append("</g>")

    # one panel per seat
    top = MARGIN + HEADER_H
    left = (width - n * PANEL_W - (n - 1) * PANEL_GAP) // 2  # centred: two panels do not fill the width
    for p in range(n):
        px = left + p * (PANEL_W + PANEL_GAP)
        frame = " turn" if p == state.current_player else " win" if p in winners else ""
        out.append(f'<g><rect x="{px}" y="{top}" width="{PANEL_W}" height="{PANEL_H}" rx="6" class="p{frame}"/>')
        name = f"seat {p}" + (f" - {labels[p]}" if labels and p < len(labels) and labels[p] else "")
        if len(name) > 24:  # keep long agent specs inside the panel
            name = name[:23] + "..."
        out.append(f'<text x="{px + 8}" y="{top + 18}" class="n">{escape(name)}</text>')
        out.append(f'<text x="{px + PANEL_W - 8}" y="{top + 18}" class="n" text-anchor="end">{scores[p]} VP</text>')
        status = _seat_status(state, p, over, winners)
        if status:
            out.append(f'<text x="{px + 8}" y="{top + 35}" class="s">{escape(status)}</text>')
        # towers, bottom up, one <g> each (a build changes one); a tower taller than MAX_CELLS is
        # squeezed into the same height
        out.append("</g><g>")
        base = top + PANEL_HEAD + TOWERS_H
        for t in range(NUM_TYPES):
            label_x = px + 8 + t * COL_PITCH + CELL_W / 2
            out.append(f'<text x="{label_x:g}" y="{base + 12}" class="v l">{TYPES[t]}</text>')
        for t, tower in enumerate(state.towers[p]):
            out.append("</g><g>")
            cx = px + 8 + t * COL_PITCH
            pitch = CELL_PITCH if len(tower) <= MAX_CELLS else (MAX_CELLS * CELL_PITCH) / len(tower)
            h = round(min(CELL_H, pitch - 1), 1)
            topped = bool(tower) and tower[-1] == 0
            for k, v in enumerate(tower):
                cy = round(base - (k + 1) * pitch, 1)
                cls = f"k{t} top" if topped else f"k{t}"
                out.append(f'<rect x="{cx}" y="{cy:g}" width="{CELL_W}" height="{h:g}" rx="2" class="{cls}"/>'
                           f'<text x="{cx + CELL_W / 2:g}" y="{round(cy + h / 2 + 4, 1):g}" '
                           f'class="v c i{t}">{v}</text>')
            if topped:
                out.append(f'<text x="{cx + CELL_W / 2:g}" y="{round(base - len(tower) * pitch - 4, 1):g}" '
                           f'class="v c" style="fill:{GOLD}">x2<title>topped: its top card is a 0, '
                           f'which doubles the points of its cards</title></text>')
        # the teardown pile: its cards and what it costs now
        out.append("</g><g>")
        py = base + LABELS_H + 4
        m = len(state.piles[p])
        cost = f" (-{m * (m + 1) // 2} VP)" if m else ""
        out.append(f'<text x="{px + 8}" y="{py + 10}" class="l">torn down: {m}{cost}</text>')
        shown = list(state.piles[p])[:2 * PILE_PER_ROW]
        for i, c in enumerate(shown):
            r, k = divmod(i, PILE_PER_ROW)
            _card(out, px + 8 + k * PILE_PITCH, py + 16 + r * (PILE_H + 4), c, PILE_W, PILE_H, type_name=False)
        if m > len(shown):
            out.append(f'<text x="{px + PANEL_W - 8}" y="{py + 10}" class="l" text-anchor="end">'
                       f'+{m - len(shown)} more</text>')
        out.append("</g>")
    out.append("</svg>")
    # single-quoted attributes: a replay keeps its frames in JSON, where each double quote would
    # cost a backslash (text is escaped, so it holds neither kind of quote)
    return "".join(out).replace('"', "'")


def save_svg(state: GameState, path: str, labels: Sequence[str] | None = None) -> None:
    """Write :func:`render_svg` of ``state`` to ``path`` (whole or not at all)."""
    from five_towers_env.atomic import write_text

    write_text(path, render_svg(state, labels))


__all__ = ["render_svg", "save_svg", "svg_size", "TYPE_FILLS"]
