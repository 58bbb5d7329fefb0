"""Goofspiel's rules and game state: a pure engine (no PettingZoo, no Gymnasium).

The only randomness, the shuffle of the prize deck, comes from the generator handed to
:meth:`GoofState.new_game`; every move after it is deterministic. ``apply_action`` raises
:class:`~five_towers_env.core.errors.IllegalActionError` for an action that is not legal, and then
changes nothing.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.state import ScoredState

from . import actions as A

CARDS = A.CARDS                      # every hand holds the bid cards 1..CARDS; the prizes are 1..CARDS
TOTAL = CARDS * (CARDS + 1) // 2     # all the prizes together
MIN_PLAYERS, MAX_PLAYERS = 2, 4
VARIANTS = ("discard", "carry")      # a tied round's prize is lost, or added to the next prize
PHASE_NAMES = ("bid", "game_over")


def check_setup(num_players: object, variant: object) -> None:
    """Raise ``ValueError`` for a player count or a variant Goofspiel does not have."""
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, got {variant!r}")


class GoofState(ScoredState):
    """A game of Goofspiel in progress (read the attributes; change them through ``apply_action``).

    * ``hands``: per seat, the sorted cards it has not bid yet;
    * ``bids``: per seat, its face-down bid this round (0 before it bids); hidden from the others;
    * ``deck``: the prize cards still face down, the next one last; their order is hidden from all;
    * ``prize``: the prize on offer (0 once the game is over); ``pot``: value carried over by ties;
    * ``won``: per seat, the points won; ``shown``: per seat, its bid last round, shown to all at the
      round's end (zeros before); ``current_player``: the seat to bid (-1 once over).
    """

    def __init__(self, num_players: int, variant: str, *, hands: Sequence[Sequence[int]], bids: Sequence[int],
                 deck: Sequence[int], prize: int, pot: int = 0, won: Sequence[int] | None = None,
                 shown: Sequence[int] | None = None) -> None:
        """Build a state from its parts (``new_game`` and ``load_position`` are the usual ways in)."""
        check_setup(num_players, variant)
        self.num_players, self.variant = int(num_players), variant
        self.hands, self.bids, self.deck = [tuple(sorted(h)) for h in hands], list(bids), list(deck)
        self.prize, self.pot = prize, pot
        self.won = list(won) if won is not None else [0] * self.num_players
        self.shown = list(shown) if shown is not None else [0] * self.num_players
        self.current_player = -1 if self.done else sum(1 for b in self.bids if b)

    @classmethod
    def new_game(cls, num_players: int = 2, variant: str = "discard",
                 rng: np.random.Generator | None = None) -> GoofState:
        """A fresh game, the prizes shuffled with ``rng``; seat 0 bids first in every round."""
        check_setup(num_players, variant)
        rng = rng if rng is not None else np.random.default_rng()
        deck = [int(c) for c in rng.permutation(np.arange(1, CARDS + 1))]
        hands = [tuple(range(1, CARDS + 1))] * int(num_players)
        return cls(num_players, variant, hands=hands, bids=[0] * int(num_players), deck=deck[:-1], prize=deck[-1])

    def clone(self) -> GoofState:
        """An independent copy."""
        return GoofState(self.num_players, self.variant, hands=list(self.hands), bids=self.bids, deck=self.deck,
                         prize=self.prize, pot=self.pot, won=self.won, shown=self.shown)

    # -- queries ---------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Whether every prize has been played for."""
        return self.prize == 0

    @property
    def round(self) -> int:
        """Rounds completed."""
        return CARDS - len(self.deck) - (0 if self.done else 1)

    @property
    def phase_name(self) -> str:
        """``bid``, or ``game_over`` at the end."""
        return PHASE_NAMES[self.done]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.done

    def legal_actions(self) -> list[int]:
        """The ids of the cards the seat on move may bid (empty once the game is over)."""
        return [] if self.done else [A.bid_action(c) for c in self.hands[self.current_player]]

    def scores(self) -> list[int]:
        """Each seat's points so far."""
        return list(self.won)

    def determinize(self, observer: int, rng: np.random.Generator) -> GoofState:
        """A copy in which what ``observer`` cannot see is drawn again with ``rng``: each other seat's
        face-down bid (from the cards it has not shown) and the order of the prize deck."""
        new = self.clone()
        for p, bid in enumerate(self.bids):
            if bid and p != observer:
                unshown = sorted((*self.hands[p], bid))
                new.bids[p] = unshown[rng.integers(len(unshown))]
                new.hands[p] = tuple(c for c in unshown if c != new.bids[p])
        new.deck = [int(c) for c in rng.permutation(sorted(self.deck))]
        return new

    def public_view(self, seat: int) -> GoofState:
        """A copy of ``state`` safe to show ``seat``: the hidden cards redrawn by a fixed rule, so that
        states differing only in what ``seat`` cannot see give equal views."""
        return self.determinize(seat, np.random.default_rng(0))

    def illegal_message(self, action: object) -> str:
        """A message naming an illegal action and the legal ones."""
        try:
            name = repr(A.action_name(action))  # type: ignore[arg-type]
        except ValueError:
            name = f"id {action!r} (out of range 0..{A.NUM_ACTIONS - 1})"
        if self.done:
            return f"illegal action {name}: the game is over"
        legal = ", ".join(A.action_name(a) for a in self.legal_actions())
        return f"illegal action {name} for seat {self.current_player}; legal: {legal}"

    # -- moves -----------------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Bid a card face down for the seat on move; the last bid of a round settles it."""
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"illegal action {action!r}: actions are integer ids "
                                     f"0..{A.NUM_ACTIONS - 1}") from None
        if a not in self.legal_actions():
            raise IllegalActionError(self.illegal_message(a))
        p, card = self.current_player, A.card_of(a)
        self.hands[p] = tuple(c for c in self.hands[p] if c != card)
        self.bids[p] = card
        self.current_player += 1
        if self.current_player == self.num_players:
            self._settle()

    def _settle(self) -> None:
        """Show the bids: a sole highest bid wins prize and pot; a tie loses them or carries them on."""
        top = [p for p, b in enumerate(self.bids) if b == max(self.bids)]
        value, self.pot = self.prize + self.pot, 0
        if len(top) == 1:
            self.won[top[0]] += value
        elif self.variant == "carry" and self.deck:
            self.pot = value
        self.shown, self.bids = self.bids, [0] * self.num_players
        self.prize = self.deck.pop() if self.deck else 0
        self.current_player = -1 if self.done else 0

    def __repr__(self) -> str:
        return (f"GoofState({self.variant}, {self.num_players} players, round {self.round}, prize {self.prize}, "
                f"pot {self.pot}, won {self.won})")


__all__ = ["GoofState", "check_setup", "IllegalActionError", "CARDS", "TOTAL", "MIN_PLAYERS", "MAX_PLAYERS",
           "VARIANTS", "PHASE_NAMES"]
