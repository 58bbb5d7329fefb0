"""OpenSpiel's search bots as agents of our evaluation: ``openspiel-mcts`` and ``openspiel-ismcts``.

Each decision, the agent builds the OpenSpiel state at its public view of the game (``info["view"]``:
the position with what the seat cannot see dealt again by a fixed rule, see
:mod:`five_towers_env.core.agent`), and calls the bot the ordinary way, ``bot.step(state)``. So the
bots search from what the seat knows: 5 Towers' next displays are chance nodes there, and
Campanile's hidden cards are drawn again by ``resample_from_infostate`` in every simulation.

* :class:`MCTSAgent`: OpenSpiel's ``MCTSBot`` with its random-rollout evaluator (games with perfect
  information: 5 Towers).
* :class:`ISMCTSAgent`: OpenSpiel's ``ISMCTSBot`` with its random-rollout evaluator (games with hidden
  information: Campanile).

A forced move (one legal action) is played without a search. Same seed, same games: every random
number comes from the agent's own generators. Under a decision deadline (:mod:`five_towers_env.core.deadline`,
``--move-timeout``) the bot's evaluator stops the search once it has passed: OpenSpiel's bots cannot answer a
move early, so the decision raises :class:`~five_towers_env.core.deadline.DeadlinePassed` (a timed-out move).
Importing this module needs no ``open_spiel``; building an agent does (the ``openspiel`` extra).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from five_towers_env.core.agent import AgentBase, legal_actions
from five_towers_env.core.deadline import DeadlinePassed, current_deadline, passed
from five_towers_env.core.game import get_game
from five_towers_env.core.setting_ranges import Range

#: the bound on ``uct_c``, the UCT exploration constant (0: no exploration)
UCT_C = Range(0, 100)
#: the fewest ``simulations``: OpenSpiel's bots need two (the first only expands the root; a search of one fails
#: at its first move)
MIN_SIMULATIONS = 2


def _openspiel() -> Any:
    """The adapter package (registers the games); a clear error without open_spiel."""
    from five_towers_env.integrations import openspiel

    return openspiel


class _StopAtDeadline:
    """An OpenSpiel evaluator that raises :class:`DeadlinePassed` once ``deadline`` has passed: the bots call their
    evaluator at every simulation's leaf (``evaluate``) and new node (``prior``), so the search stops there."""

    def __init__(self, evaluator: Any, deadline: float) -> None:
        self.evaluator, self.deadline = evaluator, deadline

    def _check(self) -> None:
        if passed(self.deadline):
            raise DeadlinePassed("the search reached the decision's deadline")

    def evaluate(self, state: Any) -> Any:
        self._check()
        return self.evaluator.evaluate(state)

    def prior(self, state: Any) -> Any:
        self._check()
        return self.evaluator.prior(state)


def _evaluator(rollouts: int, rng: np.random.RandomState) -> Any:
    """OpenSpiel's random-rollout evaluator, stopping at this thread's decision deadline if there is one."""
    from open_spiel.python.algorithms import mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng)
    deadline = current_deadline()
    return evaluator if deadline is None else _StopAtDeadline(evaluator, deadline)


class _BotAgent(AgentBase):
    """The game per setup and the state at the agent's view; subclasses make the bot."""

    pool_opponent = False  # OpenSpiel's code plays it

    def __init__(self, seed: int | None, name: str) -> None:
        self.name = name
        self._openspiel = _openspiel()
        self.rng = np.random.RandomState(np.random.SeedSequence(seed).generate_state(1)[0])
        self._games: dict[tuple, Any] = {}

    def _state(self, info: dict[str, Any]) -> Any:
        """The OpenSpiel state at ``info["view"]``, in the game of that setup."""
        view = info["view"]
        core = get_game(info["game"]).chance_state().from_engine(view)
        key = (info["game"], core.num_players, core.variant, tuple(sorted(core.settings.items())))
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = self._openspiel.load_game(info["game"], core.num_players, core.variant,
                                                                **core.settings)
        return game.state_from_core(core)

    def _bot(self, game: Any) -> Any:
        raise NotImplementedError

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The bot's move at the agent's view (the only legal one without a search)."""
        legal = legal_actions(observation, info)
        if len(legal) == 1:
            return int(legal[0])
        state = self._state(info)
        action = int(self._bot(state.get_game()).step(state))
        if action not in legal:
            raise RuntimeError(f"{self.name} chose {action}, not among the legal actions {legal}")
        return action


class MCTSAgent(_BotAgent):
    """OpenSpiel's ``MCTSBot`` with a random-rollout evaluator (games with perfect information).

    Args:
        seed: seeds the search and the rollouts.
        simulations: MCTS simulations per decision (``max_simulations``).
        rollouts: random rollouts per evaluated leaf (``n_rollouts``).
        uct_c: the UCT exploration constant.
        solve: back up proven values (OpenSpiel's ``solve``).
        name: the agent's display name.

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`). Every simulation
    plays ``rollouts`` rollouts in Python: 100 simulations of one rollout took about 2.5 s per decision in a
    2-player 5 Towers game and 4.7 s with 5 players (on a loaded 2-core machine), so their product is at
    most 200.
    """

    SETTING_RANGES = {"simulations": Range(MIN_SIMULATIONS, 200), "rollouts": Range(1, 100),
                      "simulations*rollouts": Range(MIN_SIMULATIONS, 200), "uct_c": UCT_C}

    def __init__(self, seed: int | None = None, simulations: int = 100, rollouts: int = 1, uct_c: float = 2.0,
                 solve: bool = True, name: str = "openspiel-mcts") -> None:
        if simulations < MIN_SIMULATIONS or rollouts < 1:
            raise ValueError("simulations must be at least 2 and rollouts at least 1")
        super().__init__(seed, name)
        self.simulations, self.rollouts, self.uct_c, self.solve = simulations, rollouts, uct_c, solve

    def _bot(self, game: Any) -> Any:
        from open_spiel.python.algorithms import mcts

        if game.get_type().information != game.get_type().information.PERFECT_INFORMATION:
            raise ValueError(f"{self.name}: MCTSBot would see hidden cards in {game}; use openspiel-ismcts")
        evaluator = _evaluator(self.rollouts, self.rng)
        return mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator, solve=self.solve, random_state=self.rng)


class ISMCTSAgent(_BotAgent):
    """OpenSpiel's ``ISMCTSBot`` with a random-rollout evaluator (games with hidden information).

    Args:
        seed: seeds the search, the rollouts and the resampling of hidden cards.
        simulations: simulations per decision (``max_simulations``), each in a fresh draw of the hidden cards.
        rollouts: random rollouts per evaluated leaf (``n_rollouts``).
        uct_c: the UCT exploration constant.
        worlds: draws of the hidden cards to reuse (``max_world_samples``; -1: a new one per simulation).
        name: the agent's display name.

    ``SETTING_RANGES``: what each setting may be (:mod:`five_towers_env.core.setting_ranges`). Every simulation
    plays ``rollouts`` rollouts in Python: 200 simulations of one rollout took about 0.9 s per decision in a
    2-player Campanile game and 2,000 took 31 s with 5 players (on a loaded 2-core machine), so their product
    is at most 600.
    """

    SETTING_RANGES = {"simulations": Range(MIN_SIMULATIONS, 600), "rollouts": Range(1, 300),
                      "simulations*rollouts": Range(MIN_SIMULATIONS, 600), "uct_c": UCT_C,
                      "worlds": Range(1, 10_000, also={-1: "a new draw per simulation"})}

    def __init__(self, seed: int | None = None, simulations: int = 200, rollouts: int = 1, uct_c: float = 2.0,
                 worlds: int = -1, name: str = "openspiel-ismcts") -> None:
        if simulations < MIN_SIMULATIONS or rollouts < 1:
            raise ValueError("simulations must be at least 2 and rollouts at least 1")
        super().__init__(seed, name)
        self.simulations, self.rollouts, self.uct_c, self.worlds = simulations, rollouts, uct_c, worlds
        import pyspiel

        self._sampler = pyspiel.UniformProbabilitySampler(int(self.rng.randint(2**31)), 0.0, 1.0)

    def _bot(self, game: Any) -> Any:
        from open_spiel.python.algorithms import ismcts

        evaluator = _evaluator(self.rollouts, self.rng)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations, max_world_samples=self.worlds,
                               random_state=self.rng)
        # OpenSpiel's default resampler draws with an unseeded sampler: ours makes the games repeatable
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, self._sampler))
        return bot


__all__ = ["MCTSAgent", "ISMCTSAgent"]
