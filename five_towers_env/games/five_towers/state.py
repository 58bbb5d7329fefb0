"""The game state and the rules of a round (SPEC §3-§5): ``legal_actions`` / ``apply_action``.

The state is a plain mutable object. All randomness (the reshuffle when the deck first runs
out) comes from the ``numpy.random.Generator`` handed in at construction. ``apply_action``
raises :class:`IllegalActionError` for an action that is not legal and then changes nothing.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from enum import IntEnum
from functools import cache

import numpy as np

from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.state import ScoredState
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.builder import (
    DONE as ROUND_DONE,
)
from five_towers_env.games.five_towers.builder import (
    Round,
    round_ok,
    run_fields,
)
from five_towers_env.games.five_towers.builder import (
    moves as builder_moves,
)
from five_towers_env.games.five_towers.cards import CARD_NAMES, NUM_TYPES, NUM_VALUES, TREE, card_set
from five_towers_env.games.five_towers.lookahead import (
    END_BOTTOM,
    END_NONE,
    END_TOP,
    achievable_bids,
    base_take_rests,
    gp_take_rests,
    payable,
    plain_builds,
    plain_teardowns,
    remove_one,
    split_by_type,
    trim_memos,
)
from five_towers_env.games.five_towers.scoring import score_player

VARIANTS: tuple[str, ...] = ("base", "great_powers")
MIN_PLAYERS, MAX_PLAYERS = 2, 5
PASSED = -1  # entry of ``bids`` for a player who passed (``None``: not yet had a chance)


class Phase(IntEnum):
    """Whose decision, of which kind, the game waits for."""

    BID = 0
    TAKE = 1
    TEARDOWN = 2
    BUILD = 3
    RECOVER = 4
    GAME_OVER = 5


PHASE_NAMES: tuple[str, ...] = ("bid", "take", "teardown", "build", "recover", "game_over")
# the members as module globals: the hot paths below read these, not the slower ``Phase.X`` lookup
_BID, _TAKE, _TEARDOWN, _BUILD, _RECOVER, _GAME_OVER = Phase
_STOP, _BUILD_ID = A.STOP, A.BUILD  # action ids the builder's bookkeeping tells apart (all after STOP
#                                     and before BUILD are teardowns)


# Games begun in this process; every _TRIM_EVERY-th asks the look-ahead to trim its memos (asking
# costs about half a new game, and a few games add little to memos of a few hundred thousand entries).
_games_begun = 0
_TRIM_EVERY = 32


def check_setup(num_players: object, variant: object) -> None:
    """Raise ``ValueError`` with a clear message for an unsupported player count or variant."""
    if (isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer))
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS):
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, got {variant!r}")


class GameState(ScoredState):
    """A game of 5 Towers in progress.

    Public attributes (read them, change them only through ``apply_action``):
    ``variant``, ``num_players``, ``display`` (sorted tuple of card ids), ``deck`` (list,
    the top card last: hidden information), ``discard`` (list), ``towers[p]`` (tuple of 5
    tuples of values, bottom to top), ``piles[p]`` (sorted tuple of torn-down card ids),
    ``start_player``, ``deck_ran_out``, ``phase``, ``current_player``, ``bids[p]`` (None,
    ``PASSED`` or the bid), ``high_bid``, ``builder``, ``target`` (the builder's bid),
    ``hand`` (taken cards not yet built), ``taken``, ``took_tree``, ``paid``, ``torn``
    (type torn down this round, -1 for none, None before the decision), ``sand_end``.
    """

    _legal: list[int] | None  # the legal actions, computed on first ask after each move

    def __init__(self, num_players: int, variant: str, rng: np.random.Generator, *,
                 deck: list[int], discard: list[int], display: tuple[int, ...],
                 towers: list[tuple], piles: list[tuple], start_player: int = 0,
                 deck_ran_out: bool = False) -> None:
        check_setup(num_players, variant)
        global _games_begun
        _games_begun += 1
        if _games_begun % _TRIM_EVERY == 0:  # a new game: the moment to keep the look-ahead's memos bounded
            trim_memos()
        self.num_players = int(num_players)
        self.variant = variant
        self.gp = variant == "great_powers"
        self.rng = rng
        self.deck = deck
        self.discard = discard
        self.towers = towers
        self.piles = piles
        self.start_player = start_player
        self.deck_ran_out = deck_ran_out
        self.rounds_played = 0
        self.display = tuple(sorted(display))
        self._begin_bidding()

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new_game(cls, num_players: int = 2, variant: str = "base", rng: np.random.Generator | None = None,
                 start_player: int = 0) -> GameState:
        """A fresh game: the card set shuffled with ``rng``, the first display revealed."""
        check_setup(num_players, variant)
        if isinstance(start_player, bool) or not isinstance(start_player, (int, np.integer)) \
                or not 0 <= start_player < num_players:
            raise ValueError(f"start_player must be a seat 0..{num_players - 1}, got {start_player!r}")
        rng = rng if rng is not None else np.random.default_rng()
        deck = rng.permutation(_card_array(num_players)).tolist()
        display = tuple(deck.pop() for _ in range(5))
        empty = tuple(() for _ in range(NUM_TYPES))
        return cls(num_players, variant, rng, deck=deck, discard=[], display=display,
                   towers=[empty] * num_players, piles=[()] * num_players, start_player=start_player)

    def clone(self, rng: np.random.Generator | None = None) -> GameState:
        """An independent copy; ``rng`` replaces the copy's generator (default: a copy of this one)."""
        new = copy.copy(self)
        new.deck = list(self.deck)
        new.discard = list(self.discard)
        new.towers = list(self.towers)
        new.piles = list(self.piles)
        new.bids = list(self.bids)
        new._bid_masks = dict(self._bid_masks)
        new.rng = rng if rng is not None else copy.deepcopy(self.rng)
        return new

    # -- queries ------------------------------------------------------------------------

    @property
    def phase_name(self) -> str:
        """Name of the current phase: bid, take, teardown, build, recover or game_over."""
        return PHASE_NAMES[self.phase]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.phase == _GAME_OVER

    def ceiling(self, player: int) -> int:
        """SPEC §3: the highest bid a player may announce this round."""
        d = len(self.display)
        if not self.gp:
            return d
        non_tree = d - len(split_by_type(self.display)[TREE])
        return max(d, non_tree + payable(self.towers[player], True))

    def bid_mask(self, player: int) -> int:
        """Bitmask of the bids ``player`` could carry out on this round's display."""
        mask = self._bid_masks.get(player)
        if mask is None:
            mask = achievable_bids(self.towers[player], self.piles[player], self.display, self.gp)
            self._bid_masks[player] = mask
        return mask

    def legal_actions(self) -> list[int]:
        """Sorted ids of the actions the player to act may take (empty once the game is over)."""
        if self._legal is None:
            self._legal = _LEGAL[self.phase](self)
        return self._legal

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now (SPEC §4)."""
        return [score_player(self.towers[p], self.piles[p], self.gp) for p in range(self.num_players)]

    def public_view(self, seat: int = 0, rng: np.random.Generator | None = None) -> GameState:
        """A copy any seat may be shown (everything but the deck's order is public, SPEC §6): the deck
        sorted, and ``rng`` (default: a fresh fixed one) in place of the game's generator."""
        view = self.clone(rng=rng if rng is not None else np.random.default_rng(0))
        view.deck = sorted(view.deck)
        return view

    def determinize(self, observer: int, rng: np.random.Generator) -> GameState:
        """A copy with the deck, the only hidden information, shuffled from the sorted unseen cards
        with ``rng`` (which becomes the copy's generator); the same for every ``observer``."""
        new = self.clone(rng=rng)
        new.deck = [int(c) for c in rng.permutation(sorted(new.deck))]
        return new

    # -- transitions --------------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Apply ``action`` for the player to act; raise ``IllegalActionError`` if it is not legal."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        a = int(action)
        if a not in legal:
            raise IllegalActionError(self.illegal_message(a))
        if self.phase == _BID:
            self._apply_bid(a)
        else:
            self._apply_builder_moves((a,))
        self._legal = None

    def apply_unchecked(self, actions: Sequence[int]) -> None:
        """Apply ``actions`` in turn without checking them or listing the legal actions: the fast path
        for search rollouts whose default policy only ever picks legal moves (a builder's moves are
        applied in one pass). An illegal action here is a bug in the caller and leaves the state
        undefined (use :meth:`apply_action` to be checked)."""
        i, n = 0, len(actions)
        while i < n:
            if self.phase == _BID:
                self._apply_bid(actions[i])
                i += 1
            else:
                i += self._apply_builder_moves(actions[i:] if i else actions)
        self._legal = None

    def redeal(self, unseen: list[int], rng: np.random.Generator) -> GameState:
        """A copy of this round-start state (bidding not begun) with the display and the deck dealt
        again from ``unseen`` (its last cards become the display, the rest the deck, top last) and
        ``rng`` for the reshuffle: a determinisation for search, when ``unseen`` is a shuffle of
        the cards a player cannot see. ``unseen`` must hold as many cards as the deck and display."""
        if self.phase != _BID or self.bid_turn != 0 or len(unseen) != len(self.deck) + len(self.display):
            raise ValueError("redeal needs a round start and exactly the deck's and display's number of cards")
        cut = len(unseen) - len(self.display)
        return self.revealing(unseen[cut:], unseen[:cut], rng)

    def revealing(self, shown: Sequence[int], rest: Sequence[int], rng: np.random.Generator) -> GameState:
        """A copy of this round-start state with ``shown`` as its display and ``rest`` as its deck (top
        last) and ``rng`` as its generator; :meth:`redeal` with the counts checked, or a display still
        being turned card by card (``shown`` short of the round's, for adapters that reveal by chance)."""
        if self.phase != _BID or self.bid_turn != 0:
            raise ValueError("revealing needs a round start")
        new = self.clone(rng=rng)
        new.deck = [int(c) for c in rest]
        new.display = tuple(sorted(int(c) for c in shown))
        new._begin_bidding()
        return new

    def illegal_message(self, action: int) -> str:
        """A clear message naming an illegal action and the legal ones."""
        try:
            name = repr(A.action_name(action))
        except ValueError:
            name = f"id {action!r} (out of range)"
        if self.is_terminal():
            return f"illegal action {name}: the game is over"
        legal = ", ".join(A.action_name(x) for x in self.legal_actions())
        return (f"illegal action {name} for seat {self.current_player} in phase {self.phase_name}; "
                f"legal: {legal}")

    # -- bidding ------------------------------------------------------------------------

    def _begin_bidding(self) -> None:
        self.phase = _BID
        self.bids: list = [None] * self.num_players
        self.bid_turn = 0
        self.high_bid = -1
        self.builder = -1
        self.target = 0
        self.hand: tuple = ()
        self.taken = 0
        self.took_tree = False
        self.paid = 0
        self.torn: int | None = None
        self.sand_end = END_NONE
        self.current_player = self.start_player
        self._bid_masks: dict = {}
        self._take_rests: list | None = None  # while taking: see base_take_rests / gp_take_rests
        self._legal = None

    def _legal_bid(self) -> list[int]:
        first = self.bid_turn == 0
        low = 0 if first else self.high_bid + 1
        mask = self.bid_mask(self.current_player)
        if mask & (mask + 1) == 0:  # every bid up to the highest (always so in the base game)
            out = list(range(A.BID + low, A.BID + mask.bit_length()))
        else:
            out = [A.BID + n for n in range(low, mask.bit_length()) if mask >> n & 1]
        if not first:
            out.append(A.PASS)  # PASS follows every bid id
        return out

    def _apply_bid(self, a: int) -> None:
        p = self.current_player
        if a == A.PASS:
            self.bids[p] = PASSED
        else:
            self.bids[p] = self.high_bid = a - A.BID
            self.builder = p
        self.bid_turn += 1
        n = self.num_players
        if self.bid_turn < n:  # bidding goes on while a player still to bid could raise
            # (every ceiling is at least the display's size: no need to ask each player's then)
            if self.high_bid < len(self.display) or any(
                    self.high_bid < self.ceiling((self.start_player + i) % n) for i in range(self.bid_turn, n)):
                self.current_player = (self.start_player + self.bid_turn) % n
                return
        if self.high_bid == 0:  # all pass on 0 (SPEC §3)
            self._end_round(next_start=self.start_player)
            return
        self.target = self.high_bid
        self.phase = _TAKE
        self.current_player = self.builder

    # -- taking -------------------------------------------------------------------------

    def _legal_take(self) -> list[int]:
        p = self.builder
        towers, pile = self.towers[p], self.piles[p]
        need = self.target - self.taken
        rests = self._take_rests
        if rests is None:
            if self.gp:
                can_pay = not self.took_tree  # a tree card taken rules out paying in tree cards
                rests = gp_take_rests(towers, pile, self.hand, self.display, need, can_pay)
            else:
                rests = base_take_rests(towers, self.hand, self.display, need)
            self._take_rests = rests
        cards: set = set()
        for rest in rests:
            cards.update(rest)
        out = [A.TAKE + c for c in sorted(cards)]
        # Great Powers: a rest short of ``need`` is paid in tree cards, and only the empty one (the
        # shortest, so the first) lets the builder stop now (``need`` is at least 1 while taking)
        if rests and not rests[0]:
            out.append(A.STOP)
        return out

    def _round(self) -> Round:
        """The builder's side of the round now (see :mod:`~five_towers_env.games.five_towers.builder`)."""
        return Round(*self._round_fields())

    def _round_fields(self) -> tuple:
        """:meth:`_round` as a plain tuple of the ``Round`` fields (what ``builder.run_fields`` takes)."""
        p = self.builder
        need = self.target - self.taken if self.phase == _TAKE else 0
        return (self.phase, self.towers[p], self.piles[p], self.hand, self.display, need, self.took_tree,
                self.sand_end)

    def _legal_moves(self) -> list[int]:
        """Great Powers teardown, build and recover: every move the rules allow that leaves the
        rest of the hand buildable."""
        return sorted(a for a, r in builder_moves(self._round(), True) if round_ok(r, True))

    def _apply_builder_moves(self, actions: Sequence[int]) -> int:
        """Take, teardown, build and recover: the builder's transitions (:func:`builder.run`), plus
        what the rest of the table sees of them (tree cards paid go to the discard pile). Applies
        ``actions`` in turn until they run out or the round ends; returns how many it applied."""
        p = self.builder
        towers = self.towers[p]
        (phase, new_towers, pile, hand, display, _, took_tree, sand_end), done = run_fields(
            self._round_fields(), actions, self.gp)
        if phase != _TAKE:  # the take is over: its rests are of no more use
            self._take_rests = None
        for i in range(done):  # the bookkeeping outside the builder's own round
            a = actions[i]
            if a >= _BUILD_ID:  # builds and recovers, to the round's end: nothing outside the round
                break
            if a < _STOP:  # a take
                c = a - A.TAKE
                self.taken += 1
                if self._take_rests is not None:  # the ways to finish the take that use c
                    self._take_rests = [remove_one(rest, c) for rest in self._take_rests if c in rest]
            elif a == _STOP:  # the tree cards paid, top first, go to the discard pile
                need = self.target - self.taken
                tree = towers[TREE]
                self.discard.extend(TREE * NUM_VALUES + v for v in reversed(tree[len(tree) - need:]))
                self.paid = need
            else:
                self.torn = -1 if a == A.NO_TEARDOWN else a - A.TEARDOWN
        self.towers[p] = new_towers
        self.piles[p] = pile
        self.hand = hand
        self.display = display
        self.took_tree = took_tree
        self.sand_end = sand_end
        if phase == ROUND_DONE:
            self._end_round(next_start=(p + 1) % self.num_players)
        else:
            self.phase = phase
        return done

    # -- teardown -----------------------------------------------------------------------

    def _legal_teardown(self) -> list[int]:
        teardowns = plain_teardowns(self.towers[self.builder], self.hand, self.sand_end, self.gp)
        if teardowns is None:  # Great Powers, a recover may come: the general search
            return self._legal_moves()
        # the teardown ids ascend with the type, and NO_TEARDOWN follows them (as -1 follows the types)
        return [A.NO_TEARDOWN if t < 0 else A.TEARDOWN + t for t in teardowns]

    # -- building and recovering --------------------------------------------------------

    def _legal_build(self) -> list[int]:
        p = self.builder
        builds = plain_builds(self.towers[p], self.hand, self.piles[p], self.sand_end, self.gp)
        if builds is None:  # Great Powers, a recover may come: the general search
            return self._legal_moves()
        on_top, under = builds
        out = [A.BUILD + c for c in on_top]  # ascending, and every bottom build id comes after them
        return out + [A.BUILD_BOTTOM + v for v in under] if under else out

    # -- end of round -------------------------------------------------------------------

    def _end_round(self, next_start: int) -> None:
        self.discard.extend(self.display)
        self.display = ()
        self.start_player = next_start
        self.rounds_played += 1
        if not self.deck:
            if self.deck_ran_out:
                return self._game_over()
            self.deck_ran_out = True
            self.deck = [int(c) for c in self.rng.permutation(self.discard)]
            self.discard = []
            if not self.deck:
                return self._game_over()
        k = min(5, len(self.deck))
        self.display = tuple(sorted(self.deck[-k:]))  # the top k cards (the deck's top is its end)
        del self.deck[-k:]
        self._begin_bidding()

    def _game_over(self) -> None:
        self._begin_bidding()
        self.phase = _GAME_OVER
        self.current_player = -1
        self._legal = []

    # -- debugging ----------------------------------------------------------------------

    def __repr__(self) -> str:
        return (f"GameState({self.variant}, {self.num_players} players, phase={self.phase_name}, "
                f"to_act={self.current_player}, display={[CARD_NAMES[c] for c in self.display]})")


@cache
def _card_array(num_players: int) -> np.ndarray:
    # the card set as the int64 array ``permutation`` would make of the list (the same shuffle)
    cards = np.array(card_set(num_players), dtype=np.int64)
    cards.flags.writeable = False
    return cards


_LEGAL: tuple[Callable[[GameState], list[int]], ...] = (  # indexed by phase
    GameState._legal_bid,
    GameState._legal_take,
    GameState._legal_teardown,
    GameState._legal_build,
    GameState._legal_moves,  # recover: Great Powers only
    lambda s: [],
)

__all__ = ["GameState", "Phase", "PHASE_NAMES", "VARIANTS", "PASSED", "IllegalActionError", "check_setup",
           "END_NONE", "END_TOP", "END_BOTTOM"]
