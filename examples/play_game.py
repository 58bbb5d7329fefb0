"""Play one full game between agents, printing the table after every decision.

    python examples/play_game.py --players 3 --variant great_powers --seed 7
    python examples/play_game.py --agents ppo heuristic --seed 7
    python examples/play_game.py --agents ppo:path=runs/ppo_quick_2p/policy.npz greedy

Agents are registry names (random, greedy, heuristic, mcts, ppo), optionally with settings
(``mcts:simulations=100``; ``ppo:path=...`` plays a trained policy, by default the shipped one).
They fill the seats in order and repeat if there are more seats than agents.
"""
from __future__ import annotations

import argparse

from five_towers_env.evaluation.match import resolve_specs
from five_towers_env.play import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["random"], metavar="AGENT")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the number of agents, at least 2)")
    parser.add_argument("--variant", default="base", choices=["base", "great_powers"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    specs = resolve_specs(args.agents)
    players = args.players or max(2, len(specs))
    agents = [specs[i % len(specs)].build(args.seed * 100 + i) for i in range(players)]
    print("seats: " + ", ".join(f"player_{i}={specs[i % len(specs)].label}" for i in range(players)))
    result = play_game(agents, variant=args.variant, seed=args.seed, render_mode="human")
    print(f"final scores: {result['scores']}  winners: {['player_%d' % w for w in result['winners']]}")


if __name__ == "__main__":
    main()
