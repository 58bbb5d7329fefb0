"""Loading, validating and saving Campanile positions in the SPEC C7 JSON format.

Loading checks consistency, not reachability (SPEC C7): every rejection raises
:class:`PositionError` (the 5 Towers engine's class) with a message naming the problem, and
builds nothing.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.position_checks import (
    PositionError,
    flag,
    one_of,
    player_count,
)
from five_towers_env.core.position_checks import (
    is_int as _is_int,
)
from five_towers_env.core.position_checks import (
    seat as seat_field,
)
from five_towers_env.games.campanile.rules import (
    BET_CHIPS,
    CHIP_VALUES,
    CHIPS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_PILES,
    NUM_TOWERS,
    STOREYS,
    TOWERS,
    VARIANTS,
    cards_per_style,
    tower_index,
)
from five_towers_env.games.campanile.state import PHASE_NAMES, CampanileState, Phase

POSITION_KEYS = ("game", "variant", "num_players", "to_act", "phase", "played", "heights", "bets", "chips",
                 "hands", "piles", "done", "bet_chip")
REQUIRED_KEYS = ("game", "num_players", "hands", "piles")
PLAYED_KEYS = ("tower", "storeys")
GAME = "campanile"


def _cards(value: object, where: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(f"{where} must be a list of card names A..E, got {value!r}")
    try:
        return [tower_index(c) for c in value]
    except ValueError as e:
        raise PositionError(f"{where}: {e}") from None


def _seat_lists(pos: dict, key: str, n: int) -> list:
    value = pos[key]
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} entries" if isinstance(value, list) else repr(value)
        raise PositionError(f"'{key}' must list one entry per player (num_players={n}), got {got}")
    return value


def _played(pos: dict, phase: int) -> tuple[int, int] | None:
    """SPEC C7: ``played`` is present in the bet phase only."""
    if phase == Phase.PLAY:
        if "played" in pos:
            raise PositionError("'played' is present in the play phase; it belongs to the bet phase only")
        return None
    if "played" not in pos:
        raise PositionError("'played' is missing in the bet phase: name the tower and storeys just played, "
                            "e.g. {\"tower\": \"C\", \"storeys\": 2}")
    played = pos["played"]
    if not isinstance(played, dict):
        raise PositionError(f"'played' must be an object {{\"tower\": T, \"storeys\": K}}, got {played!r}")
    unknown = sorted(map(str, set(played) - set(PLAYED_KEYS)))
    missing = [k for k in PLAYED_KEYS if k not in played]
    if unknown or missing:
        raise PositionError(f"'played' must have exactly the keys tower and storeys "
                            f"(unknown: {unknown or 'none'}, missing: {missing or 'none'})")
    try:
        tower = tower_index(played["tower"])
    except ValueError as e:
        raise PositionError(f"'played.tower': {e}") from None
    storeys = played["storeys"]
    if not _is_int(storeys) or storeys not in STOREYS:
        raise PositionError(f"'played.storeys' must be 1, 2 or 3, got {storeys!r}")
    return tower, int(storeys)


def _heights(pos: dict) -> list[int]:
    heights = pos.get("heights", [0] * NUM_TOWERS)
    if not isinstance(heights, list) or len(heights) != NUM_TOWERS or not all(_is_int(h) for h in heights):
        raise PositionError(f"'heights' must list 5 integer heights for towers A..E, got {heights!r}")
    negative = [f"{TOWERS[t]}={h}" for t, h in enumerate(heights) if h < 0]
    if negative:
        raise PositionError(f"negative tower height(s): {', '.join(negative)}")
    return [int(h) for h in heights]


def _bets(pos: dict, n: int) -> list[tuple]:
    bets = pos.get("bets", {})
    if not isinstance(bets, dict):
        raise PositionError(f"'bets' must be an object with towers A..E as keys, got {bets!r}")
    unknown = sorted(map(str, set(bets) - set(TOWERS)))
    if unknown:
        raise PositionError(f"'bets' has unknown tower key(s) {unknown}; towers are A, B, C, D, E")
    out: list[tuple] = [()] * NUM_TOWERS
    for name, chips in bets.items():
        t = TOWERS.index(name)
        if not isinstance(chips, list):
            raise PositionError(f"bets.{name} must be a list of [seat, value] pairs, got {chips!r}")
        placed = []
        for i, chip in enumerate(chips):
            if not isinstance(chip, list) or len(chip) != 2:
                raise PositionError(f"bets.{name}[{i}] must be a [seat, value] pair, got {chip!r}")
            seat, value = chip
            if not _is_int(seat) or not 0 <= seat < n:
                raise PositionError(f"bets.{name}[{i}]: a bet by nonexistent seat {seat!r} (seats are 0..{n - 1})")
            if not _is_int(value) or value not in CHIP_VALUES:
                raise PositionError(f"bets.{name}[{i}]: a bet of value {value!r}; chips are worth 1, 2 or 3")
            placed.append((int(seat), int(value)))
        out[t] = tuple(placed)
    return out


def _chips(pos: dict, n: int, bets: list[tuple]) -> list[tuple[int, int, int]]:
    chips = _seat_lists(pos, "chips", n) if "chips" in pos else [list(CHIPS) for _ in range(n)]
    out: list[tuple[int, int, int]] = []
    for p, held in enumerate(chips):
        if not isinstance(held, list) or len(held) != 3 or not all(_is_int(x) and x >= 0 for x in held):
            raise PositionError(f"chips[{p}] must count the remaining 1-, 2- and 3-chips as 3 integers >= 0, "
                                f"got {held!r}")
        out.append((int(held[0]), int(held[1]), int(held[2])))  # three integers, checked above
    for p in range(n):  # SPEC C1: remaining plus placed is exactly 5, 3 and 1 chips of value 1, 2, 3
        placed = [0, 0, 0]
        for tower in bets:
            for seat, value in tower:
                if seat == p:
                    placed[value - 1] += 1
        total = [out[p][i] + placed[i] for i in range(3)]
        if total != list(CHIPS):
            raise PositionError(
                f"player {p}'s chips do not add up to the nine of SPEC C1: remaining {list(out[p])} plus "
                f"{placed} under the towers gives {total} 1-, 2- and 3-chips, not {list(CHIPS)}")
    return out


def load_position(pos: dict[str, Any], rng: np.random.Generator | None = None) -> CampanileState:
    """Build a :class:`CampanileState` from a SPEC C7 position; raise ``PositionError`` if it is invalid.

    ``rng`` becomes the state's generator (the engine itself draws nothing after setup).
    Nothing a position leaves out is invented: no set-aside leftovers, no revealed cards,
    no cards played so far.
    """
    if not isinstance(pos, dict):
        raise PositionError(f"a position must be a JSON object, got {type(pos).__name__}")
    unknown = sorted(map(str, set(pos) - set(POSITION_KEYS)))
    if unknown:
        raise PositionError(f"unknown position key(s) {unknown}; allowed: {', '.join(POSITION_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if k not in pos]
    if missing:
        raise PositionError(f"the position lacks required key(s) {missing} (required: {', '.join(REQUIRED_KEYS)})")
    if pos["game"] != GAME:
        raise PositionError(f"'game' must be {GAME!r} for a Campanile position, got {pos['game']!r}")
    variant = one_of(pos, "variant", "pile", VARIANTS)
    bet_chip = one_of(pos, "bet_chip", "at_least", BET_CHIPS)
    n = player_count(pos, MIN_PLAYERS, MAX_PLAYERS)
    to_act = seat_field(pos, "to_act", n)
    phase = PHASE_NAMES.index(one_of(pos, "phase", "play", PHASE_NAMES[:2]))
    done = flag(pos, "done")
    if done and phase == Phase.BET:
        raise PositionError("a finished game ('done': true) is in the play phase (SPEC C3): "
                            "'phase': 'bet' cannot be done")
    played = _played(pos, phase)
    heights = _heights(pos)
    bets = _bets(pos, n)
    chips = _chips(pos, n, bets)

    hands = [_cards(h, f"hands[{p}]") for p, h in enumerate(_seat_lists(pos, "hands", n))]
    for p, hand in enumerate(hands):
        want = HAND_SIZE - 1 if phase == Phase.BET and p == to_act else HAND_SIZE
        if len(hand) != want:
            why = "the player on move in the bet phase holds 2" if want == 2 else "every hand holds 3 at a play"
            raise PositionError(f"hands[{p}] holds {len(hand)} cards, expected {want} ({why})")
    piles_in = pos["piles"]
    if not isinstance(piles_in, list) or len(piles_in) != NUM_PILES:
        raise PositionError(f"'piles' must list the 3 piles (pile 1 first), got {piles_in!r}")
    piles = [_cards(p, f"piles[{i}]") for i, p in enumerate(piles_in)]
    for i, pile in enumerate(piles):
        if not pile and not done:  # SPEC C3: an emptied pile has already ended the game
            raise PositionError(f"pile {i + 1} (piles[{i}]) is empty: a game in progress has a card on every pile")

    limit = cards_per_style(n)
    counts = [0] * NUM_TOWERS
    for cards in hands + piles:
        for c in cards:
            counts[c] += 1
    over = [f"{TOWERS[t]} ({counts[t]}x)" for t in range(NUM_TOWERS) if counts[t] > limit]
    if over:
        raise PositionError(f"more cards of a style in hands and piles than the {n}-player game keeps "
                            f"({limit} of each, SPEC C2): {', '.join(over)}")
    return CampanileState(n, variant, rng, hands=hands, piles=piles, heights=heights, bets=bets, chips=chips,
                          to_act=int(to_act), phase=phase, played=played, bet_chip=bet_chip, done=done)


def save_position(state: CampanileState) -> dict[str, Any]:
    """The state as a SPEC C7 position. It names every hand and the piles' order: hidden
    information, for saving and bug reports, never for a player's observation."""
    names = lambda cards: [TOWERS[c] for c in cards]  # noqa: E731
    pos: dict[str, Any] = {
        "game": GAME,
        "variant": state.variant,
        "num_players": state.num_players,
        "to_act": state.current_player,
        "phase": PHASE_NAMES[state.phase],
    }
    if state.phase == Phase.BET:
        pos["played"] = {"tower": TOWERS[state.played_tower], "storeys": state.played_storeys}
    pos.update({
        "heights": list(state.heights),
        "bets": {TOWERS[t]: [[s, v] for s, v in state.bets[t]] for t in range(NUM_TOWERS)},
        "chips": [list(c) for c in state.chips],
        "hands": [names(h) for h in state.hands],
        "piles": [names(p) for p in state.piles],
    })
    if state.done:
        pos["done"] = True
    if state.bet_chip != "at_least":
        pos["bet_chip"] = state.bet_chip
    return pos


__all__ = ["POSITION_KEYS", "REQUIRED_KEYS", "PositionError", "load_position", "save_position"]
