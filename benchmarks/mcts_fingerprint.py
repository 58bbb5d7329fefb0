#!/usr/bin/env python
"""A fingerprint of the ``mcts`` agents' decisions in both games, to show that a change of the search
plays the same moves.

Plays seeded games of ``mcts`` (several settings, both games, 2 to 4 players) against the heuristic
and records every ``mcts`` decision: the action, the rollouts run (5 Towers) and the mean reward of
every candidate (``last_values``, as ``repr`` of the floats). Run it on two trees and compare the
files byte for byte; ``tests/test_mcts_pinned.py`` pins a few of these games in the test suite.
Timing-based settings (``time_limit``) are left out: they are not deterministic.

    PYTHONPATH=/tmp/search_old python benchmarks/mcts_fingerprint.py /tmp/old.json
    PYTHONPATH=.               python benchmarks/mcts_fingerprint.py /tmp/new.json
    cmp /tmp/old.json /tmp/new.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from report import atomic, write_provenance  # benchmarks/report.py, beside this script

#: (game, variant, players, deal seed = mcts seed, mcts seat, mcts settings)
CONFIGS: list[tuple[str, str, int, int, int, dict[str, Any]]] = [
    ("five_towers", "base", 2, 1, 0, {"simulations": 40}),
    ("five_towers", "base", 2, 2, 1, {"simulations": 40}),
    ("five_towers", "great_powers", 2, 3, 0, {"simulations": 40}),
    ("five_towers", "base", 4, 4, 2, {"simulations": 40}),
    ("five_towers", "great_powers", 3, 5, 1, {"simulations": 24, "race_z": None, "rollout_rounds": None}),
    ("five_towers", "great_powers", 2, 8, 1, {"simulations": 30, "rollout_rounds": 0, "margin_weight": 0.0,
                                              "min_samples": 3}),
    ("five_towers", "base", 2, 6, 0, {}),
    ("five_towers", "great_powers", 2, 7, 1, {}),
    ("campanile", "pile", 2, 1, 0, {}),
    ("campanile", "pile", 2, 2, 1, {}),
    ("campanile", "played", 3, 3, 2, {}),
    ("campanile", "pile", 4, 6, 0, {}),
    ("campanile", "pile", 2, 4, 0, {"simulations": 40, "search_from": 99}),
    ("campanile", "played", 2, 5, 1, {"simulations": 30, "search_from": 99, "candidates": 0, "rollout_turns": 6,
                                       "prior": 0.5, "lead_rate": 0.3}),
]


class Recorder:
    """Wraps an agent and logs (action, rollouts, sorted candidate values) per decision."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.name, self.log = agent, agent.name, []

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        """The wrapped agent's action, logged."""
        action = int(self.agent.act(observation, info))
        values = sorted((str(k), repr(v)) for k, v in self.agent.last_values.items())
        self.log.append([action, getattr(self.agent, "last_simulations", None), values])
        return action


def run(config: tuple) -> dict[str, Any]:
    """One seeded game of ``mcts`` against the heuristic; its decisions."""
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.play import play_game

    game, variant, players, seed, seat, settings = config
    agents = [make_agent("heuristic", seed=100 + k, game=game) for k in range(players)]
    mcts = agents[seat] = Recorder(make_agent("mcts", seed=seed, game=game, **settings))
    result = play_game(agents, variant=variant, seed=seed, game=game)
    return {"config": [game, variant, players, seed, seat, settings],
            "scores": [float(x) for x in result["scores"]], "decisions": mcts.log}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="JSON file to write")
    args = p.parse_args()
    out = []
    for config in CONFIGS:
        start = time.process_time()
        out.append(run(config))
        print(*config[:5], f"{len(out[-1]['decisions'])} decisions, {time.process_time() - start:.1f} s CPU",
              file=sys.stderr, flush=True)
    atomic().write_text(args.out, json.dumps(out))  # whole or not at all, by this checkout's writer
    write_provenance(args.out)  # provenance.json beside it


if __name__ == "__main__":
    main()
