"""Determinised flat Monte Carlo search for Campanile.

**Candidates.** A Campanile turn is a play and then a bet, and a play is only as good as the bet
it allows (C3.2: the chip value and, in variant ``played``, the tower depend on it). So in the
play phase the search compares whole turns, ``(play, bet)`` pairs, and remembers the bet it chose
for the bet phase that follows; in the bet phase (reached without a plan) it compares bets. The
heuristic (:func:`~.heuristic.scored_turns`) ranks the candidates first and only the best
``candidates`` are searched; the heuristic's own choice is always among them. Far from the end
(the smallest pile holds more than ``search_from`` cards) there is no search at all: the agent
plays the heuristic's best turn, because there the rollouts judged no better than the heuristic's
evaluation, while near the end (who takes a pile's last card, and when) they are sharp.

**Samples.** For every determinisation (one sample of the cards hidden from the agent, drawn with
the agent's own generator from the PUBLIC view: ``view.determinize(seat, rng)``) every surviving
candidate is played and followed by the same rollout randomness (common random numbers), so the
candidates are compared on equal deals and equal luck. They race by successive halving: the budget
is split into rounds and after each round the worse half is dropped. The sampling and the race
are the game-neutral :func:`five_towers_env.core.search.flat_search`; this game's hooks
(determinisation, rollout, evaluation) are in :mod:`.search_hooks`.

**Rollouts** go on through the engine's ``clone`` / ``apply_action`` only, with a fast default
policy (:func:`rollout_action`: a random card and storeys, but the last card of a pile is taken
only when that wins at once, as any sensible player would; a chip, now and then, where it takes
the lead or second place under a tower that holds a flag now), to the end of the game by default
(``rollout_turns`` cuts them short). The end-game rule matters: rollouts that end the game at
random misjudge every position near the end and made the search no better than the heuristic.

**Reward**: at the end, 1 for a sole win, ``1/j`` for a ``j``-way shared win and 0 otherwise, plus
``margin_weight`` times the score margin over 20; a rollout cut short is scored by the heuristic's
evaluation (:class:`~.heuristic.Evaluator`), a logistic of its soft score margin.

**Native**: where the native core is active the whole decision after a planned bet (the ranking, the
determinisations, the rollouts, the rewards and the halving) runs in C++ (:func:`.native.mcts_search`,
``native/mcts.cpp`` and ``native/search_hooks.cpp``, the GIL released): the same candidates, draws and
rewards in the same floating-point order, so the same move, ``last_values`` and generator as this Python
code, which stays the reference (``FIVE_TOWERS_ENGINE=python``, or ``native`` set to False).

Same seed and same observations give the same moves: all randomness comes from the agent's generator.
Whatever ``simulations`` says, the decision's deadline (:mod:`five_towers_env.core.deadline`,
``--move-timeout``) stops the search, native or Python, between two rollouts: the best move so far is answered.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.agent import legal_actions
from five_towers_env.core.deadline import current_deadline
from five_towers_env.core.search import Budget, Halving, flat_search
from five_towers_env.core.setting_ranges import PROBABILITY, WEIGHT, Range
from five_towers_env.games.campanile.agents import native
from five_towers_env.games.campanile.agents.heuristic import Evaluator, HeuristicAgent, scored_actions, scored_turns
from five_towers_env.games.campanile.agents.search_hooks import CampanileSearch, rollout_action
from five_towers_env.games.campanile.state import CampanileState, Phase

_BET = int(Phase.BET)

#: the most rollouts one decision may take: 500,000 took 5 to 8 s on the native core in the slowest setups
#: measured (2 and 5 players, both variants, searching from the first turn, every candidate, rollouts to the
#: end, on a loaded 2-core machine); the Python search is about 140 times slower (``--move-timeout``)
MAX_SIMULATIONS = 500_000
#: ``rollout_turns`` and ``search_from`` past this are more than a game has (a pile holds 13 to 18 cards)
MAX_TURNS = 100


class MCTSAgent:
    """Flat Monte Carlo over determinisations of the public view (see the module docstring).

    Args:
        seed: seed of the agent's generator (determinisations and rollouts).
        simulations: rollouts per decision, over all candidates (a bet planned with the play
            costs nothing more).
        candidates: how many of the heuristic's best turns (or bets) are searched (0: all).
        rollout_turns: turns a rollout plays after the candidate before the static evaluation
            (``None``: to the end of the game).
        bet_rate: how often the rollout policy considers a bet when it may.
        lead_rate: how often the rollout policy raises a tower the mover leads (when it can).
        temperature: points of soft margin per unit of the logistic that scores a cut-off rollout.
        margin_weight: weight of the final score margin (over 20) added to the win share.
        prior: weight of the heuristic's value (points over 20) added to a candidate's mean reward,
            which steadies the choice between candidates the samples cannot tell apart.
        spread: the evaluation's weight of the same name (see :class:`~.heuristic.HeuristicAgent`).
        contest: the evaluation's weight of the same name (see :class:`~.heuristic.HeuristicAgent`).
        chip_cost: the evaluation's weight of the same name (see :class:`~.heuristic.HeuristicAgent`).
        search_from: search only once the smallest pile holds at most this many cards (the last
            dozen turns or so); before, play the heuristic's best turn. Searching from the start
            measured no stronger against the heuristic (its rollouts are too rough to beat the
            heuristic's evaluation there) and costs several times the time.
        name: the agent's display name.

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`; the agent
    registry checks them).
    """

    SETTING_RANGES = {
        "simulations": Range(1, MAX_SIMULATIONS),
        "candidates": Range(0, 1_000),  # 0: all (a turn has far fewer)
        "rollout_turns": Range(0, MAX_TURNS), "bet_rate": PROBABILITY, "lead_rate": PROBABILITY,
        "temperature": Range(0, 1_000, low_open=True),  # the logistic divides by it
        "margin_weight": WEIGHT, "prior": WEIGHT, "spread": WEIGHT, "contest": WEIGHT, "chip_cost": WEIGHT,
        "search_from": Range(0, MAX_TURNS),
    }

    def __init__(self, seed: int | None = None, simulations: int = 400, candidates: int = 3,
                 rollout_turns: int | None = None, bet_rate: float = 0.5, lead_rate: float = 0.0,
                 temperature: float = 4.0, margin_weight: float = 0.1, prior: float = 0.0, spread: float = 1.0,
                 contest: float = 0.6, chip_cost: float = 0.35, search_from: int = 5,
                 name: str = "mcts") -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.simulations = int(simulations)
        self.candidates = int(candidates)
        self.rollout_turns = rollout_turns
        self.bet_rate = float(bet_rate)
        self.lead_rate = float(lead_rate)
        self.temperature = float(temperature)
        self.margin_weight = float(margin_weight)
        self.prior = float(prior)
        self.search_from = int(search_from)
        self.heuristic = HeuristicAgent(spread=spread, contest=contest, chip_cost=chip_cost)
        self.evaluator_weights = (float(spread), float(contest), float(chip_cost))
        self._plan: tuple[tuple, int] | None = None  # (bet-phase key, bet) chosen with the play
        self.last_values: dict[tuple[int, ...], float] = {}  # mean reward per candidate of the last search
        self.native = True  # decide in C++ where the native core is active (False: always in Python)

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search from ``info["view"]`` (never the true state) and return a legal action id."""
        legal = legal_actions(observation, info)
        self.last_values = {}
        if len(legal) == 1:
            return int(legal[0])
        view: CampanileState = info["view"]
        seat = int(info["seat"])
        if view.phase == _BET:
            plan, self._plan = self._plan, None
            if plan is not None and plan[0] == _bet_key(view) and plan[1] in legal:
                return int(plan[1])
        best = native.mcts_search(self, view, seat, legal) if self.native else None  # (sets last_values)
        if best is None:  # the Python reference
            best = self._decide(view, seat, legal)
        if len(best) == 2:  # remember the bet for the bet phase of this very turn
            after = view.clone()
            after.apply_action(best[0])
            self._plan = (_bet_key(after), best[1])
        return int(best[0])

    def _decide(self, view: CampanileState, seat: int, legal: list[int]) -> tuple[int, ...]:
        """The move of :meth:`act` after the planned bet, in Python: the heuristic's best candidates, searched."""
        moves: list[tuple[int, ...]]
        values: dict[tuple[int, ...], float]
        if view.phase == _BET:
            ranked = sorted(scored_actions(view, seat, [int(a) for a in legal], self.heuristic),
                            key=lambda va: (-va[0], va[1]))
            moves = [(a,) for _, a in ranked]
            values = {(a,): v for v, a in ranked}
        else:
            turns = sorted(scored_turns(view, seat, self.heuristic), key=lambda v: (-v[0], v[1], v[2]))
            moves = [(p, b) for _, p, b in turns if p in legal]
            values = {(p, b): v for v, p, b in turns}
        if 0 < self.candidates < len(moves):
            moves = moves[:self.candidates]
        if min(len(p) for p in view.piles) > self.search_from:  # far from the end: the heuristic's choice
            moves = moves[:1]
        return moves[0] if len(moves) == 1 else self.search(view, seat, moves, values)

    def search(self, view: CampanileState, seat: int, moves: list[tuple[int, ...]],
               values: dict[tuple[int, ...], float] | None = None) -> tuple[int, ...]:
        """Successive halving over ``moves`` (action sequences) with common determinisations;
        ``values``: the heuristic's value of each move, for the ``prior``."""
        spread, contest, chip_cost = self.evaluator_weights
        ev = Evaluator(seat, view.num_players, spread, contest, chip_cost, 0.0)
        hooks = CampanileSearch(view, seat, self.rng, ev, self.rollout_turns, self.bet_rate, self.lead_rate,
                                self.temperature, self.margin_weight)
        top = max(values[m] for m in moves) if values else 0.0
        prior = [self.prior * (values[m] - top) / 20.0 if values else 0.0 for m in moves]
        budget = Budget(self.simulations, deadline=current_deadline())
        result = flat_search(hooks, moves, budget, Halving(), prior=prior)
        self.last_values = {m: mean for m, mean in zip(moves, result.means, strict=True) if mean is not None}
        return result.choice(moves)  # equal scores: the first in the heuristic's order


def _bet_key(state: CampanileState) -> tuple:
    """What identifies a bet-phase position for a planned bet: the turn, the seat, the play and the table."""
    return (state.turns, state.current_player, state.played_tower, state.played_storeys, tuple(state.heights),
            tuple(state.bets), tuple(state.chips))


__all__ = ["MCTSAgent", "rollout_action"]
