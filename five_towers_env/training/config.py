"""Settings of a self-play training run, loaded from YAML into validated dataclasses.

Every setting is documented on its field. A config file holds any subset of them (the rest keep
their defaults) in sections mirroring the dataclasses: top-level run settings, ``ppo:``,
``pool:`` and ``imitation:``. Unknown keys, wrong types and out-of-range values are errors that name the key.
"""
from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from five_towers_env.core.game import DEFAULT_GAME, GAMES, get_game
from five_towers_env.numerics import MODES as NUMERICS_MODES
from five_towers_env.training.setups import ConfigError, init_policy_path, parse_setup, setup_key

#: registry agents that are not opponents to train against or teachers: a person, the trained networks, and
#: OpenSpiel's bots (an optional dependency, and far too slow for a training pool)
NOT_BASELINES = ("human", "ppo", "net", "guided", "openspiel-mcts", "openspiel-ismcts")


def baselines(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """The agents of ``game``'s registry a run may train against, evaluate against or imitate
    (every one but those in :data:`NOT_BASELINES`)."""
    return tuple(name for name in get_game(game).agents if name not in NOT_BASELINES)


#: 5 Towers' baselines (kept for code written before there were two games; see :func:`baselines`)
BASELINES = baselines(DEFAULT_GAME)


@dataclass
class PPOSettings:
    """Hyper-parameters handed to sb3-contrib's ``MaskablePPO``."""

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
    """Policy network: ``mlp`` (an MLP on the flat observation) or ``typed`` (5 Towers only: one encoder
    and one action head shared by the five tower types, see ``five_towers_env/training/networks.py``)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""


#: ``ppo.architecture`` values and the games each serves (the typed network reads 5 Towers' layout)
ARCHITECTURES = {"mlp": tuple(GAMES), "typed": ("five_towers",)}


@dataclass
class PoolSettings:
    """The opponents the learner meets: baseline agents plus frozen snapshots of itself."""

    baselines: dict[str, float] = field(default_factory=lambda: {"random": 0.1, "greedy": 0.3, "heuristic": 0.6})
    """Baseline agent name -> sampling weight (the game's agents: ``random``, ``greedy``, ``heuristic``, ``mcts``)."""
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
    ``five_towers_env/training/imitation.py``)."""

    games: int = 0
    """Games of teacher play to imitate before self-play starts; 0 starts PPO from scratch."""
    teacher: str = "heuristic"
    """The agent imitated (one of the game's agents: ``random``, ``greedy``, ``heuristic``, ``mcts``)."""
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
    """Split the environments over ``env_workers`` worker processes (``ProcessVecEnv``) instead of
    stepping them all in the trainer's process (``SelfPlayVecEnv``); either way the games of one process
    are stepped together and a snapshot opponent decides for all of them in one network pass."""
    env_workers: int = 2
    """Worker processes of the environments when ``subproc`` is on (at most ``n_envs``): one per core
    the opponents may use while the trainer waits for them."""
    reward_margin: float = 0.02
    """Shaping: the learner's reward is win/loss (+1 / -1) plus this times its score margin
    (own score minus the best other score). 0 trains on win/loss alone."""
    eval_every: int = 100_000
    """Evaluate (against each of ``eval_opponents``, and the pool) every this many timesteps."""
    eval_games: int = 100
    """Games per opponent at each evaluation (the learner in a random seat; the same seeded games every time)."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "heuristic"])
    """Baselines the win rate is logged against (``eval/win_rate_vs_<name>``)."""
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


def _as_number(value: Any) -> float | None:
    """``value`` read as a number if it is a string such as ``"1e5"`` (YAML 1.1 reads exponents without
    a dot as strings), else None."""
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _yaml_reads_a_number(text: str) -> bool:
    try:
        import yaml

        return isinstance(yaml.safe_load(text), (int, float)) and not isinstance(yaml.safe_load(text), bool)
    except Exception:
        return False


def _number_hint(key: str, value: Any, hint: type) -> str | None:
    """A message telling how to write a number YAML did not read as one (or a float given for an int)."""
    number = _as_number(value)
    if number is not None and _yaml_reads_a_number(value):  # a quoted number: not YAML's doing
        return f"{key}: expected {hint.__name__}, got {value!r} (a string: write it without quotes)"
    yaml_note = f" (YAML reads {value} as a string)" if number is not None else ""
    if number is None and isinstance(value, float):
        number = value
    if number is None or number != number or number in (float("inf"), float("-inf")):
        return None
    if hint is int:
        if not float(number).is_integer():
            return f"{key} must be an integer, got {value!r}"
        return f"{key} must be an integer; write {int(number)}{yaml_note}"
    return f"{key} must be a number; write {number!r}{yaml_note}"


def _check_type(key: str, value: Any, hint: Any) -> Any:
    """Return ``value`` as the annotated type, or raise naming ``key``."""
    origin = getattr(hint, "__origin__", None)
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint in (int, str, bool):
        if type(value) is hint:
            return value
        if hint is int:
            message = _number_hint(key, value, hint)
            if message:
                raise ConfigError(message)
        raise ConfigError(f"{key}: expected {hint.__name__}, got {value!r}")
    if hint is float:
        message = _number_hint(key, value, hint)
        if message:
            raise ConfigError(message)
    if origin is list:
        (item,) = hint.__args__
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {value!r}")
        return [_check_type(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        k_hint, v_hint = hint.__args__
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: expected a mapping, got {value!r}")
        return {_check_type(f"{key} key", k, k_hint): _check_type(f"{key}.{k}", v, v_hint) for k, v in value.items()}
    raise ConfigError(f"{key}: expected {getattr(hint, '__name__', hint)}, got {value!r}")


def _build(cls: type, data: Any, prefix: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{prefix or 'config'}: expected a mapping, got {data!r}")
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(prefix + str(k) for k in unknown)}; "
                          f"known: {', '.join(sorted(names))}")
    values = {}
    if cls is TrainConfig and "variant" not in data and isinstance(data.get("game"), str) and data["game"] in GAMES:
        # the dataclass default ("base") is 5 Towers'; another game starts from its own default
        values["variant"] = get_game(data["game"]).default_variant
    for key, value in data.items():
        if key in _SECTIONS and cls is TrainConfig:
            values[key] = _build(_SECTIONS[key], value, f"{key}.")
        else:
            values[key] = _check_type(prefix + key, value, hints[key])
    return cls(**values)


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
    _require(not cfg.init_policy or init_policy_path(cfg.init_policy).is_file(),
             f"init_policy: no policy file at {cfg.init_policy}")
    _require(cfg.final_eval_games >= 0, f"final_eval_games: must be >= 0, got {cfg.final_eval_games}")
    _require(cfg.seed >= 0, f"seed: must be >= 0, got {cfg.seed}")
    _require(cfg.reward_margin >= 0, f"reward_margin: must be >= 0, got {cfg.reward_margin}")
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
    _require(game.name in ARCHITECTURES[p.architecture],
             f"ppo.architecture: {p.architecture} is a 5 Towers network (it reads that game's observation layout); "
             f"{game.title} trains architecture: mlp")
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
    _require(m.teacher in known, f"imitation.teacher: unknown agent {m.teacher!r}; known: {', '.join(known)}")
    _require(m.epochs >= 1 and m.batch_size >= 1, "imitation.epochs and imitation.batch_size must be >= 1")
    _require(m.learning_rate > 0 and m.value_coef >= 0,
             "imitation.learning_rate must be > 0, imitation.value_coef >= 0")
    return cfg


def config_from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and validate a :class:`TrainConfig` from a mapping (as ``yaml.safe_load`` returns)."""
    return validate(_build(TrainConfig, data if data is not None else {}, ""))


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping of settings in a YAML config file; raise :class:`ConfigError` for a missing file,
    a folder, invalid YAML, an empty file or one whose top level is not a mapping."""
    import yaml

    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"config {path} is a folder, not a YAML file (e.g. configs/ppo_selfplay_2p.yaml)")
    if not path.exists():
        raise ConfigError(f"config file {path} does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the config: {e}") from e
    if data is None:
        raise ConfigError(f"{path}: the config file is empty; it must be a mapping of settings "
                          "(e.g. total_timesteps: 100000), see configs/ppo_selfplay_2p.yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of settings (key: value lines), "
                          f"got a {type(data).__name__} at the top level")
    return data


def _show_override(key: str, value: Any) -> str:
    return f"--set {key}={value if isinstance(value, str) else json.dumps(value, default=str)}"


def build_config(data: dict[str, Any], overrides: dict[str, Any] | None = None,
                 source: str = "config") -> TrainConfig:
    """Validate ``data`` (read from ``source``, e.g. the file's path) with ``overrides`` (dotted keys
    from ``--set``) applied; an error names whichever is to blame: the ``--set`` override or ``source``."""
    overrides = dict(overrides or {})
    for key, value in overrides.items():  # each override on its own: unknown keys and types
        try:
            _build(TrainConfig, apply_overrides({}, {key: value}), "")
        except ConfigError as e:
            raise ConfigError(f"{_show_override(key, value)}: {e}") from None
    try:
        _build(TrainConfig, data, "")  # the source on its own: unknown keys and types
    except ConfigError as e:
        raise ConfigError(f"{source}: {e}") from None
    try:
        source_ok = validate(_build(TrainConfig, data, "")) is not None
    except ConfigError:
        source_ok = False
    try:
        return config_from_dict(apply_overrides(copy.deepcopy(data), overrides))
    except ConfigError as e:
        if overrides and source_ok:  # the overrides broke a valid config
            shown = " ".join(_show_override(k, v) for k, v in overrides.items())
            raise ConfigError(f"{shown}: {e}") from None
        raise ConfigError(f"{source}{' (with the --set overrides)' if overrides else ''}: {e}") from None


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Load a YAML config file; ``overrides`` (dotted keys, e.g. ``{"ppo.n_epochs": 2}``) win.
    Errors name the file or the override to blame (see :func:`build_config`)."""
    data = read_config_file(path)
    if data.get("method") == "expert_iteration":
        raise ConfigError(f"{path} is an expert-iteration config (method: expert_iteration); run it with "
                          f"five-towers expert --config {path}")
    return build_config(data, overrides, source=str(path))


def apply_overrides(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Set dotted keys (``{"ppo.n_epochs": 2}``) in a config mapping, in place; returns it."""
    for dotted, value in overrides.items():
        node = data
        *parents, last = dotted.split(".")
        if not all(parents) or not last:
            raise ConfigError(f"bad key {dotted!r}; "
                              "write a setting or section.setting, e.g. ppo.n_epochs")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{dotted}: {part} is not a section")
        node[last] = value
    return data


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each field of a settings dataclass, as one line."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(tree, ast.ClassDef)
    body = tree.body
    docs = {}
    for node, after in zip(body, body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def settings_table() -> str:
    """Every setting with its default and meaning, as a Markdown table (the README's)."""
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for prefix, cls in [("", TrainConfig)] + [(f"{k}.", c) for k, c in _SECTIONS.items()]:
        docs, defaults = field_docs(cls), cls()
        for f in dataclasses.fields(cls):
            if not (cls is TrainConfig and f.name in _SECTIONS):
                value = getattr(defaults, f.name)
                doc = docs[f.name].replace("``", "`").replace("|", "/")
                rows.append(f"| `{prefix}{f.name}` | `{value!r}` | {doc} |")
    return "\n".join(rows)


def config_to_dict(cfg: TrainConfig) -> dict[str, Any]:
    """The config as plain data (for saving beside checkpoints)."""
    return dataclasses.asdict(cfg)


def save_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write ``cfg`` as YAML that :func:`load_config` reads back to an equal config."""
    import yaml

    from five_towers_env.atomic import write_text

    write_text(path, yaml.safe_dump(config_to_dict(cfg), sort_keys=False))
