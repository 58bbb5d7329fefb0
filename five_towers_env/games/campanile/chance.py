"""Campanile with explicit chance (:class:`~five_towers_env.core.chance.ChanceState`), for OpenSpiel.

The deal is the game's only random event: one chance event per card, in the engine's dealing order
(:func:`~five_towers_env.games.campanile.state.deal_layout`: three cards to each seat, the piles
bottom card first, the cards set aside). An outcome is a tower style ``0..4`` (``A``..``E``), with
probability its count among the cards not dealt yet over their number, the same distribution as
dealing a shuffled deck. A seat sees the cards dealt to it and each pile's face-up card; when a draw
uncovers a pile's next card, every seat sees it. The rest stays hidden (SPEC C5), so the game has
imperfect information, and :meth:`CampanileChance.resample` draws the hidden cards again for
information-set search.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.chance import UNSEEN, ChanceState
from five_towers_env.games.campanile import SPEC
from five_towers_env.games.campanile.actions import action_name
from five_towers_env.games.campanile.observation import OBS_SIZE, encode
from five_towers_env.games.campanile.render import render_text
from five_towers_env.games.campanile.rules import BET_CHIPS, NUM_PILES, NUM_TOWERS, TOWERS, cards_per_style, pile_size
from five_towers_env.games.campanile.state import HAND, PILE, CampanileState, Phase, deal_layout

_BET = int(Phase.BET)


def _minus(cards: list[int], gone: list[int]) -> list[int]:
    """``cards`` with one copy of each of ``gone`` taken out (each must be there)."""
    out = list(cards)
    for c in gone:
        out.remove(c)
    return out


class CampanileChance(ChanceState):
    """Campanile dealt card by card as chance events (see the module docstring)."""

    game_spec = SPEC
    max_chance_outcomes = NUM_TOWERS
    options = {"bet_chip": BET_CHIPS}

    def __init__(self, engine: CampanileState | None, num_players: int, variant: str,
                 settings: dict[str, Any]) -> None:
        super().__init__(engine, num_players, variant, settings)
        self.layout = deal_layout(num_players)
        self.dealt: list[int] = []     # the opening deal so far, in dealing order
        self.left = [cards_per_style(num_players)] * NUM_TOWERS  # cards of each style not dealt yet
        # since the deal (or the position the log starts from): what each seat played and drew, and what
        # was drawn from each pile, in order; public, and what resample needs to wind the hidden cards back
        self.played: list[list[int]] = [[] for _ in range(num_players)]
        self.drawn: list[list[int]] = [[] for _ in range(num_players)]
        self.pile_draws: list[list[int]] = [[] for _ in range(NUM_PILES)]
        self.base: CampanileState | None = None  # the position a from_engine log starts from

    @classmethod
    def _new(cls, num_players: int, variant: str, options: dict[str, Any]) -> CampanileChance:
        return cls(None, num_players, variant, options)

    @classmethod
    def _from_engine(cls, engine: CampanileState) -> CampanileChance:
        state = cls(engine, engine.num_players, engine.variant, {"bet_chip": engine.bet_chip})
        state.base = engine.clone()
        return state

    @classmethod
    def max_chance_nodes(cls, num_players: int, variant: str, **options: Any) -> int:
        """One per card of the deal."""
        return NUM_TOWERS * cards_per_style(num_players)

    @classmethod
    def max_game_length(cls, num_players: int, variant: str, **options: Any) -> int:
        """Two decisions a turn, one draw a turn, and the game ends when a pile is emptied: at most
        ``3 * pile size - 2`` turns."""
        return 2 * (NUM_PILES * pile_size(num_players) - 2)

    def _copy_extra(self, new: ChanceState) -> None:
        assert isinstance(new, CampanileChance)
        new.dealt = list(self.dealt)
        new.left = list(self.left)
        new.played = [list(x) for x in self.played]
        new.drawn = [list(x) for x in self.drawn]
        new.pile_draws = [list(x) for x in self.pile_draws]

    # -- chance -------------------------------------------------------------------------------

    def is_chance(self) -> bool:
        return self.engine is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        total = sum(self.left)
        return [(t, k / total) for t, k in enumerate(self.left) if k]

    def _deal(self, outcome: int) -> tuple[int, ...]:
        i = len(self.dealt)
        self.dealt.append(outcome)
        self.left[outcome] -= 1
        kind, where = self.layout[i]
        if i + 1 == len(self.layout):  # the deal is complete; the engine draws nothing after it
            self.engine = CampanileState.deal(self.num_players, self.variant, self.dealt, np.random.default_rng(0),
                                              self.settings["bet_chip"])
        if kind == HAND:
            return tuple(outcome if s == where else UNSEEN for s in range(self.num_players))
        top = kind == PILE and (i + 1 == len(self.layout) or self.layout[i + 1] != (PILE, where))
        return (outcome if top else UNSEEN,) * self.num_players

    def _act(self, action: int) -> tuple[int, ...]:
        engine = self.engine
        p, bet_phase = engine.current_player, engine.phase == _BET
        pile = engine.played_storeys - 1
        card = engine.piles[pile][-1] if bet_phase else UNSEEN  # the face-up card the turn's draw takes
        engine.apply_action(action)
        if not bet_phase:
            self.played[p].append(engine.played_tower)
            return (UNSEEN,) * self.num_players
        self.drawn[p].append(card)
        self.pile_draws[pile].append(card)
        now = engine.piles[pile]
        return (now[-1] if now else UNSEEN,) * self.num_players

    # -- what the seats see -------------------------------------------------------------------

    def observation(self, seat: int) -> np.ndarray:
        if self.engine is None:  # nothing stands on the table until the deal is complete
            return np.zeros(OBS_SIZE, dtype=np.float32)
        return encode(self.engine, seat)

    def observation_text(self, seat: int) -> str:
        if self.engine is None:
            held = [t for (kind, s), t in zip(self.layout, self.dealt) if kind == HAND and s == seat]
            return f"dealing; seat {seat} holds {''.join(TOWERS[t] for t in sorted(held)) or '-'}"
        hand = "".join(TOWERS[t] for t in self.engine.hands[seat]) or "-"
        return render_text(self.engine) + f"\nseat {seat} holds {hand}"

    def text(self) -> str:
        if self.engine is None:
            return "dealing: " + "".join(TOWERS[t] for t in self.dealt)
        def cards(ts: Any) -> str:
            return "".join(TOWERS[t] for t in ts) or "-"

        piles = "  ".join(f"pile {i + 1}: {cards(p)}" for i, p in enumerate(self.engine.piles))
        hands = "  ".join(f"seat {s}: {cards(h)}" for s, h in enumerate(self.engine.hands))
        aside = cards(self.engine.leftover)
        return f"{render_text(self.engine)}\nhands {hands}\n{piles} (bottom to top)  set aside: {aside}"

    def outcome_text(self, outcome: int) -> str:
        return TOWERS[outcome]

    def action_text(self, action: int) -> str:
        return action_name(action)

    # -- hidden information -------------------------------------------------------------------

    def resample(self, seat: int, rng: np.random.Generator) -> tuple[CampanileState | None, list[int]]:
        """A state ``seat`` cannot tell from this one, drawn uniformly: the engine deals the hidden cards
        again (:meth:`CampanileState.determinize`), then the plays and draws since the deal (or since the
        log's start) are wound back to give the deal (or the starting position) that leads there."""
        if self.engine is None:
            raise ValueError("resample needs the deal to be complete")
        now = self.engine.determinize(seat, rng)
        hands = [sorted(_minus(list(now.hands[q]) + self.played[q], self.drawn[q])) for q in range(self.num_players)]
        piles = [list(now.piles[i]) + self.pile_draws[i][::-1] for i in range(NUM_PILES)]
        actions = [a for player, a, _ in self.steps if player >= 0]
        if self.base is not None:  # the position the log starts from, with its hidden cards dealt again
            return self.base.with_cards(hands, piles, now.leftover, rng), actions
        deal: list[int] = []
        own = iter(t for (kind, s), t in zip(self.layout, self.dealt) if kind == HAND and s == seat)
        others = {q: iter(rng.permutation(hands[q]).tolist()) for q in range(self.num_players) if q != seat}
        pile_cards = [iter(p) for p in piles]
        leftover = iter(now.leftover)
        for kind, where in self.layout:
            if kind == HAND:
                deal.append(next(own) if where == seat else next(others[where]))
            elif kind == PILE:
                deal.append(next(pile_cards[where]))
            else:
                deal.append(next(leftover))
        return None, deal + actions


__all__ = ["CampanileChance"]
