"""Expert iteration: a policy-value network and the search it guides, each improving the other.

One generation of :class:`ExpertTrainer`:

1. the current network is exported (``network.npz``, what the ``net`` and ``guided`` agents read);
2. the guided search plays ``games_per_generation`` games against itself in ``workers`` processes
   (:func:`~.data.selfplay_games`), or, in the first ``teacher_generations``, the ``teacher``
   search agent does (:func:`~.data.teacher_games`: its candidates' values are the policy
   target); their positions join the replay buffer;
3. ``train_steps`` minibatches from the buffer fit the policy to the search's improved policy and
   the value to the games' outcomes (:func:`~.model.policy_value_loss`);
4. every ``eval_every`` generations, the bare network and the guided search play the game's teacher
   (``GameSpec.teacher``) and the search opponent ``eval_mcts`` on fixed deals (``eval_seed``): the learning curve
   (``curve.csv``, ``curve.png``, TensorBoard under ``tb/``);
5. a checkpoint (``checkpoints/step_G.pt``, ``.npz``, ``.json``: the scheme of
   :mod:`~five_towers_env.training.checkpoint_files`, the
   previous one deleted) and the generation's network (``networks/gen_K.npz``) are written;
   ``five-towers expert --resume <run>`` (or ``<run>/checkpoints/step_G.pt``, or any file of it) goes on
   from the last one (:func:`~.config.resume_expert_config`).

Before the first generation, ``warmup_games`` games of the bare network (sampled moves) teach the
value head (``warmup_steps`` minibatches; the policy's target there is its own distribution, so it
stays where it was): the first search then has a value to go by.

The network starts from the game's shipped ``ppo`` policy (``init_policy``); the value head starts fresh.
The run folder's files are written through :class:`~five_towers_env.training.run_folder.RunFolder`, as
``five-towers train``'s are. Ctrl-C or SIGTERM stops the run (its worker processes too) and raises
:class:`~five_towers_env.training.interrupts.TrainingInterrupted` naming the last checkpoint: the one of the last
finished generation, so that a resumed run plays the same games as one never stopped.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from five_towers_env.core.game import get_game
from five_towers_env.numerics import one_blas_thread
from five_towers_env.training.checkpoint_files import (
    CheckpointError,
    checked_state,
    checkpoint_run_dir,
    resolve_checkpoint,
    write_checkpoint,
)
from five_towers_env.training.expert.config import (
    EXPERT_CHECKPOINT,
    ExpertConfig,
    expert_checkpoint,
    expert_config_to_dict,
    load_expert_config,
    newest_expert_checkpoint,
    resume_expert_config,
)
from five_towers_env.training.expert.data import Positions, ReplayBuffer, network_games, selfplay_games, teacher_games
from five_towers_env.training.expert.model import PolicyValueModel, policy_value_loss
from five_towers_env.training.interrupts import (
    TrainingInterrupted,
    default_sigterm,
    signal_number,
    sigterm_as_interrupt,
)
from five_towers_env.training.run_folder import RunFolder
from five_towers_env.training.trainer import TrainerBase, TrainResult

#: what a run writes into its run folder: a folder holding any of them holds a run, and
#: ``five-towers expert --force`` removes these and only these
EXPERT_RUN_FILES = ("config.yaml", "checkpoints", "network.npz", "networks", "curve.csv", "curve.png", "tb",
                    "provenance.json")
CURVE_CSV, CURVE_PNG = "curve.csv", "curve.png"
#: the bare network and the search it guides, whose win rates the learning curve shows
PLAYERS = ("net", "guided")


def curve_series(teacher: str) -> dict[str, str]:
    """The learning curve's win rates and their labels in ``curve.png``: each player against the game's
    teacher (``GameSpec.teacher``) and against the search opponent ``eval_mcts``."""
    return {f"{who}_vs_{against}": f"{who} vs {against}" for against in (teacher, "mcts") for who in PLAYERS}


def curve_fields(teacher: str) -> tuple[str, ...]:
    """The columns of ``curve.csv``."""
    return ("generation", "games", "positions", "wall_s", "policy_loss", "value_loss",
            *(f"{key}{strict}" for key in curve_series(teacher) for strict in ("", "_strict")))


def _worker_init() -> None:
    one_blas_thread()
    # Ctrl-C reaches the trainer, which ends the workers with SIGTERM: its default action, whatever
    # handler the trainer's process had when it forked them
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _chunks(seeds: list[int], parts: int) -> list[list[int]]:
    """``seeds`` in ``parts`` nearly equal runs, in order (empty ones dropped)."""
    return [list(c) for c in np.array_split(np.asarray(seeds, dtype=np.int64), parts) if len(c)]


class ExpertTrainer(TrainerBase):
    """Runs (or resumes, from the checkpoint ``resume`` names) one expert-iteration run; see the module
    docstring (the :class:`~.trainer.Trainer` protocol)."""

    method: ClassVar[str] = "expert_iteration"
    run_files: ClassVar[tuple[str, ...]] = EXPERT_RUN_FILES

    @classmethod
    def load_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> ExpertConfig:
        """An expert-iteration config file with ``overrides`` (:func:`.config.load_expert_config`)."""
        return load_expert_config(path, overrides)

    @classmethod
    def resume_config(cls, path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[ExpertConfig, Path]:
        """The checkpoint ``path`` names (a run folder: its newest whole one; or any file of a checkpoint) and its
        run's config with ``overrides`` (:func:`.config.resume_expert_config`)."""
        return resume_expert_config(path, overrides)

    @classmethod
    def newest_checkpoint(cls, run_dir: Path) -> Path | None:
        """The newest whole ``checkpoints/step_G.pt`` of the run in ``run_dir`` (a run keeps only its newest)."""
        return newest_expert_checkpoint(run_dir)

    @classmethod
    def checkpoint_run(cls, checkpoint: Path) -> Path | None:
        """``<run>`` for ``<run>/checkpoints/step_G.pt``."""
        return checkpoint_run_dir(checkpoint)



    def __init__(self, cfg: ExpertConfig, resume: str | Path | None = None, progress: bool = True) -> None:
        self.cfg = cfg
        self.progress = progress
        self.dir = cfg.run_dir
        self.folder = RunFolder(cfg.run_dir, EXPERT_RUN_FILES)
        self.spec = get_game(cfg.game)
        self.teacher = self.spec.teacher  # the rule-based opponent of the learning curve
        torch.manual_seed(cfg.seed)
        self.model = PolicyValueModel(cfg.architecture, self.spec.observation_size, self.spec.num_actions,
                                      cfg.num_players, cfg.hidden, game=self.spec.name)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.learning_rate,
                                          weight_decay=cfg.weight_decay)
        self.buffer = ReplayBuffer(cfg.buffer_positions)
        self.rng = np.random.default_rng([cfg.seed, 99])
        self.generation = 0  # generations finished
        self.games = 0
        self.wall_before = 0.0  # seconds spent by earlier sessions of the run
        self.start = time.perf_counter()
        self.losses = {"policy_loss": float("nan"), "value_loss": float("nan")}
        if resume:
            self._load(resume)
        else:  # the policy first: a bad init_policy writes nothing
            init = cfg.init_policy
            if init == "shipped":
                path = self.spec.default_policy()
                if path is None:
                    raise ValueError(f"init_policy: shipped, but {self.spec.title} ships no ppo policy")
                self.model.load_policy(path)
            elif init != "none":
                self.model.load_policy(init)
        self.folder.write_config(expert_config_to_dict(cfg))

    # -- the run ------------------------------------------------------------------------------

    @property
    def wall_s(self) -> float:
        """Seconds of the run so far, over all its sessions."""
        return self.wall_before + time.perf_counter() - self.start

    def run(self) -> TrainResult:
        """Play and train until ``generations`` are done; the result names ``network.npz``. Ctrl-C or SIGTERM
        ends the workers and raises :class:`~five_towers_env.training.interrupts.TrainingInterrupted` naming the last
        checkpoint."""
        from tqdm import tqdm

        cfg, progress = self.cfg, self.progress
        torch.set_num_threads(cfg.torch_threads)
        from torch.utils.tensorboard import SummaryWriter

        # exempt from the atomic writer: TensorBoard appends to its event files as the run goes
        writer = SummaryWriter(str(self.dir / "tb"))
        total = cfg.generations * cfg.games_per_generation
        bar = tqdm(total=total, initial=min(total, self.generation * cfg.games_per_generation), unit="game",
                   desc=f"expert {cfg.name}", disable=not progress, dynamic_ncols=True)
        pool: Pool | None = None
        try:
            with sigterm_as_interrupt():
                if self.generation < cfg.generations:
                    with default_sigterm():  # the workers must not inherit the handler of this block
                        pool = multiprocessing.get_context().Pool(cfg.workers, initializer=_worker_init)
                    if self.generation == 0 and len(self.buffer) == 0 and cfg.warmup_games:
                        self._warmup(pool)
                    while self.generation < cfg.generations:
                        self._generation(pool, bar, writer)
        except KeyboardInterrupt as e:
            bar.close()
            raise TrainingInterrupted(newest_expert_checkpoint(self.dir), signal_number(e), saved=False) from None
        finally:
            if pool is not None:  # the workers ignore Ctrl-C; their games, if any, are lost anyway
                pool.terminate()
                pool.join()
            writer.close()
        bar.close()
        network = self._export(self.dir / "network.npz")
        curve = self.folder.plot_curve(CURVE_CSV, CURVE_PNG, series=curve_series(self.teacher), x="wall_s",
                                       title=f"expert iteration: {self.dir.name}")
        return TrainResult(self.dir, network, f"net:path={network}", cfg.game, curve)

    def _export(self, path: Path) -> Path:
        cfg = self.cfg
        guided = {"guided": cfg.guided_settings()} if cfg.guided else {}
        return self.model.export(path, game=cfg.game, num_players=cfg.num_players, variant=cfg.variant,
                                 name=cfg.name, generation=self.generation, games=self.games, seed=cfg.seed,
                                 method="expert_iteration", **guided)

    def _play(self, pool: Pool, function: Any, seeds: list[int], *args: Any, bar: Any = None) -> Positions:
        """Run ``function(network, game, players, variant, seeds, *args)`` over the workers."""
        cfg = self.cfg
        network = str(self._export(self.dir / "network.npz"))
        parts = _chunks(seeds, cfg.workers * 4)
        results = [pool.apply_async(function, (network, cfg.game, cfg.num_players, cfg.variant, part, *args))
                   for part in parts]
        out = []
        for r in results:
            positions, counts = r.get()
            out.append(positions)
            if bar is not None:
                bar.update(int(counts["games"]))
        return Positions.concat(out)

    def _warmup(self, pool: Pool) -> None:
        """Teach the value head from games of the bare network before the first search."""
        cfg = self.cfg
        seeds = [int(s) for s in np.random.default_rng([cfg.seed, 1]).integers(1 << 31, size=cfg.warmup_games)]
        self.buffer.add(self._play(pool, network_games, seeds))
        self._train(cfg.warmup_steps)

    def _generation(self, pool: Pool, bar: Any, writer: Any) -> None:
        cfg = self.cfg
        g = self.generation
        seeds = [int(s) for s in np.random.default_rng([cfg.seed, 2, g]).integers(1 << 31,
                                                                                   size=cfg.games_per_generation)]
        if g < cfg.teacher_generations:
            positions = self._play(pool, teacher_games, seeds, cfg.teacher, cfg.teacher_temperature,
                                   cfg.temperature_moves, cfg.teacher_prior, cfg.teacher_network_share, bar=bar)
        else:
            positions = self._play(pool, selfplay_games, seeds, cfg.search_settings(cfg.root_noise),
                                   cfg.temperature_moves, cfg.q_scale, bar=bar)
        self.buffer.add(positions)
        self.games += len(seeds)
        self._train(cfg.train_steps)
        self.generation += 1
        snapshot = self._export(self.dir / "networks" / f"gen_{self.generation}.npz")
        row: dict[str, Any] = {"generation": self.generation, "games": self.games, "positions": len(positions),
                               **self.losses}
        if self.generation % cfg.eval_every == 0 or self.generation == cfg.generations:
            row.update(self._evaluate(snapshot))
        row["wall_s"] = round(self.wall_s, 1)
        self._log(row, writer)
        bar.set_postfix({k: f"{row[k]:.2f}" for k in (f"net_vs_{self.teacher}", "guided_vs_mcts") if k in row})
        self._save()

    def _train(self, steps: int) -> None:
        """``steps`` minibatches from the buffer."""
        cfg = self.cfg
        self.model.train()
        sums = {"policy_loss": 0.0, "value_loss": 0.0}
        for _ in range(steps):
            b = self.buffer.sample(cfg.batch_size, self.rng)
            loss, parts = policy_value_loss(
                self.model, torch.as_tensor(b.obs, dtype=torch.float32), torch.as_tensor(b.masks),
                torch.as_tensor(b.policy, dtype=torch.float32), torch.as_tensor(b.weight),
                torch.as_tensor(b.value), cfg.value_weight)
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            for k in sums:
                sums[k] += parts[k]
        self.model.eval()
        self.losses = {k: v / max(1, steps) for k, v in sums.items()}

    def _evaluate(self, network: Path) -> dict[str, float]:
        """The learning curve's point: net and guided against the game's teacher and the search opponent."""
        from five_towers_env.evaluation.match import evaluate

        cfg = self.cfg
        net = f"net:path={network}"
        guided = f"guided:path={network}," + (cfg.guided or f"search=puct,simulations={cfg.eval_simulations},"
                                                              f"determinisations={cfg.determinisations}")
        out: dict[str, float] = {}
        teacher, mcts = self.teacher, cfg.eval_mcts
        plans = [(net, teacher, teacher, cfg.eval_games), (guided, teacher, teacher, cfg.eval_games),
                 (net, "mcts", mcts, cfg.eval_mcts_games), (guided, "mcts", mcts, cfg.eval_mcts_games)]
        for spec, against, opponent, games in plans:
            if games < 1:
                continue
            who = spec.partition(":")[0]
            result = evaluate([spec, opponent], num_games=games, num_players=cfg.num_players, variant=cfg.variant,
                              seed=cfg.eval_seed, workers=cfg.workers, progress=False, game=cfg.game)
            row = result.agents[0]
            out[f"{who}_vs_{against}"] = row["win_rate"]
            out[f"{who}_vs_{against}_strict"] = row["strict_win_rate"]
        return out

    def _log(self, row: dict[str, Any], writer: Any) -> None:
        # rewritten whole: a kill leaves the previous curve; the rows of generations a resumed run
        # plays again (logged, then killed before the save) are dropped
        rows: list[dict[str, Any]] = [r for r in self.folder.read_curve(CURVE_CSV)
                                      if int(r["generation"]) < int(row["generation"])]
        self.folder.write_curve(CURVE_CSV, rows + [row], curve_fields(self.teacher))
        for k, v in row.items():
            if k != "generation" and isinstance(v, (int, float)):
                writer.add_scalar(f"expert/{k}", v, self.generation)
        writer.flush()

    # -- checkpoints -----------------------------------------------------------------------------

    def _save(self) -> None:
        """Write the checkpoint of this generation (model and optimiser ``.pt``, buffer ``.npz``, counters ``.json``):
        each file whole, all three written under temporary names first and then renamed together, the ``.json``
        last; then the previous checkpoint is deleted (:data:`.expert_config.EXPERT_CHECKPOINT`)."""
        state = {"generation": self.generation, "games": self.games, "wall_s": self.wall_s,
                 "rng": self.rng.bit_generator.state, "losses": self.losses}

        def write(temps: list[Path]) -> None:
            checkpoint, buffer = temps
            torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, checkpoint)
            self.buffer.save(buffer)

        write_checkpoint(expert_checkpoint(self.dir, self.generation), EXPERT_CHECKPOINT, state, write)

    def _load(self, resume: str | Path) -> None:
        """Go on from the checkpoint ``resume`` names (a run folder: its newest whole one), checked whole first."""
        checkpoint = resolve_checkpoint(resume, EXPERT_CHECKPOINT)
        state = checked_state(checkpoint, EXPERT_CHECKPOINT)
        model, buffer = EXPERT_CHECKPOINT.files(checkpoint)[:-1]
        try:
            saved = torch.load(model, weights_only=True)
            self.model.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(saved["optimizer"])
        except (RuntimeError, KeyError, ValueError) as e:  # whole, but not this config's network
            raise CheckpointError(f"checkpoint {checkpoint} cannot be resumed with this config: "
                                  f"{type(e).__name__}: {e}".splitlines()[0]) from e
        try:
            self.buffer.load(buffer)
            self.rng.bit_generator.state = state["rng"]
        except (KeyError, TypeError, ValueError) as e:  # whole files, but not a buffer or a generator's state
            raise CheckpointError(f"checkpoint {checkpoint} cannot be resumed: {type(e).__name__}: {e}"
                                  .splitlines()[0]) from e
        self.generation, self.games = int(state["generation"]), int(state["games"])
        self.wall_before = float(state["wall_s"])
        self.losses = state["losses"]


__all__ = ["ExpertTrainer", "EXPERT_RUN_FILES", "curve_fields", "curve_series"]
