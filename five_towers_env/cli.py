"""The ``five-towers`` command line.

    five-towers play --agents heuristic random --seed 3
    five-towers evaluate --agents heuristic random --games 1000 --players 2 --variant base --seed 0 \\
        --workers 4 --out results/
    five-towers tournament --agents random greedy heuristic --games 1000 --workers 4 --out results/

Agents are registry names, optionally with settings: ``mcts:simulations=100,c=1.4``.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from .agents.registry import AGENTS
from .engine.state import MAX_PLAYERS, MIN_PLAYERS, VARIANTS

AGENT_HELP = (f"agents: registry names ({', '.join(AGENTS)}), optionally with settings, "
              "e.g. mcts:simulations=100,c=1.4")


def _players(text: str) -> int:
    n = int(text)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}")
    return n


def _nonneg(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return n


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return n


def _add_common(p: argparse.ArgumentParser, games_help: str, players_help: str,
                players_default: int | None = None) -> None:
    """The arguments shared by ``evaluate`` and ``tournament``."""
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT", help=AGENT_HELP)
    p.add_argument("--games", type=_positive, default=100, help=games_help)
    p.add_argument("--variant", choices=VARIANTS, default="base")
    p.add_argument("--seed", type=_nonneg, default=0, help="run seed; every game's seeds derive from it (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes (1: in this process; 0: every CPU); results do not depend on it (default 1)")
    p.add_argument("--out", metavar="DIR", help="folder for CSV / JSON (and other) result files")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--unpaired", action="store_true",
                   help="a fresh deal for every game (default: the seat rotations of a cycle replay one deal)")
    p.add_argument("--players", type=_players, default=players_default, help=players_help)


# -- play -------------------------------------------------------------------------------------

def cmd_play(args: argparse.Namespace) -> int:
    """One game between the named agents, the table printed as it goes."""
    from .agents.base import agent_info
    from .engine.actions import action_name
    from .environment.aec import raw_env
    from .evaluation.match import make_jobs, resolve_specs

    specs = resolve_specs(args.agents)
    num_players = args.players or max(2, len(specs))
    # the same seeds, deal and seat rotation as game --game of `five-towers evaluate` with these agents
    job = make_jobs(list(range(len(specs))), args.game + 1, num_players, args.seed, paired=not args.unpaired)[-1]
    labels = [specs[a].label for a in job.lineup]
    agents = [specs[a].build(job.agent_seeds[s]) for s, a in enumerate(job.lineup)]
    env = raw_env(num_players=num_players, variant=args.variant, render_mode="ansi")
    env.reset(seed=job.deal_seed)
    game = env.game
    print("seats: " + ", ".join(f"{s}={label}" for s, label in enumerate(labels)))
    print(env.render() + "\n")
    rounds = game.rounds_played
    moves = 0
    while not game.is_terminal():
        seat = game.current_player
        action = agents[seat].act(env.observe(env.possible_agents[seat]), agent_info(game, seat))
        if not args.quiet:
            print(f"seat {seat} ({labels[seat]}): {action_name(action)}")
        env.step(action)
        moves += 1
        if not args.quiet and (args.every_move or game.rounds_played != rounds or game.is_terminal()):
            rounds = game.rounds_played
            print("\n" + env.render() + "\n")
    scores, winners = env.scores(), env.winners()
    print(f"final scores: " + ", ".join(f"seat {s} ({labels[s]}) {sc}" for s, sc in enumerate(scores)))
    print(f"winner{'s' if len(winners) > 1 else ''}: " + ", ".join(f"seat {w} ({labels[w]})" for w in winners)
          + f"  [{moves} decisions]")
    return 0


# -- evaluate and tournament -----------------------------------------------------------------

def _match_settings(args: argparse.Namespace) -> dict[str, object]:
    """The keyword arguments ``evaluate`` and ``round_robin`` share, from the common options."""
    return {"num_players": args.players, "variant": args.variant, "seed": args.seed, "workers": args.workers,
            "progress": not args.no_progress, "paired": not args.unpaired}


def _report(result: object, out: str | None, **save_options: object) -> int:
    """Print a result's table; save its files in ``out`` if given."""
    print(result.table())
    if out:
        paths = result.save(out, **save_options)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Seat-rotated games between the agents; summary table, and CSV / JSON in --out."""
    from .evaluation.match import evaluate

    return _report(evaluate(args.agents, num_games=args.games, **_match_settings(args)), args.out)


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin; win-rate matrix, Elo / OpenSkill; CSV / JSON / Markdown / PNG in --out."""
    from .evaluation.tournament import round_robin

    return _report(round_robin(args.agents, games=args.games, **_match_settings(args)), args.out,
                   plot=not args.no_plot)


# -- train ------------------------------------------------------------------------------------

def _override(text: str) -> tuple[str, object]:
    import yaml

    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), yaml.safe_load(value)


def cmd_train(args: argparse.Namespace) -> int:
    """Train (or resume) a self-play run, then print its policy's results against the baselines."""
    from .training.config import ConfigError, apply_overrides, config_from_dict, config_to_dict, load_config

    try:
        from .training.selfplay import evaluation_table, format_evaluation_table, resume_config, train
    except ImportError as exc:  # torch / sb3 missing
        print(f"training needs the rl extra (pip install -e \".[rl]\"): {exc}", file=sys.stderr)
        return 2
    overrides = dict(args.set)
    try:
        if args.config:
            cfg = load_config(args.config, overrides)
        else:
            cfg = config_from_dict(apply_overrides(config_to_dict(resume_config(args.resume)), overrides))
    except (ConfigError, FileNotFoundError) as exc:
        print(f"five-towers train: {exc}", file=sys.stderr)
        return 2
    print(f"run folder: {cfg.run_dir}")
    policy = train(cfg, resume=args.resume, progress=not args.no_progress)
    print(f"exported policy: {policy}  (play it as the agent ppo:path={policy})")
    games = cfg.final_eval_games if args.eval_games is None else args.eval_games
    if games:
        rows = evaluation_table(policy, cfg.num_players, cfg.variant, cfg.eval_opponents, games, seed=cfg.seed,
                                workers=args.workers, progress=not args.no_progress)
        print(f"\n{policy} against the baselines ({cfg.num_players} players, {cfg.variant}, {games} games each):")
        print(format_evaluation_table(rows))
    return 0


# -- parser -----------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The ``five-towers`` argument parser (each subcommand sets ``func``)."""
    parser = argparse.ArgumentParser(prog="five-towers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("play", help="play one game between named agents, printed as it goes")
    p.add_argument("--agents", nargs="+", default=["random", "random"], metavar="AGENT", help=AGENT_HELP)
    p.add_argument("--players", type=_players, help="seats (default: the number of agents; agents repeat to fill)")
    p.add_argument("--variant", choices=VARIANTS, default="base")
    p.add_argument("--seed", type=_nonneg, default=0)
    p.add_argument("--game", type=_nonneg, default=0,
                   help="replay game GAME of `evaluate` with the same agents, seed and players (default 0)")
    p.add_argument("--unpaired", action="store_true", help="as for evaluate")
    p.add_argument("--every-move", action="store_true", help="print the table after every move (default: each round)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("evaluate", help="seat-rotated seeded games between agents: win rates with 95%% CIs")
    _add_common(p, "games to play (default 100; a multiple of the number of agents balances the seats)",
                "seats per game (default: the number of agents, at least 2)")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("tournament", help="round robin: win-rate matrix, Elo and OpenSkill ratings, plot")
    _add_common(p, "games per pairing / group (default 100)", "seats per game (default 2)", players_default=2)
    p.add_argument("--no-plot", action="store_true", help="skip the PNG of the win-rate matrix")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("train", help="self-play MaskablePPO training from a YAML config (needs the rl extra)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="YAML", help="a training config, e.g. configs/ppo_selfplay_2p.yaml")
    source.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue a run from runs/<name>/checkpoints/step_N.zip (its stored config)")
    # extend, not store: a second --set must add to the first, never silently replace it
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="KEY=VALUE", type=_override,
                   help="override config settings, e.g. total_timesteps=200000 ppo.n_epochs=2 (YAML values; "
                        "may be repeated)")
    p.add_argument("--eval-games", type=_nonneg, default=None,
                   help="games per baseline in the evaluation table printed at the end "
                        "(default: the config's final_eval_games; 0 skips it)")
    p.add_argument("--workers", type=int, default=1, help="processes for that evaluation (default 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_train)

    return parser


def _check_agents(parser: argparse.ArgumentParser, agents: Sequence[str]) -> None:
    """Turn a bad agent name or setting into a usage error before any game starts."""
    from .evaluation.match import resolve_specs

    try:
        for spec in resolve_specs(agents):
            spec.build(0)
    except (ValueError, TypeError, ImportError) as exc:
        parser.error(f"bad --agents: {exc}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``five-towers`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "agents", None):
        _check_agents(parser, args.agents)
    func: Callable[[argparse.Namespace], int] = args.func
    return func(args)


if __name__ == "__main__":
    sys.exit(main())
