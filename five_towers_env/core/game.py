"""The game contract: one declarative :class:`GameSpec` per game, and the registry that holds them.

A game is one package (``five_towers_env/games/<name>/``) that ends with ``register_game(SPEC)``.
Game-neutral code (agents, play, evaluation, training, the command line, the integrations) never
imports a game's rules: it looks the game up here by name and loads what it needs from the dotted
``"module:attribute"`` paths the spec names, on first use, so importing one game never imports
another. The package's own games are found by name (:data:`BUILTIN_GAMES`); other games register
when their module is imported, or are imported from the ``FIVE_TOWERS_GAMES`` environment
variable (module names, comma-separated) or the ``five_towers_env.games`` entry-point group.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from five_towers_env.core.builtin_games import BUILTIN_GAMES, DEFAULT_GAME, BuiltinGame
from five_towers_env.core.state import agent_info

PLUGIN_ENV_VAR = "FIVE_TOWERS_GAMES"
ENTRY_POINT_GROUP = "five_towers_env.games"


def setup_key(num_players: int, variant: str) -> str:
    """``(4, "base")`` -> ``"4p-base"``: how a setup is written (``shipped_policies`` keys, training configs)."""
    return f"{num_players}p-{variant}"


def parse_setup_key(key: str) -> tuple[int, str]:
    """``"4p-great_powers"`` -> ``(4, "great_powers")``; ``ValueError`` for text that is not one."""
    players, sep, variant = str(key).partition("p-")
    if not sep or not players.isdigit() or not variant:
        raise ValueError(f"{key!r} is not a setup; write <players>p-<variant>, e.g. 3p-base")
    return int(players), variant


@cache
def _module(name: str) -> Any:
    """The module ``name``, imported once (a spec keeps only the name, so that it pickles)."""
    return importlib.import_module(name)


def load(target: str) -> Any:
    """The object at ``"module:attribute"`` (the attribute may be dotted: ``"module:Class.method"``)."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class GameSpec:
    """Everything game-neutral code needs to know about one game, in one place.

    Attributes:
        name: the id used everywhere (``--game``, records, ``info["game"]``, training configs).
        title: the game's name for people.
        module: the game's package (``__name__`` of the module that registers the spec).
        variants: the rule variants; ``variants[0]`` is the default.
        min_players, max_players: the seats a game may have.
        num_actions: the size of the flat ``Discrete`` action space.
        observation_size: the length of the flat float32 observation vector.
        raw_env, env: ``"module:callable"`` building the unwrapped PettingZoo AEC environment
            (``num_players=``, ``variant=``, ``render_mode=``, and the game's own options as keywords)
            and the same inside PettingZoo's standard wrappers.
        codec: the game's action codec, a module with ``NUM_ACTIONS``, ``action_name(id)`` and
            ``action_from_name(name)`` (the environment, the move log, records and agents' ``info`` use it).
        save_position: ``"module:function"``: ``(state) -> dict``, the state as a JSON-able position
            (the environment's ``position()``, records).
        check_setup: ``"module:function"``: ``(num_players, variant)``, raising ``ValueError``.
        ui: ``"module:attribute"`` of the game's :class:`~five_towers_env.core.gameui.GameUI`
            (the human seat, move logs, records and replays).
        agents: the game's own agents, registry name -> ``"module:Class"`` (each takes ``seed=``
            plus keyword settings). The agent registry adds the game-neutral ones, some by what the game
            declares (:func:`five_towers_env.agents.registry.agents_of` gives them all).
        pettingzoo_id, gymnasium_id: the ids registered with PettingZoo (the wrapped AEC env)
            and Gymnasium (the single-agent env); empty: not registered.
        shipped_policies: ``"<players>p-<variant>"`` -> a policy file inside the game's package,
            played by the ``ppo`` agent in that setup (one file may serve several setups; ``ppo`` refuses
            a setup with none); ``"<players>p-<variant>:v<k>"`` names its numbered versions
            (``ppo:version=k``), earlier ones kept for comparison.
        explicit: whether ``raw_env`` takes ``explicit=`` (single-choice decisions applied by default).
        perfect_information: whether every seat sees the whole position (only the order of what chance
            draws next is hidden); with it a search may play on the public view itself.
        observe: ``"module:function"``: ``(state, seat) -> observation vector``, the flat observation
            the environment shows ``seat`` (for network-guided search); empty: none.
        shipped_networks: ``"<players>p-<variant>"`` -> a policy-value network file inside the game's
            package, played by the ``net`` and ``guided`` agents (expert iteration).
        chance: ``"module:Class"`` of the game's :class:`~five_towers_env.core.chance.ChanceState`: its
            random events as chance nodes (the OpenSpiel adapter); empty: none.
        observations: the game's other observations besides ``"flat"`` (the environment's own vector):
            name -> ``"module:callable"`` wrapping the game's ``raw_env`` in a PettingZoo wrapper whose
            ``observe`` / ``observation_space`` give that observation (``SingleAgentGymEnv(observation=name)``).
        architectures: the policy networks that read the game's observation layout, besides ``mlp`` (which
            reads any game's): name -> ``"module:attribute"`` of the layout that network reads (``typed``: a
            :class:`~five_towers_env.core.typed_net.TypedLayout`).
        engine: ``"module:callable"``: ``(num_players, variant, rng, **options) -> state``, a new game of the
            Python reference engine dealt with the numpy generator ``rng`` (:meth:`new_state`).
        native_engine: the same for the game's native (C++) core; empty: none (the game runs on Python
            whatever ``FIVE_TOWERS_ENGINE`` says). Its module must also have ``from_python(state)``, the native
            state equal to a reference state (:meth:`adopt`).
        opponents: the game's rule-based opponents, weakest first: the defaults a trainer evaluates against
            and the columns of the policy zoo's table (``random`` alone when it declares none).
        pool_weights: the default share of each rule-based opponent in a self-play training pool.
        teacher: the agent a trainer imitates, or evaluates a network against, by default.
        ladder: a folder inside the game's package holding its rating ladder
            (:mod:`~five_towers_env.evaluation.ladder`): ``plan.json``, how it is calibrated, and one
            ``<players>p-<variant>.json`` per calibrated setup, which ``five-towers rate`` places agents on;
            empty: none.
    """

    name: str
    title: str
    module: str
    variants: tuple[str, ...]
    min_players: int
    max_players: int
    num_actions: int
    observation_size: int
    raw_env: str
    env: str
    codec: str
    save_position: str
    check_setup: str
    ui: str
    agents: Mapping[str, str] = field(default_factory=dict)
    pettingzoo_id: str = ""
    gymnasium_id: str = ""
    shipped_policies: Mapping[str, str] = field(default_factory=dict)
    explicit: bool = False
    perfect_information: bool = False
    observe: str = ""
    shipped_networks: Mapping[str, str] = field(default_factory=dict)
    chance: str = ""
    observations: Mapping[str, str] = field(default_factory=dict)
    architectures: Mapping[str, str] = field(default_factory=dict)
    ladder: str = ""
    engine: str = ""
    native_engine: str = ""
    opponents: tuple[str, ...] = ("random",)
    pool_weights: Mapping[str, float] = field(default_factory=lambda: {"random": 1.0})
    teacher: str = "random"

    def __post_init__(self) -> None:
        targets = ("raw_env", "env", "save_position", "check_setup", "ui")
        problems = [f"{key} must name 'module:attribute', got {getattr(self, key)!r}"
                    for key in targets if ":" not in getattr(self, key)]
        if not self.variants:
            problems.append("variants must name at least one variant")
        if not 1 <= self.min_players <= self.max_players:
            problems.append(f"players {self.min_players}..{self.max_players} is not a range")
        if self.num_actions < 1 or self.observation_size < 1:
            problems.append("num_actions and observation_size must be positive")
        problems += [f"{kind}[{name!r}] must name 'module:attribute', got {target!r}"
                     for kind in ("observations", "architectures")
                     for name, target in getattr(self, kind).items() if ":" not in target]
        if problems:
            raise ValueError(f"game spec {self.name!r}: " + "; ".join(problems))

    def backend(self) -> str:
        """``"native"`` or ``"python"``: the engine :meth:`new_state` uses now for this game
        (:func:`five_towers_env.engine_backend`, and Python for a game without a native core)."""
        from five_towers_env.core.backend import engine_backend

        # only this game's native module is imported: asking about one game never loads another
        return engine_backend(self.native_engine.partition(":")[0]) if self.native_engine else "python"

    def new_state(self, num_players: int, variant: str | None = None, seed: int | None = None,
                  rng: Any = None, **options: Any) -> Any:
        """A new game on the active backend: a bare engine state with the ``State`` protocol, dealt with
        ``rng`` (a numpy generator, kept by the state) or ``numpy.random.default_rng(seed)``; the same seed
        deals the same game on both backends. ``options`` are the game's own (5 Towers ``start_player``,
        Campanile ``bet_chip``)."""
        if not self.engine:
            raise ValueError(f"{self.title} declares no engine (GameSpec.engine): it has no bare states")
        import numpy as np

        variant = self.default_variant if variant is None else variant
        self.check(num_players, variant)
        rng = np.random.default_rng(seed) if rng is None else rng
        make = self.native_engine if self.backend() == "native" and _is_pcg64(rng) else self.engine
        return load(make)(num_players, variant, rng, **options)

    def adopt(self, state: Any) -> Any:
        """``state`` (of either backend) on the active backend: a reference state becomes the equal native
        one where native is active; anything else is returned as it is."""
        if self.backend() != "native" or getattr(state, "backend", "python") == "native":
            return state
        rng = getattr(state, "rng", None)
        if rng is None or not _is_pcg64(rng):  # the native cores keep a PCG64 generator of their own
            return state
        module = self.native_engine.partition(":")[0]
        return _module(module).from_python(state)

    @property
    def default_variant(self) -> str:
        """The variant used when none is named."""
        return self.variants[0]

    def make_raw_env(self, **kwargs: Any) -> Any:
        """``raw_env(**kwargs)`` of this game."""
        return load(self.raw_env)(**kwargs)

    def make_env(self, **kwargs: Any) -> Any:
        """The wrapped PettingZoo AEC environment of this game."""
        return load(self.env)(**kwargs)

    @property
    def actions(self) -> Any:
        """The game's action codec module (:attr:`codec`)."""
        return _module(self.codec)

    def action_name(self, action: int) -> str:
        """The name of an action id."""
        return self.actions.action_name(action)

    def action_from_name(self, name: str) -> int:
        """The action id of a move's name; ``ValueError`` for an unknown name."""
        return self.actions.action_from_name(name)

    def position_of(self, state: Any) -> dict[str, Any]:
        """``state`` as the game's JSON-able position (it names hidden cards: for records, never for agents)."""
        return load(self.save_position)(state)

    def agent_info(self, state: Any, seat: int) -> dict[str, Any]:
        """The ``info`` the agent at ``seat`` receives (:func:`five_towers_env.core.state.agent_info`)."""
        return agent_info(state, seat, self.name, self.actions.action_name)

    def check(self, num_players: Any, variant: Any) -> None:
        """Raise ``ValueError`` unless ``num_players`` and ``variant`` are a setup of this game."""
        load(self.check_setup)(num_players, variant)

    def load_ui(self) -> Any:
        """The game's :class:`~five_towers_env.core.gameui.GameUI`."""
        return load(self.ui)

    def observer(self) -> Callable[[Any, int], Any]:
        """The game's ``observe(state, seat)``; ``ValueError`` if it declares none."""
        if not self.observe:
            raise ValueError(f"{self.title} declares no observe function (GameSpec.observe): "
                             "network-guided search cannot encode its positions")
        return load(self.observe)

    def chance_state(self) -> Any:
        """The game's :class:`~five_towers_env.core.chance.ChanceState` subclass; ``ValueError`` if it has none."""
        if not self.chance:
            raise ValueError(f"{self.title} declares no chance model (GameSpec.chance): it has no OpenSpiel adapter")
        return load(self.chance)

    def observation_wrapper(self, name: str) -> Callable[[Any], Any]:
        """The wrapper giving the game's observation ``name`` (:attr:`observations`); ``ValueError`` naming
        the ones it has."""
        if name not in self.observations:
            known = ", ".join(repr(n) for n in ("flat", *self.observations))
            raise ValueError(f"{self.title} has no observation {name!r}; its observations: {known}")
        return load(self.observations[name])

    def architecture(self, name: str) -> Any:
        """The layout the network ``name`` reads in this game (:attr:`architectures`); ``ValueError`` if the
        game declares none for it."""
        if name not in self.architectures:
            known = ", ".join(["mlp", *self.architectures])
            raise ValueError(f"{self.title} has no {name} network (GameSpec.architectures); its networks: {known}")
        return load(self.architectures[name])

    def package_file(self, rel: str) -> Path:
        """The file (or folder) ``rel`` inside the game's package."""
        where = importlib.import_module(self.module).__file__
        if where is None:
            raise ValueError(f"{self.module} is not a package on disk: it cannot ship files")
        return Path(where).parent / rel

    def network_path(self, num_players: int | None = None, variant: str | None = None) -> Path | None:
        """The policy-value network shipped for this setup (``None`` for both: the first one shipped), or None."""
        if num_players is None or variant is None:
            key = next(iter(self.shipped_networks), None) if num_players is None and variant is None else None
        else:
            key = setup_key(num_players, variant)
        rel = self.shipped_networks.get(key) if key is not None else None
        return None if rel is None else self.package_file(rel)

    def policy_path(self, num_players: int, variant: str, version: int | None = None) -> Path | None:
        """The policy shipped for this setup (its earlier ``version`` if given), or None."""
        key = setup_key(num_players, variant) + (f":v{version}" if version is not None else "")
        rel = self.shipped_policies.get(key)
        if rel is None:
            return None
        return self.package_file(rel)

    def policy_versions(self, num_players: int, variant: str) -> list[int]:
        """The numbered versions shipped for this setup (``"<setup>:v<k>"`` keys), oldest first."""
        prefix = setup_key(num_players, variant) + ":v"
        return sorted(int(key[len(prefix):]) for key in self.shipped_policies if key.startswith(prefix))

    def default_policy(self, version: int | None = None) -> Path | None:
        """The first setup's shipped policy (its earlier ``version`` if given): what ``ppo`` holds until its
        first decision tells it the setup, when it takes the policy shipped for that setup (or says there is none)."""
        setups = [key for key in self.shipped_policies if ":" not in key]
        if not setups:
            return None
        return self.policy_path(*parse_setup_key(setups[0]), version)


def _is_pcg64(rng: Any) -> bool:
    """Whether ``rng`` is a numpy generator on PCG64 (the native cores draw as it does), or None."""
    if rng is None:
        return True
    bit_generator = getattr(rng, "bit_generator", None)
    return type(bit_generator).__name__ == "PCG64"


#: name -> spec of every game registered so far
_REGISTRY: dict[str, GameSpec] = {}
_plugins_loaded = False
#: called with each game newly registered (the PettingZoo / Gymnasium ids: :mod:`five_towers_env.registration`
#: subscribes, so that this module imports nothing of the package)
_ON_REGISTER: list[Callable[[GameSpec], None]] = []


def on_register(callback: Callable[[GameSpec], None]) -> None:
    """Call ``callback(spec)`` for every game registered from now on (once per callback)."""
    if callback not in _ON_REGISTER:
        _ON_REGISTER.append(callback)


def _check_builtin(spec: GameSpec) -> None:
    """A built-in game's spec must publish what :data:`BUILTIN_GAMES` says it does (ids are registered from it)."""
    builtin = BUILTIN_GAMES.get(spec.name)
    if builtin is None:
        return
    declared = (builtin.module, builtin.env, builtin.pettingzoo_id, builtin.gymnasium_id)
    if (spec.module, spec.env, spec.pettingzoo_id, spec.gymnasium_id) != declared:
        raise ValueError(f"game spec {spec.name!r}: module, env, pettingzoo_id and gymnasium_id must be "
                         f"{declared} as BUILTIN_GAMES declares them")


def register_game(spec: GameSpec) -> GameSpec:
    """Make ``spec`` known by its name (idempotent for an equal spec); returns it."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game takes a GameSpec, got {type(spec).__name__}")
    known = _REGISTRY.get(spec.name)
    if known is not None and known != spec:
        raise ValueError(f"a different game is already registered as {spec.name!r} (from {known.module})")
    _check_builtin(spec)
    _REGISTRY[spec.name] = spec
    if known is None:
        for callback in list(_ON_REGISTER):
            callback(spec)
    return spec


def _load_plugins() -> None:
    """Import the game modules named in ``FIVE_TOWERS_GAMES`` and the entry points (once)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for module in filter(None, (m.strip() for m in os.environ.get(PLUGIN_ENV_VAR, "").split(","))):
        importlib.import_module(module)
    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            ep.load()
    except Exception:  # a broken third-party entry point must not break the built-in games
        pass


def get_game(name: str | GameSpec) -> GameSpec:
    """The :class:`GameSpec` named ``name`` (a spec is returned as it is); ``ValueError`` naming the known ones.
    No game is assumed: a caller that means 5 Towers says :data:`DEFAULT_GAME`."""
    if isinstance(name, GameSpec):
        return name
    if not isinstance(name, str):
        raise ValueError(f"unknown game {name!r}; known: {', '.join(game_names())}")
    if name not in _REGISTRY and name in BUILTIN_GAMES:
        module = importlib.import_module(BUILTIN_GAMES[name].module)
        if name not in _REGISTRY:  # imported earlier, its registration since taken back (a test's registry copy)
            register_game(module.SPEC)
    if name not in _REGISTRY:
        _load_plugins()
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(game_names())}")
    return _REGISTRY[name]


def game_names() -> list[str]:
    """Every game's name: the built-in ones first, then the others registered or named as plugins."""
    _load_plugins()
    return list(dict.fromkeys([*BUILTIN_GAMES, *_REGISTRY]))


class _Games(Mapping[str, GameSpec]):
    """Every game by name, each loaded on first access (``GAMES["campanile"]``)."""

    def __getitem__(self, name: str) -> GameSpec:
        try:
            return get_game(name)
        except ValueError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(game_names())

    def __len__(self) -> int:
        return len(game_names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in game_names()


GAMES: Mapping[str, GameSpec] = _Games()

__all__ = ["GameSpec", "GAMES", "BuiltinGame", "BUILTIN_GAMES", "DEFAULT_GAME", "register_game", "on_register",
           "get_game", "game_names", "load", "parse_setup_key", "setup_key"]
