"""Phase ablation of a trained policy: which kind of decision costs it its games?

    python training/diagnose_phases.py                       # the shipped 2-player policy
    python training/diagnose_phases.py --policy runs/ppo_selfplay_2p/policy.npz --games 300

Plays the policy in some phases and the teacher (default: the game's, ``heuristic``) in the others,
against the opponent (default: the teacher), over the same seeded games for every mix; see
:mod:`five_towers_env.games.five_towers.diagnosis`.
"""
import argparse
import sys

from five_towers_env.games.five_towers import SPEC
from five_towers_env.games.five_towers.diagnosis import phase_ablation


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", help="an exported .npz or a MaskablePPO .zip (default: the shipped policy)")
    parser.add_argument("--teacher", help="registry agent deciding the other phases (default: the game's teacher)")
    parser.add_argument("--opponent", help="registry agent in the other seats (default: the teacher)")
    parser.add_argument("--games", type=int, default=200, help="seeded games per mix (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="base")
    args = parser.parse_args(argv)
    rows = phase_ablation(args.policy, args.teacher, args.opponent, args.games, args.seed, args.players, args.variant)
    teacher = args.teacher or SPEC.teacher
    print(f"| policy decides (teacher: {teacher}) | win rate vs {args.opponent or teacher} | games |")
    print("|---|---:|---:|")
    for r in rows:
        print(f"| {r['policy decides']} | {r['win_rate']:.3f} | {r['games']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
