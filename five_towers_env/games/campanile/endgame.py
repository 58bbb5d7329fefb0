"""The end of a Campanile game seen one turn ahead, from one seat's public view.

The game ends when a draw empties a pile (SPEC C3.3), so whenever a pile holds one card the
player on move can end it. :func:`next_player_endings` lists every way the next player could
do so after ``seat``'s turn. The observation's ``rival_end`` piece and the heuristic's danger
check both read it; scores come from the rules' ``score_backed``.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from five_towers_env.games.campanile.rules import NUM_PILES, NUM_TOWERS, flag_order, ranked_backers, score_backed
from five_towers_env.games.campanile.state import CampanileState


def next_player_endings(state: CampanileState, seat: int, heights: Sequence[int], bets: Sequence[tuple],
                        sizes: Sequence[int], drawn_pile: int, backed: list | None = None,
                        unseen: Sequence[int] | None = None) -> Iterator[list[int]]:
    """Final scores of every way the next player could end the game on their turn.

    ``heights`` and ``bets`` are the towers and chips after ``seat``'s turn (its play and bet) on
    ``state``, ``sizes`` the pile sizes after its draw from pile ``drawn_pile`` (1-3); ``backed``,
    if the caller has it, is ``[ranked_backers(b) for b in bets]``, and ``unseen`` is
    ``state.unseen_counts(seat)``. The next player may hold any style
    ``seat`` cannot rule out (unseen by ``seat``, or known to be in their hand) and may bet any
    chip they hold that the storeys allow on a tower ``seat`` saw face up on another pile (the
    drawn pile shows a card ``seat`` does not know yet; variant ``played``: on the tower raised).
    Order: piles, then styles, then ``no bet`` and each bet, tower by tower and value by value.
    """
    n = state.num_players
    rival = (seat + 1) % n
    if unseen is None:
        unseen = state.unseen_counts(seat)
    styles = [t for t in range(NUM_TOWERS) if t in state.revealed[rival] or unseen[t] > 0]
    held = state.chips[rival]
    face = sorted({p[-1] for i, p in enumerate(state.piles) if p and i != drawn_pile - 1})
    if backed is None:
        backed = [ranked_backers(tuple(b)) for b in bets]
    with_chip: dict[tuple[int, int], list] = {}  # (tower, value) -> the backers with that chip added
    for e in range(NUM_PILES):
        if sizes[e] != 1:
            continue
        k = e + 1
        wanted = (k,) if state.bet_chip == "exact" else range(k, 4)
        values = [v for v in wanted if held[v - 1]]
        for u in styles:
            h2 = list(heights)
            h2[u] += k
            order = flag_order(h2)
            yield score_backed(order, backed, n)  # no bet
            for t in ((u,) if state.variant == "played" else face):
                for v in values:  # one chip more under tower t: only its backers change
                    chip = with_chip.get((t, v))
                    if chip is None:
                        chip = with_chip[(t, v)] = list(backed)
                        chip[t] = ranked_backers(tuple(bets[t]) + ((rival, v),))
                    yield score_backed(order, chip, n)


__all__ = ["next_player_endings"]
