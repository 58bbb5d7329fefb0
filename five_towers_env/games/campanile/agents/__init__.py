"""Campanile agents: the public view, the ``info`` dict, and the greedy, heuristic and MCTS players.

* :func:`public_view` / :func:`agent_info`: what an agent may see (SPEC C5), as in
  :mod:`five_towers_env.games.five_towers.agents.view` for 5 Towers;
* :class:`GreedyAgent`: one ply, its score as if the game ended now;
* :class:`HeuristicAgent`: a hand-written evaluation of stakes, flags, chips, draws and the end;
* :class:`MCTSAgent`: flat Monte Carlo over determinisations of the public view.

Every agent reads only ``info["view"]`` and the legal actions, and is deterministic given its seed.
"""
from __future__ import annotations

from five_towers_env.games.campanile.agents.greedy import GreedyAgent
from five_towers_env.games.campanile.agents.heuristic import HeuristicAgent
from five_towers_env.games.campanile.agents.mcts import MCTSAgent
from five_towers_env.games.campanile.agents.view import agent_info, legal_actions, public_view

__all__ = ["public_view", "agent_info", "legal_actions", "GreedyAgent", "HeuristicAgent", "MCTSAgent"]
