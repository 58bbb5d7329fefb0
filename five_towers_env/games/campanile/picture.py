"""A small RGB picture of a Campanile table drawn with numpy alone (``render_mode="rgb_array"``).

Public information only (SPEC C5): no hand's cards, no pile card below the face-up one. The size
depends on the player count alone, so a recorder gets frames of one shape for a game::

    +-----------------------------------------------+
    | flag bar  flag bar  flag bar  flag bar        |  the flag each tower holds now (8/4 widest)
    | tower A   tower B   tower C   tower D   E     |  one cell per storey, in the tower's colour
    | chips     chips     chips     chips     chips |  one square per chip, in its seat's colour,
    |                                               |  1, 2 or 3 pixels tall by value
    | pile 1: face-up colour + size bar   pile 2 .. |
    | seat 0: turn mark, chips left, hand size, score bar |
    | seat 1 ...                                    |
    +-----------------------------------------------+

Colours are those of the SVG drawing (:mod:`five_towers_env.games.campanile.ui`): towers A-E red, blue,
green, yellow, purple; seats white, orange, teal, pink, lime. The seat to act has a white mark,
the winners a gold one once the game is over.
"""
from __future__ import annotations

import numpy as np

from five_towers_env.games.campanile.rules import (
    CHIPS,
    FLAGS,
    HAND_SIZE,
    MAX_HEIGHT,
    NUM_PILES,
    NUM_TOWERS,
    pile_size,
)
from five_towers_env.games.campanile.state import CampanileState

TOWER_COLOURS = ((224, 90, 79), (79, 143, 224), (85, 180, 90), (224, 184, 79), (160, 102, 214))
SEAT_COLOURS = ((242, 242, 242), (255, 159, 28), (46, 196, 182), (231, 29, 115), (155, 197, 61))
BACKGROUND, PANEL, EMPTY = (28, 30, 38), (44, 47, 58), (70, 72, 84)
TURN, WINNER, IDLE, FLAG = (255, 255, 255), (255, 200, 0), (90, 90, 100), (235, 235, 240)

PAD = 4
COL_W, COL_PITCH = 30, 40            # tower columns
STOREY_H = 2                         # pixels per storey
TOWER_H = MAX_HEIGHT * STOREY_H      # room for the tallest tower the rules allow
FLAG_H = 4
CHIP, CHIP_PITCH, CHIP_ROWS = 4, 6, 9  # chips under a tower: columns of CHIP_ROWS (5 x 9 = 45 = 5 seats' chips)
CHIPS_H = CHIP_ROWS * CHIP_PITCH
SEAT_H = 8
MAX_SCORE = sum(hi for hi, _ in FLAGS)  # a seat scores at most every high number


def picture_shape(num_players: int) -> tuple[int, int, int]:
    """``(height, width, 3)`` of the picture of a ``num_players`` game."""
    width = 2 * PAD + NUM_TOWERS * COL_PITCH
    height = PAD + FLAG_H + 2 + TOWER_H + PAD + CHIPS_H + PAD + 2 * SEAT_H + num_players * SEAT_H + PAD
    return height + height % 2, width + width % 2, 3  # even sizes suit video encoders


def _box(img: np.ndarray, y: int, x: int, h: int, w: int, colour: tuple[int, int, int]) -> None:
    img[max(y, 0):y + h, max(x, 0):x + w] = colour


def _towers(img: np.ndarray, state: CampanileState, top: int) -> int:
    """Flags, towers and the chips under them; returns the y below the chips."""
    flags = {t: hi for (hi, _), t in zip(FLAGS, state.flag_order())}
    base = top + FLAG_H + 2 + TOWER_H
    for t in range(NUM_TOWERS):
        x = PAD + t * COL_PITCH
        if t in flags:  # the flag's width shows its worth: 8/4 spans the column, 2/1 a quarter
            _box(img, top, x, FLAG_H, COL_W * flags[t] // FLAGS[0][0], FLAG)
        storeys = state.heights[t]
        _box(img, base - storeys * STOREY_H, x, storeys * STOREY_H, COL_W, TOWER_COLOURS[t])
        for i, (seat, value) in enumerate(state.bets[t]):
            column, row = divmod(i, CHIP_ROWS)
            _box(img, base + PAD + row * CHIP_PITCH, x + column * CHIP_PITCH, value + 1, CHIP, SEAT_COLOURS[seat])
    return base + PAD + CHIPS_H


def _piles(img: np.ndarray, state: CampanileState, top: int, width: int) -> int:
    """Each pile's face-up card (its tower's colour) and a bar of its size; returns the y below."""
    pitch = (width - 2 * PAD) // NUM_PILES
    full = pile_size(state.num_players)
    for i, pile in enumerate(state.piles):
        x = PAD + i * pitch
        _box(img, top, x, 2 * SEAT_H - 2, 8, TOWER_COLOURS[pile[-1]] if pile else EMPTY)
        _box(img, top + SEAT_H, x + 10, 3, round((pitch - 14) * min(len(pile), full) / full), IDLE)
    return top + 2 * SEAT_H


def _seats(img: np.ndarray, state: CampanileState, top: int, width: int) -> None:
    """Per seat: a turn / winner mark, its chips left, its hand size and a score bar."""
    winners = set(state.winners()) if state.done else set()
    scores = state.scores()
    for p in range(state.num_players):
        y = top + p * SEAT_H
        mark = TURN if p == state.current_player and not state.done else WINNER if p in winners else IDLE
        _box(img, y, PAD, SEAT_H - 2, 3, mark)
        x = PAD + 6
        for value, left in enumerate(state.chips[p]):
            for _ in range(left):
                _box(img, y + SEAT_H - 3 - (value + 1), x, value + 1, 2, SEAT_COLOURS[p])
                x += 3
            x += 2
        x = PAD + 6 + 3 * sum(CHIPS) + 2 * 3 + 6
        for k in range(min(len(state.hands[p]), HAND_SIZE + 1)):  # hand size, not its cards
            _box(img, y + 1, x + k * 4, SEAT_H - 4, 3, EMPTY)
        x += 4 * (HAND_SIZE + 1) + 6
        _box(img, y + 2, x, 3, round((width - PAD - x) * min(scores[p], MAX_SCORE) / MAX_SCORE), SEAT_COLOURS[p])


def render_rgb(state: CampanileState) -> np.ndarray:
    """The table as an ``(H, W, 3)`` uint8 image (see the module docstring for what it shows)."""
    height, width, _ = picture_shape(state.num_players)
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    y = _towers(img, state, PAD)
    y = _piles(img, state, y + PAD, width)
    _seats(img, state, y, width)
    return img


__all__ = ["picture_shape", "render_rgb"]
