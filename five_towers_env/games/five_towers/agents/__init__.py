"""5 Towers agents: the greedy, heuristic and MCTS players.

* :class:`~.greedy.GreedyAgent`: the highest legal bid, otherwise its score one action ahead;
* :class:`~.heuristic.HeuristicAgent`: a hand-written evaluation of scores, tower potential and the 0s,
  with small exact searches;
* :class:`~.mcts.MCTSAgent`: flat Monte Carlo over determinisations of the deck order.

Every agent reads only ``info["view"]`` (the public view: the deck's order hidden, SPEC §6) and the legal
actions, and is deterministic given its seed (MCTS when it counts simulations, its default, rather than
``time_limit`` seconds). The agent registry (``make_agent("heuristic")``, ``--agents``) builds them from
their modules; this package imports none of them, so importing one module loads only what it needs.
"""
