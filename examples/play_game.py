"""Play one full game between agents, printing one line per move (forced moves included).

    python examples/play_game.py --players 3 --variant great_powers --seed 7
    python examples/play_game.py --agents ppo heuristic --seed 7 --show-table
    python examples/play_game.py --agents ppo:path=runs/ppo_quick_2p/policy.npz greedy
    python examples/play_game.py --agents human ppo        # you play seat 0

Agents are registry names (random, greedy, heuristic, mcts, ppo), optionally with settings
(``mcts:simulations=100``; ``ppo:path=...`` plays a trained policy, by default the shipped one).
They fill the seats in order and repeat if there are more seats than agents.
"""
from __future__ import annotations

import argparse

from five_towers_env.agents.human import QuitGame
from five_towers_env.evaluation.specs import resolve_specs
from five_towers_env.play import MoveLog, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["random"], metavar="AGENT")
    parser.add_argument("--players", type=int, default=None, help="seats (default: the number of agents, at least 2)")
    parser.add_argument("--variant", default="base", choices=["base", "great_powers"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show-table", action="store_true", help="print the table at each round start and the end")
    args = parser.parse_args()
    specs = resolve_specs(args.agents)
    players = args.players or max(2, len(specs))
    agents = [specs[i % len(specs)].build(args.seed * 100 + i) for i in range(players)]
    labels = [specs[i % len(specs)].label for i in range(players)]
    print("seats: " + ", ".join(f"player_{i}={label}" for i, label in enumerate(labels)))
    log = MoveLog(labels, show_table="round" if args.show_table else None)
    try:
        result = play_game(agents, variant=args.variant, seed=args.seed, watchers=[log])
    except QuitGame as exc:  # a human seat typed q (or its input ended)
        print(f"game stopped: {exc}")
        return
    print(f"final scores: {result['scores']}  winners: {[f'player_{w}' for w in result['winners']]}")


if __name__ == "__main__":
    main()
