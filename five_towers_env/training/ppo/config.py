"""Settings of a self-play training run, loaded from YAML into validated dataclasses.

Every setting is documented on its field. A config file holds any subset of them (the rest keep
their defaults) in sections mirroring the dataclasses: top-level run settings, ``ppo:``,
``pool:`` and ``imitation:``. Unknown keys, wrong types and out-of-range values are errors that name the key
(the YAML reading, type checks and settings table are :mod:`~five_towers_env.training.config_base`'s, shared
with expert iteration).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from five_towers_env.core.game import DEFAULT_GAME, GAMES, GameSpec, get_game, setup_key
from five_towers_env.evaluation.specs import parse_agent_spec
from five_towers_env.limits import MAX_GAMES
from five_towers_env.numerics import MODES as NUMERICS_MODES
from five_towers_env.training.config_base import (
    ConfigError,
    build_blamed,
    checked_values,
    init_policy_path,
    parse_setup,
    read_config_file,
)
from five_towers_env.training.config_base import settings_table as _settings_table

#: the most learner decisions one rollout holds (``ppo.n_steps * n_envs``): its buffer is this many observations
MAX_ROLLOUT = 262_144
#: the values of ``tie_reward``: how the training reward counts a shared win
TIE_REWARDS = ("full", "share")

def baselines(game: str) -> tuple[str, ...]:
    """The agents of ``game``'s registry a run may train against, evaluate against or imitate: those that can
    be pool opponents (:func:`~five_towers_env.agents.registry.pool_opponents`)."""
    from five_towers_env.agents.registry import pool_opponents

    return pool_opponents(game)


@dataclass
class PPOSettings:
    """Hyper-parameters handed to sb3-contrib's ``MaskablePPO``."""

    #: upper limits (:func:`~five_towers_env.training.config_base.limits_of`); the rollout ``n_steps * n_envs`` is
    #: at most MAX_ROLLOUT
    LIMITS: ClassVar[dict[str, int | tuple[int, int]]] = {
        "n_steps": 65_536, "batch_size": 262_144, "n_epochs": 1_000, "net_arch": (4_096, 8)}
    learning_rate: float = 3e-4
    """Adam step size (constant)."""
    n_steps: int = 512
    """Learner decisions collected per environment before each update."""
    batch_size: int = 1024
    """Minibatch size of the PPO update."""
    n_epochs: int = 4
    """Passes over each rollout."""
    gamma: float = 1.0
    """Discount; the game is short and the reward comes at its end, so 1 by default."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden layer sizes of the policy and of the value network (separate networks); with
    ``architecture: typed`` only the value network's."""
    architecture: str = "mlp"
    """Policy network: ``mlp`` (an MLP on the flat observation) or ``typed`` (a game that declares a typed
    layout, ``GameSpec.architectures``; 5 Towers: one encoder and one action head shared by the five tower
    types, see ``five_towers_env/training/ppo/networks.py``)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""
    loop: str = "lean"
    """Who runs the rollouts and updates on the model: ``lean`` (sb3-contrib's ``MaskablePPO`` algorithm written
    out in ``five_towers_env/training/ppo/lean.py``, without SB3's per-step overhead) or ``sb3``
    (``MaskablePPO.learn`` itself, for code that builds on SB3's callbacks and loop). The network, optimiser,
    checkpoints and exported policies are the same with either."""


#: ``ppo.architecture`` values: ``mlp`` reads any game's observation, ``typed`` the layout a game declares
#: for it (``GameSpec.architectures``)
ARCHITECTURES = ("mlp", "typed")
#: ``vector_env`` values: ``auto`` (resolved when the config is validated, :func:`resolve_vector_env`: ``native``
#: where the game's native core is active, else ``python``), the Python single-agent environments, or the native
#: core's vector environments
VECTOR_ENVS = ("auto", "python", "native")
#: ``ppo.loop`` values: sb3-contrib's ``learn``, or the package's own loop (``lean.py``)
LOOPS = ("sb3", "lean")


@dataclass
class PoolSettings:
    """The opponents the learner meets: baseline agents plus frozen snapshots of itself."""

    LIMITS: ClassVar[dict[str, int | tuple[int, int]]] = {"max_snapshots": 1_000, "promote_games": MAX_GAMES}
    baselines: dict[str, float] = field(default_factory=dict)
    """Baseline agent name -> sampling weight (the game's agents that can be opponents, e.g. ``random``, ``mcts``);
    left out: the game's own mix (``GameSpec.pool_weights``; 5 Towers and Campanile: ``random`` 0.1, ``greedy``
    0.3, ``heuristic`` 0.6)."""
    snapshot_weight: float = 0.0
    """Total sampling weight of the snapshots, shared among them (see ``recency``); 0 disables self-play."""
    recency: float = 1.0
    """Snapshot ``k`` (0 = oldest) gets weight proportional to ``recency ** k``: 1 samples uniformly,
    larger values favour recent snapshots."""
    max_snapshots: int = 5
    """Snapshots kept; the oldest is dropped when a new one is added."""
    promote_win_rate: float = 0.55
    """A snapshot of the learner joins the pool when, at an evaluation, its win rate against the
    pool (games sampled as in training) reaches this."""
    promote_games: int = 100
    """Games of that pool evaluation."""
    per_seat: bool = True
    """Sample each opponent seat independently (else one draw fills every opponent seat)."""


@dataclass
class ImitationSettings:
    """Optional warm start: behaviour cloning of a teacher agent before PPO (see
    ``five_towers_env/training/ppo/imitation.py``)."""

    LIMITS: ClassVar[dict[str, int | tuple[int, int]]] = {
        "games": MAX_GAMES, "epochs": 1_000, "batch_size": 262_144}
    games: int = 0
    """Games of teacher play to imitate before self-play starts; 0 starts PPO from scratch."""
    teacher: str = ""
    """The agent imitated: one of the game's agents that can be opponents, with settings if it takes them
    (``mcts:simulations=200``); left out: the game's teacher (``GameSpec.teacher``; 5 Towers and Campanile:
    ``heuristic``)."""
    epochs: int = 5
    """Passes over the teacher's decisions."""
    batch_size: int = 512
    """Minibatch size of the imitation fit."""
    learning_rate: float = 1e-3
    """Adam step size of the imitation fit."""
    value_coef: float = 0.5
    """Weight of the value network's fit to the teacher games' returns."""


@dataclass
class TrainConfig:
    """A whole run: game, budget, seeds, logging and the two sections above."""

    LIMITS: ClassVar[dict[str, int | tuple[int, int]]] = {
        "total_timesteps": 10**11, "value_warmup_steps": 10**11, "n_envs": 1_024, "env_workers": 256,
        "eval_every": 10**11, "eval_games": MAX_GAMES, "final_eval_games": MAX_GAMES, "checkpoint_every": 10**11,
        "torch_threads": 256, "rollout_threads": 256, "seed": 2**63 - 1}
    name: str = "ppo_selfplay"
    """Run name: the run folder is ``<out_dir>/<name>``."""
    game: str = DEFAULT_GAME
    """The game trained: ``five_towers`` or ``campanile`` (its environment, agents and rules)."""
    num_players: int = 2
    """Players per game (2..5); the learner takes a random seat every game."""
    variant: str = "base"
    """The game's variant: 5 Towers ``base`` or ``great_powers``, Campanile ``pile`` or ``played``
    (a config that names a game but no variant gets the game's first)."""
    setups: list[str] = field(default_factory=list)
    """Train one network over several setups, ``"<players>p-<variant>"`` each (e.g. ``[3p-base, 2p-great_powers]``):
    environment ``i`` plays ``setups[i % len(setups)]`` and every evaluation is played in each setup. Empty:
    the one setup ``num_players`` / ``variant`` (which a non-empty list replaces)."""
    total_timesteps: int = 2_000_000
    """Learner decisions to train for."""
    init_policy: str = ""
    """Start the actor from this exported policy ``.npz`` (same architecture and sizes; e.g. a shipped policy,
    ``five_towers_env/games/<game>/policies/<file>``, found from any folder, or another run's ``policy.npz``);
    the value network starts untrained. Empty: a fresh network."""
    value_warmup_steps: int = 0
    """First learner decisions during which only the value network learns (the actor frozen): with
    ``init_policy``, so that a random critic does not steer the first policy updates."""
    seed: int = 0
    """The one seed of the run: torch, the environments and the evaluations derive from it."""
    n_envs: int = 8
    """Parallel environments."""
    subproc: bool = True
    """Use ``env_workers`` worker processes. With ``vector_env: python``: the environments are split over them
    (``ProcessVecEnv``) instead of all being stepped in the trainer's process (``SelfPlayVecEnv``); either way the
    games of one process are stepped together and a snapshot opponent decides for all of them in one network
    pass. With ``vector_env: native`` the training games stay in the trainer's process, and the workers play only
    the evaluation games and the warm start's teacher games (the same results as in one process)."""
    env_workers: int = 2
    """Worker processes when ``subproc`` is on (at most ``n_envs``): one per core the opponents may use while
    the trainer waits for them (``vector_env: python``: they step the training games; ``native``: they play
    the evaluations and the teacher games)."""
    vector_env: str = "auto"
    """Where the training games run: ``native`` (the game's native core: its Gymnasium vector environments in the
    trainer's process, the opponents deciding class by class in one call per round;
    ``five_towers_env/training/ppo/native_games.py``), ``python`` (the single-agent Gymnasium environment, in
    worker processes when ``subproc`` is on), or ``auto``: ``native`` where the game has a native core and it is
    active (``five_towers_env.engine_backend()``: built, and not ``FIVE_TOWERS_ENGINE=python``), else
    ``python``. The run's ``config.yaml`` and checkpoints record the choice made, and a resumed run keeps it
    (or stops, saying so, where the native core it trained on is not built)."""
    reward_margin: float = 0.02
    """Shaping: the learner's reward is win/loss (+1 / -1) plus this times its score margin
    (own score minus the best other score). 0 trains on win/loss alone."""
    tie_reward: str = "full"
    """The reward of a shared win: ``full`` (+1, the environment's win/loss reward) or ``share``
    (``2/k - 1`` for a ``k``-way shared win: 0 for two winners; the win share every evaluation counts)."""
    eval_every: int = 100_000
    """Evaluate (against each of ``eval_opponents``, and the pool) every this many timesteps."""
    eval_games: int = 100
    """Games per opponent at each evaluation (the learner in a random seat; the same seeded games every time)."""
    eval_opponents: list[str] = field(default_factory=list)
    """Baselines the win rate is logged against (``eval/win_rate_vs_<name>``); left out: the game's rule-based
    opponents (``GameSpec.opponents``; 5 Towers and Campanile: ``random``, ``greedy``, ``heuristic``)."""
    final_eval_games: int = 200
    """Games per baseline of ``eval_opponents`` in the table ``five-towers train`` prints at the end
    (0 skips it)."""
    checkpoint_every: int = 200_000
    """Save a resumable checkpoint every this many timesteps (and at the end)."""
    out_dir: str = "runs"
    """Folder of the run folders."""
    torch_threads: int = 1
    """Torch threads of the PPO update (the imitation warm start too): its minibatches are large enough
    to gain from a second core."""
    rollout_threads: int = 1
    """Torch threads while the policy picks the learner's moves during rollouts: one batch of ``n_envs``
    observations at a time gains nothing from more, and the environment workers need the cores."""
    numerics: str = "portable"
    """Floating-point kernels: ``portable`` pins torch's, MKL's, OpenBLAS's and numpy's to the AVX2 level, so the
    run's numbers are the same on every x86-64 CPU with AVX2 (``five_towers_env/numerics.py``); ``native`` lets
    each library pick the fastest for this CPU."""
    ppo: PPOSettings = field(default_factory=PPOSettings)
    """PPO hyper-parameters."""
    pool: PoolSettings = field(default_factory=PoolSettings)
    """Opponent pool."""
    imitation: ImitationSettings = field(default_factory=ImitationSettings)
    """Warm start by imitation (off by default)."""

    @property
    def setup_list(self) -> list[tuple[int, str]]:
        """``(num_players, variant)`` of every setup trained: ``setups`` parsed, or the one setup."""
        if not self.setups:
            return [(self.num_players, self.variant)]
        return [parse_setup(text) for text in self.setups]

    @property
    def run_dir(self) -> Path:
        """Where checkpoints, logs and the exported policy go."""
        return Path(self.out_dir) / self.name


_SECTIONS = {"ppo": PPOSettings, "pool": PoolSettings, "imitation": ImitationSettings}


def _build(data: Any) -> TrainConfig:
    """A :class:`TrainConfig` of ``data``'s settings, each checked against its field's type (not validated)."""
    values = checked_values(TrainConfig, data, sections=_SECTIONS)
    cfg = TrainConfig(**values)
    if cfg.game not in GAMES:
        return cfg  # validate() names the error
    game = get_game(cfg.game)
    # what a config leaves out is the game's own: its default variant, opponents, pool and teacher
    if "variant" not in data:
        cfg.variant = game.default_variant
    if "eval_opponents" not in data:
        cfg.eval_opponents = list(game.opponents)
    if "baselines" not in (data.get("pool") or {}):
        cfg.pool.baselines = dict(game.pool_weights)
    if "teacher" not in (data.get("imitation") or {}):
        cfg.imitation.teacher = game.teacher
    return cfg


def resolve_vector_env(game: GameSpec) -> str:
    """What ``vector_env: auto`` is for ``game`` here and now: ``native`` where the game has a native core and it
    is the active engine (:meth:`~five_towers_env.core.game.GameSpec.backend`, as
    :func:`five_towers_env.engine_backend` decides: built, and not forced off by ``FIVE_TOWERS_ENGINE=python``),
    else ``python``."""
    from five_towers_env.core.backend import NativeUnavailableError

    try:
        return "native" if game.native_engine and game.backend() == "native" else "python"
    except NativeUnavailableError as e:  # FIVE_TOWERS_ENGINE=native where the core was not built
        raise ConfigError(f"vector_env: auto: {e}") from None


def native_problem(game: GameSpec) -> str | None:
    """Why ``vector_env: native`` cannot run ``game`` here (its native core not built), or None."""
    from five_towers_env.core.backend import NativeUnavailableError
    from five_towers_env.core.vector_env import native_module

    try:
        native_module(game)
    except (NativeUnavailableError, ValueError) as e:
        return str(e)
    return None


def games_problem(cfg: TrainConfig) -> str | None:
    """Why the training games of ``cfg`` (validated) cannot be made here, or None: ``vector_env: native`` where the
    game's native core is not built. Checked before a run starts (a validated config is only read elsewhere: a
    run's checkpoints are evaluated without its training games)."""
    if cfg.vector_env != "native":
        return None
    problem = native_problem(get_game(cfg.game))
    return None if problem is None else f"vector_env: native: {problem}"


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check ranges and names (the setup, agents and network against ``cfg.game``); return ``cfg`` or
    raise :class:`ConfigError`."""
    _require(cfg.game in GAMES, f"game: must be one of {', '.join(GAMES)}, got {cfg.game!r}")
    game = get_game(cfg.game)
    _require(game.min_players <= cfg.num_players <= game.max_players,
             f"num_players: must be {game.min_players}..{game.max_players}, got {cfg.num_players}")
    _require(cfg.variant in game.variants, f"variant: must be one of {', '.join(game.variants)} for {game.title} "
             f"(game: {game.name}), got {cfg.variant!r}")
    try:
        game.check(cfg.num_players, cfg.variant)  # the game's own rules have the last word
    except ValueError as e:
        raise ConfigError(f"game {game.name}: {e}") from None
    setups = cfg.setup_list
    _require(len(set(setups)) == len(setups), f"setups: each setup once, got {cfg.setups}")
    for players, variant in setups:
        where = f"setups: {setup_key(players, variant)}"
        _require(game.min_players <= players <= game.max_players,
                 f"{where}: players must be {game.min_players}..{game.max_players}")
        _require(variant in game.variants, f"{where}: variant must be one of {', '.join(game.variants)}")
        try:
            game.check(players, variant)
        except ValueError as e:
            raise ConfigError(f"{where}: {e}") from None
    _require(cfg.n_envs % len(setups) == 0,
             f"n_envs ({cfg.n_envs}): a multiple of the {len(setups)} setups, so each is trained alike")
    known = baselines(game.name)
    _require(bool(cfg.name) and "/" not in cfg.name and cfg.name not in (".", ".."),
             f"name: must be a plain folder name, got {cfg.name!r}")
    for key in ("total_timesteps", "n_envs", "eval_every", "eval_games", "checkpoint_every", "torch_threads",
                "rollout_threads", "env_workers"):
        _require(getattr(cfg, key) >= 1, f"{key}: must be >= 1, got {getattr(cfg, key)}")
    _require(cfg.value_warmup_steps >= 0, f"value_warmup_steps: must be >= 0, got {cfg.value_warmup_steps}")
    if cfg.init_policy:  # a regular file of bounded size, before the trainer reads it
        from five_towers_env.agents.network_file import check_network_path

        try:
            check_network_path(init_policy_path(cfg.init_policy))
        except (OSError, ValueError) as e:
            raise ConfigError(f"init_policy: {str(e).removeprefix('ppo: ')}") from None
    _require(cfg.final_eval_games >= 0, f"final_eval_games: must be >= 0, got {cfg.final_eval_games}")
    _require(cfg.seed >= 0, f"seed: must be >= 0, got {cfg.seed}")
    _require(cfg.reward_margin >= 0, f"reward_margin: must be >= 0, got {cfg.reward_margin}")
    _require(cfg.vector_env in VECTOR_ENVS,
             f"vector_env: must be one of {', '.join(VECTOR_ENVS)}, got {cfg.vector_env!r}")
    if cfg.vector_env == "auto":
        cfg.vector_env = resolve_vector_env(game)
    _require(cfg.vector_env != "native" or bool(game.native_engine),
             f"vector_env: native needs a game with a native core; {game.title} has none (use python)")
    _require(cfg.tie_reward in TIE_REWARDS,
             f"tie_reward: must be one of {', '.join(TIE_REWARDS)}, got {cfg.tie_reward!r}")
    for name in cfg.eval_opponents:
        _require(name in known, f"eval_opponents: unknown agent {name!r}; known: {', '.join(known)}")
    p = cfg.ppo
    for key in ("n_steps", "batch_size", "n_epochs"):
        _require(getattr(p, key) >= 1, f"ppo.{key}: must be >= 1, got {getattr(p, key)}")
    _require(p.learning_rate > 0, f"ppo.learning_rate: must be > 0, got {p.learning_rate}")
    _require(0 < p.gamma <= 1 and 0 <= p.gae_lambda <= 1, "ppo.gamma must be in (0, 1] and ppo.gae_lambda in [0, 1]")
    _require(p.clip_range > 0 and p.ent_coef >= 0 and p.vf_coef >= 0 and p.max_grad_norm > 0,
             "ppo.clip_range and ppo.max_grad_norm must be > 0, ppo.ent_coef and ppo.vf_coef >= 0")
    _require(bool(p.net_arch) and all(h >= 1 for h in p.net_arch),
             f"ppo.net_arch: positive layer sizes, got {p.net_arch}")
    _require(cfg.numerics in NUMERICS_MODES, f"numerics: portable or native, got {cfg.numerics!r}")
    _require(p.activation in ("tanh", "relu"), f"ppo.activation: tanh or relu, got {p.activation!r}")
    _require(p.architecture in ARCHITECTURES, f"ppo.architecture: mlp or typed, got {p.architecture!r}")
    _require(p.loop in LOOPS, f"ppo.loop: {' or '.join(LOOPS)}, got {p.loop!r}")
    _require(p.architecture == "mlp" or p.architecture in game.architectures,
             f"ppo.architecture: {game.title} has no {p.architecture} network (it reads a layout the game declares, "
             f"GameSpec.architectures); {game.title} trains architecture: "
             f"{' or '.join(a for a in ARCHITECTURES if a == 'mlp' or a in game.architectures)}")
    _require(p.n_steps * cfg.n_envs <= MAX_ROLLOUT, f"ppo.n_steps * n_envs: at most {MAX_ROLLOUT:,} decisions per "
             f"rollout, got {p.n_steps:,} * {cfg.n_envs:,}")
    _require(p.batch_size <= p.n_steps * cfg.n_envs,
             f"ppo.batch_size ({p.batch_size}) exceeds the rollout size n_steps * n_envs ({p.n_steps * cfg.n_envs})")
    q = cfg.pool
    for name, weight in q.baselines.items():
        _require(name in known, f"pool.baselines: unknown agent {name!r}; known: {', '.join(known)}")
        _require(weight >= 0, f"pool.baselines.{name}: weight must be >= 0, got {weight}")
    _require(q.snapshot_weight >= 0, f"pool.snapshot_weight: must be >= 0, got {q.snapshot_weight}")
    _require(sum(q.baselines.values()) > 0, "pool: the baselines need a positive total weight "
             "(the pool starts with no snapshots)")
    _require(q.recency > 0, f"pool.recency: must be > 0, got {q.recency}")
    _require(q.max_snapshots >= 1 and q.promote_games >= 1, "pool.max_snapshots and pool.promote_games must be >= 1")
    _require(0 < q.promote_win_rate <= 1, f"pool.promote_win_rate: must be in (0, 1], got {q.promote_win_rate}")
    m = cfg.imitation
    _require(m.games >= 0, f"imitation.games: must be >= 0, got {m.games}")
    teacher_name = m.teacher.split(":", 1)[0]
    _require(teacher_name in known, f"imitation.teacher: unknown agent {teacher_name!r}; known: {', '.join(known)}")
    try:
        parse_agent_spec(m.teacher, game=game.name)
    except ValueError as e:
        raise ConfigError(f"imitation.teacher: {e}") from None
    _require(m.epochs >= 1 and m.batch_size >= 1, "imitation.epochs and imitation.batch_size must be >= 1")
    _require(m.learning_rate > 0 and m.value_coef >= 0,
             "imitation.learning_rate must be > 0, imitation.value_coef >= 0")
    return cfg


#: the settings a stored config may predate, with the value every run had before the setting existed: a resumed
#: run keeps what it trained with, not today's default (:func:`stored_config`)
BEFORE_SETTINGS: dict[str, Any] = {"vector_env": "python", "ppo.loop": "sb3"}


def stored_config(data: dict[str, Any]) -> dict[str, Any]:
    """A run's stored config (a checkpoint's) with each setting of :data:`BEFORE_SETTINGS` it lacks filled in as
    the run had it; a copy."""
    data = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for dotted, value in BEFORE_SETTINGS.items():
        section, _, key = dotted.rpartition(".")
        where = data.setdefault(section, {}) if section else data
        if isinstance(where, dict):  # anything else is the validation's to name
            where.setdefault(key, value)
    return data


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and validate a :class:`TrainConfig` from a mapping (as ``yaml.safe_load`` returns)."""
    return validate(_build(data if data is not None else {}))


def build_config(data: dict[str, Any], overrides: dict[str, Any] | None = None,
                 source: str = "config") -> TrainConfig:
    """Validate ``data`` (read from ``source``, e.g. the file's path) with ``overrides`` (dotted keys
    from ``--set``) applied; an error names whichever is to blame: the ``--set`` override or ``source``."""
    return build_blamed(data, overrides, source, check=_build, build=config_from_dict)


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Load a YAML config file; ``overrides`` (dotted keys, e.g. ``{"ppo.n_epochs": 2}``) win.
    Errors name the file or the override to blame (see :func:`build_config`)."""
    data = read_config_file(path)
    if data.get("method") == "expert_iteration":
        raise ConfigError(f"{path} is an expert-iteration config (method: expert_iteration); run it with "
                          f"five-towers expert --config {path}")
    return build_config(data, overrides, source=str(path))


def settings_table() -> str:
    """Every setting with its default and meaning, as a Markdown table (docs/training.md's)."""
    return _settings_table(TrainConfig, _SECTIONS)


def config_to_dict(cfg: TrainConfig) -> dict[str, Any]:
    """The config as plain data (for saving beside checkpoints)."""
    return dataclasses.asdict(cfg)
