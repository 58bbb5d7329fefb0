"""Loading, validating and saving positions in the SPEC §8 JSON format."""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.position_checks import PositionError, flag, one_of, player_count, seat
from five_towers_env.core.position_checks import is_int as _is_int
from five_towers_env.games.five_towers.cards import (
    CARD_NAMES,
    NUM_TYPES,
    NUM_VALUES,
    TYPES,
    can_place,
    card_set_counts,
    counts_of,
    parse_card,
    parse_type,
)
from five_towers_env.games.five_towers.state import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, GameState, Phase

POSITION_KEYS = ("variant", "num_players", "start_player", "display", "deck", "discard", "rest",
                 "deck_ran_out", "players")
PLAYER_KEYS = ("towers", "teardown")


def _card_list(pos: dict, key: str) -> list[int]:
    value = pos.get(key, [])
    if not isinstance(value, list):
        raise PositionError(f"'{key}' must be a list of card names, got {value!r}")
    try:
        return [parse_card(name) for name in value]
    except ValueError as e:
        raise PositionError(f"'{key}': {e}") from None


def check_tower(values: list, where: str) -> tuple[int, ...]:
    """Validate a tower listed bottom to top (SPEC §2, §8) and return it as a tuple."""
    if not isinstance(values, list) or not values:
        raise PositionError(f"{where}: a tower must be a non-empty list of values bottom to top, got {values!r}")
    for v in values:
        if not _is_int(v) or not 0 <= v < NUM_VALUES:
            raise PositionError(f"{where}: malformed value {v!r} (values are integers 0..15)")
    for i in range(len(values) - 1):
        if values[i] == 0:
            raise PositionError(f"{where}: a 0 (tower top) lies below another card at position {i} of {values}")
        if not can_place(values[i], values[i + 1]):
            raise PositionError(f"{where}: {values[i + 1]} cannot lie on {values[i]} in {values}: "
                                "the tower is not buildable bottom to top")
    return tuple(int(v) for v in values)


def _players(pos: dict, n: int) -> tuple[list, list]:
    players = pos.get("players", [{} for _ in range(n)])
    if not isinstance(players, list) or len(players) != n:
        raise PositionError(f"'players' must list exactly num_players={n} seats, got "
                            f"{len(players) if isinstance(players, list) else players!r}")
    towers, piles = [], []
    for s, pl in enumerate(players):
        if not isinstance(pl, dict):
            raise PositionError(f"players[{s}] must be an object, got {pl!r}")
        unknown = set(pl) - set(PLAYER_KEYS)
        if unknown:
            raise PositionError(f"players[{s}]: unknown keys {sorted(unknown)} (allowed: {', '.join(PLAYER_KEYS)})")
        tw = pl.get("towers", {})
        if not isinstance(tw, dict):
            raise PositionError(f"players[{s}].towers must be an object, got {tw!r}")
        seat: list[tuple[int, ...]] = [()] * NUM_TYPES
        for name, values in tw.items():
            try:
                t = parse_type(name)
            except ValueError as e:
                raise PositionError(f"players[{s}].towers: {e}") from None
            seat[t] = check_tower(values, f"players[{s}].towers.{name}")
        towers.append(tuple(seat))
        pile = _card_list(pl, "teardown") if "teardown" in pl else []
        zeros = [CARD_NAMES[c] for c in pile if c % NUM_VALUES == 0]
        if zeros:
            raise PositionError(f"players[{s}].teardown holds {', '.join(zeros)}: a 0 can never be torn down")
        piles.append(tuple(sorted(pile)))
    return towers, piles


def load_position(pos: dict[str, Any], rng: np.random.Generator) -> GameState:
    """Build a round-start :class:`GameState` from a SPEC §8 position; raise ``PositionError`` if invalid.

    Cards of the set that the position does not name go, shuffled with ``rng``, after the listed
    deck (``"rest": "deck"``) or into the discard pile (``"rest": "discard"``).
    """
    if not isinstance(pos, dict):
        raise PositionError(f"a position must be a JSON object, got {type(pos).__name__}")
    unknown = set(pos) - set(POSITION_KEYS)
    if unknown:
        hint = " (a mid-round position with a hand is not a round start)" if "hand" in unknown else ""
        raise PositionError(f"unknown position keys {sorted(unknown)}{hint}; allowed: {', '.join(POSITION_KEYS)}")
    variant = one_of(pos, "variant", "base", VARIANTS)
    n = player_count(pos, MIN_PLAYERS, MAX_PLAYERS)
    start = seat(pos, "start_player", n)
    rest = one_of(pos, "rest", "deck", ("deck", "discard"))
    ran_out = flag(pos, "deck_ran_out")
    display = _card_list(pos, "display")
    if not display:
        raise PositionError("'display' is empty: a game that is over is not a round start")
    if len(display) > 5:
        raise PositionError(f"'display' holds {len(display)} cards; at most 5 are revealed")
    deck = _card_list(pos, "deck")
    discard = _card_list(pos, "discard")
    towers, piles = _players(pos, n)

    named = display + deck + discard
    for s in range(n):
        named += [t * NUM_VALUES + v for t in range(NUM_TYPES) for v in towers[s][t]]
        named += list(piles[s])
    have = card_set_counts(n)
    used = counts_of(named)
    over = [f"{CARD_NAMES[c]} ({used[c]}x, the set has {have[c]})" for c in range(len(have)) if used[c] > have[c]]
    if over:
        raise PositionError(f"cards named more often than the {n}-player card set has them: {', '.join(over)}")
    rest_cards = [c for c in range(len(have)) for _ in range(have[c] - used[c])]
    rest_cards = [int(c) for c in rng.permutation(rest_cards)] if rest_cards else []
    if rest == "deck":
        deck = deck + rest_cards
    else:
        discard = discard + rest_cards
    return GameState(n, variant, rng, deck=list(reversed(deck)), discard=discard, display=tuple(display),
                     towers=towers, piles=piles, start_player=int(start), deck_ran_out=ran_out)


def save_position(state: GameState) -> dict[str, Any]:
    """The state as a SPEC §8 position (every card named, deck top first).

    Mid-round (take, teardown, build, recover) it adds ``"hand"``, the builder's taken cards not
    yet built, and the position is then a snapshot, not a round start. The deck order is hidden
    information: never show this to a player.
    """
    names = lambda cards: [CARD_NAMES[c] for c in cards]  # noqa: E731
    pos: dict[str, Any] = {
        "variant": state.variant,
        "num_players": state.num_players,
        "start_player": state.start_player,
        "display": names(state.display),
        "deck": names(reversed(state.deck)),
        "discard": names(state.discard),
        "rest": "deck",
        "deck_ran_out": state.deck_ran_out,
        "players": [
            {"towers": {TYPES[t]: list(tw) for t, tw in enumerate(state.towers[p]) if tw},
             "teardown": names(state.piles[p])}
            for p in range(state.num_players)
        ],
    }
    if state.phase in (Phase.TAKE, Phase.TEARDOWN, Phase.BUILD, Phase.RECOVER):
        pos["hand"] = names(state.hand)
    return pos
