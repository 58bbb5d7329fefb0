"""A rule-based Campanile player: a hand-written evaluation of flags, stakes, chips, draws and the end.

Evaluation (:class:`Evaluator`, all in points from the player's side, ``own - best rival``):

* **Soft flags.** The game may go on for a while, so the flag a tower will take is uncertain.
  Every pair of towers is compared with a logistic of their height difference (SPEC C4's
  left-first tie-break as half a storey) over a spread that grows with the square root of the
  turns left (:func:`turns_left`); a tower's expected rank is the sum of the chances that each
  other tower finishes above it, and its expected flag ``(high, low)`` interpolates the flags
  between the neighbouring ranks. With no turn left the ranks are exact.
* **Stakes that may still change.** The backer in front takes the high number and the second the
  low one (SPEC C4); while the game runs, a lead of ``m`` stake points is overtaken with a chance
  that shrinks with ``m`` and with the game left (``contest``), so reinforcing a thin lead and
  contesting a rival's thin lead both have a value.
* **Chips** held are an option for later: spending a chip worth ``v`` costs ``chip_cost * v``
  times the share of the game still to play.
* **Cards** in hand are future raises: a card is worth what raising its tower by two storeys would
  gain now (``card_weight`` times that), so the draw (C3.3: the face-up card of the pile numbered by
  the storeys) prefers cards for towers it backs, and it keeps such cards rather than playing them
  off for nothing.
* **The end.** A draw that empties a pile ends the game (C3.3), so the turn that takes a pile's last
  card is scored exactly (a win counts ``end_weight`` on top of the margin), and a turn that leaves a
  pile with one card lets the next player end the game: it checks every tower that player could
  raise and every chip they could bet, and counts the outcome they would pick.

Decisions: in the bet phase, the legal bet (or ``no bet``) with the best evaluation; in the play
phase, every legal play followed by its best bet (the same bets the engine would allow after it),
plus the value of the card it draws and minus the card it gives up. It reads only ``info["view"]``
and the legal actions, so it never sees a hidden card; ties go to the lowest action id, which makes
it deterministic (the seed is accepted for the shared interface). Where the native core is active,
:class:`HeuristicAgent` decides in C++ (:mod:`.native`: the same values, bit for bit, and the same moves).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from five_towers_env.core.agent import AgentBase, WaitingGames, legal_actions
from five_towers_env.core.setting_ranges import WEIGHT
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.agents import native
from five_towers_env.games.campanile.endgame import next_player_endings
from five_towers_env.games.campanile.rules import NUM_TOWERS, backers, flag_order, score_towers
from five_towers_env.games.campanile.state import CampanileState, Phase

if TYPE_CHECKING:
    from collections.abc import Sequence

FLAG_HIGH = (8.0, 6.0, 4.0, 2.0, 0.0)  # SPEC C4 by rank; the fifth tower takes no flag
FLAG_LOW = (4.0, 3.0, 2.0, 1.0, 0.0)
_BET = int(Phase.BET)


def turns_left(pile_sizes: list[int]) -> float:
    """A rough count of the turns still to come: the game stops when the smallest pile runs out,
    and the players spread their draws over the three piles, so about twice its size."""
    smallest = min(pile_sizes) if pile_sizes else 0
    return 0.0 if smallest == 0 else 2.0 * smallest - 1.0


def soft_flags(heights: list[int], sigma: float) -> tuple[list[float], list[float]]:
    """Each tower's expected ``(high, low)`` flag numbers under a height uncertainty ``sigma``."""
    high = [0.0] * NUM_TOWERS
    low = [0.0] * NUM_TOWERS
    if sigma <= 1e-6:
        for r, t in enumerate(flag_order(heights)[:4]):
            high[t], low[t] = FLAG_HIGH[r], FLAG_LOW[r]
        return high, low
    inv = 1.0 / sigma
    exp_rank = [0.0] * NUM_TOWERS
    for t in range(NUM_TOWERS - 1):  # each pair once: P(u above t) + P(t above u) = 1
        ht = heights[t]
        for u in range(t + 1, NUM_TOWERS):
            d = (heights[u] - ht - 0.5) * inv  # t is further left: it wins ties
            p = 1.0 / (1.0 + math.exp(-d)) if d > -30.0 else 0.0  # chance that u finishes above t
            exp_rank[t] += p
            exp_rank[u] += 1.0 - p
    for t in range(NUM_TOWERS):
        e = exp_rank[t]
        i = int(e)
        if i >= 4:
            continue
        f = e - i
        high[t] = FLAG_HIGH[i] + (FLAG_HIGH[i + 1] - FLAG_HIGH[i]) * f
        low[t] = FLAG_LOW[i] + (FLAG_LOW[i + 1] - FLAG_LOW[i]) * f
    return high, low


def final_reward(scores: list[int], seat: int) -> float:
    """1 for a sole win, ``1/j`` for a ``j``-way shared win, 0 otherwise (SPEC C4)."""
    best = max(scores)
    if scores[seat] != best:
        return 0.0
    return 1.0 / sum(1 for s in scores if s == best)


class Evaluator:
    """The evaluation of the module docstring for one seat, with the agent's weights."""

    def __init__(self, seat: int, num_players: int, spread: float, contest: float, chip_cost: float,
                 end_weight: float) -> None:
        self.seat = seat
        self.n = num_players
        self.spread = spread
        self.contest = contest
        self.chip_cost = chip_cost
        self.end_weight = end_weight

    def margin(self, pts: Sequence[float]) -> float:
        """Own points less the best rival's."""
        me = self.seat
        return pts[me] - max(v for p, v in enumerate(pts) if p != me)

    def tower_points(self, pts: list[float], ranked: list[tuple[int, int]], high: float, low: float,
                     left: float) -> None:
        """Add one tower's expected flag points to ``pts`` for its backers ``ranked`` (best first);
        ``left``: the share of the game still to play (a lead is safer near the end)."""
        if not ranked or high <= 0.0:
            return
        lead, stake1 = ranked[0]
        if len(ranked) == 1:
            # a lone backer takes the high number; the low one is open to anybody (worth a bet to them)
            pts[lead] += high
            return
        second, stake2 = ranked[1]
        p = 0.0
        if self.contest > 0.0 and left > 0.0:
            need = stake1 - stake2 + 1  # ties go to the earlier first chip: count one more to be safe
            p = min(0.45, self.contest * left * math.exp(-0.6 * need))
        pts[lead] += high - (high - low) * p
        pts[second] += low + (high - low) * p

    def soft_points(self, heights: list[int], bets: list, left_turns: float, left_share: float,
                    ranked: list | None = None) -> list[float]:
        """Expected points per seat (soft flags, contestable leads); ``ranked``: the towers'
        backers if already known."""
        high, low = soft_flags(heights, self.spread * math.sqrt(left_turns))
        pts = [0.0] * self.n
        for t in range(NUM_TOWERS):
            if bets[t]:
                self.tower_points(pts, ranked[t] if ranked is not None else backers(bets[t]), high[t], low[t],
                                  left_share)
        return pts

    def final_value(self, heights: list[int], bets: list) -> float:
        """The exact value of a finished game: margin plus ``end_weight`` per win share above a half."""
        scores = score_towers(heights, bets, self.n)
        return self.margin(scores) + self.end_weight * (2.0 * final_reward(scores, self.seat) - 1.0)


class HeuristicAgent(AgentBase):
    """The rule-based player of the module docstring.

    Args:
        seed: accepted for the shared interface; the agent is deterministic.
        spread: height uncertainty per square root of the turns left (soft flags).
        contest: scale of the chance that a stake lead is overtaken before the end.
        chip_cost: points a chip costs per value point while the whole game is still ahead.
        card_weight: share of a card's raise value counted for holding it.
        end_weight: points a win is worth on top of the margin when the game ends.
        danger: whether to check the next player's chance to end the game at once.
        name: the agent's display name.

    Attribute ``native`` (default True): decide in C++ where the native core is active; False: in Python.
    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`).
    """

    SETTING_RANGES = {"spread": WEIGHT, "contest": WEIGHT, "chip_cost": WEIGHT, "card_weight": WEIGHT,
                      "end_weight": WEIGHT}

    def __init__(self, seed: int | None = None, spread: float = 1.0, contest: float = 0.6,
                 chip_cost: float = 0.35, card_weight: float = 0.3, end_weight: float = 20.0,
                 danger: bool = True, name: str = "heuristic") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.spread = float(spread)
        self.contest = float(contest)
        self.chip_cost = float(chip_cost)
        self.card_weight = float(card_weight)
        self.end_weight = float(end_weight)
        self.danger = bool(danger)
        self.native = True

    # -- interface ----------------------------------------------------------------------

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Choose a legal action id (see the module docstring)."""
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        view: CampanileState = info["view"]
        seat = int(info["seat"])
        if self.native and (action := native.heuristic_action(view, seat, legal, self)) is not None:
            return action
        return int(choose(view, seat, legal, self))

    @classmethod
    def act_group(cls, agents: Sequence[Any], games: WaitingGames, rows: Sequence[int]) -> np.ndarray:
        """Every agent's :meth:`act` for its game in one compiled call per set of weights where the native core
        is active (:func:`.native.heuristic_group`: the same moves), else one game at a time."""
        chosen = native.heuristic_group(agents, games, rows)
        return chosen if chosen is not None else super().act_group(agents, games, rows)


def _bet_options(view: CampanileState, storeys: int, played_tower: int, seat: int) -> list[tuple[int, int]]:
    """``(value, tower)`` of every bet the engine allows after playing ``storeys`` onto
    ``played_tower`` (SPEC C3.2), ``(0, -1)`` standing for ``no bet``."""
    held = view.chips[seat]
    wanted = (storeys,) if view.bet_chip == "exact" else range(storeys, 4)
    values = [v for v in wanted if held[v - 1]]
    if view.variant == "played":
        towers: tuple[int, ...] = (played_tower,)
    else:
        towers = tuple(sorted({p[-1] for p in view.piles if p}))
    return [(0, -1)] + [(v, t) for t in towers for v in values]


def _turn_value(view: CampanileState, ev: Evaluator, heights: list[int], storeys: int, played_tower: int,
                options: list[tuple[int, int]], danger: bool,
                ranked: list[list[tuple[int, int]]], every: list | None = None) -> tuple[float, tuple[int, int]]:
    """The best ``(value, bet)`` of a turn whose play left ``heights``, over the bet ``options``;
    the draw from pile ``storeys`` follows (and may end the game). ``ranked``: each tower's
    backers now (:func:`~five_towers_env.games.campanile.rules.backers`, computed once per decision).
    ``every``, if given, receives ``(value, bet)`` of every option."""
    seat = ev.seat
    sizes = [len(p) for p in view.piles]
    sizes[storeys - 1] -= 1
    bets: list[tuple] = view.bets  # per tower, its (seat, chip value) bets
    if sizes[storeys - 1] == 0:  # C3.3: this draw ends the game: score every bet exactly
        best = (-math.inf, (0, -1))
        for v, t in options:
            nb = bets if v == 0 else bets[:t] + [bets[t] + ((seat, v),)] + bets[t + 1:]
            val = ev.final_value(heights, nb)
            if every is not None:
                every.append((val, (v, t)))
            if val > best[0]:
                best = (val, (v, t))
        return best
    left = turns_left(sizes)
    share = min(1.0, left / 25.0)  # the share of a game still to play (25: a fresh game's turns_left)
    flags = soft_flags(heights, ev.spread * math.sqrt(left))
    high, low = flags
    base = [0.0] * ev.n
    per_tower: list[list[float]] = []
    for t in range(NUM_TOWERS):
        pts = [0.0] * ev.n
        if ranked[t]:
            ev.tower_points(pts, ranked[t], high[t], low[t], share)
        per_tower.append(pts)
        for p in range(ev.n):
            base[p] += pts[p]
    threat = danger and 1 in sizes
    best = (-math.inf, (0, -1))
    for v, t in options:
        if v == 0:
            pts = base
            nb = bets
        else:
            nb = bets[:t] + [bets[t] + ((seat, v),)] + bets[t + 1:]
            tp = [0.0] * ev.n
            ev.tower_points(tp, backers(nb[t]), high[t], low[t], share)
            pts = [base[p] - per_tower[t][p] + tp[p] for p in range(ev.n)]
        val = ev.margin(pts) - ev.chip_cost * v * share
        if threat:
            val = _threat_value(view, ev, heights, nb, sizes, storeys, val)
        if every is not None:
            every.append((val, (v, t)))
        if val > best[0]:
            best = (val, (v, t))
    return best


def _threat_value(view: CampanileState, ev: Evaluator, heights: list[int], bets: list, sizes: list[int],
                  drawn_pile: int, soft: float) -> float:
    """The value after this turn when the next player may end the game at once (a pile holds one
    card): if they can end it with a win that is not ours, they are assumed to; else ``soft``."""
    seat, n = ev.seat, ev.n
    nxt = (view.current_player + 1) % n
    if nxt == seat:
        return soft
    best_for_them = -1.0
    mine_then = soft
    for scores in next_player_endings(view, seat, heights, bets, sizes, drawn_pile):
        theirs = final_reward(scores, nxt)
        if theirs > best_for_them:
            best_for_them = theirs
            mine_then = ev.margin(scores) + ev.end_weight * (2.0 * final_reward(scores, seat) - 1.0)
    if best_for_them >= 1.0 / n - 1e-9 and best_for_them > 0.0:
        # ending pays them at least a fair share: expect it, but never value it above our own soft value
        return min(soft, mine_then)
    return soft


def _card_values(view: CampanileState, ev: Evaluator, styles: set[int]) -> dict[int, float]:
    """What raising each tower in ``styles`` by two storeys would gain now (the worth of a card)."""
    sizes = [len(p) for p in view.piles]
    left = turns_left(sizes)
    share = min(1.0, left / 25.0)
    heights = view.heights
    ranked = [backers(b) if b else [] for b in view.bets]
    base = ev.margin(ev.soft_points(heights, view.bets, left, share, ranked))
    out: dict[int, float] = {}
    for c in styles:
        if not ranked[c]:
            out[c] = 0.0  # nobody backs it: raising it only pushes other towers down
            continue
        h2 = list(heights)
        h2[c] += 2
        out[c] = max(0.0, ev.margin(ev.soft_points(h2, view.bets, left, share, ranked)) - base)
    return out


def scored_actions(view: CampanileState, seat: int, legal: list[int], agent: HeuristicAgent) -> list[tuple[float, int]]:
    """``(value, action)`` of every action in ``legal`` for ``seat`` in ``view`` (higher is better)."""
    ev = Evaluator(seat, view.num_players, agent.spread, agent.contest, agent.chip_cost, agent.end_weight)
    ranked = [backers(b) if b else [] for b in view.bets]
    out: list[tuple[float, int]] = []
    if view.phase == _BET:
        k, t0 = view.played_storeys, view.played_tower
        for a in legal:
            if a == A.NO_BET:
                option = (0, -1)
            else:
                t, v = divmod(a - A.BET, 3)
                option = (v + 1, t)
            val, _ = _turn_value(view, ev, view.heights, k, t0, [option], agent.danger, ranked)
            out.append((val, a))
        return out
    # play phase: every play, its best bet, the card drawn and the card given up
    hand = view.hands[seat]
    face = view.face_up()
    cards = _card_values(view, ev, set(hand) | {c for c in face if c >= 0}) if agent.card_weight else {}
    for a in legal:
        t, k = divmod(a - A.PLAY, 3)
        k += 1
        heights = list(view.heights)
        heights[t] += k
        options = _bet_options(view, k, t, seat)
        val, _ = _turn_value(view, ev, heights, k, t, options, agent.danger, ranked)
        if cards:
            val += agent.card_weight * (cards.get(face[k - 1], 0.0) - cards.get(t, 0.0))
        out.append((val, a))
    return out


def scored_turns(view: CampanileState, seat: int, agent: HeuristicAgent) -> list[tuple[float, int, int]]:
    """``(value, play, bet)`` of every whole turn (a legal play and a bet the engine allows after it)
    in a play-phase ``view``, as :func:`scored_actions` values them."""
    ev = Evaluator(seat, view.num_players, agent.spread, agent.contest, agent.chip_cost, agent.end_weight)
    ranked = [backers(b) if b else [] for b in view.bets]
    face = view.face_up()
    cards = _card_values(view, ev, set(view.hands[seat]) | {c for c in face if c >= 0}) if agent.card_weight else {}
    out: list[tuple[float, int, int]] = []
    for a in view.legal_actions():
        t, k = divmod(a - A.PLAY, 3)
        k += 1
        heights = list(view.heights)
        heights[t] += k
        every: list = []
        _turn_value(view, ev, heights, k, t, _bet_options(view, k, t, seat), agent.danger, ranked, every)
        extra = agent.card_weight * (cards.get(face[k - 1], 0.0) - cards.get(t, 0.0)) if cards else 0.0
        for val, (v, bt) in every:
            out.append((val + extra, a, A.NO_BET if v == 0 else A.bet_action(v, bt)))
    return out


def choose(view: CampanileState, seat: int, legal: list[int], agent: HeuristicAgent) -> int:
    """The heuristic's choice among ``legal`` in ``view`` for ``seat``: the best value, the lowest id on ties."""
    best_a, best_v = legal[0], -math.inf
    for val, a in scored_actions(view, seat, legal, agent):
        if val > best_v + 1e-9:
            best_a, best_v = a, val
    return best_a


__all__ = ["HeuristicAgent", "Evaluator", "soft_flags", "turns_left", "final_reward", "choose", "scored_actions",
           "scored_turns"]
