"""The Campanile game state and its rules (SPEC C2-C4): ``legal_actions`` / ``apply_action``.

A pure engine: no gymnasium, pettingzoo or torch. The only randomness, the shuffle at setup,
comes from the ``numpy.random.Generator`` handed to :meth:`CampanileState.new_game`; after
setup every transition is deterministic (the piles' order is fixed once dealt).
``apply_action`` raises :class:`IllegalActionError` (the 5 Towers engine's class, so callers
catch one type for both games) for an action that is not legal, and then changes nothing.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from enum import IntEnum

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.state import ScoredState
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.rules import (
    BET_CHIPS,
    CHIPS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_PILES,
    NUM_TOWERS,
    TOWERS,
    VARIANTS,
    cards_per_style,
    flag_order,
    leftover_count,
    pile_size,
    score_in_order,
    stakes_by_first_chip,
)


class Phase(IntEnum):
    """The decision the player on move faces (SPEC C3): play a card, then bet or not."""

    PLAY = 0
    BET = 1


#: ``phase_name`` values; ``game_over`` is reported once the game has ended, although the
#: position format keeps ``phase: play`` there (SPEC C3, last paragraph)
PHASE_NAMES: tuple[str, ...] = ("play", "bet", "game_over")
_PLAY, _BET = int(Phase.PLAY), int(Phase.BET)


def check_setup(num_players: object, variant: object, bet_chip: object = "at_least") -> None:
    """Raise ``ValueError`` with a clear message for an unsupported player count, variant or chip rule."""
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, got {variant!r}")
    if bet_chip not in BET_CHIPS:
        raise ValueError(f"bet_chip must be one of {', '.join(map(repr, BET_CHIPS))}, got {bet_chip!r}")


#: where :func:`deal_layout` puts a card: a hand, a pile (bottom to top), or set aside unseen
HAND, PILE, LEFTOVER = "hand", "pile", "leftover"


def deal_layout(num_players: int) -> tuple[tuple[str, int], ...]:
    """SPEC C2.2-C2.3: where each card of the shuffled deck goes, in dealing order: ``(HAND, seat)``
    (three cards to each seat, seat 0 first), ``(PILE, i)`` (each pile in turn, bottom card first, so a
    pile's last card is its face-up one), then ``(LEFTOVER, 0)`` for the 0-2 cards set aside."""
    n = int(num_players)
    size = pile_size(n)
    return (tuple((HAND, p) for p in range(n) for _ in range(HAND_SIZE))
            + tuple((PILE, i) for i in range(NUM_PILES) for _ in range(size))
            + ((LEFTOVER, 0),) * leftover_count(n))


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    """A sorted tuple with one copy of ``card`` removed (it must be there)."""
    i = cards.index(card)
    return cards[:i] + cards[i + 1:]


def _with(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    """A sorted tuple with one more copy of ``card``."""
    i = 0
    while i < len(cards) and cards[i] <= card:
        i += 1
    return cards[:i] + (card,) + cards[i:]


class CampanileState(ScoredState):
    """A game of Campanile in progress.

    Public attributes (read them; change them only through ``apply_action``). Towers and cards
    are ints ``0..4`` (``A``..``E``), seats ``0..n-1``:

    * ``num_players``, ``variant`` (``"pile"`` or ``"played"``), ``bet_chip`` (``"at_least"`` or ``"exact"``);
    * ``heights``: list of 5 tower heights in storeys;
    * ``bets``: list of 5 tuples of ``(seat, value)`` chips, in the order placed;
    * ``chips``: per seat, a tuple of the remaining 1-, 2- and 3-chips;
    * ``hands``: per seat, a sorted tuple of cards (hidden from the other players);
    * ``revealed``: per seat, the sorted sub-multiset of its hand everybody knows is there
      (cards drawn face up and not accounted for by a later play, SPEC C5);
    * ``piles``: 3 lists, bottom to top; the last card is face up, the rest is hidden;
    * ``leftover``: the 0-2 cards set aside unseen at setup (hidden);
    * ``cards_played``: per style, the cards played this game (public; positions start at 0);
    * ``phase`` (:class:`Phase`), ``current_player``, ``played_tower`` / ``played_storeys``
      (this turn's play in the bet phase; -1 / 0 otherwise), ``done``, ``turns`` (turns completed).
    """

    def __init__(self, num_players: int, variant: str, rng: np.random.Generator | None, *,
                 hands: Sequence[Sequence[int]], piles: Sequence[Sequence[int]],
                 heights: Sequence[int] | None = None, bets: Sequence[Sequence[tuple[int, int]]] | None = None,
                 chips: Sequence[Sequence[int]] | None = None, to_act: int = 0, phase: int = _PLAY,
                 played: tuple[int, int] | None = None, bet_chip: str = "at_least", done: bool = False,
                 leftover: Sequence[int] = (), revealed: Sequence[Sequence[int]] | None = None,
                 cards_played: Sequence[int] | None = None) -> None:
        """Build a state from its parts (``new_game`` and ``load_position`` are the usual ways in)."""
        check_setup(num_players, variant, bet_chip)
        n = self.num_players = int(num_players)
        self.variant = variant
        self.bet_chip = bet_chip
        self.rng = rng
        self.hands: list[tuple[int, ...]] = [tuple(sorted(int(c) for c in h)) for h in hands]
        self.piles = [[int(c) for c in p] for p in piles]
        self.heights = [int(h) for h in heights] if heights is not None else [0] * NUM_TOWERS
        self.bets: list[tuple[tuple[int, int], ...]] = [tuple((int(s), int(v)) for s, v in b) for b in bets] \
            if bets is not None \
            else [()] * NUM_TOWERS
        self.chips: list[tuple[int, ...]] = [tuple(int(x) for x in c) for c in chips] if chips is not None \
            else [CHIPS] * n
        self.revealed: list[tuple[int, ...]] = [tuple(sorted(r)) for r in revealed] if revealed is not None \
            else [()] * n
        self.cards_played = list(cards_played) if cards_played is not None else [0] * NUM_TOWERS
        self.leftover = tuple(leftover)
        self.current_player = int(to_act)
        self.phase = int(phase)
        self.played_tower, self.played_storeys = played if played is not None else (-1, 0)
        self.done = bool(done)
        self.turns = 0
        self._legal: list[int] | None = None
        self._order: list[int] | None = None     # flag_order() of the current heights
        self._scores: list[int] | None = None    # scores() ...
        self._scored_order: list[int] | None = None  # ... for this flag order and the current bets
        self._stake_table: list | None = None

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new_game(cls, num_players: int = 2, variant: str = "pile", rng: np.random.Generator | None = None,
                 bet_chip: str = "at_least") -> CampanileState:
        """SPEC C2: a fresh game, the cards shuffled with ``rng``; seat 0 is on move."""
        check_setup(num_players, variant, bet_chip)
        n = int(num_players)
        rng = rng if rng is not None else np.random.default_rng()
        deck = [t for t in range(NUM_TOWERS) for _ in range(cards_per_style(n))]  # C2.1: removals are per style
        return cls.deal(n, variant, rng.permutation(deck).tolist(), rng, bet_chip)

    @classmethod
    def deal(cls, num_players: int, variant: str, cards: Sequence[int], rng: np.random.Generator | None,
             bet_chip: str = "at_least") -> CampanileState:
        """SPEC C2.2-C2.3: the game dealt from ``cards`` in order, as :func:`deal_layout` places them
        (for :meth:`new_game`, and for adapters that deal card by card as chance events)."""
        check_setup(num_players, variant, bet_chip)
        n = int(num_players)
        layout = deal_layout(n)
        if len(cards) != len(layout):
            raise ValueError(f"a {n}-player deal takes {len(layout)} cards, got {len(cards)}")
        hands: list[list[int]] = [[] for _ in range(n)]
        piles: list[list[int]] = [[] for _ in range(NUM_PILES)]
        leftover: list[int] = []
        for (kind, index), card in zip(layout, cards):
            (hands[index] if kind == HAND else piles[index] if kind == PILE else leftover).append(int(card))
        return cls(n, variant, rng, hands=hands, piles=piles, bet_chip=bet_chip, leftover=leftover)

    def clone(self, rng: np.random.Generator | None = None) -> CampanileState:
        """An independent copy. ``rng`` replaces the copy's generator; by default the copy shares
        this one, which is safe because the engine draws nothing after setup."""
        new = object.__new__(CampanileState)
        new.__dict__.update(self.__dict__)
        new.hands = list(self.hands)  # tuples inside: immutable, shared
        new.piles = [list(p) for p in self.piles]
        new.heights = list(self.heights)
        new.bets = list(self.bets)
        new.chips = list(self.chips)
        new.revealed = list(self.revealed)
        new.cards_played = list(self.cards_played)
        if rng is not None:
            new.rng = rng
        return new

    # -- queries ------------------------------------------------------------------------

    @property
    def phase_name(self) -> str:
        """``play``, ``bet``, or ``game_over`` once the game has ended."""
        return "game_over" if self.done else PHASE_NAMES[self.phase]

    def is_terminal(self) -> bool:
        """Whether the game is over (SPEC C3.3: a pile was emptied by a draw)."""
        return self.done

    def face_up(self) -> tuple[int, ...]:
        """SPEC C2.4: the tower shown on each pile's face-up card, pile 1 first (-1 for an empty pile)."""
        return tuple(p[-1] if p else -1 for p in self.piles)

    def bettable_towers(self) -> tuple[int, ...]:
        """SPEC C3.2: the towers a bet may go on this turn (sorted; only meaningful in the bet phase)."""
        if self.variant == "played":
            return (self.played_tower,)
        return tuple(sorted({p[-1] for p in self.piles if p}))

    def bettable_values(self) -> tuple[int, ...]:
        """SPEC C3.2: the chip values the player on move may bet now (held, and allowed by the storeys)."""
        k, held = self.played_storeys, self.chips[self.current_player]
        wanted = (k,) if self.bet_chip == "exact" else range(k, 4)
        return tuple(v for v in wanted if held[v - 1])

    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player on move may take (empty once the game is over).

        Computed once per state; the list is shared, so do not change it."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> list[int]:
        if self.done:
            return []
        if self.phase == _PLAY:  # C3.1: any card in hand, raised 1, 2 or 3 storeys
            out: list[int] = []
            last = -1
            for t in self.hands[self.current_player]:  # sorted: each style once, ids ascending
                if t != last:
                    out += (3 * t, 3 * t + 1, 3 * t + 2)
                    last = t
            return out
        values = self.bettable_values()  # C3.2: `no bet` always; one held chip, large enough, on an allowed tower
        return [A.NO_BET] + [A.BET + 3 * t + v - 1 for t in self.bettable_towers() for v in values]

    def scores(self) -> list[int]:
        """SPEC C4: each seat's score if the game ended now."""
        order = self.flag_order()
        if self._scores is None or order != self._scored_order:
            self._scores = score_in_order(order, self.bets, self.num_players)
            self._scored_order = order
        return list(self._scores)

    def flag_order(self) -> list[int]:
        """SPEC C4: the towers in the order they would take the flags now, tallest first
        (computed once per height change; do not change the list)."""
        if self._order is None:
            self._order = flag_order(self.heights)
        return self._order

    def stakes(self, tower: int) -> list[int]:
        """Each seat's total chip value under ``tower``."""
        out = [0] * self.num_players
        for s, v in stakes_by_first_chip(self.bets[tower]).items():
            out[s] = v
        return out

    def stake_table(self) -> list[list[tuple[int, int]]]:
        """Per seat and tower ``A``..``E``: ``(stake, first)``, the seat's total chip value there and
        the place of its first chip among the backers' first chips (0 earliest, SPEC C4's tie-break;
        ``(0, -1)`` without a stake). Computed once per change of the bets; do not change it."""
        table = self._stake_table
        if table is None:
            table = [[(0, -1)] * NUM_TOWERS for _ in range(self.num_players)]
            for t, chips in enumerate(self.bets):
                for i, (s, total) in enumerate(stakes_by_first_chip(chips).items()):
                    table[s][t] = (total, i)
            self._stake_table = table
        return table

    def unseen_counts(self, observer: int) -> list[int]:
        """SPEC C5: per style, the cards whose place ``observer`` cannot know: pile cards below the
        face-up ones, the set-aside leftovers and the other players' cards not revealed."""
        hidden = list(self.leftover)
        for pile in self.piles:
            hidden += pile[:-1]
        known: list[int] = []
        for p in range(self.num_players):
            if p != observer:
                hidden += self.hands[p]
                known += self.revealed[p]
        return [hidden.count(t) - known.count(t) for t in range(NUM_TOWERS)]

    # -- transitions --------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Apply ``action`` for the player on move; raise ``IllegalActionError`` (changing
        nothing) if it is not legal now."""
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(f"illegal action {action!r}: actions are integer ids "
                                     f"0..{A.NUM_ACTIONS - 1}") from None
        if a not in self.legal_actions():
            raise IllegalActionError(self.illegal_message(a))
        if self.phase == _PLAY:
            self._play(a)
        else:
            self._bet_and_draw(a)
        self._legal = None

    def illegal_message(self, action: int) -> str:
        """A clear message naming an illegal action and the legal ones."""
        try:
            name = repr(A.action_name(action))
        except ValueError:
            name = f"id {action!r} (out of range 0..{A.NUM_ACTIONS - 1})"
        if self.done:
            return f"illegal action {name}: the game is over"
        legal = ", ".join(A.ACTION_NAMES[x] for x in self.legal_actions())
        return (f"illegal action {name} for seat {self.current_player} in phase {self.phase_name}; "
                f"legal: {legal}")

    def _play(self, a: int) -> None:
        """SPEC C3.1: the card leaves the hand and raises its tower by 1-3 storeys."""
        p = self.current_player
        t, k = divmod(a - A.PLAY, 3)
        k += 1
        self.hands[p] = _without(self.hands[p], t)
        if t in self.revealed[p]:  # the public only knows the hand still holds one fewer drawn t
            self.revealed[p] = _without(self.revealed[p], t)
        self.heights[t] += k
        self.cards_played[t] += 1
        self.phase = _BET
        self.played_tower, self.played_storeys = t, k
        self._order = None  # scores() rescores only if the order changed

    def _bet_and_draw(self, a: int) -> None:
        """SPEC C3.2-3: place the chip (if any), draw from the pile numbered by the storeys, end the turn."""
        p = self.current_player
        if a != A.NO_BET:
            t, v = divmod(a - A.BET, 3)
            self.bets[t] = self.bets[t] + ((p, v + 1),)  # C3.2: kept in the order placed
            held = self.chips[p]
            self.chips[p] = held[:v] + (held[v] - 1,) + held[v + 1:]  # C3.2: the chip is spent for good
            self._scores = self._stake_table = None
        pile = self.piles[self.played_storeys - 1]
        card = pile.pop()  # C3.3: the face-up card; the next one is now face up
        self.hands[p] = _with(self.hands[p], card)
        self.revealed[p] = _with(self.revealed[p], card)  # it was face up: everybody saw it taken
        self.turns += 1
        self.phase = _PLAY
        self.played_tower, self.played_storeys = -1, 0
        if pile:
            self.current_player = (p + 1) % self.num_players
        else:
            self.done = True  # C3.3: an emptied pile ends the game at once; to_act stays the mover

    # -- hidden information -------------------------------------------------------------

    def with_cards(self, hands: Sequence[Sequence[int]], piles: Sequence[Sequence[int]], leftover: Sequence[int],
                   rng: np.random.Generator | None = None) -> CampanileState:
        """A copy with the hands, the piles and the set-aside cards replaced and the public rest kept
        (``rng``, if given, as its generator): for adapters that wind a game back to a deal drawn again."""
        new = self.clone(rng=rng)
        new.hands = [tuple(sorted(int(c) for c in h)) for h in hands]
        new.piles = [[int(c) for c in p] for p in piles]
        new.leftover = tuple(int(c) for c in leftover)
        new._legal = None  # the player on move may hold other cards
        return new

    def public_view(self, seat: int, rng: np.random.Generator | None = None) -> CampanileState:
        """A copy that ``seat`` may be shown: nothing hidden from it can be recovered.

        :meth:`determinize` with a fixed generator: it deals the hidden cards again from their sorted
        multiset, so the result is a function of the public information and ``seat``'s hand only, and
        the copy never carries the game's generator (whose state would let one replay the shuffle of
        the deal). ``rng``, if given, becomes the copy's generator.
        """
        view = self.determinize(seat, np.random.default_rng(0))
        if rng is not None:
            view.rng = rng
        return view

    def determinize(self, observer: int, rng: np.random.Generator) -> CampanileState:
        """A copy in which every card hidden from ``observer`` (SPEC C5) is dealt again at random.

        The public multiset is kept: pile sizes, face-up cards, leftovers' count, each other
        player's revealed cards and hand size. ``observer``'s own hand is unchanged. For
        information-set search (ISMCTS) and for testing that observations ignore hidden cards.

        The copy depends only on what ``observer`` may know and on ``rng``, which also becomes the
        copy's generator: the game's own generator (which dealt the cards) is not handed on."""
        new = self.clone(rng=rng)
        hidden: list[int] = []
        for pile in new.piles:
            hidden += pile[:-1]
        hidden += new.leftover
        others = [p for p in range(self.num_players) if p != observer]
        for p in others:
            rest = list(new.hands[p])
            for c in new.revealed[p]:
                rest.remove(c)
            hidden += rest
        # sorted first: the hidden cards' current order must not show through the shuffle
        hidden = rng.permutation(sorted(hidden)).tolist() if hidden else []
        at = 0
        for i, pile in enumerate(new.piles):
            below = max(len(pile) - 1, 0)
            new.piles[i] = hidden[at:at + below] + pile[below:]
            at += below
        new.leftover = tuple(hidden[at:at + len(self.leftover)])
        at += len(self.leftover)
        for p in others:
            size = len(new.hands[p]) - len(new.revealed[p])
            new.hands[p] = tuple(sorted(list(new.revealed[p]) + hidden[at:at + size]))
            at += size
        new._legal = None  # the player on move may be an `other` whose hand changed
        return new

    # -- debugging ----------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"CampanileState({self.variant}, {self.num_players} players, phase={self.phase_name}, "
                f"to_act={self.current_player}, heights={self.heights}, "
                f"face_up={''.join(TOWERS[t] if t >= 0 else '-' for t in self.face_up())})")


__all__ = ["CampanileState", "Phase", "PHASE_NAMES", "IllegalActionError", "check_setup", "deal_layout",
           "HAND", "PILE", "LEFTOVER"]
