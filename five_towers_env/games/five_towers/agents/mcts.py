"""Monte Carlo search for 5 Towers over determinisations of the hidden deck order (``"mcts"``).

Hidden information
------------------
The only hidden information is the *order* of the draw deck, hidden from every player alike
(SPEC §6): all players' information sets are the same public state, and everything within a
round is public and deterministic. The agent searches from ``info["view"]`` (deck redacted to the
sorted multiset of unseen cards) and **determinises** it: the unseen cards are shuffled into a
random order with the agent's own seeded generator, and the reshuffle when the deck first runs
out uses the agent's generator too (never the view's, which is unrelated to the game's).

Search: the game-neutral determinised flat Monte Carlo search
---------------------------------------------------------------
:func:`five_towers_env.core.search.flat_search` with this game's hooks
(:mod:`.search_hooks`):

1. Candidates: the legal actions, each followed by the fast rule-based default policy
   (:func:`~.rollout.rollout_action`) to the end of the current round, played once on the engine
   (that part is public and deterministic); actions ending the round in the same position are
   merged. A single distinct outcome is answered at once. With a ``policy`` (the ``guided`` agent's
   rollout search) the legal actions are tried in the order of its probabilities until ``top_k``
   distinct round ends are found, each candidate with a log-probability prior.
2. Every determinisation (a shuffle of the unseen cards and a generator for the reshuffle) is
   shared by all candidates -- common random numbers -- and each candidate's round-end position is
   rolled out for ``rollout_rounds`` more whole rounds with the default policy
   (:func:`~.rollout.play_rounds`) through the engine itself, then scored: exactly at game end,
   else by the static evaluation (:func:`~.rollout.evaluate`: score plus fitted expected further
   score of the towers).
3. Per-player reward in [0, 1]: win probability mixed with a score-margin term
   (:class:`~.search_hooks.Scoring`). A race (successive elimination) drops a candidate once its
   paired difference to the best is clearly negative; the best mean wins.

Why no tree: measured on 2-player base games against the rule-based ``HeuristicAgent`` (200
games each), the flat search won 81% at 600 rollouts per decision; a single-observer IS-MCTS tree
(UCB1 over the public states of the round, chance nodes keyed by the revealed display) scored
only 47-62% at equal or higher cost: its averages mix the values of poorly explored own
sub-decisions into each bid, and without common random numbers the card luck of the next rounds
swamps the differences between actions.

Native: where the native core is active the whole search runs in C++ (:func:`.native.mcts_search`,
``native/search.cpp``, the GIL released): the same candidates, determinisations, rollouts and rewards in the
same floating-point order, so the same move, ``last_values`` and generator as this Python code, which stays the
reference (``FIVE_TOWERS_ENGINE=python``, or ``native`` set to False). Under ``time_limit`` the native search
fits many more rollouts into the same seconds.

Budget: ``simulations`` rollouts per decision (default 400), or ``time_limit`` seconds (then
as many as fit, at least ``min_simulations``; timing makes play non-deterministic). A decision
with a single legal action is answered at once. Same seed, same settings, same observations:
same moves (without ``time_limit``). Whatever the budget, the decision's deadline
(:mod:`five_towers_env.core.deadline`, ``--move-timeout``) stops the search, native or Python, between two
rollouts: the best move so far is answered.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.core.deadline import current_deadline
from five_towers_env.core.search import ActionPrior, Budget, Race, flat_search
from five_towers_env.core.setting_ranges import PROBABILITY, WEIGHT, Range
from five_towers_env.games.five_towers.agents import native
from five_towers_env.games.five_towers.agents.plans import POT, chain, choose_bid, game_left, make_plan
from five_towers_env.games.five_towers.agents.rollout import evaluate, fast_rollout, play_rounds, rollout_action
from five_towers_env.games.five_towers.agents.search_hooks import FiveTowersSearch, Scoring, round_ends, tree_actions
from five_towers_env.games.five_towers.state import GameState

#: the most rollouts one decision may take: 50,000 took about 4 s (base) and 9 s (Great Powers) on the native core
#: in the slowest setups measured (5 players, ``rollout_rounds=None``, ``race_z=None``, early in the game, on a
#: loaded 2-core machine); the Python search is about 70 times slower (``time_limit``, ``--move-timeout``)
MAX_SIMULATIONS = 50_000
#: the longest ``time_limit``, in seconds
MAX_TIME_LIMIT = 60.0
#: the most ``rollout_rounds``: more than a game has (about 35), so the same as None
MAX_ROLLOUT_ROUNDS = 100


class MCTSAgent:
    """Monte Carlo search over determinisations of the deck order (see the module docstring).

    Args:
        seed: seed of the agent's generator (determinisations).
        simulations: rollouts per decision (ignored when ``time_limit`` is set).
        time_limit: seconds per decision; ``None`` to count rollouts instead.
        rollout_rounds: whole rounds the default policy plays after the current round before the
            static evaluation (``None``: to the end of the game).
        beta: weight of tower potential in the default policy's plans.
        eval_weight: scale of the expected further score in the static evaluation.
        temperature: VP scale of the soft-max that turns evaluations into win probabilities
            at the end of the game (it grows with the game left).
        margin_weight: share of the reward given by the score margin rather than win/loss.
        race_z: a candidate is dropped once its paired mean difference to the best is more than
            ``race_z`` standard errors below zero (``None``: never).
        min_samples: determinisations every candidate gets before the race may drop it.
        min_simulations: at least this many rollouts under ``time_limit``.
        policy: a network's say (:class:`~five_towers_env.core.search.ActionPrior`, from its
            ``probabilities(observation)``): only its ``top_k`` most likely candidates are searched, each
            with its log-probability prior (the ``guided`` agent's rollout search); None: every candidate.

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`; the agent
    registry checks them).
    """

    SETTING_RANGES = {
        "simulations": Range(1, MAX_SIMULATIONS), "time_limit": Range(0, MAX_TIME_LIMIT, low_open=True),
        "rollout_rounds": Range(0, MAX_ROLLOUT_ROUNDS), "beta": WEIGHT,
        "eval_weight": Range(0, 100),  # at 1,000 the margins overflow the Python search's logistic
        "temperature": Range(0, 1_000, low_open=True),  # the soft-max divides by it
        "margin_weight": PROBABILITY,  # a share of the reward
        "race_z": Range(0, 100), "min_samples": Range(1, MAX_SIMULATIONS),
        "min_simulations": Range(0, MAX_SIMULATIONS),  # 0: no minimum under time_limit
    }

    def __init__(self, seed: int | None = None, simulations: int = 400, time_limit: float | None = None,
                 rollout_rounds: int | None = 5, beta: float = 0.45, eval_weight: float = 1.0,
                 temperature: float = 3.0, margin_weight: float = 0.2, race_z: float | None = 2.0,
                 min_samples: int = 8, min_simulations: int = 8, policy: ActionPrior | None = None,
                 name: str = "mcts") -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations!r}")
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.simulations = int(simulations)
        self.time_limit = time_limit
        self.rollout_rounds = rollout_rounds
        self.beta = float(beta)
        self.scoring = Scoring(float(eval_weight), float(temperature), float(margin_weight))
        self.race = Race(race_z, max(1, int(min_samples)))
        self.min_simulations = int(min_simulations)
        self.policy = policy
        self.last_simulations = 0  # rollouts run for the last decision (for tools and tests)
        self.last_values: dict[int, float] = {}  # mean reward per candidate action of the last search
        self.native = True  # search in C++ where the native core is active (False: always in Python)

    def act(self, observation: dict[str, np.ndarray] | None, info: dict[str, Any]) -> int:
        """Search from ``info["view"]`` and return the chosen legal action id."""
        view: GameState = info["view"]
        legal = list(info.get("legal_actions") or view.legal_actions())
        self.last_simulations = 0
        self.last_values = {}
        if len(legal) == 1:
            return int(legal[0])
        probs = self.policy.probabilities(observation) if self.policy is not None else None
        action = self.search(view, probs)
        if action not in legal:  # pragma: no cover - the view's legal actions are the game's
            raise RuntimeError(f"search chose {action}, not among the legal actions {legal}")
        return int(action)

    def search(self, view: GameState, probs: Sequence[float] | None = None) -> int:
        """Search from a public view (its deck order is never used) and return an action id; ``probs``:
        the ``policy``'s action probabilities, if any."""
        if self.native and (action := native.mcts_search(self, view, probs)) is not None:
            return action
        budget = Budget(self.simulations, self.time_limit, self.min_simulations, time.perf_counter(),
                        deadline=current_deadline())
        prior: list[float] | None = None
        if self.policy is not None and probs is not None:
            # the policy's likeliest actions first, until top_k distinct round ends: the others are never played
            likeliest = sorted(view.legal_actions(), key=lambda a: -probs[a])
            ends, members = round_ends(view, self.rng, self.beta, likeliest, self.policy.top_k)
            prior = self.policy.candidates(members, probs)[1]
        else:
            ends, members = round_ends(view, self.rng, self.beta)
        # drawn even when there is nothing to search, so that later decisions see the same generator
        base = int(self.rng.integers(1 << 62))
        hooks = FiveTowersSearch(ends, view.current_player, base, self.beta, self.rollout_rounds, self.scoring)
        result = flat_search(hooks, list(range(len(ends))), budget, self.race, exact=hooks.exact(), prior=prior)
        self.last_simulations = result.simulations
        self.last_values = {a: (0.0 if mean is None else mean) for j, mean in enumerate(result.means)
                            for a in members[j]}
        return members[result.best][0]


__all__ = ["MCTSAgent", "rollout_action", "fast_rollout", "play_rounds", "make_plan", "choose_bid", "chain",
           "evaluate", "game_left", "tree_actions", "POT"]
