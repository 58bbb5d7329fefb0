"""5 Towers with explicit chance (:class:`~five_towers_env.core.chance.ChanceState`), for OpenSpiel.

The deck's order is the game's only hidden information, and nobody knows it: the engine shuffles
it at setup and again when the deck first runs out. Here no order is ever fixed in advance. Each
display card is a chance event, turned as the round starts: an outcome is a card id, with
probability its count among the cards not yet seen (the deck and the display being turned) over
their number. That is the same distribution as turning the top of a shuffled deck, and every seat
sees each card as it is turned, so the game has perfect information with chance.

The engine plays the rounds as usual; when a round ends, the display it turned from its own deck is
put back and dealt again by chance (:meth:`GameState.redeal`), so the engine's deck order (and the
generator it reshuffles with) never shows.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from five_towers_env.core.chance import UNSEEN, ChanceState
from five_towers_env.games.five_towers import SPEC
from five_towers_env.games.five_towers.actions import action_name
from five_towers_env.games.five_towers.cards import CARD_NAMES, NUM_CARD_IDS, card_set
from five_towers_env.games.five_towers.observation import encode
from five_towers_env.games.five_towers.render import render_text
from five_towers_env.games.five_towers.state import GameState

DISPLAY = 5
# per round at most: one bid per seat, 5 takes, a stop, a teardown, 5 builds and a recover decision
# after each card that joins the scrap tower (a built one, or a recovered one: at most one per round's
# teardown over the game, counted twice, as a recover and as the decision it triggers)
_BUILDER_DECISIONS = 5 + 1 + 1 + 5 + 5 + 2


class FiveTowersChance(ChanceState):
    """5 Towers whose display cards are chance events (see the module docstring)."""

    game_spec = SPEC
    max_chance_outcomes = NUM_CARD_IDS

    def __init__(self, engine: GameState, num_players: int, variant: str, settings: dict[str, Any]) -> None:
        super().__init__(engine, num_players, variant, settings)
        self.pool: list[int] = []   # counts by card id of the cards not seen yet, while a display is turned
        self.shown: list[int] = []  # the display's cards turned so far
        self.to_turn = 0            # the display's size

    @classmethod
    def _new(cls, num_players: int, variant: str, options: dict[str, Any]) -> FiveTowersChance:
        # the engine's own shuffle (a fixed generator) is put back at once: chance turns the first display
        state = cls(GameState.new_game(num_players, variant, np.random.default_rng(0)), num_players, variant, options)
        state._begin_turning()
        return state

    @classmethod
    def _from_engine(cls, engine: GameState) -> FiveTowersChance:
        return cls(engine, engine.num_players, engine.variant, {})

    @classmethod
    def max_chance_nodes(cls, num_players: int, variant: str, **options: Any) -> int:
        """Each card is turned at most twice: once from the deck, once after the reshuffle."""
        return 2 * len(card_set(num_players))

    @classmethod
    def max_game_length(cls, num_players: int, variant: str, **options: Any) -> int:
        """At most ``ceil(cards / 5)`` rounds per pass through the deck, two passes, and
        ``players + 19`` decisions per round (see ``_BUILDER_DECISIONS``)."""
        rounds = 2 * math.ceil(len(card_set(num_players)) / DISPLAY)
        return rounds * (num_players + _BUILDER_DECISIONS)

    def _copy_extra(self, new: ChanceState) -> None:
        assert isinstance(new, FiveTowersChance)
        new.pool = list(self.pool)
        new.shown = list(self.shown)

    # -- chance -------------------------------------------------------------------------------

    def _begin_turning(self) -> None:
        """The round's display, turned by the engine from its deck, goes back unseen: chance turns it."""
        pool = [0] * NUM_CARD_IDS
        for c in self.engine.deck:
            pool[c] += 1
        for c in self.engine.display:
            pool[c] += 1
        self.pool, self.shown, self.to_turn = pool, [], len(self.engine.display)

    def is_chance(self) -> bool:
        return len(self.shown) < self.to_turn

    def chance_outcomes(self) -> list[tuple[int, float]]:
        total = sum(self.pool)
        return [(c, k / total) for c, k in enumerate(self.pool) if k]

    def _deal(self, outcome: int) -> tuple[int, ...]:
        self.pool[outcome] -= 1
        self.shown.append(outcome)
        if not self.is_chance():  # the display is complete: the engine's round starts on it
            rest = [c for c, k in enumerate(self.pool) for _ in range(k)]
            self.engine = self.engine.redeal(rest + self.shown, self.engine.rng)
            self.pool, self.shown, self.to_turn = [], [], 0
        return (outcome,) * self.num_players

    def _act(self, action: int) -> tuple[int, ...]:
        rounds = self.engine.rounds_played
        self.engine.apply_action(action)
        if self.engine.rounds_played != rounds and not self.engine.is_terminal():
            self._begin_turning()
        return (UNSEEN,) * self.num_players

    # -- what the seats see -------------------------------------------------------------------

    def _position(self) -> GameState:
        """The engine's position, with the display as far as it is turned while chance turns it."""
        if not self.is_chance():
            return self.engine
        rest = [c for c, k in enumerate(self.pool) for _ in range(k)]
        return self.engine.revealing(self.shown, rest, self.engine.rng)

    def observation(self, seat: int) -> np.ndarray:
        return encode(self._position(), seat)

    def observation_text(self, seat: int) -> str:
        return render_text(self._position(), seat)

    def outcome_text(self, outcome: int) -> str:
        return f"turn {CARD_NAMES[outcome]}"

    def action_text(self, action: int) -> str:
        return action_name(action)


__all__ = ["FiveTowersChance"]
