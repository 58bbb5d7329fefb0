"""The identity check between a game's native core and its Python reference engine, game for game.

:func:`play_lockstep` plays one seeded game with uniformly random legal moves on both engines at once and
compares, at every step: the end, the seat on move, the phase, the scores, the legal actions, the mask,
the observation of the seat on move (of every seat, with ``all_seats``), and at the end the winners, the
returns and the generator's state. The first difference raises :class:`Mismatch` naming the game, the seed
and the step. ``tests/test_native_identity.py`` plays a few dozen games per setup with it, CI's
``.ci/identity.sh`` a thousand, and ``tools/native_identity.py`` the 20,000-game soak whose record is in
``results/native_identity/``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from five_towers_env.core.game import get_game, load


class Mismatch(AssertionError):
    """The two engines disagree (the message names the game, the seed, the step and what differs)."""


@dataclass
class Compared:
    """What one lockstep game compared."""

    decisions: int = 0
    observations: int = 0


def play_lockstep(game: str, num_players: int, variant: str, options: dict[str, Any], seed: int,
                  all_seats: bool = False) -> Compared:
    """One game dealt from ``default_rng(seed)`` on both engines, moves from ``default_rng(10**9 + seed)``."""
    spec = get_game(game)
    py = load(spec.engine)(num_players, variant, np.random.default_rng(seed), **options)
    nat = load(spec.native_engine)(num_players, variant, np.random.default_rng(seed), **options)
    observe = spec.observer()
    moves = np.random.default_rng(10**9 + seed)
    out = Compared()

    def check(ok: bool, what: str) -> None:
        if not ok:
            raise Mismatch(f"{game} {num_players}p {variant} {options} seed {seed} step {out.decisions}: {what}")

    while True:
        over = py.is_terminal()
        check(nat.is_terminal() == over, "is_terminal")
        check(nat.current_player == py.current_player, "current_player")
        check(nat.phase_name == py.phase_name, "phase_name")
        check(nat.scores() == py.scores(), "scores")
        legal = py.legal_actions()
        check(nat.legal_actions() == legal, "legal_actions")
        mask = nat.mask()
        check(int(mask.sum()) == (0 if over else len(legal)) and (over or bool(mask[legal].all())), "mask")
        for seat in (range(num_players) if all_seats or over else (py.current_player,)):
            check(nat.observe(seat).tobytes() == observe(py, seat).tobytes(), f"observation of seat {seat}")
            out.observations += 1
        if over:
            break
        a = legal[int(moves.integers(len(legal)))]
        py.apply_action(a)
        nat.apply_action(a)
        out.decisions += 1
    check(nat.winners() == py.winners(), "winners")
    check(nat.returns() == py.returns(), "returns")
    if getattr(py, "rng", None) is not None:
        check(nat.rng.bit_generator.state == py.rng.bit_generator.state, "generator state")
    return out


__all__ = ["Mismatch", "Compared", "play_lockstep"]
