"""Training throughput: learner steps per second of a config's self-play PPO, and where the time goes.

    python benchmarks/train_throughput.py --json results/train_throughput/train_throughput.json
    python benchmarks/train_throughput.py --checkout /tmp/old=old --json results/train_throughput/train_throughput.json

For each game's default config (5 Towers ``configs/ppo_selfplay_2p.yaml``, Campanile
``configs/ppo_campanile_2p.yaml``) and each checkout (this one, and any ``--checkout PATH=LABEL``, for
example a ``git worktree`` of an older commit), a fresh process imports that checkout's package and
builds that checkout's PPO trainer from that checkout's config with the imitation warm start off, then:

1. times one evaluation (the trainer's ``evaluate()``: what the run does every ``eval_every`` steps);
2. trains one warm-up rollout, then ``--steps`` learner steps, timing the pieces below.

Rows are measured in turn, in ``--rounds`` rounds of alternating order; a ratio is taken within a
round, and the file keeps the median and range. Reported per row (seconds are for the ``--steps``):

- ``steps_per_s``: learner steps per wall second of training (rollouts and updates);
- ``steps_per_s_with_eval``: the same with one evaluation every ``eval_every`` steps amortised in;
- trainer wall seconds: ``rollout_s`` (of which ``env_wait_s``: the trainer waiting for the games,
  that is environment, opponents and process traffic; the rest is the learner's own inference and
  SB3's bookkeeping, ``learner_inference_s``), ``update_s`` (the PPO update), ``eval_s``;
- environment CPU seconds, summed over every process that steps games: ``opponents_cpu_s`` (the
  opponents' decisions, a batch counting once), ``agent_info_cpu_s`` (building the information they
  decide from) and ``env_cpu_s`` (everything else of stepping the games: rules, observations, resets);
  ``traffic_s`` is ``env_wait_s`` minus the environment CPU per worker process (an estimate of the
  waiting and pickling that process traffic costs; 0 in-process).

The instruments are patched onto stable names (``MaskablePPO.collect_rollouts`` / ``train``, the
vector env's ``step_wait``, the agents' ``act`` / ``act_batch``, ``GameSpec.agent_info``), so one copy of
this file measures old and new checkouts alike. Speed is a ratio measured in one run: the machine is
shared and noisy.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
CONFIGS = {"five_towers": "configs/ppo_selfplay_2p.yaml", "campanile": "configs/ppo_campanile_2p.yaml"}
CATEGORIES = ("opponents", "agent_info", "env_total")


# -- inside the measured process -----------------------------------------------------------------

def _shared_counters() -> Any:
    """CPU-second counters every forked worker adds to (created before the workers fork)."""
    import multiprocessing as mp

    return mp.Array("d", len(CATEGORIES))


def _instrument(counters: Any) -> dict[str, float]:
    """Patch timers onto the training pieces; return the trainer's own wall-clock totals."""
    import functools

    from sb3_contrib import MaskablePPO

    from five_towers_env.core.game import GameSpec

    wall = {"rollout_s": 0.0, "update_s": 0.0, "env_wait_s": 0.0}
    depth = {"n": 0}  # nested timers (an agent inside an agent) count once

    def cpu_timer(index: int, fn: Any) -> Any:
        return _cpu_timer(counters, index, fn, depth)

    def wall_timer(key: str, fn: Any) -> Any:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                wall[key] += time.perf_counter() - t0
        return timed

    MaskablePPO.collect_rollouts = wall_timer("rollout_s", MaskablePPO.collect_rollouts)
    MaskablePPO.train = wall_timer("update_s", MaskablePPO.train)
    lean = _module("five_towers_env.training.ppo.lean")
    if lean is not None:  # the package's own loop (ppo.loop: lean)
        lean.LeanLoop._rollout = wall_timer("rollout_s", lean.LeanLoop._rollout)
        lean.LeanLoop._update = wall_timer("update_s", lean.LeanLoop._update)
    GameSpec.agent_info = cpu_timer(CATEGORIES.index("agent_info"), GameSpec.agent_info)
    for cls in _agent_classes():
        for name in ("act", "act_batch", "act_group"):  # act_group: a class's games of a round in one call
            attr = vars(cls).get(name)
            if isinstance(attr, classmethod):
                setattr(cls, name, classmethod(cpu_timer(CATEGORIES.index("opponents"), attr.__func__)))
            elif attr is not None:
                setattr(cls, name, cpu_timer(CATEGORIES.index("opponents"), attr))
    env_total = CATEGORIES.index("env_total")
    vec_env = _module("five_towers_env.training.ppo.vec_env") or _module("five_towers_env.training.vec_env")  # new, old
    if vec_env is not None:  # the batched games: one vector step is the unit of environment work
        for cls in (vec_env.SelfPlayVecEnv,):
            cls.step_wait = _cpu_timer(counters, env_total, cls.step_wait)
            cls.reset = _cpu_timer(counters, env_total, cls.reset)
    native_games = _module("five_towers_env.training.ppo.native_games")
    if native_games is not None:  # the native core's games (vector_env: native), stepped in the trainer's process
        native_games.NativeGames.step_wait = _cpu_timer(counters, env_total, native_games.NativeGames.step_wait)
        native_games.NativeGames.reset = _cpu_timer(counters, env_total, native_games.NativeGames.reset)
    if vec_env is None:  # one gymnasium env per game, in SB3's DummyVecEnv or SubprocVecEnv
        from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

        SingleAgentGymEnv.step = _cpu_timer(counters, env_total, SingleAgentGymEnv.step)
        SingleAgentGymEnv.reset = _cpu_timer(counters, env_total, SingleAgentGymEnv.reset)
    wall["_wall_timer"] = wall_timer  # type: ignore[assignment]
    return wall


def _cpu_timer(counters: Any, index: int, fn: Any, depth: dict[str, int] | None = None) -> Any:
    """``fn`` adding its CPU seconds to ``counters[index]``; with ``depth``, a call inside another timed
    call of the same ``depth`` counts once."""
    import functools

    @functools.wraps(fn)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if depth is not None and depth["n"]:
            return fn(*args, **kwargs)
        if depth is not None:
            depth["n"] += 1
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            if depth is not None:
                depth["n"] -= 1
            with counters.get_lock():
                counters[index] += time.process_time() - t0
    return timed


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _agent_classes() -> list[type]:
    """Every agent class of the registered games plus the policy agent."""
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.core.game import get_game

    classes: set[type] = {PolicyAgent}
    for game in CONFIGS:
        for name in get_game(game).agents:
            if name in ("human", "ppo"):
                continue
            try:
                classes.add(type(make_agent(name, seed=0, game=game)))
            except Exception:  # an agent that needs more than a seed: not a training opponent
                continue
    return sorted(classes, key=lambda c: c.__qualname__)


def measure(config: str, steps: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """One measurement of this process's checkout (see the module docstring)."""
    counters = _shared_counters()
    wall = _instrument(counters)
    wall_timer = wall.pop("_wall_timer")
    trainer_class = _ppo_trainer()

    with tempfile.TemporaryDirectory() as tmp:
        cfg = trainer_class.load_config(config, {"out_dir": tmp, "imitation.games": 0, "final_eval_games": 0,
                                                 "total_timesteps": 10**9, **(overrides or {})})
        trainer = trainer_class(cfg, progress=False)
        venv = trainer.venv
        venv.step_wait = wall_timer("env_wait_s", venv.step_wait)
        venv.env_method = wall_timer("env_wait_s", venv.env_method)  # the action masks, every step (SB3)
        if hasattr(venv, "action_masks"):
            venv.action_masks = wall_timer("env_wait_s", venv.action_masks)  # the same, as the lean loop asks
        trainer.start = time.time()
        t0 = time.perf_counter()
        trainer.evaluate()
        eval_s = time.perf_counter() - t0
        # the pool of a run in progress: its snapshots take pool.snapshot_weight of the opponents' seats
        from five_towers_env.agents.network_file import export_policy

        for k in range(cfg.pool.max_snapshots if cfg.pool.snapshot_weight > 0 else 0):
            trainer.pool.add_snapshot(export_policy(trainer.model, Path(tmp) / f"snapshot_{k}.npz", **trainer._meta()))
        venv.env_method("set_opponents", sampler=trainer.pool.sampler())
        rollout = cfg.ppo.n_steps * cfg.n_envs
        _learn(trainer, rollout)  # warm-up: the first rollout and update
        for key in wall:
            wall[key] = 0.0
        cpu_before = list(counters)
        t0 = time.perf_counter()
        start_steps = int(trainer.model.num_timesteps)
        _learn(trainer, steps)
        total = time.perf_counter() - t0
        done = int(trainer.model.num_timesteps) - start_steps
        cpu = {k: counters[i] - cpu_before[i] for i, k in enumerate(CATEGORIES)}
        venv.close()
    workers = len(getattr(venv, "processes", [])) or 1
    env_cpu = cpu["env_total"] - cpu["opponents"] - cpu["agent_info"]
    row = {
        "steps": done, "wall_s": round(total, 2), "steps_per_s": round(done / total, 1),
        "eval_s": round(eval_s, 2), "eval_every": cfg.eval_every,
        "steps_per_s_with_eval": round(cfg.eval_every / (cfg.eval_every * total / done + eval_s), 1),
        "rollout_s": round(wall["rollout_s"], 2), "env_wait_s": round(wall["env_wait_s"], 2),
        "learner_inference_s": round(wall["rollout_s"] - wall["env_wait_s"], 2),
        "update_s": round(wall["update_s"], 2),
        "opponents_cpu_s": round(cpu["opponents"], 2), "agent_info_cpu_s": round(cpu["agent_info"], 2),
        "env_cpu_s": round(env_cpu, 2), "env_processes": workers,
        "traffic_s": round(max(0.0, wall["env_wait_s"] - cpu["env_total"] / workers), 2) if workers > 1 else 0.0,
        "n_envs": cfg.n_envs, "n_steps": cfg.ppo.n_steps, "batch_size": cfg.ppo.batch_size,
        "n_epochs": cfg.ppo.n_epochs, "subproc": cfg.subproc, "torch_threads": cfg.torch_threads,
        "rollout_threads": getattr(cfg, "rollout_threads", cfg.torch_threads),
    }
    return row


def _ppo_trainer() -> Any:
    """This process's checkout's PPO trainer class, wherever that checkout keeps it."""
    try:
        from five_towers_env.training.trainer import TRAINERS  # the trainer table (issue 56 onwards)

        return TRAINERS["ppo"].load()
    except ImportError:  # an older checkout: the trainer in training/selfplay.py, its config a module beside it
        selfplay = importlib.import_module("five_towers_env.training.selfplay")
        config = importlib.import_module("five_towers_env.training.config")

        class OldTrainer(selfplay.Trainer):
            load_config = staticmethod(config.load_config)

        return OldTrainer


def _learn(trainer: Any, steps: int) -> None:
    if hasattr(trainer, "learn_steps"):
        trainer.learn_steps(steps)
    else:  # a checkout from before learn_steps
        episode_callback = importlib.import_module("five_towers_env.training.selfplay").episode_callback

        trainer.model.learn(steps, reset_num_timesteps=False,
                            callback=episode_callback(10**9, int(trainer.model.num_timesteps), False))


# -- the driver --------------------------------------------------------------------------------

def _overrides(pairs: list[str]) -> dict[str, Any]:
    import yaml

    return {key: yaml.safe_load(value) for key, _, value in (pair.partition("=") for pair in pairs)}


def _run_row(checkout: Path, game: str, steps: int, overrides: list[str], numerics: str = "") -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    if numerics:  # the measured process starts with the kernels `five-towers train` would give it
        from five_towers_env import numerics as pinning

        for key in pinning.portable_environment():
            env.pop(key, None)
        if numerics == pinning.PORTABLE:
            env.update(pinning.portable_environment())
        overrides = [*overrides, f"numerics={numerics}"]
    config = str(checkout / CONFIGS[game])
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--inner", config, "--steps", str(steps),
                          "--set", *overrides],
                         cwd=str(checkout), env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"measuring {checkout} ({game}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _git_commit(checkout: Path) -> str:
    out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3), "max": round(max(values), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", action="append", default=[], metavar="PATH=LABEL",
                        help="another checkout to measure beside this one (e.g. a git worktree of an older commit)")
    parser.add_argument("--games", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--steps", type=int, default=16384,
                        help="learner steps timed per row (after a warm-up rollout)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="config overrides for every row (e.g. n_envs=8), as five-towers train --set")
    parser.add_argument("--numerics", nargs="+", default=[], choices=["portable", "native"],
                        help="measure this checkout under each of these numerics (five_towers_env/numerics.py), "
                             "e.g. --numerics portable native for what pinning the kernels costs")
    parser.add_argument("--loops", nargs="+", default=[], choices=["sb3", "lean"],
                        help="measure this checkout with each of these PPO loops (ppo.loop), e.g. --loops sb3 lean")
    parser.add_argument("--vector-envs", nargs="+", default=[], choices=["python", "native"],
                        help="measure this checkout with each of these training games (vector_env), e.g. "
                             "--loops sb3 lean --vector-envs python native for every pair")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        print(json.dumps(measure(args.inner, args.steps, _overrides(args.set))))
        return 0
    # (label, checkout, numerics, overrides): this checkout once per --numerics mode and --loops loop (once as
    # configured without), then the others
    checkouts = [("/".join(x for x in (mode, loop, games) if x) or "new", HERE, mode,
                  ([f"ppo.loop={loop}"] if loop else []) + ([f"vector_env={games}"] if games else []))
                 for mode in args.numerics or [""] for loop in args.loops or [""]
                 for games in args.vector_envs or [""]]
    for text in args.checkout:
        path, _, label = text.partition("=")
        checkouts.append((label or Path(path).name, Path(path).resolve(), "", []))
    rows: dict[str, list[dict[str, Any]]] = {}
    for r in range(args.rounds):
        order = checkouts if r % 2 == 0 else checkouts[::-1]
        for game in args.games:
            for label, path, mode, extra in order:
                row = _run_row(path, game, args.steps, [*args.set, *extra], mode)
                rows.setdefault(f"{game}/{label}", []).append(row)
                print(f"round {r + 1} {game:11s} {label:6s} {row['steps_per_s']:8.1f} steps/s "
                      f"(with evaluation {row['steps_per_s_with_eval']:.1f})", flush=True)
    result: dict[str, Any] = {
        "command": "python benchmarks/train_throughput.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "steps": args.steps, "rounds": args.rounds, "cpus": os.cpu_count(),
        "checkouts": {label: {"path": str(path), "commit": _git_commit(path), "numerics": mode or "as configured",
                              "overrides": extra}
                      for label, path, mode, extra in checkouts},
        "rows": {key: {"runs": runs, "steps_per_s": _summary([x["steps_per_s"] for x in runs]),
                       "steps_per_s_with_eval": _summary([x["steps_per_s_with_eval"] for x in runs])}
                 for key, runs in rows.items()},
    }
    ratios = {}
    for game in args.games:
        first = checkouts[0][0]
        for label, *_ in checkouts[1:]:
            for key in ("steps_per_s", "steps_per_s_with_eval"):
                per_round = [a[key] / b[key] for a, b in zip(rows[f"{game}/{first}"], rows[f"{game}/{label}"])]
                ratios[f"{game}: {first} / {label}, {key}"] = _summary(per_round)
    result["ratios"] = ratios
    for name, summary in ratios.items():
        print(f"{name}: {summary['median']:.2f}x ({summary['min']:.2f}-{summary['max']:.2f})")
    if args.json:
        from five_towers_env.atomic import write_json  # here: the measured processes import their own checkout
        from five_towers_env.provenance import write_provenance

        write_json(args.json, result, indent=1)
        write_provenance(Path(args.json).parent)  # provenance.json beside it
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
