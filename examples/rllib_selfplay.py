"""Self-play PPO with RLlib: one shared policy for every seat, against a frozen opponent pool.

    pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --iterations 20 --env-runners 1            # this machine
    python examples/rllib_selfplay.py --address auto --env-runners 32 ...        # a running Ray cluster

Each game is, with probability --self-play-prob, the learner ("main") in every seat; otherwise the
learner in one seat and, in each other, the random player or one of --snapshots frozen copies of
the learner (overwritten round-robin every --snapshot-every iterations). Only "main" is trained.
At the end the learner (greedy, masked) plays --eval-games seeded, seat-rotated games against
random opponents and the script prints its win rate (a shared win counts 1/j), and the training
throughput in env steps per second (one env step is one decision of any seat; the first
--warmup iterations are left out). --json writes all of it, with the exact command line.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--address", default=None,
                   help="Ray cluster address for ray.init(address=...) (e.g. 'auto' or 'ray://head:10001'); "
                        "default: start a local Ray on this machine")
    p.add_argument("--env-runners", type=int, default=1,
                   help="remote EnvRunner actors sampling in parallel, 1 CPU each (0: sample in this process)")
    p.add_argument("--envs-per-runner", type=int, default=16, help="games each EnvRunner steps side by side")
    p.add_argument("--learners", type=int, default=0,
                   help="remote Learner actors splitting each batch (0: update the networks in this process)")
    p.add_argument("--gpus-per-learner", type=float, default=0, help="GPUs per Learner actor (needs --learners >= 1)")
    p.add_argument("--iterations", type=int, default=20, help="PPO training iterations")
    p.add_argument("--game", default="five_towers", help="the game's registry name (five_towers, campanile, ...)")
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--variant", default=None, help="the game's variant (default: its first)")
    p.add_argument("--seed", type=int, default=0, help="seeds the environments, the networks and the evaluation")
    p.add_argument("--out", default="runs/rllib_selfplay", help="run folder (checkpoint, log.json)")
    p.add_argument("--batch", type=int, default=4000, help="env steps sampled per iteration")
    p.add_argument("--minibatch", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hiddens", type=int, nargs="+", default=[256, 256])
    p.add_argument("--self-play-prob", type=float, default=0.5)
    p.add_argument("--snapshots", type=int, default=4, help="frozen copies of the learner in the pool")
    p.add_argument("--snapshot-every", type=int, default=5, help="iterations between snapshots")
    p.add_argument("--random-weight", type=float, default=0.25, help="share of pool seats given to random")
    p.add_argument("--eval-games", type=int, default=200, help="games against random at the end (0: none)")
    p.add_argument("--eval-opponent", default="random", help="registry agent to evaluate against")
    p.add_argument("--warmup", type=int, default=1, help="iterations left out of the throughput")
    p.add_argument("--torch-threads", type=int, default=None,
                   help="torch threads in this process; default: 1 with --env-runners 0 (sampling here in small "
                        "batches, where more threads only add overhead), else torch's default (the learner's "
                        "minibatches use them while the remote env runners wait)")
    p.add_argument("--no-checkpoint", action="store_true", help="do not save the algorithm at the end")
    p.add_argument("--json", default=None, help="also write the results to this JSON file")
    return p.parse_args(argv)


def versions() -> dict[str, str]:
    import gymnasium
    import ray
    import torch

    import five_towers_env

    return {"python": platform.python_version(), "ray": ray.__version__, "torch": torch.__version__,
            "gymnasium": gymnasium.__version__, "five_towers_env": five_towers_env.__version__,
            "platform": platform.platform(), "cpu_count": os.cpu_count()}


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    command = "python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(sys.argv[1:] if argv is None else argv)])

    import ray
    import torch

    from five_towers_env.agents.rllib_agent import write_checkpoint_game
    from five_towers_env.integrations.rllib import evaluate_module, learner_module, selfplay_ppo_config, train_selfplay

    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    elif args.env_runners == 0:
        torch.set_num_threads(1)
    args.torch_threads = torch.get_num_threads()
    torch.manual_seed(args.seed)
    if args.address is None:
        ray.init(include_dashboard=False)
    else:
        ray.init(address=args.address)
    cpus = ray.cluster_resources().get("CPU", 0)
    print(f"ray {ray.__version__}: {'local' if args.address is None else args.address}, {cpus:g} CPUs, "
          f"{args.env_runners} env runner(s) x {args.envs_per_runner} games, {args.learners} remote learner(s), "
          f"torch threads here {args.torch_threads}", flush=True)
    if args.env_runners + args.learners > cpus:
        print(f"warning: {args.env_runners} env runner(s) and {args.learners} learner(s) need "
              f"{args.env_runners + args.learners} CPUs; the cluster has {cpus:g} (Ray waits for them)",
              file=sys.stderr)

    config = selfplay_ppo_config(
        game=args.game, num_players=args.num_players, variant=args.variant, num_env_runners=args.env_runners,
        num_envs_per_env_runner=args.envs_per_runner, snapshots=args.snapshots, random_weight=args.random_weight,
        self_play_prob=args.self_play_prob, hiddens=args.hiddens, train_batch_size=args.batch,
        minibatch_size=args.minibatch, num_epochs=args.epochs, lr=args.lr, num_learners=args.learners,
        num_gpus_per_learner=args.gpus_per_learner, seed=args.seed)
    algo = config.build_algo()

    def show(row: dict) -> None:
        wr = row["learner_win_rate"]
        print(f"iter {row['iteration']:3d}  {row['seconds']:6.1f} s  env steps {row['env_steps']:8d}  "
              f"win rate vs pool {'-' if wr is None else f'{wr:.2f}'}"
              + (f"  -> snapshot into {row['snapshot']}" if row["snapshot"] else ""), flush=True)

    t0 = time.perf_counter()
    rows = train_selfplay(algo, args.iterations, snapshot_every=args.snapshot_every, on_iteration=show)
    train_seconds = time.perf_counter() - t0
    timed = rows[args.warmup:] if len(rows) > args.warmup else rows
    start_steps = rows[len(rows) - len(timed) - 1]["env_steps"] if len(timed) < len(rows) else 0
    steps = (timed[-1]["env_steps"] - start_steps) if timed else 0
    seconds = sum(r["seconds"] for r in timed)
    throughput = {"env_steps": steps, "seconds": seconds, "env_steps_per_s": steps / seconds if seconds else None,
                  "iterations_timed": len(timed), "warmup_iterations": len(rows) - len(timed),
                  "total_env_steps": rows[-1]["env_steps"] if rows else 0, "total_train_seconds": train_seconds,
                  "env_runners": args.env_runners, "envs_per_runner": args.envs_per_runner,
                  "learners": args.learners, "torch_threads": args.torch_threads}

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = None
    if not args.no_checkpoint:
        checkpoint = str(algo.save_to_path(str((out / "checkpoint").resolve())))
        # the game beside the weights: RLlibAgent (--agents rllib:path=...) refuses to seat it in another
        write_checkpoint_game(checkpoint, args.game, args.num_players, args.variant)

    evaluation = None
    if args.eval_games > 0:
        module = learner_module(algo)
        t = time.perf_counter()
        evaluation = evaluate_module(module, opponent=args.eval_opponent, num_games=args.eval_games,
                                     num_players=args.num_players, variant=args.variant, seed=args.seed,
                                     game=args.game)
        evaluation = {k: evaluation[k] for k in ("games", "win_rate", "ci_low", "ci_high", "strict_win_rate",
                                                 "mean_score", "mean_margin")}
        evaluation.update(opponent=args.eval_opponent, seconds=time.perf_counter() - t)
    algo.stop()
    ray.shutdown()

    print(f"training throughput: {throughput['env_steps_per_s']:.0f} env steps/s "
          f"({steps} env steps in {seconds:.1f} s over {len(timed)} iterations after {len(rows) - len(timed)} "
          f"warm-up; {args.env_runners} env runner(s) x {args.envs_per_runner} games)")
    if checkpoint:
        print(f"checkpoint: {checkpoint}")
    if evaluation:
        print(f"win rate against {args.eval_opponent} ({args.num_players} players, {evaluation['games']} games, "
              f"seed {args.seed}): {evaluation['win_rate']:.3f} "
              f"[{evaluation['ci_low']:.3f}, {evaluation['ci_high']:.3f}]")
    report = {"command": command, "args": vars(args), "versions": versions(), "throughput": throughput,
              "evaluation": evaluation, "iterations": rows, "checkpoint": checkpoint}
    (out / "log.json").write_text(json.dumps(report, indent=2) + "\n")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        from five_towers_env.provenance import write_provenance

        write_provenance(Path(args.json).parent)  # provenance.json beside it: command, commit, machine
    return report


if __name__ == "__main__":
    main()
