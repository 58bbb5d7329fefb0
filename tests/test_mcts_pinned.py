"""Both games' ``mcts`` agents play exactly the moves they played before the shared search (issue 27).

The expected values were recorded with the code before :mod:`five_towers_env.core.search` existed
(commit 26eefa2, each game with its own search): seeded games of ``mcts`` against the heuristic, the
moves ``mcts`` chose, the rollouts it ran (5 Towers) and the sum of the mean rewards it reported
(``last_values``) over the game. Any change to the search, its hooks or the default policies shows
here; change these values only for a change of play that was measured (see docs/experiments.md).
"""
from __future__ import annotations

import pytest

from five_towers_env.agents.registry import make_agent
from five_towers_env.play import play_game


class Recorder:
    """Wraps an agent and keeps its moves, its rollouts and its reported candidate values."""

    def __init__(self, agent) -> None:
        self.agent, self.name = agent, agent.name
        self.moves: list[int] = []
        self.rollouts = 0
        self.value_sum = 0.0

    def act(self, observation, info):
        action = int(self.agent.act(observation, info))
        self.moves.append(action)
        self.rollouts += getattr(self.agent, "last_simulations", 0)
        self.value_sum += sum(self.agent.last_values.values())
        return action


#: (game, variant, players, deal seed = mcts seed, mcts seat, settings) -> (moves, rollouts, value sum)
PINNED = {
    ("five_towers", "base", 2, 1, 0, (("simulations", 40),)): (
        [3, 2, 2, 3, 0, 1, 0, 4, 50, 57, 84, 89, 144, 137, 4, 36, 52, 88, 123, 139, 175, 2, 51, 95, 113, 138, 5, 46,
         49, 66, 72, 113, 136, 133, 159, 153, 26, 3, 65, 42, 83, 129, 152, 26, 3, 43, 62, 90, 113, 130, 149, 3, 41,
         61, 113, 128, 148, 2, 59, 79, 113, 146, 2, 27, 40, 113, 26], 1432, 104.279923),
    ("five_towers", "great_powers", 2, 3, 0, (("simulations", 40),)): (
        [1, 0, 4, 5, 54, 56, 67, 72, 143, 154, 141, 159, 26, 4, 42, 51, 93, 100, 113, 129, 138, 203, 26, 2, 39, 105,
         113, 126, 208, 4, 52, 57, 71, 85, 108, 144, 139, 158, 222, 26, 4, 30, 79, 38, 83, 109, 125, 117, 235, 3, 55,
         78, 103, 142, 165, 235, 5, 29, 113, 116, 3, 27, 61, 50, 114, 137, 4, 67, 69, 73, 156, 26, 4, 48, 62, 68, 113,
         135, 149, 155, 4, 75, 107, 113, 306, 4, 47, 71, 94, 66, 113, 134, 158, 153, 6, 43, 44, 113], 2241, 224.051019),
    ("five_towers", "great_powers", 3, 5, 1, (("simulations", 24), ("race_z", None), ("rollout_rounds", None))): (
        [3, 5, 26, 3, 5, 41, 46, 52, 83, 128, 133, 139, 170, 3, 104, 34, 63, 112, 121, 150, 26, 4, 4, 5, 48, 49, 62,
         66, 136, 135, 6, 39, 44, 76, 84, 171, 246, 126, 131, 217, 3, 82, 259, 277, 26, 4, 43, 60, 64, 113, 147, 130,
         26, 4, 259, 2, 69, 71, 113], 823, 29.89771),
    ("campanile", "pile", 2, 1, 0, ()): (
        [11, 27, 7, 23, 13, 29, 10, 23, 14, 15, 0, 19, 3, 28, 12, 16, 0, 19, 6, 15, 3, 16, 10, 15, 11, 15, 2, 15, 14,
         15, 7, 15, 0, 15], 0, 6.733214),
    ("campanile", "pile", 2, 4, 0, (("simulations", 40), ("search_from", 99))): (
        [6, 22, 8, 24, 9, 23, 12, 23, 3, 23, 0, 28, 12, 16, 12, 16, 14, 15, 12, 25], 0, 24.332353),
    ("campanile", "played", 2, 5, 1, (("simulations", 30), ("search_from", 99), ("candidates", 0),
                                      ("rollout_turns", 6), ("prior", 0.5), ("lead_rate", 0.3))): (
        [6, 22, 12, 29, 5, 21, 12, 29, 8, 15, 13, 29, 5, 15, 0, 16, 5, 15, 14, 15, 7, 15, 12, 15], 0, 65.646831),
}


@pytest.mark.parametrize("setup", list(PINNED), ids=lambda s: f"{s[0]}-{s[1]}-{s[2]}p-seed{s[3]}")
def test_mcts_plays_the_pinned_moves(setup):
    game, variant, players, seed, seat, settings = setup
    agents = [make_agent("heuristic", seed=100 + k, game=game) for k in range(players)]
    mcts = agents[seat] = Recorder(make_agent("mcts", seed=seed, game=game, **dict(settings)))
    play_game(agents, variant=variant, seed=seed, game=game)
    moves, rollouts, value_sum = PINNED[setup]
    assert mcts.moves == moves
    assert mcts.rollouts == rollouts
    assert mcts.value_sum == pytest.approx(value_sum, abs=1e-5)
