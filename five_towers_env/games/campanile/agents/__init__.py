"""Campanile agents: the greedy, heuristic and MCTS players.

* :class:`GreedyAgent`: one ply, its score as if the game ended now;
* :class:`HeuristicAgent`: a hand-written evaluation of stakes, flags, chips, draws and the end;
* :class:`MCTSAgent`: flat Monte Carlo over determinisations of the public view.

Every agent reads only ``info["view"]`` (:meth:`CampanileState.public_view`: what the seat may see,
SPEC C5) and the legal actions, and is deterministic given its seed.
"""
from __future__ import annotations

from five_towers_env.games.campanile.agents.greedy import GreedyAgent
from five_towers_env.games.campanile.agents.heuristic import HeuristicAgent
from five_towers_env.games.campanile.agents.mcts import MCTSAgent

__all__ = ["GreedyAgent", "HeuristicAgent", "MCTSAgent"]
