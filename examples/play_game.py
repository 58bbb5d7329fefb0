"""Play one full game between random agents, printing the table after every decision.

    python examples/play_game.py --players 3 --variant great_powers --seed 7
"""
from __future__ import annotations

import argparse

from five_towers_env.agents import RandomAgent
from five_towers_env.play import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="base", choices=["base", "great_powers"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    agents = [RandomAgent(seed=args.seed * 100 + i) for i in range(args.players)]
    result = play_game(agents, variant=args.variant, seed=args.seed, render_mode="human")
    print(f"final scores: {result['scores']}  winners: {['player_%d' % w for w in result['winners']]}")


if __name__ == "__main__":
    main()
