"""Settings of an expert-iteration run (``five-towers expert``), loaded from YAML and validated.

Every setting is a field of :class:`ExpertConfig` with its meaning beside it; a config file holds
any subset of them. Unknown keys and values of the wrong type or range are errors naming the key
(the YAML reading, type checks and settings table are :mod:`~five_towers_env.training.config_base`'s, shared
with ``train``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.limits import MAX_GAMES
from five_towers_env.numerics import MODES as NUMERICS_MODES
from five_towers_env.training.checkpoint_files import (
    CONFIG_FILE,
    FOLDER,
    STATE,
    CheckpointError,
    CheckpointKind,
    checked_state,
    checkpoint_path,
    checkpoint_run_dir,
    newest_whole,
    resolve_checkpoint,
    zip_problem,
)
from five_towers_env.training.config_base import (
    ConfigError,
    build_blamed,
    checked_values,
    read_config_file,
    settings_table,
)


@dataclass
class ExpertConfig:
    """One expert-iteration run: a policy-value network and the search it guides, improving each other."""

    #: upper limits of the numbers (:func:`~five_towers_env.training.config_base.limits_of`), documented in the
    #: settings table
    LIMITS: ClassVar[dict[str, int | tuple[int, int]]] = {
        "seed": 2**63 - 1, "hidden": (4_096, 8), "generations": 100_000, "games_per_generation": MAX_GAMES,
        "warmup_games": MAX_GAMES, "warmup_steps": 10**8, "teacher_generations": 100_000, "simulations": 1_000_000,
        "determinisations": 1_024, "temperature_moves": 10_000, "buffer_positions": 2_000_000,
        "train_steps": 10**8, "batch_size": 65_536, "workers": 256, "torch_threads": 256, "eval_every": 100_000,
        "eval_games": MAX_GAMES, "eval_mcts_games": MAX_GAMES, "eval_seed": 2**63 - 1,
        "eval_simulations": 1_000_000}
    name: str = "expert"
    """Run name: the run folder is `<out_dir>/<name>`."""
    out_dir: str = "runs"
    """Folder of the run folders."""
    game: str = DEFAULT_GAME
    """The game trained: `five_towers` or `campanile`."""
    num_players: int = 2
    """Players per game; the value head has one output per seat."""
    variant: str = ""
    """The game's variant (empty: its default, 5 Towers `base`, Campanile `pile`)."""
    seed: int = 0
    """The one seed of the run: every deal, search, minibatch and the network's first weights derive
    from it."""
    architecture: str = "typed"
    """The network's body: `typed` (a game that declares a typed layout, 5 Towers: weights shared across the
    tower types) or `mlp`."""
    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer sizes of the `mlp` body (ReLU); ignored by `typed`."""
    init_policy: str = "shipped"
    """Start the policy from `shipped` (the game's shipped `ppo` policy, same architecture), a policy `.npz`
    path, or `none` (fresh weights). The value head starts fresh, unless the file is a policy-value network
    with a value head of this run's players (a shipped `net`, a run's `network.npz`): then it starts from it."""
    generations: int = 10
    """Rounds of (self-play games, training) to run; raise it on `--resume` to go on."""
    games_per_generation: int = 200
    """Guided self-play games per generation."""
    warmup_games: int = 2000
    """Games of the bare network (moves sampled) before the first generation, teaching the value head."""
    warmup_steps: int = 1500
    """Minibatches on the warm-up positions (their policy target is the network's own distribution)."""
    teacher: str = ""
    """A search agent whose self-play games teach the first `teacher_generations` generations instead of the
    guided search's (a registry spec of an agent reporting its candidates' values: `mcts:simulations=1600`,
    or `guided:search=rollouts,...`, which without a `path` searches with the run's current network); empty:
    none."""
    teacher_generations: int = 0
    """Generations taught by `teacher` before the guided self-play takes over."""
    teacher_temperature: float = 0.02
    """The teacher's policy target: the soft-max of its candidates' mean rewards (in [0, 1]) over this."""
    teacher_prior: float = 0.0
    """Weight of the run's network's log-probabilities added to the teacher's target logits: the target is
    proportional to `p(a) ** teacher_prior * exp(q(a) / teacher_temperature)` over the valued actions, so
    that value gaps within the rollouts' noise move the network's policy rather than replace it; 0: the
    values alone."""
    teacher_network_share: float = 0.0
    """Probability that a decision of the teacher's games outside the sampled opening is played by the run's bare
    network (its likeliest action) rather than the teacher, which still labels it: the positions the network
    reaches by its own moves are taught too (DAgger); 0: the teacher plays every move."""
    simulations: int = 64
    """Network evaluations per searched self-play decision."""
    determinisations: int = 8
    """Trees per decision, each on its own sample of the hidden information; the simulations are shared
    among them."""
    c_puct: float = 1.0
    """PUCT exploration weight."""
    root_noise: float = 0.25
    """Weight of Dirichlet noise mixed into the root priors in self-play (0 in evaluations)."""
    temperature_moves: int = 12
    """Decisions per seat and game sampled from the improved policy; later ones are the search's choice
    (the most visited)."""
    q_scale: float = 0.3
    """Scale of the values in the policy target `softmax(log prior + (50 + max visits) * q_scale * Q)`."""
    buffer_positions: int = 150_000
    """Replay buffer: the most recent positions trained on."""
    train_steps: int = 600
    """Minibatches per generation."""
    batch_size: int = 256
    """Positions per minibatch."""
    learning_rate: float = 3e-4
    """Adam step size."""
    weight_decay: float = 1e-5
    """Adam weight decay."""
    value_weight: float = 1.0
    """Weight of the value loss beside the policy loss."""
    workers: int = 2
    """Processes playing the games (self-play and evaluations)."""
    torch_threads: int = 2
    """Torch threads for the updates."""
    numerics: str = "portable"
    """Floating-point kernels: `portable` (the same numbers on every x86-64 CPU with AVX2) or `native`
    (each library's fastest for this CPU); see `five_towers_env/numerics.py`."""
    eval_every: int = 1
    """Generations between the evaluations of the learning curve (the last generation is always evaluated)."""
    eval_games: int = 100
    """Games of `net` and of `guided` against the game's teacher (`GameSpec.teacher`) at each evaluation (paired
    deals, `eval_seed`)."""
    eval_mcts_games: int = 40
    """Games of `net` and of `guided` against `eval_mcts` at each evaluation (0: none)."""
    eval_mcts: str = "mcts"
    """The search opponent of the learning curve (a registry spec, e.g. `mcts:simulations=400`)."""
    eval_seed: int = 777
    """Seed of the evaluation deals (the same at every point of the curve)."""
    eval_simulations: int = 64
    """The guided agent's simulations in the evaluations (without `guided`)."""
    guided: str = ""
    """How `guided` plays the run's networks, as agent settings (`search=rollouts,simulations=180,top_k=4`):
    written into every exported network's `meta["guided"]` (`guided` plays a network so unless told
    otherwise) and used by the learning curve's evaluations; empty: `puct` with `eval_simulations`."""

    def __post_init__(self) -> None:
        spec = get_game(self.game)
        if not self.variant:
            self.variant = spec.default_variant
        try:
            spec.check(self.num_players, self.variant)
        except ValueError as e:
            raise ConfigError(f"num_players/variant: {e}") from None
        if self.numerics not in NUMERICS_MODES:
            raise ConfigError(f"numerics: portable or native, got {self.numerics!r}")
        if self.architecture not in ("typed", "mlp"):
            raise ConfigError(f"architecture: 'typed' or 'mlp', got {self.architecture!r}")
        if self.architecture != "mlp" and self.architecture not in spec.architectures:
            raise ConfigError(f"architecture: {spec.title} has no {self.architecture} network (it reads a layout "
                              "the game declares, GameSpec.architectures); use mlp")
        positive = ("generations", "games_per_generation", "simulations", "determinisations", "buffer_positions",
                    "train_steps", "batch_size", "workers", "torch_threads", "eval_every", "eval_simulations")
        for key in positive:
            if int(getattr(self, key)) < 1:
                raise ConfigError(f"{key}: must be at least 1, got {getattr(self, key)!r}")
        for key in ("warmup_games", "warmup_steps", "temperature_moves", "eval_games", "eval_mcts_games", "seed",
                    "teacher_generations"):
            if int(getattr(self, key)) < 0:
                raise ConfigError(f"{key}: must be at least 0, got {getattr(self, key)!r}")
        from five_towers_env.agents.registry import agent_setting_ranges
        from five_towers_env.core.setting_ranges import range_problem

        problem = range_problem(self.c_puct, agent_setting_ranges("guided", game=spec.name)["c_puct"], "a number")
        if problem:  # the guided search's own range (the agent registry's)
            raise ConfigError(f"c_puct: {problem}")
        if not 0.0 <= self.root_noise < 1.0:
            raise ConfigError(f"root_noise: in [0, 1), got {self.root_noise!r}")
        if self.teacher_generations and not self.teacher:
            raise ConfigError("teacher_generations: needs a teacher (a registry spec, e.g. mcts:simulations=1600)")
        if self.teacher:
            from five_towers_env.evaluation.specs import parse_agent_spec

            try:
                parse_agent_spec(self.teacher, game=spec.name)
            except ValueError as e:
                raise ConfigError(f"teacher: {e}") from None
        if self.guided:
            from five_towers_env.evaluation.specs import parse_agent_spec

            try:
                parse_agent_spec(f"guided:{self.guided}", game=spec.name)
            except ValueError as e:
                raise ConfigError(f"guided: {e}") from None
        if self.teacher_temperature <= 0:
            raise ConfigError(f"teacher_temperature: must be positive, got {self.teacher_temperature!r}")
        if not 0.0 <= self.teacher_network_share <= 1.0:
            raise ConfigError(f"teacher_network_share: in [0, 1], got {self.teacher_network_share!r}")
        if self.teacher_prior < 0:
            raise ConfigError(f"teacher_prior: must be 0 or more, got {self.teacher_prior!r}")
        if not self.hidden or not all(int(h) > 0 for h in self.hidden):
            raise ConfigError(f"hidden: a list of positive integers, got {list(self.hidden)!r}")

    @property
    def run_dir(self) -> Path:
        """Where the run writes: ``<out_dir>/<name>``."""
        return Path(self.out_dir) / self.name

    def guided_settings(self) -> dict[str, Any]:
        """The ``guided`` settings recorded in the exported networks (empty: none)."""
        from five_towers_env.evaluation.specs import parse_agent_spec

        return dict(parse_agent_spec(f"guided:{self.guided}", game=self.game).kwargs) if self.guided else {}

    def search_settings(self, noise: float) -> dict[str, Any]:
        """The guided agent's keyword settings in self-play (with ``noise``) or evaluation (0)."""
        return {"search": "puct", "simulations": self.simulations, "determinisations": self.determinisations,
                "c_puct": self.c_puct, "noise": noise}


def _check(data: dict[str, Any]) -> dict[str, Any]:
    """``data``'s keys and types checked (not their ranges)."""
    return checked_values(ExpertConfig, data, ignore=("method",))


def _build(data: dict[str, Any]) -> ExpertConfig:
    return ExpertConfig(**_check(data))


def build_expert_config(data: dict[str, Any], overrides: dict[str, Any] | None = None,
                        source: str = "config") -> ExpertConfig:
    """An :class:`ExpertConfig` from a mapping (read from ``source``) and ``--set`` overrides, checked and
    validated; an error names whichever is to blame: the ``--set`` override or ``source``."""
    return build_blamed(dict(data or {}), overrides, source, check=_check, build=_build)


def load_expert_config(path: str | Path, overrides: dict[str, Any] | None = None) -> ExpertConfig:
    """Read a YAML config file (see :class:`ExpertConfig`)."""
    data = read_config_file(path)
    if data.get("method", "expert_iteration") != "expert_iteration":
        raise ConfigError(f"{path}: method {data['method']!r}; an expert-iteration config says "
                          "method: expert_iteration")
    return build_expert_config(data, overrides, source=str(path))


#: expert iteration's checkpoints (:mod:`~five_towers_env.training.checkpoint_files`):
#: ``<run>/checkpoints/step_G.pt`` (the model and optimiser), ``step_G.npz`` (the replay buffer) and
#: ``step_G.json`` (the counters, written last), ``G`` the generations done; each part a whole zip.
#: Only the newest is kept: the buffer is big.
def _expert_state_problem(state: dict[str, Any]) -> str | None:
    """What is wrong with the values of an expert-iteration checkpoint's state (its keys are checked already)."""
    for key in ("generation", "games"):
        if not isinstance(state[key], int) or not 0 <= state[key] <= LIMITS_OF_STATE[key]:
            return f"{key} {state[key]!r} is not a count"
    if not isinstance(state["wall_s"], (int, float)) or not 0 <= state["wall_s"] < 1e12:
        return f"wall_s {state['wall_s']!r} is not a run's seconds"
    rng = state["rng"]
    if not isinstance(rng, dict) or rng.get("bit_generator") != "PCG64" or not isinstance(rng.get("state"), dict):
        return "rng is not a PCG64 generator's state"
    losses = state["losses"]
    if not isinstance(losses, dict) or not all(isinstance(v, (int, float)) for v in losses.values()):
        return "losses is not a mapping of numbers"
    return None


#: the largest counts a state may hold (the config's own limits on generations and games)
LIMITS_OF_STATE = {"generation": 10**6, "games": 10**12}


EXPERT_CHECKPOINT = CheckpointKind(
    parts=(".pt", ".npz"), state_keys=("generation", "games", "wall_s", "rng", "losses"),
    holds={".pt": "the model and optimiser", ".npz": "the replay buffer",
           STATE: "the generation, games, time, minibatch generator and losses"},
    command="expert", part_problem=zip_problem, keep=1, state_problem=_expert_state_problem)
#: the checkpoint of a run of an earlier version, at the run folder's top
_OLD_LAYOUT = ("checkpoint.pt", "buffer.npz", "state.json")


def expert_checkpoint(run_dir: Path, generation: int) -> Path:
    """Where the checkpoint after ``generation`` generations is written: ``<run>/checkpoints/step_G.pt``."""
    return checkpoint_path(run_dir, generation, EXPERT_CHECKPOINT)


def newest_expert_checkpoint(run_dir: Path) -> Path | None:
    """The newest whole checkpoint of the run in ``run_dir`` (``checkpoints/step_G.pt``), if it has one."""
    return newest_whole(run_dir, EXPERT_CHECKPOINT)


def resume_expert_config(path: str | Path, overrides: dict[str, Any] | None = None) -> tuple[ExpertConfig, Path]:
    """The checkpoint ``path`` names (a run folder: its newest whole one; or any file of a checkpoint, see
    :func:`~five_towers_env.training.checkpoint_files.resolve_checkpoint`), checked whole, and the config of its
    run (``config.yaml``
    in the folder that holds ``checkpoints/``) with ``overrides``, writing into that folder whatever folder its
    config recorded (a moved run continues where it is); ``out_dir`` and ``name`` cannot be overridden on
    resume. :class:`~five_towers_env.training.checkpoint_files.CheckpointError` names the file at fault."""
    try:
        checkpoint = resolve_checkpoint(path, EXPERT_CHECKPOINT)
    except CheckpointError:
        if Path(path).is_dir() and all((Path(path) / name).is_file() for name in _OLD_LAYOUT):
            raise CheckpointError(f"--resume {path}: its checkpoint is in an earlier version's layout "
                                  f"({', '.join(_OLD_LAYOUT)}); move them to {FOLDER}/step_G.pt, .npz and .json "
                                  "(G: the generation in state.json)") from None
        raise
    checked_state(checkpoint, EXPERT_CHECKPOINT)
    run = checkpoint_run_dir(checkpoint)
    if run is None:
        raise CheckpointError(f"--resume {path}: checkpoint {checkpoint} is not in a run folder's {FOLDER}/ (its "
                              f"config is the run folder's {CONFIG_FILE})")
    moved = sorted({"out_dir", "name"} & set(overrides or {}))
    if moved:
        raise ConfigError(f"--resume {path}: {' / '.join(moved)} cannot change on resume (the run goes on in "
                          f"{run})")
    cfg = load_expert_config(run / CONFIG_FILE, overrides)
    return dataclasses.replace(cfg, out_dir=str(run.parent), name=run.name), checkpoint


def expert_config_to_dict(cfg: ExpertConfig) -> dict[str, Any]:
    """The config as plain data, ``method: expert_iteration`` first (what ``config.yaml`` holds)."""
    return {"method": "expert_iteration", **dataclasses.asdict(cfg)}


def expert_settings_table() -> str:
    """Every setting with its default and meaning, as a Markdown table (docs/training.md's)."""
    return settings_table(ExpertConfig)


__all__ = ["EXPERT_CHECKPOINT", "ExpertConfig", "expert_settings_table", "build_expert_config", "expert_checkpoint",
           "expert_config_to_dict", "load_expert_config", "newest_expert_checkpoint", "resume_expert_config"]
