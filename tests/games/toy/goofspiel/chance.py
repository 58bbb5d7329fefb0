"""Goofspiel with its prizes turned as chance events (for OpenSpiel: ``openspiel-ismcts``, ``python_goofspiel``).

The engine shuffles the prize deck at setup; here each round's prize is a chance node instead,
drawn uniformly from the prizes not turned yet and seen by every seat. The bids are player actions
made face down (``public_actions = False``): a seat's log shows its own bids, and the others' only
through the observation once a round is settled. :meth:`GoofChance.resample` draws the other seats'
bids of the round in progress again, the only hidden information left once the future prizes are
chance nodes.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.chance import UNSEEN, ChanceState

from . import SPEC
from .actions import CARDS, action_name, bid_action
from .observation import encode
from .state import GoofState
from .ui import text_view


class GoofChance(ChanceState):
    """Goofspiel whose prizes are chance events (see the module docstring)."""

    game_spec = SPEC
    max_chance_outcomes = CARDS + 1  # outcome c turns prize c (0 is never drawn)
    public_actions = False

    def __init__(self, engine: GoofState | None, num_players: int, variant: str, settings: dict[str, Any]) -> None:
        super().__init__(engine, num_players, variant, settings)
        self.turning = engine is None  # a prize is about to be turned (a chance node)
        self.base: GoofState | None = None  # the position a from_engine log starts from

    @classmethod
    def _new(cls, num_players: int, variant: str, options: dict[str, Any]) -> GoofChance:
        return cls(None, num_players, variant, options)

    @classmethod
    def _from_engine(cls, engine: GoofState) -> GoofChance:
        state = cls(engine, engine.num_players, engine.variant, {})
        state.base = engine.clone()
        return state

    @classmethod
    def max_game_length(cls, num_players: int, variant: str, **options: Any) -> int:
        """One bid per seat per prize."""
        return CARDS * num_players

    @classmethod
    def max_chance_nodes(cls, num_players: int, variant: str, **options: Any) -> int:
        """One per prize."""
        return CARDS

    # -- chance -------------------------------------------------------------------------------

    def is_chance(self) -> bool:
        return self.turning

    def _unturned(self) -> list[int]:
        if self.engine is None:
            return list(range(1, CARDS + 1))
        return sorted((*self.engine.deck, self.engine.prize))  # the engine's prize is a stand-in at a chance node

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self._unturned()
        return [(c, 1.0 / len(left)) for c in left]

    def _deal(self, outcome: int) -> tuple[int, ...]:
        left = self._unturned()
        left.remove(outcome)
        if self.engine is None:
            n = self.num_players
            self.engine = GoofState(n, self.variant, hands=[tuple(range(1, CARDS + 1))] * n, bids=[0] * n,
                                    deck=left, prize=outcome)
        else:
            self.engine.deck, self.engine.prize = left, outcome
        self.turning = False
        return (outcome,) * self.num_players

    def _act(self, action: int) -> tuple[int, ...]:
        engine = self.engine
        assert engine is not None
        before = engine.round
        engine.apply_action(action)
        # a settled round turned the engine's next prize itself: a chance node here instead
        self.turning = not engine.is_terminal() and engine.round != before
        return (UNSEEN,) * self.num_players

    # -- what the seats see -------------------------------------------------------------------

    def observation(self, seat: int) -> np.ndarray:
        if self.engine is None or self.turning:  # no prize on the table while the next is turned
            return np.zeros(self.observation_size, dtype=np.float32)
        return encode(self.engine, seat)

    def observation_text(self, seat: int) -> str:
        if self.engine is None:
            return "the first prize is being turned"
        shown = text_view(self.engine, seat)
        return "the next prize is being turned; " + shown.splitlines()[0] if self.turning else shown

    def text(self) -> str:
        if self.engine is None:
            return "the first prize is being turned"
        return repr(self.engine) + f" bids {self.engine.bids} hands {self.engine.hands}"

    def outcome_text(self, outcome: int) -> str:
        return f"prize {outcome}"

    def action_text(self, action: int) -> str:
        return action_name(action)

    # -- hidden information -------------------------------------------------------------------

    def resample(self, seat: int, rng: np.random.Generator) -> tuple[GoofState | None, list[int]]:
        """A state ``seat`` cannot tell from this one, drawn uniformly: the other seats' bids of the round
        in progress drawn again from the cards each has not shown (every earlier bid was shown)."""
        if self.engine is None or self.turning:
            return (None if self.base is None else self.base.clone()), [a for _, a, _ in self.steps]
        now = self.engine.determinize(seat, rng)
        steps = [a for _, a, _ in self.steps]
        chance = [i for i, (player, _, _) in enumerate(self.steps) if player < 0]
        start = chance[-1] + 1 if chance else 0
        for i in range(start, len(steps)):
            player = self.steps[i][0]
            if player != seat:
                steps[i] = bid_action(now.bids[player])
        base = self.base
        if base is not None and not chance:  # bids made before the log's start are still face down
            base = base.clone()
            for p, bid in enumerate(base.bids):
                if bid and p != seat:
                    unshown = sorted((*base.hands[p], bid))
                    base.bids[p] = now.bids[p]
                    base.hands[p] = tuple(c for c in unshown if c != now.bids[p])
        return (None if base is None else base.clone()), steps


__all__ = ["GoofChance"]
