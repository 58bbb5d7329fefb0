"""Self-play training with sb3-contrib's ``MaskablePPO`` (one readable loop, CleanRL style).

    five-towers train --config configs/ppo_selfplay_2p.yaml
    five-towers train --resume runs/ppo_selfplay_2p/checkpoints/step_400000.zip

The learner plays a random seat of :class:`~five_towers_env.wrappers.SingleAgentGymEnv` for the
config's ``game`` (5 Towers or Campanile) against opponents drawn each game from an
:class:`~.pool.OpponentPool` (that game's baselines plus frozen snapshots of itself). The run alternates PPO
training with evaluations:

1. train ``eval_every`` timesteps;
2. evaluate the current policy against each baseline of ``eval_opponents`` (``eval_games``
   seeded games each, the same games every time) and against the pool; log the win rates;
3. if it wins ``promote_win_rate`` of the pool games, export it as a snapshot into the pool;
4. checkpoint every ``checkpoint_every`` timesteps.

Everything lands in ``<out_dir>/<name>/``: ``config.yaml``, ``checkpoints/step_N.zip`` (with
``step_N.json``: config, seed, pool and evaluation log at that point; written atomically, see
:mod:`.checkpoints`), ``snapshots/``,
``eval_log.csv``, TensorBoard logs in ``tb/``, and at the end ``policy.npz`` (the exported
actor, playable with numpy alone as the ``ppo`` agent; its ``meta`` names the game) and
``learning_curve.png``.

Seeds: ``cfg.seed`` seeds torch, numpy and the environments (through SB3), and evaluation games
use fixed seeds, so a run is reproducible on one machine (with ``torch_threads: 1``). A resumed run
continues from the checkpoint's weights, optimiser state, timestep count and pool, but its
environments restart their generators, so it is not bit-identical to an uninterrupted run. It
writes into the run folder that holds its checkpoint, not the one its config recorded.

Ctrl-C (or SIGTERM) during :meth:`Trainer.run` saves a checkpoint of the current model and raises
:class:`TrainingInterrupted` (a ``KeyboardInterrupt``) naming it.
"""
from __future__ import annotations

import contextlib
import csv
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from five_towers_env.agents.policy import PolicyAgent, export_policy
from five_towers_env.core.game import DEFAULT_GAME
from five_towers_env.training.checkpoints import (
    CheckpointError,
    checkpoint_state,
    relocated_snapshots,
    resume_config,  # noqa: F401  (its old home: importable from here too)
    save_checkpoint,
)
from five_towers_env.training.config import TrainConfig, config_from_dict, config_to_dict, save_config
from five_towers_env.training.pool import OpponentPool
from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

EVAL_SEED = 1_000_003  # evaluation games are the same at every evaluation and in every run


class ShapedReward(gymnasium.Wrapper):
    """Adds ``coef`` x score margin to the final win/loss reward and reports the game's outcome
    in ``info["episode_outcome"]`` (score, margin, win) for logging."""

    def __init__(self, env: SingleAgentGymEnv, coef: float) -> None:
        super().__init__(env)
        self.coef = coef

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated and info["phase"] == "game_over":  # not after an illegal action
            seat, scores = info["learner_seat"], info["scores"].tolist()
            margin = scores[seat] - max(s for i, s in enumerate(scores) if i != seat)
            info["episode_outcome"] = {"score": scores[seat], "margin": margin, "win": float(info["winners"][seat])}
            reward += self.coef * margin
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (for ``MaskablePPO``)."""
        return self.env.action_masks()


def make_training_env(cfg: TrainConfig, sampler: Any, rank: int = 0) -> gymnasium.Env:
    """One training environment: the single-agent game against the pool, shaped reward, episode stats."""
    from stable_baselines3.common.monitor import Monitor

    env = SingleAgentGymEnv(cfg.game, num_players=cfg.num_players, variant=cfg.variant, opponent_sampler=sampler)
    return Monitor(ShapedReward(env, cfg.reward_margin))


def _env_factory(cfg_dict: dict[str, Any], sampler: Any, rank: int):
    return make_training_env(config_from_dict(cfg_dict), sampler, rank)


def _worker_env_factory(cfg_dict: dict[str, Any], sampler: Any, rank: int):
    # Ctrl-C in a terminal signals the whole process group: a worker must not die of it while the
    # trainer saves its checkpoint; the trainer ends the workers itself. SIGTERM is left as it is:
    # multiprocessing ends leftover workers with it at exit (after a Ctrl-C during the warm start, say),
    # and a worker that ignored it would hang that exit; the checkpoint needs only the trainer's model
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return _env_factory(cfg_dict, sampler, rank)


def make_vec_env(cfg: TrainConfig, sampler: Any):
    """``n_envs`` training environments, in worker processes if ``cfg.subproc``."""
    import functools

    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg.subproc and cfg.n_envs > 1:
        fns = [functools.partial(_worker_env_factory, config_to_dict(cfg), sampler, rank) for rank in range(cfg.n_envs)]
        return SubprocVecEnv(fns, start_method="fork" if hasattr(__import__("os"), "fork") else "spawn")
    fns = [functools.partial(_env_factory, config_to_dict(cfg), sampler, rank) for rank in range(cfg.n_envs)]
    return DummyVecEnv(fns)


def play_games(agent: Any, num_players: int, variant: str, opponents: Any, games: int,
               seed: int, game: str = DEFAULT_GAME) -> dict[str, float]:
    """Win rate (shared wins count), mean score and margin of ``agent`` (any agent of ``game``: it
    gets the game's usual ``agent_info``) over ``games`` seeded games in random seats; ``opponents``
    is a registry name of ``game`` or a pool sampler."""
    kwargs = {"opponent_sampler": opponents} if callable(opponents) else {"opponents": opponents}
    gym_env = SingleAgentGymEnv(game, num_players=num_players, variant=variant, **kwargs)
    env = ShapedReward(gym_env, 0.0)
    wins = score = margin = 0.0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        terminated = False
        while not terminated:
            mask = env.action_masks().astype(np.int8)
            action = agent.act({"observation": obs, "action_mask": mask}, gym_env.learner_info())
            obs, _, terminated, _, info = env.step(action)
        outcome = info["episode_outcome"]
        wins += outcome["win"]
        score += outcome["score"]
        margin += outcome["margin"]
    return {"win_rate": wins / games, "score": score / games, "margin": margin / games}


def episode_callback(total: int, start: int, progress: bool):
    """An SB3 callback that logs the learner's game outcomes (``episode/score``, ``episode/margin``,
    ``episode/win``) and advances a progress bar over the whole run (``close_bar()`` ends it early)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class EpisodeStats(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = None
            if progress:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=min(start, total), unit="step", desc="training",
                                dynamic_ncols=True, mininterval=2.0)

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
            if getattr(self, "bar", None) is not None:
                self.bar.close()

    return EpisodeStats()


def _new_model(cfg: TrainConfig, venv: Any):
    import torch
    from sb3_contrib import MaskablePPO

    p = cfg.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    policy: Any = "MlpPolicy"  # its input and output sizes come from the env's spaces: either game
    net_arch = {"pi": list(p.net_arch), "vf": list(p.net_arch)}
    if p.architecture == "typed":  # 5 Towers only (config validation refuses it for another game)
        from five_towers_env.training.networks import TypedPolicy

        policy, net_arch["pi"] = TypedPolicy, []  # the typed actor reads the observation itself
    return MaskablePPO(
        policy, venv, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed, device="cpu",
        policy_kwargs={"net_arch": net_arch, "activation_fn": activation},
        tensorboard_log=None, verbose=0)


class Trainer:
    """One run: builds (or resumes) the model, the pool and the environments, then :meth:`run`."""

    def __init__(self, cfg: TrainConfig, resume: str | Path | None = None, progress: bool = True) -> None:
        import torch
        from stable_baselines3.common.logger import configure

        self.cfg, self.progress = cfg, progress
        self.run_dir = cfg.run_dir
        self.callback: Any = None  # the current chunk's episode_callback (its progress bar)
        state = checkpoint_state(resume) if resume else None
        torch.set_num_threads(cfg.torch_threads)
        self.pool = OpponentPool(cfg.pool, cfg.num_players, game=cfg.game)
        self.eval_rows: list[dict[str, float]] = []
        if state:
            self.pool.snapshots = relocated_snapshots(state, self.run_dir)
            self.eval_rows = list(state["eval_rows"])
        self.venv = make_vec_env(cfg, self.pool.sampler())
        self.model = self._load(resume) if resume else _new_model(cfg, self.venv)
        # only now, with the checkpoint loaded, is anything written: a failed resume changes nothing
        for sub in ("checkpoints", "snapshots"):
            (self.run_dir / sub).mkdir(parents=True, exist_ok=True)
        save_config(cfg, self.run_dir / "config.yaml")
        self.model.set_logger(configure(str(self.run_dir / "tb"), ["tensorboard", "csv"]))
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
        from five_towers_env.training.imitation import collect_teacher_games, fit_policy

        cfg = self.cfg
        if self.progress:
            print(f"imitation: {cfg.imitation.games} games of {cfg.imitation.teacher} ...", flush=True)
        data = collect_teacher_games(cfg, self.pool.sampler(), seed=cfg.seed * 7919 + 17)
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
        return {"game": self.cfg.game, "num_players": self.cfg.num_players, "variant": self.cfg.variant,
                "timesteps": int(self.model.num_timesteps), "seed": self.cfg.seed, "name": self.cfg.name}

    def evaluate(self) -> dict[str, float]:
        """Win rates against each evaluation baseline and the pool; promote a snapshot if earned."""
        cfg, steps = self.cfg, int(self.model.num_timesteps)
        agent = self.current_agent()
        row: dict[str, float] = {"timesteps": steps, "wall_s": round(time.time() - self.start, 1)}
        for name in cfg.eval_opponents:
            result = play_games(agent, cfg.num_players, cfg.variant, name, cfg.eval_games, EVAL_SEED, game=cfg.game)
            row[f"win_rate_vs_{name}"] = result["win_rate"]
            row[f"margin_vs_{name}"] = result["margin"]
            self.model.logger.record(f"eval/win_rate_vs_{name}", result["win_rate"])
            self.model.logger.record(f"eval/margin_vs_{name}", result["margin"])
        if cfg.pool.snapshot_weight > 0:
            pool_result = play_games(agent, cfg.num_players, cfg.variant, self.pool.sampler(),
                                     cfg.pool.promote_games, EVAL_SEED + steps, game=cfg.game)
            row["win_rate_vs_pool"] = pool_result["win_rate"]
            self.model.logger.record("eval/win_rate_vs_pool", pool_result["win_rate"])
            if pool_result["win_rate"] >= cfg.pool.promote_win_rate:
                snap = export_policy(self.model, self.run_dir / "snapshots" / f"step_{steps}.npz", **self._meta())
                self.pool.add_snapshot(snap)
                self.venv.env_method("set_opponents", sampler=self.pool.sampler())
            row["snapshots"] = len(self.pool.snapshots)
            self.model.logger.record("pool/snapshots", len(self.pool.snapshots))
        self.model.logger.dump(steps)
        self.eval_rows.append(row)
        self._write_eval_log()
        return row

    def _train(self) -> None:
        cfg = self.cfg
        if not self.eval_rows:
            self.evaluate()  # the untrained policy: the first point of the learning curve
        next_ckpt = (self.model.num_timesteps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        while self.model.num_timesteps < cfg.total_timesteps:
            steps = int(self.model.num_timesteps)
            chunk = min(cfg.eval_every - steps % cfg.eval_every, cfg.total_timesteps - steps)
            self.callback = episode_callback(cfg.total_timesteps, steps, self.progress)
            self.model.learn(chunk, reset_num_timesteps=False, callback=self.callback)
            self.evaluate()
            if self.model.num_timesteps >= next_ckpt or self.model.num_timesteps >= cfg.total_timesteps:
                self.checkpoint()
                next_ckpt += cfg.checkpoint_every

    def _interrupted(self, signum: int) -> TrainingInterrupted:
        """Save the current model and end the workers, which ignore the signal. Mid-rollout is fine (SB3
        saves no rollout: a resumed run collects a fresh one); inside an update, at worst one minibatch
        step is half applied, which training absorbs like any other noisy step."""
        if self.callback is not None:
            self.callback.close_bar()  # the message goes on a line of its own
        for process in getattr(self.venv, "processes", []):
            process.kill()  # they ignore SIGINT, and their pipes may hold half a reply: no close()
        return TrainingInterrupted(self.checkpoint(), signum)

    def _write_eval_log(self) -> None:
        if not self.eval_rows:
            return
        keys = list(dict.fromkeys(k for row in self.eval_rows for k in row))
        with open(self.run_dir / "eval_log.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keys)
            writer.writeheader()
            writer.writerows(self.eval_rows)

    def checkpoint(self) -> Path:
        """Save model + optimiser (``.zip``) and the config, seed, pool and log (``.json``), atomically."""
        steps = int(self.model.num_timesteps)
        state = {"timesteps": steps, "seed": self.cfg.seed, "config": config_to_dict(self.cfg),
                 "snapshots": self.pool.snapshots, "eval_rows": self.eval_rows}
        return save_checkpoint(self.model, state, self.run_dir / "checkpoints" / f"step_{steps}.zip")

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> Path:
        """Train to ``total_timesteps``; return the exported ``policy.npz``. Ctrl-C or SIGTERM saves a
        checkpoint and raises :class:`TrainingInterrupted`."""
        self.start = time.time() - (self.eval_rows[-1]["wall_s"] if self.eval_rows else 0.0)
        try:
            with _sigterm_as_interrupt():
                self._train()
        except KeyboardInterrupt as e:
            raise self._interrupted(getattr(e, "signum", signal.SIGINT)) from None
        self.venv.close()
        policy = export_policy(self.model, self.run_dir / "policy.npz", **self._meta())
        try:
            plot_learning_curve(self.run_dir / "eval_log.csv", self.run_dir / "learning_curve.png")
        except ImportError:  # matplotlib is optional (the eval extra)
            pass
        return policy


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped by Ctrl-C (or SIGTERM, ``signum``) after saving ``checkpoint``."""

    def __init__(self, checkpoint: Path, signum: int = signal.SIGINT) -> None:
        super().__init__(f"interrupted: saved checkpoint {checkpoint}")
        self.checkpoint, self.signum = checkpoint, int(signum)


class _Terminated(KeyboardInterrupt):
    signum = signal.SIGTERM


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, a job scheduler's stop) ends training as Ctrl-C does, with a checkpoint."""
    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: signals cannot be handled here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def train(cfg: TrainConfig, resume: str | Path | None = None, progress: bool = True) -> Path:
    """Run (or resume) training; return the path of the exported policy."""
    return Trainer(cfg, resume=resume, progress=progress).run()


def plot_learning_curve(eval_log: str | Path, png: str | Path, title: str | None = None) -> Path:
    """Plot the win rate against each evaluation opponent over training timesteps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(eval_log, newline="") as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["timesteps"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key in rows[0]:
        if key.startswith("win_rate_vs_"):
            ax.plot(steps, [float(r[key]) if r.get(key) else np.nan for r in rows], marker=".",
                    label=key[len("win_rate_vs_"):])
    ax.set_xlabel("training timesteps (learner decisions)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(title="against")
    ax.set_title(title or f"{Path(eval_log).parent.name}: win rate during training")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return Path(png)


def evaluation_table(policy: str | Path, num_players: int, variant: str, opponents: list[str], games: int,
                     seed: int = 0, workers: int | None = 1, progress: bool = True,
                     game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    """The policy against each baseline of ``game`` (``num_players - 1`` copies of it), seats rotated, over
    ``games`` seeded paired games: one row per baseline with the policy's
    :func:`~five_towers_env.evaluation.match.summarize` row (win rate with a shared win counting 1/k,
    strict win rate, their 95% intervals clustered by deal, score and margin) and ``opponent``."""
    from five_towers_env.evaluation.match import evaluate

    rows = []
    for name in opponents:
        result = evaluate([("ppo", {"path": str(policy)})] + [name] * (num_players - 1), num_games=games,
                          num_players=num_players, variant=variant, seed=seed, workers=workers, progress=progress,
                          game=game)
        row = dict(result.agents[0])
        row["opponent"] = name
        rows.append(row)
    return rows


def format_evaluation_table(rows: list[dict[str, Any]]) -> str:
    """Rows of :func:`evaluation_table` as an aligned text table."""
    from five_towers_env.evaluation.match import RATE_HEADERS, rate_cells
    from five_towers_env.evaluation.report import text_table

    headers = ["against", "games"] + RATE_HEADERS + ["mean score", "mean margin"]
    body = [[r["opponent"], str(r["games"])] + rate_cells(r) + [f"{r['mean_score']:.2f}", f"{r['mean_margin']:+.2f}"]
            for r in rows]
    return text_table(headers, body)


FINAL_EVAL_MD = "final_eval.md"
FINAL_EVAL_JSON = "final_eval.json"


def final_evaluation(policy: str | Path, cfg: TrainConfig, games: int, workers: int | None = 1,
                     progress: bool = True) -> str:
    """The evaluation table printed at the end of ``five-towers train``: :func:`evaluation_table`
    against ``cfg.eval_opponents`` (seed ``cfg.seed``). Writes it into the run folder as
    ``final_eval.md`` (the same text) and ``final_eval.json`` (the settings and rows); returns the text."""
    from five_towers_env.evaluation.match import WIN_CONVENTION
    from five_towers_env.evaluation.report import write_json, write_text

    rows = evaluation_table(policy, cfg.num_players, cfg.variant, cfg.eval_opponents, games, seed=cfg.seed,
                            workers=workers, progress=progress, game=cfg.game)
    title = "" if cfg.game == DEFAULT_GAME else f"{cfg.game}, "  # 5 Towers' heading predates the second game
    head = f"{policy} against the baselines ({title}{cfg.num_players} players, {cfg.variant}, {games} games each):"
    table = format_evaluation_table(rows)
    write_text(cfg.run_dir / FINAL_EVAL_MD, f"{head}\n\n```\n{table}\n```\n\n{WIN_CONVENTION}\n")
    write_json(cfg.run_dir / FINAL_EVAL_JSON,
               {"policy": str(policy), "game": cfg.game, "num_players": cfg.num_players, "variant": cfg.variant,
                "games": games, "seed": cfg.seed, "paired": True, "win_convention": WIN_CONVENTION, "rows": rows})
    return f"{head}\n{table}\n({WIN_CONVENTION})"
