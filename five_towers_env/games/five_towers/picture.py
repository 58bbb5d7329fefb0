"""A small RGB picture of the table drawn with numpy alone (``render_mode="rgb_array"``).

Public information only: the deck is drawn as a bar of its *size*, never its order. The image
size depends on the player count alone, so a recorder gets frames of one shape for a game::

    +--------------------------------------------------+
    | display cards          (one cell per card)       |
    | builder's hand         (one cell per card)       |
    | deck size bar                                     |
    | [turn] [bid pips]   [turn] [bid pips]   ...      |
    | five tower columns  five tower columns  ...      |  one panel per seat
    | torn-down pips      torn-down pips      ...      |
    +--------------------------------------------------+

* a card is a cell in its tower type's colour (candy pink, scary purple, tree green, scrap
  grey, sand yellow), brighter for a higher value;
* towers grow upwards from the bottom of a seat's panel, one cell per card; a topped tower (its
  top card is a 0) has a white cap; a tower taller than the panel shows a red mark on top;
* the bar above a panel is white for the seat to act, gold for a winner once the game is over,
  grey otherwise; cyan pips after it count that seat's bid this round, a red pip marks a pass;
* the pips under a panel are that seat's torn-down cards, in their types' colours.

The fuller drawing, with card values and text, is the SVG of :mod:`five_towers_env.games.five_towers.svg`;
this one needs no dependency beyond numpy and no fonts.
"""
from __future__ import annotations

import numpy as np

from five_towers_env.games.five_towers.cards import NUM_TYPES, NUM_VALUES, card_set_counts
from five_towers_env.games.five_towers.state import PASSED, GameState

#: RGB colour of each tower type (``TYPES`` order: candy, scary, tree, scrap, sand)
TYPE_COLOURS = np.array([(255, 105, 180), (150, 60, 220), (40, 170, 60), (140, 150, 170), (235, 205, 90)],
                        dtype=np.float64)
BACKGROUND = (28, 30, 38)
PANEL = (44, 47, 58)
TURN, WINNER, IDLE = (255, 255, 255), (255, 200, 0), (90, 90, 100)
BID, PASS, OVERFLOW, CAP, DECK = (0, 200, 220), (220, 40, 40), (255, 0, 0), (255, 255, 255), (180, 180, 190)

PAD = 4
CARD_W, CARD_H, CARD_PITCH = 12, 8, 15      # header cards: display and hand
SLOTS = 8                                   # header card slots per row (the display holds 5)
CELL_W, CELL_H, CELL_PITCH_Y = 12, 6, 7     # tower cells
COL_PITCH = 15                              # tower columns
MAX_CELLS = 16                              # cells a tower column shows
PIP, PIP_PITCH, PIP_ROWS = 3, 5, 2          # torn-down and bid pips
PANEL_W = NUM_TYPES * COL_PITCH + 3
HEADER_H = 2 * (CARD_H + PAD) + 4 + PAD
MARK_H = 4
TOWERS_H = MAX_CELLS * CELL_PITCH_Y + 4
PANEL_H = MARK_H + PAD + TOWERS_H + PAD + PIP_ROWS * PIP_PITCH + PAD


def picture_shape(num_players: int) -> tuple[int, int, int]:
    """``(height, width, 3)`` of the picture of a ``num_players`` game."""
    width = PAD + max(num_players * (PANEL_W + PAD), SLOTS * CARD_PITCH + PAD)
    height = PAD + HEADER_H + PANEL_H + PAD
    return height + height % 2, width + width % 2, 3  # even sizes suit video encoders


def _card_colour(card: int) -> np.ndarray:
    t, v = divmod(card, NUM_VALUES)
    return TYPE_COLOURS[t] * (0.45 + 0.55 * v / (NUM_VALUES - 1))


def _box(img: np.ndarray, y: int, x: int, h: int, w: int, colour: tuple[int, int, int] | np.ndarray) -> None:
    img[max(y, 0):y + h, max(x, 0):x + w] = colour


def render_rgb(state: GameState) -> np.ndarray:
    """The table as an ``(H, W, 3)`` uint8 image (see the module docstring for what it shows)."""
    n = state.num_players
    height, width, _ = picture_shape(n)
    img = np.empty((height, width, 3), dtype=np.float64)
    img[:] = BACKGROUND

    # header: display, builder's hand, deck size
    y = PAD
    for row in (state.display, state.hand):
        for i, c in enumerate(list(row)[:SLOTS]):
            _box(img, y, PAD + i * CARD_PITCH, CARD_H, CARD_W, _card_colour(c))
        y += CARD_H + PAD
    total = sum(card_set_counts(n))
    _box(img, y, PAD, 4, round((width - 2 * PAD) * min(len(state.deck), total) / total), DECK)

    over = state.is_terminal()
    winners = set(state.winners()) if over else set()
    top = PAD + HEADER_H
    for p in range(n):
        x0 = PAD + p * (PANEL_W + PAD)
        _box(img, top, x0, PANEL_H, PANEL_W, PANEL)
        # whose turn (or the winners), then the bid pips
        colour = TURN if p == state.current_player else WINNER if p in winners else IDLE
        _box(img, top, x0, MARK_H, 2 * COL_PITCH, colour)
        bid = state.bids[p] if not over else None
        if bid == PASSED:
            _box(img, top, x0 + 2 * COL_PITCH + 3, MARK_H, PIP + 1, PASS)
        elif bid:
            for i in range(min(int(bid), 8)):
                _box(img, top, x0 + 2 * COL_PITCH + 3 + i * PIP_PITCH, MARK_H, PIP, BID)
        # towers, bottom up
        base = top + MARK_H + PAD + TOWERS_H
        for t, tower in enumerate(state.towers[p]):
            cx = x0 + 2 + t * COL_PITCH
            shown = list(tower)[:MAX_CELLS]
            for k, v in enumerate(shown):
                _box(img, base - (k + 1) * CELL_PITCH_Y, cx, CELL_H, CELL_W, _card_colour(t * NUM_VALUES + v))
            cap_y = base - len(shown) * CELL_PITCH_Y - 3
            if len(tower) > MAX_CELLS:
                _box(img, cap_y, cx, 2, CELL_W, OVERFLOW)
            elif tower and tower[-1] == 0:
                _box(img, cap_y, cx, 2, CELL_W, CAP)
        # torn-down cards
        per_row = PANEL_W // PIP_PITCH
        for i, c in enumerate(list(state.piles[p])[:per_row * PIP_ROWS]):
            r, k = divmod(i, per_row)
            _box(img, base + PAD + r * PIP_PITCH, x0 + 1 + k * PIP_PITCH, PIP, PIP, _card_colour(c))
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)
