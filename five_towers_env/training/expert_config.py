"""Settings of an expert-iteration run (``five-towers expert``), loaded from YAML and validated.

Every setting is a field of :class:`ExpertConfig` with its meaning beside it; a config file holds
any subset of them. Unknown keys and values of the wrong type or range are errors naming the key.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from five_towers_env.atomic import write_text
from five_towers_env.core.game import get_game
from five_towers_env.numerics import MODES as NUMERICS_MODES
from five_towers_env.training.config import ConfigError, read_config_file


@dataclass
class ExpertConfig:
    """One expert-iteration run: a policy-value network and the search it guides, improving each other."""

    name: str = "expert"
    """Run name: the run folder is `<out_dir>/<name>`."""
    out_dir: str = "runs"
    """Folder of the run folders."""
    game: str = "five_towers"
    """The game trained: `five_towers` or `campanile`."""
    num_players: int = 2
    """Players per game; the value head has one output per seat."""
    variant: str = ""
    """The game's variant (empty: its default, 5 Towers `base`, Campanile `pile`)."""
    seed: int = 0
    """The one seed of the run: every deal, search, minibatch and the network's first weights derive
    from it."""
    architecture: str = "typed"
    """The network's body: `typed` (5 Towers only: weights shared across the tower types) or `mlp`."""
    hidden: tuple[int, ...] = (256, 256)
    """Hidden layer sizes of the `mlp` body (ReLU); ignored by `typed`."""
    init_policy: str = "shipped"
    """Start the policy from `shipped` (the game's shipped `ppo` policy, same architecture), a policy `.npz`
    path, or `none` (fresh weights). The value head always starts fresh."""
    generations: int = 10
    """Rounds of (self-play games, training) to run; raise it on `--resume` to go on."""
    games_per_generation: int = 200
    """Guided self-play games per generation."""
    warmup_games: int = 2000
    """Games of the bare network (moves sampled) before the first generation, teaching the value head."""
    warmup_steps: int = 1500
    """Minibatches on the warm-up positions (their policy target is the network's own distribution)."""
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
    """Games of `net` and of `guided` against the heuristic at each evaluation (paired deals, `eval_seed`)."""
    eval_mcts_games: int = 40
    """Games of `net` and of `guided` against `eval_mcts` at each evaluation (0: none)."""
    eval_mcts: str = "mcts"
    """The search opponent of the learning curve (a registry spec, e.g. `mcts:simulations=400`)."""
    eval_seed: int = 777
    """Seed of the evaluation deals (the same at every point of the curve)."""
    eval_simulations: int = 64
    """The guided agent's simulations in the evaluations."""

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
        if self.architecture == "typed" and spec.name != "five_towers":
            raise ConfigError("architecture: the typed network reads 5 Towers observations only; use mlp")
        positive = ("generations", "games_per_generation", "simulations", "determinisations", "buffer_positions",
                    "train_steps", "batch_size", "workers", "torch_threads", "eval_every", "eval_simulations")
        for key in positive:
            if int(getattr(self, key)) < 1:
                raise ConfigError(f"{key}: must be at least 1, got {getattr(self, key)!r}")
        for key in ("warmup_games", "warmup_steps", "temperature_moves", "eval_games", "eval_mcts_games", "seed"):
            if int(getattr(self, key)) < 0:
                raise ConfigError(f"{key}: must be at least 0, got {getattr(self, key)!r}")
        if not 0.0 <= self.root_noise < 1.0:
            raise ConfigError(f"root_noise: in [0, 1), got {self.root_noise!r}")

    @property
    def run_dir(self) -> Path:
        """Where the run writes: ``<out_dir>/<name>``."""
        return Path(self.out_dir) / self.name

    def search_settings(self, noise: float) -> dict[str, Any]:
        """The guided agent's keyword settings in self-play (with ``noise``) or evaluation (0)."""
        return {"simulations": self.simulations, "determinisations": self.determinisations,
                "c_puct": self.c_puct, "noise": noise}


def _coerce(key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of the field's default; ``ConfigError`` naming ``key`` if it is not one."""
    if isinstance(default, bool) or default is None:
        return value
    if isinstance(default, tuple):
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) and v > 0 for v in value):
            raise ConfigError(f"{key}: a list of positive integers, got {value!r}")
        return tuple(value)
    if isinstance(default, int) and not isinstance(value, bool) and isinstance(value, int):
        return value
    if isinstance(default, float) and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(default, str) and isinstance(value, str):
        return value
    raise ConfigError(f"{key}: expected {type(default).__name__}, got {value!r}")


def build_expert_config(data: dict[str, Any], overrides: dict[str, Any] | None = None) -> ExpertConfig:
    """An :class:`ExpertConfig` from a mapping and ``--set`` overrides (both validated)."""
    merged = {**(data or {}), **(overrides or {})}
    defaults = {f.name: getattr(ExpertConfig(), f.name) for f in dataclasses.fields(ExpertConfig)}
    unknown = sorted(set(merged) - set(defaults) - {"method"})
    if unknown:
        raise ConfigError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(defaults)}")
    kwargs = {k: _coerce(k, v, defaults[k]) for k, v in merged.items() if k != "method"}
    return ExpertConfig(**kwargs)


def load_expert_config(path: str | Path, overrides: dict[str, Any] | None = None) -> ExpertConfig:
    """Read a YAML config file (see :class:`ExpertConfig`)."""
    data = read_config_file(path)
    if data.get("method", "expert_iteration") != "expert_iteration":
        raise ConfigError(f"{path}: method {data['method']!r}; an expert-iteration config says "
                          "method: expert_iteration")
    return build_expert_config(data, overrides)


def save_expert_config(cfg: ExpertConfig, path: str | Path) -> None:
    """Write ``cfg`` as YAML (the run's own copy, read again on resume)."""
    data = dataclasses.asdict(cfg)
    data["hidden"] = list(cfg.hidden)
    write_text(path, yaml.safe_dump({"method": "expert_iteration", **data}, sort_keys=False))


def expert_settings_table() -> str:
    """Every setting with its default and meaning, as a Markdown table (docs/training.md's)."""
    from five_towers_env.training.config import field_docs

    docs, defaults = field_docs(ExpertConfig), ExpertConfig()
    rows = ["| setting | default | meaning |", "|---|---|---|"]
    for f in dataclasses.fields(ExpertConfig):
        value = getattr(defaults, f.name) if f.name != "variant" else ""
        rows.append(f"| `{f.name}` | `{value!r}` | {docs[f.name].replace('``', '`').replace('|', '/')} |")
    return "\n".join(rows)


__all__ = ["ExpertConfig", "expert_settings_table", "build_expert_config", "load_expert_config", "save_expert_config"]
