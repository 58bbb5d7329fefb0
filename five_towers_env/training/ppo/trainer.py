"""Self-play training with sb3-contrib's ``MaskablePPO`` model (one readable loop, CleanRL style).

    five-towers train --config configs/ppo_selfplay_2p.yaml
    five-towers train --resume runs/ppo_selfplay_2p/checkpoints/step_400000.zip
    five-towers train --resume runs/ppo_selfplay_2p            # its newest whole checkpoint

The learner plays the config's ``game`` (5 Towers or Campanile) against opponents drawn each game from an
:class:`~.pool.OpponentPool` (that game's baselines plus frozen snapshots of itself). The ``n_envs`` games
are stepped together (``vector_env``): on the game's native core in this process (:mod:`.native_games`; the
default where the core is active), or as :class:`~five_towers_env.wrappers.SingleAgentGymEnv` games in this
process or split over worker processes (:mod:`.vec_env`), the snapshots deciding for all their games in one
network pass either way. The rollouts and updates run in the package's own loop (:mod:`.lean`, the default) or
in ``MaskablePPO.learn`` (``ppo.loop``). The run alternates PPO training with evaluations (played in the
worker processes where there are any, :mod:`.eval_games`):

1. train ``eval_every`` timesteps;
2. evaluate the current policy against each baseline of ``eval_opponents`` (``eval_games``
   seeded games each, the same games every time) and against the pool; log the win rates;
3. if it wins ``promote_win_rate`` of the pool games, export it as a snapshot into the pool;
4. checkpoint every ``checkpoint_every`` timesteps.

Everything lands in ``<out_dir>/<name>/`` (:class:`~five_towers_env.training.run_folder.RunFolder`): ``config.yaml``,
``checkpoints/step_N.zip`` (with ``step_N.json``: config, seed, pool and evaluation log at that point;
written atomically, see :mod:`.checkpoints`), ``snapshots/``, ``eval_log.csv`` and ``learning_curve.png``
(both rewritten at every evaluation, so a stopped run has its curve), TensorBoard logs in ``tb/``, and at
the end ``policy.npz`` (the exported actor, playable with numpy alone as the ``ppo`` agent; its ``meta``
names the game).

Seeds: ``cfg.seed`` seeds torch, numpy and the environments (through SB3), and evaluation games
use fixed seeds, so a run is reproducible on one machine with the same settings. A resumed run
continues from the checkpoint's weights, optimiser state, timestep count and pool, but its
environments restart their generators, so it is not bit-identical to an uninterrupted run. It
writes into the run folder that holds its checkpoint, not the one its config recorded.

Ctrl-C (or SIGTERM) during :meth:`PPOTrainer.run` saves a checkpoint of the current model and raises
:class:`~five_towers_env.training.interrupts.TrainingInterrupted` (a ``KeyboardInterrupt``) naming it.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from five_towers_env.agents.network_file import export_policy
from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.training.interrupts import TrainingInterrupted, signal_number, sigterm_as_interrupt
from five_towers_env.training.ppo.checkpoints import (
    RUN_FILES,
    CheckpointError,
    checkpoint_run_dir,
    checkpoint_state,
    newest_whole_checkpoint,
    relocated_snapshots,
    resolve_checkpoint,
    resume_config,
    save_checkpoint,
)
from five_towers_env.training.ppo.config import (
    ConfigError,
    TrainConfig,
    build_config,
    config_from_dict,
    config_to_dict,
    games_problem,
    init_policy_path,
    load_config,
    setup_key,
)
from five_towers_env.training.ppo.eval_games import evaluation_games
from five_towers_env.training.ppo.pool import OpponentPool
from five_towers_env.training.ppo.reward import shape_reward
from five_towers_env.training.run_folder import RunFolder, progress_logger
from five_towers_env.training.trainer import TrainerBase, TrainResult
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

EVAL_LOG = "eval_log.csv"
LEARNING_CURVE = "learning_curve.png"

EVAL_SEED = 1_000_003  # evaluation games are the same at every evaluation and in every run


def make_game(cfg: TrainConfig, sampler: Any, index: int = 0) -> SingleAgentGymEnv:
    """Training game ``index``: the learner against opponents drawn from the pool ``sampler``, in setup
    ``cfg.setup_list[index % len]``."""
    setups = cfg.setup_list
    players, variant = setups[index % len(setups)]
    return SingleAgentGymEnv(cfg.game, num_players=players, variant=variant, opponent_sampler=sampler)


def _games_in_process(cfg_dict: dict[str, Any], sampler: Any, count: int, first: int = 0) -> Any:
    from five_towers_env.training.ppo.vec_env import SelfPlayVecEnv  # SB3: the rl extra

    cfg = config_from_dict(cfg_dict)
    return SelfPlayVecEnv([make_game(cfg, sampler, first + i) for i in range(count)],
                          shape_reward(cfg.reward_margin, cfg.tie_reward))


def make_vec_env(cfg: TrainConfig, sampler: Any) -> Any:
    """``n_envs`` training games: on the native core in this process (``vector_env: native``,
    :mod:`.native_games`), else stepped together in this process (``SelfPlayVecEnv``) or split over
    ``env_workers`` worker processes (``ProcessVecEnv``) if ``cfg.subproc`` (see :mod:`.vec_env`)."""
    import functools

    if cfg.vector_env == "native":
        from five_towers_env.training.ppo.native_games import NativeGames

        return NativeGames(cfg, sampler)
    from five_towers_env.training.ppo.vec_env import ProcessVecEnv

    workers = min(cfg.env_workers, cfg.n_envs) if cfg.subproc else 1
    if workers <= 1:
        return _games_in_process(config_to_dict(cfg), sampler, cfg.n_envs)
    sizes = [len(part) for part in np.array_split(np.arange(cfg.n_envs), workers)]
    firsts = np.cumsum([0, *sizes])[:-1]
    makers = [functools.partial(_games_in_process, config_to_dict(cfg), sampler, size, int(first))
              for size, first in zip(sizes, firsts)]
    probe = make_game(cfg, sampler)
    return ProcessVecEnv(makers, sizes, probe.observation_space, probe.action_space)


def episode_callback(total: int, start: int, progress: bool, threads: tuple[int, int] | None = None,
                     note: str = "") -> BaseCallback:
    """An SB3 callback that logs the learner's game outcomes (``episode/score``, ``episode/margin``,
    ``episode/win``) and advances a progress bar over the whole run (steps, steps/s, time left and
    ``note``, the last evaluation; ``close_bar()`` ends it early). ``threads``: torch threads
    ``(during rollouts, during updates)``."""
    from stable_baselines3.common.callbacks import BaseCallback

    class EpisodeStats(BaseCallback):
        def _on_rollout_start(self) -> None:
            if threads:
                import torch

                torch.set_num_threads(threads[0])

        def _on_rollout_end(self) -> None:
            if threads:
                import torch

                torch.set_num_threads(threads[1])

        def _on_training_start(self) -> None:
            self.bar = None
            if progress:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=min(start, total), unit="step", desc="training",
                                dynamic_ncols=True, mininterval=2.0, smoothing=0.05)
                if note:
                    self.bar.set_postfix_str(note, refresh=False)

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                for key, value in info.get("episode_outcome", {}).items():
                    self.logger.record_mean(f"episode/{key}", value)
            if self.bar is not None:
                # SB3 rounds learn(n) up to whole rollouts, past the run's total: the bar stops at it
                self.bar.update(max(0, min(self.num_timesteps, total) - self.bar.n))
            return True

        def _on_training_end(self) -> None:
            self.close_bar()

        def close_bar(self) -> None:
            bar = getattr(self, "bar", None)
            if bar is not None:
                bar.close()

    return EpisodeStats()


def _new_model(cfg: TrainConfig, venv: Any) -> MaskablePPO:
    import torch
    from sb3_contrib import MaskablePPO

    p = cfg.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy: Any = "MlpPolicy"  # its input and output sizes come from the env's spaces: either game
    net_arch = {"pi": list(p.net_arch), "vf": list(p.net_arch)}
    policy_kwargs: dict[str, Any] = {"net_arch": net_arch, "activation_fn": activation}
    if p.architecture == "typed":  # the game's own layout (config validation refuses a game without one)
        from five_towers_env.training.ppo.networks import TypedPolicy

        policy, net_arch["pi"] = TypedPolicy, []  # the typed actor reads the observation itself
        policy_kwargs["game"] = cfg.game
    return MaskablePPO(
        policy, venv, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed, device="cpu",
        policy_kwargs=policy_kwargs, tensorboard_log=None, verbose=0)


class PPOTrainer(TrainerBase):
    """One run: builds (or resumes) the model, the pool and the environments, then :meth:`run` (the
    :class:`~five_towers_env.training.trainer.Trainer` protocol)."""

    method: ClassVar[str] = "ppo"
    run_files: ClassVar[tuple[str, ...]] = RUN_FILES

    @classmethod
    def load_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
        """A training config file with ``overrides`` (:func:`.config.load_config`), whose training games can be
        made here (``vector_env: native`` needs the game's native core built)."""
        cfg = load_config(path, overrides)
        problem = games_problem(cfg)
        if problem is not None:
            raise ConfigError(f"{problem}; or train on the Python games (vector_env: python)")
        return cfg

    @classmethod
    def resume_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[TrainConfig, Path]:
        """The checkpoint ``path`` names (a run folder: its newest whole one) and its stored config with
        ``overrides``, writing into the checkpoint's run folder unless ``out_dir`` / ``name`` say otherwise. The run
        goes on on the training games it had (``vector_env``), or stops here, in one line, where those are the
        native core's and that is not built."""
        checkpoint = resolve_checkpoint(path)
        stored, state = checkpoint.with_suffix(".json"), resume_config(checkpoint)
        cfg = build_config(config_to_dict(state), overrides, source=str(stored))
        problem = games_problem(cfg)
        if problem is not None:
            how = ("this run trained on the native core's games: resume it where that is built, or go on on the "
                   "Python games with --set vector_env=python") if state.vector_env == "native" else \
                "or resume on the Python games (vector_env: python)"
            raise ConfigError(f"{stored}: {problem}; {how}")
        return cfg, checkpoint

    @classmethod
    def newest_checkpoint(cls, run_dir: Path) -> Path | None:
        """The newest whole ``checkpoints/step_N.zip`` of the run in ``run_dir``."""
        return newest_whole_checkpoint(run_dir)

    @classmethod
    def checkpoint_run(cls, checkpoint: Path) -> Path | None:
        """``<run>`` for ``<run>/checkpoints/step_N.zip``."""
        return checkpoint_run_dir(checkpoint)



    def __init__(self, cfg: TrainConfig, resume: str | Path | None = None, progress: bool = True) -> None:
        import torch

        self.created = time.time()
        self.cfg, self.progress = cfg, progress
        self.run_dir = cfg.run_dir
        self.folder = RunFolder(cfg.run_dir, RUN_FILES)
        resume = resolve_checkpoint(resume) if resume else None  # a run folder: its newest whole checkpoint
        self.callback: Any = None  # the current chunk's episode_callback or LeanProgress (its progress bar)
        self._lean: Any = None  # the lean loop (ppo.loop: lean), built at the first chunk
        self.last_eval = ""  # the last evaluation's win rates, for the progress bar
        self._last_eval: tuple[int, float, float] | None = None  # its (steps, end time, seconds)
        state = checkpoint_state(resume) if resume else None
        torch.set_num_threads(cfg.torch_threads)
        # torch checks every distribution's arguments by default: a quarter of the masked distribution's
        # cost at each rollout step, for a check that changes no number
        torch.distributions.Distribution.set_default_validate_args(False)
        self.pool = OpponentPool(cfg.pool, cfg.num_players, game=cfg.game)
        self.eval_rows: list[dict[str, float]] = []
        if state:
            self.pool.snapshots = relocated_snapshots(state, self.run_dir)
            self.eval_rows = list(state["eval_rows"])
        self.venv = make_vec_env(cfg, self.pool.sampler())
        self.model = self._load(resume) if resume else _new_model(cfg, self.venv)
        if not resume and cfg.init_policy:
            from five_towers_env.training.ppo.warm_start import load_actor

            try:
                load_actor(self.model, init_policy_path(cfg.init_policy))
            except ValueError:
                self.venv.close()
                raise
        # only now, with the checkpoint loaded, is anything written: a failed resume changes nothing
        for sub in ("checkpoints", "snapshots"):
            (self.run_dir / sub).mkdir(parents=True, exist_ok=True)
        self.folder.write_config(config_to_dict(cfg))
        # exempt from the atomic writer: tb/ holds TensorBoard's event files and SB3's progress.csv,
        # which their writers append to as the run goes (see five_towers_env/atomic.py)
        self.model.set_logger(progress_logger(self.run_dir / "tb", resume=bool(resume)))
        if not resume and cfg.imitation.games:
            self.imitate()
        self._write_eval_log()

    def _load(self, checkpoint: str | Path) -> Any:
        from sb3_contrib import MaskablePPO

        try:
            return MaskablePPO.load(checkpoint, env=self.venv, device="cpu")
        except Exception as e:  # checked whole already: a config that does not fit it (game, players...)
            self.venv.close()
            raise CheckpointError(f"checkpoint {checkpoint} cannot be resumed with this config: "
                                  f"{type(e).__name__}: {e}") from e

    def imitate(self) -> dict[str, float]:
        """Warm start: fit the policy to the teacher's decisions against the initial pool."""
        from five_towers_env.training.ppo.imitation import collect_in_parts, collect_teacher_games, fit_policy

        cfg = self.cfg
        if self.progress:
            print(f"imitation: {cfg.imitation.games} games of {cfg.imitation.teacher} ...", flush=True)
        seed = cfg.seed * 7919 + 17
        workers = self._workers()
        if workers is not None:  # worker processes: they play the teacher's games, in parts
            data = collect_in_parts(workers.map, len(workers.remotes), cfg, self.pool.sampler(), seed)
        else:
            data = collect_teacher_games(cfg, self.pool.sampler(), seed=seed)
        stats = fit_policy(self.model, data, cfg, seed=cfg.seed, log=self.model.logger)
        if self.progress:
            print(f"imitation: {len(data['action'])} decisions, " + ", ".join(f"{k} {v:.3f}" for k, v in stats.items()),
                  flush=True)
        return stats

    # -- evaluation and the pool ------------------------------------------------------------

    def current_agent(self) -> PolicyAgent:
        """The current policy as a deterministic numpy agent."""
        path = export_policy(self.model, self.run_dir / "policy.npz", **self._meta())
        return PolicyAgent(path, game=self.cfg.game)

    def _meta(self) -> dict[str, Any]:
        # "game" makes an exported policy refuse to be seated in the other game (PolicyAgent)
        meta = {"game": self.cfg.game, "num_players": self.cfg.num_players, "variant": self.cfg.variant,
                "timesteps": int(self.model.num_timesteps), "seed": self.cfg.seed, "name": self.cfg.name}
        if self.cfg.setups:  # several setups: the first also fills num_players / variant (trained_setup())
            meta["num_players"], meta["variant"] = self.cfg.setup_list[0]
            meta["setups"] = [setup_key(*setup) for setup in self.cfg.setup_list]
        return meta

    def evaluate(self) -> dict[str, float]:
        """Win rates against each evaluation baseline and the pool, in every setup; promote a snapshot if
        earned. With several setups the keys carry ``@<setup>`` and the pool test compares the mean of each
        setup's win rate scaled to two players (``rate * n / 2``) with ``promote_win_rate``."""
        cfg, steps = self.cfg, int(self.model.num_timesteps)
        t0 = time.time()
        path = self.current_agent().path
        row: dict[str, float] = {"timesteps": steps, "wall_s": round(t0 - self.start, 1)}
        setups = cfg.setup_list
        suffix = {setup: f"@{setup_key(*setup)}" if cfg.setups else "" for setup in setups}
        jobs: list[tuple[Any, ...]]  # evaluation_games' arguments: an opponent's name or the pool's sampler
        jobs, keys = [], []
        for setup in setups:
            for name in cfg.eval_opponents:
                jobs.append((str(path), cfg.game, *setup, name, cfg.eval_games, EVAL_SEED))
                keys.append(f"{name}{suffix[setup]}")
        if cfg.pool.snapshot_weight > 0:
            for setup in setups:
                jobs.append((str(path), cfg.game, *setup, self.pool.sampler(), cfg.pool.promote_games,
                             EVAL_SEED + steps))
        results = self._play_evaluations(jobs)
        for key, result in zip(keys, results):
            row[f"win_rate_vs_{key}"] = result["win_rate"]
            row[f"margin_vs_{key}"] = result["margin"]
            self.model.logger.record(f"eval/win_rate_vs_{key}", result["win_rate"])
            self.model.logger.record(f"eval/margin_vs_{key}", result["margin"])
        if cfg.pool.snapshot_weight > 0:
            pool_results = results[len(keys):]
            pool_rate = float(np.mean([r["win_rate"] * n / 2 for r, (n, _) in zip(pool_results, setups)]))
            row["win_rate_vs_pool"] = pool_rate
            self.model.logger.record("eval/win_rate_vs_pool", pool_rate)
            if pool_rate >= cfg.pool.promote_win_rate:
                snap = export_policy(self.model, self.run_dir / "snapshots" / f"step_{steps}.npz", **self._meta())
                self.pool.add_snapshot(snap)
                self.venv.env_method("set_opponents", sampler=self.pool.sampler())
            row["snapshots"] = len(self.pool.snapshots)
            self.model.logger.record("pool/snapshots", len(self.pool.snapshots))
        self._log_throughput(steps, t0, time.time() - t0)
        self.model.logger.dump(steps)
        self.last_eval = "last evaluation: " + ", ".join(
            f"{k[len('win_rate_vs_'):]} {v:.2f}" for k, v in row.items() if k.startswith("win_rate_vs_"))
        self.eval_rows.append(row)
        self._write_eval_log()
        return row

    def _play_evaluations(self, jobs: list[tuple[Any, ...]]) -> list[dict[str, float]]:
        """:func:`evaluation_games` of each job. The worker processes (:meth:`_workers`) wait between rollouts,
        so the games go to them, each job's seeded games split in equal parts (a game's result depends on its
        seed only, so the split changes no baseline's figures; a pool's snapshots sample their moves)."""
        workers = self._workers()
        if workers is None:
            return [evaluation_games(*job) for job in jobs]
        run, parts = workers.map, len(workers.remotes)
        pieces = []
        for job in jobs:
            *head, games, seed = job
            sizes = [len(x) for x in np.array_split(np.arange(games), parts)]
            starts = np.cumsum([0, *sizes])[:-1]
            pieces.append([(*head, size, seed + int(start)) for size, start in zip(sizes, starts) if size])
        flat = run(evaluation_games, [piece for job_pieces in pieces for piece in job_pieces])
        results = []
        for job_pieces in pieces:
            part, flat = flat[:len(job_pieces)], flat[len(job_pieces):]
            games = sum(piece[-2] for piece in job_pieces)
            results.append({key: sum(r[key] * piece[-2] for r, piece in zip(part, job_pieces)) / games
                            for key in part[0]})
        return results

    def _workers(self) -> Any:
        """The worker processes that play the evaluation and teacher games (``map``, ``remotes``): the
        environment workers (``ProcessVecEnv``), or the helpers of a run on native games; None: this process."""
        helpers = getattr(self.venv, "helpers", None)
        if helpers is not None:
            return helpers
        return self.venv if hasattr(self.venv, "map") else None

    def _log_throughput(self, steps: int, eval_start: float, eval_s: float) -> None:
        """TensorBoard ``throughput/*``: learner steps per second since the last evaluation, with and
        without the evaluations, and the seconds this evaluation took."""
        last = self._last_eval
        if last is not None and steps > last[0]:
            train_s = max(eval_start - last[1], 1e-9)
            self.model.logger.record("throughput/steps_per_s", (steps - last[0]) / train_s)
            self.model.logger.record("throughput/steps_per_s_with_eval", (steps - last[0]) / (train_s + last[2]))
        self.model.logger.record("throughput/eval_s", eval_s)
        self._last_eval = (steps, eval_start + eval_s, eval_s)

    def _train(self) -> None:
        cfg = self.cfg
        if not self.eval_rows:
            self.evaluate()  # the untrained policy: the first point of the learning curve
        next_ckpt = (self.model.num_timesteps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        if self.model.num_timesteps < cfg.value_warmup_steps:
            from five_towers_env.training.ppo.warm_start import frozen_actor

            with frozen_actor(self.model.policy):
                self.learn_steps(cfg.value_warmup_steps - int(self.model.num_timesteps))
            self.evaluate()
        while self.model.num_timesteps < cfg.total_timesteps:
            steps = int(self.model.num_timesteps)
            chunk = min(cfg.eval_every - steps % cfg.eval_every, cfg.total_timesteps - steps)
            self.learn_steps(chunk)
            self.evaluate()
            if self.model.num_timesteps >= next_ckpt or self.model.num_timesteps >= cfg.total_timesteps:
                self.checkpoint()
                next_ckpt += cfg.checkpoint_every

    def learn_steps(self, steps: int) -> None:
        """Train ``steps`` more learner decisions (rounded up to whole rollouts), without evaluating, with the
        config's loop (``ppo.loop``)."""
        cfg = self.cfg
        threads = (cfg.rollout_threads, cfg.torch_threads)
        if cfg.ppo.loop == "lean":
            from five_towers_env.training.ppo.lean import LeanLoop, LeanProgress

            if self._lean is None:
                self._lean = LeanLoop(self.model, self.venv, threads)
            self.callback = LeanProgress(self.model, cfg.total_timesteps, self.progress, self.last_eval)
            try:
                self._lean.learn(steps, self.callback)
            finally:
                self.callback.close_bar()
            return
        self.callback = episode_callback(cfg.total_timesteps, int(self.model.num_timesteps), self.progress,
                                         threads, self.last_eval)
        self.model.learn(steps, reset_num_timesteps=False, callback=self.callback)

    def _interrupted(self, signum: int) -> TrainingInterrupted:
        """Save the current model and end the workers, which ignore the signal. Mid-rollout is fine (SB3
        saves no rollout: a resumed run collects a fresh one); inside an update, at worst one minibatch
        step is half applied, which training absorbs like any other noisy step."""
        if self.callback is not None:
            self.callback.close_bar()  # the message goes on a line of its own
        for process in getattr(self._workers(), "processes", []):
            process.kill()  # they ignore SIGINT, and their pipes may hold half a reply: no close()
        return TrainingInterrupted(self.checkpoint(), signum)

    def _write_eval_log(self) -> None:
        if self.eval_rows:  # rewritten whole at each evaluation: a kill leaves the previous log and curve
            self.folder.write_curve(EVAL_LOG, self.eval_rows)
            self.folder.plot_curve(EVAL_LOG, LEARNING_CURVE)

    def checkpoint(self) -> Path:
        """Save model + optimiser (``.zip``) and the config, seed, pool and log (``.json``), atomically."""
        steps = int(self.model.num_timesteps)
        state = {"timesteps": steps, "seed": self.cfg.seed, "config": config_to_dict(self.cfg),
                 "snapshots": self.pool.snapshots, "eval_rows": self.eval_rows}
        return save_checkpoint(self.model, state, self.run_dir / "checkpoints" / f"step_{steps}.zip")

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> TrainResult:
        """Train to ``total_timesteps``; the result names the exported ``policy.npz``. Ctrl-C or SIGTERM saves
        a checkpoint and raises :class:`TrainingInterrupted`."""
        # wall_s counts from the start of a new run (its warm start included), or continues a resumed one's
        self.start = time.time() - self.eval_rows[-1]["wall_s"] if self.eval_rows else self.created
        try:
            with sigterm_as_interrupt():
                self._train()
        except KeyboardInterrupt as e:
            raise self._interrupted(signal_number(e)) from None
        self.venv.close()
        policy = export_policy(self.model, self.run_dir / "policy.npz", **self._meta())
        curve = self.run_dir / LEARNING_CURVE
        return TrainResult(self.run_dir, policy, f"ppo:path={policy}", self.cfg.game,
                           curve if curve.exists() else None)


