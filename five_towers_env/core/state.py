"""The state contract every game's engine implements, and what core derives from it.

A game's engine is one state type (5 Towers' ``GameState``, Campanile's ``CampanileState``) with
the members of :class:`State`. Game-neutral code (the environments' infos, every agent's
``info``, the searches, evaluation) only uses these. :class:`ScoredState` is the base an engine
subclasses: from its ``scores()`` and ``is_terminal()`` it derives ``winners()`` and ``returns()``,
so every game ends the same way (the seats sharing the top score win; +1 each winner, -1 the rest).
:func:`win_shares` (how evaluation, search and training score a finished game) and :func:`agent_info`
are written here once for every game.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # numpy only for the annotations: the game registry imports this module
    import numpy as np


@runtime_checkable
class State(Protocol):
    """A game in progress: whose turn, the legal moves, the move, the end, the result, and what a seat may see."""

    num_players: int
    current_player: int  # -1 once the game is over

    @property
    def phase_name(self) -> str:
        """Name of the decision the game waits for (``"game_over"`` at the end)."""
        ...

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat on move (empty once the game is over)."""
        ...

    def apply_action(self, action: int) -> None:
        """Apply one legal action; raise ``IllegalActionError`` (a ``ValueError``) for any other."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        ...

    def winners(self) -> list[int]:
        """The seats sharing the top score."""
        ...

    def returns(self) -> list[float]:
        """Each seat's reward: zeros before the end, then +1 for each winner and -1 for every other seat."""
        ...

    def clone(self) -> State:
        """An independent copy."""
        ...

    def public_view(self, seat: int) -> State:
        """A copy ``seat`` may be shown: everything hidden from it redrawn by a fixed rule, so that states
        differing only in what ``seat`` cannot see give equal views; the game's generator is not in it."""
        ...

    def determinize(self, observer: int, rng: np.random.Generator) -> State:
        """A copy in which everything ``observer`` cannot see is drawn again with ``rng``, consistent with
        what it has seen (``rng`` becomes the copy's generator where the engine keeps one)."""
        ...


class ScoredState:
    """The base of an engine: ``winners()`` and ``returns()`` derived from ``scores()`` and ``is_terminal()``."""

    num_players: int
    #: which engine the state runs on (a native core's states say "native": core.native.wrapper)
    backend = "python"

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        raise NotImplementedError

    def winners(self) -> list[int]:
        """The seats sharing the top score."""
        s = self.scores()
        best = max(s)
        return [p for p, v in enumerate(s) if v == best]

    def returns(self) -> list[float]:
        """+1 for each winner and -1 for every other seat once the game is over, else zeros."""
        if not self.is_terminal():
            return [0.0] * self.num_players
        w = set(self.winners())
        return [1.0 if p in w else -1.0 for p in range(self.num_players)]


def shares_of(winners: Sequence[int], num_players: int) -> list[float]:
    """Each seat's share of the win: ``1/k`` for each of ``k`` winners, 0 for the others."""
    shares = [0.0] * num_players
    for p in winners:
        shares[p] = 1.0 / len(winners)
    return shares


def win_shares(state: State) -> list[float]:
    """Each seat's share of the win of a finished game (:func:`shares_of` its winners)."""
    return shares_of(state.winners(), state.num_players)


def agent_info(state: State, seat: int, game: str, action_name: Callable[[int], str]) -> dict[str, Any]:
    """The ``info`` an agent at ``seat`` receives (see :mod:`five_towers_env.core.agent`): the game's name,
    the seat, the phase, the legal ids and names (empty off turn) and ``seat``'s public view of the state."""
    legal = list(state.legal_actions()) if seat == state.current_player and not state.is_terminal() else []
    return {"game": game, "seat": seat, "phase": state.phase_name, "legal_actions": legal,
            "legal_action_names": [action_name(a) for a in legal], "view": state.public_view(seat)}


__all__ = ["State", "ScoredState", "shares_of", "win_shares", "agent_info"]
