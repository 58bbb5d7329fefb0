"""The batched vector environment: N games of one setup stepped by the native core in one call.

:class:`VectorGameEnv` serves every seat, as the PettingZoo environment does: after each call it
holds, for every game, the seat on move (``seat``), that seat's observation (``obs``, float32
``(N, observation_size)``) and its action mask (``mask``, int8 ``(N, num_actions)``), all in arrays
allocated once and written in place by C++ with the GIL released. :meth:`~VectorGameEnv.step` takes one
action per game (an id, :data:`RANDOM` for a uniform random legal move drawn natively, or :data:`SKIP` to
leave a game waiting); a game that ends reports every seat's reward (+1 each winner, -1 the others, the
PettingZoo environment's ``win_loss``) and final scores, and is dealt again at once from its own generator,
as the PettingZoo environment's unseeded ``reset()`` deals the next game. Single-choice decisions are
applied by default (``explicit=False``, as the environments do).

``reset(seed)`` deals game ``i`` from ``numpy.random.default_rng(seed + i)``: the same game the PettingZoo
environment deals with ``reset(seed=seed + i)`` on either backend. The Gymnasium vector environment with
one learner seat is :class:`five_towers_env.wrappers.gym_vector.GymVectorEnv`.

**Actions are ints**: an integer array, or a sequence of Python or numpy ints (:func:`action_ids`). A float,
a string, a bool or NaN is refused as an illegal action is (``ValueError`` naming the game; nothing moves),
never rounded or parsed.

**Threads.** One environment may be shared by several threads: every call (``reset``, ``step``,
``learner_step``, ``state``, ``native_states``, ``close``) holds the environment's :attr:`~VectorGameEnv.lock`
(a re-entrant lock) for its whole sequence of native calls, and the native core holds its own lock around the
games, so the threads' calls run one after another and each sees the games as the previous call left them.
The arrays a call returns are the environment's own, which the next call (from any thread) overwrites: a
thread that needs them to stay copies them, or holds ``with env.lock:`` around the call and its reads.
``close()`` frees the native games; a call after it raises ``RuntimeError`` ("closed").

**Size.** ``num_envs`` is at most :data:`MAX_ENVS` (262,144), and no more than the machine's available memory
holds (:func:`check_memory`: about 11 KB a game for 5 Towers, 2.5 KB for Campanile, several times that under
the Gymnasium vector environment, which keeps copies of the observations).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, load

#: step() actions besides the ids: a random legal move (drawn natively), and a game that does not move
RANDOM, SKIP = -1, -2
#: the most seats a row of rewards and scores holds
MAX_SEATS = 5
#: the most games one environment holds (the native core's bound too): 2**18, what a 24 GB machine holds
#: under the Gymnasium vector environment of 5 Towers (about 75 KB a game at its peak)
MAX_ENVS = 1 << 18
_INT64_MAX = 2**63 - 1


def action_ids(actions: Any, num_envs: int) -> np.ndarray:
    """``actions`` as ``num_envs`` int64 ids: a 1-D array of an integer dtype, or a sequence of Python or numpy
    ints. Anything else as an action (a float, a string, a bool, NaN, an int beyond int64) raises
    ``ValueError`` as an illegal action does ("illegal action X in game i"); a wrong shape ``ValueError`` too."""
    if not isinstance(actions, np.ndarray) and hasattr(actions, "__array__"):  # a tensor of another library
        actions = np.asarray(actions)
    if isinstance(actions, np.ndarray) and actions.dtype != object:
        if actions.shape != (num_envs,):
            raise ValueError(f"actions must be {num_envs} integer ids, got shape {actions.shape}")
        if actions.dtype.kind not in "iu":
            _refuse(actions[0].item(), 0, "actions are integer ids; ")
        if actions.dtype == np.uint64 and actions.size and int(actions.max()) > _INT64_MAX:
            i = int(np.argmax(actions > _INT64_MAX))
            _refuse(int(actions[i]), i)
        return actions.astype(np.int64, copy=False)
    if isinstance(actions, (str, bytes)) or not hasattr(actions, "__len__"):
        raise ValueError(f"actions must be {num_envs} integer ids, got {type(actions).__name__}")
    items = list(actions)
    if len(items) != num_envs:
        raise ValueError(f"actions must be {num_envs} integer ids, got {len(items)}")
    for i, a in enumerate(items):
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            _refuse(a, i, "actions are integer ids; ")
        if not -_INT64_MAX - 1 <= a <= _INT64_MAX:
            _refuse(a, i)
    return np.array(items, dtype=np.int64)


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int; ``ValueError`` for anything but an integer from 1 to :data:`MAX_ENVS`."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= MAX_ENVS:
        raise ValueError(f"num_envs must be an integer from 1 to {MAX_ENVS:,}, got {num_envs!r}")
    return int(num_envs)


def _refuse(action: Any, game: int, why: str = "") -> None:
    text = repr(action)
    text = text if len(text) <= 40 else text[:37] + "..."
    raise ValueError(f"illegal action {text} in game {game} ({why}no game was stepped)")


def available_memory() -> int | None:
    """Bytes of memory this machine can still give (Linux: ``MemAvailable`` of /proc/meminfo; elsewhere the
    free physical pages where the system says; None where it says nothing)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def game_bytes(module: Any) -> int:
    """A :class:`VectorGameEnv`'s memory per game, at most: the native game (``module.GAME_BYTES``) and its
    rows of the arrays (``obs``, ``mask``, ``seat``, ``rewards``, ``scores``, ``done``)."""
    return int(module.GAME_BYTES) + 4 * int(module.OBS_SIZE) + int(module.NUM_ACTIONS) + 4 + 8 * MAX_SEATS + 1


def check_memory(num_envs: int, bytes_per_game: int, what: str = "VectorGameEnv") -> None:
    """``ValueError`` (one line) when ``num_envs`` games of ``bytes_per_game`` would not fit in the memory this
    machine has available (:func:`available_memory`; no check where it is unknown)."""
    available = available_memory()
    need = num_envs * bytes_per_game
    if available is not None and need > available:
        raise ValueError(f"{what}: num_envs={num_envs:,} needs about {need / 1e9:.1f} GB ({bytes_per_game:,} bytes "
                         f"a game) and this machine has {available / 1e9:.1f} GB available: use fewer games")


def native_module(spec: GameSpec) -> Any:
    """The game's native engine module (``GameSpec.native_engine``); ``ValueError`` when it has none, and
    :class:`~five_towers_env.core.backend.NativeUnavailableError` when it was not built."""
    if not spec.native_engine:
        raise ValueError(f"{spec.title} has no native core (GameSpec.native_engine): no batched vector environment")
    from five_towers_env.core.backend import HOW_TO_BUILD, NativeUnavailableError

    module = spec.native_engine.partition(":")[0]
    try:
        return load(f"{module}:core_module")
    except ImportError as exc:
        raise NativeUnavailableError(f"the batched vector environment needs the native core, which is not built "
                                     f"({exc}); {HOW_TO_BUILD}") from None


class VectorGameEnv:
    """``num_envs`` games of one setup on the native core (see the module docstring).

    Args:
        game: the game's registry name or spec (it must have a native core).
        num_envs: how many games (1 to :data:`MAX_ENVS`, and what the available memory holds).
        num_players: the setup's player count.
        variant: the setup's variant (default: the game's first).
        explicit: put single-choice decisions to the players too.
        **options: the game's own settings (Campanile ``bet_chip``).

    Attributes (written in place by every call): ``obs``, ``mask``, ``seat`` (int32), and after
    :meth:`step` ``rewards`` (float32 ``(N, 5)``), ``scores`` (int32 ``(N, 5)``), ``done`` (bool ``(N,)``);
    ``lock``: the re-entrant lock every call holds (see the module docstring's threads).
    """

    def __init__(self, game: str | GameSpec = DEFAULT_GAME, num_envs: int = 1, num_players: int = 2,
                 variant: str | None = None, explicit: bool = False, **options: Any) -> None:
        spec = get_game(game)
        variant = spec.default_variant if variant is None else variant
        spec.check(num_players, variant)
        num_envs = check_num_envs(num_envs)
        module = native_module(spec)
        check_memory(num_envs, game_bytes(module))
        self.lock = threading.RLock()
        self.spec, self.num_envs, self.num_players, self.variant = spec, int(num_envs), int(num_players), variant
        engine = load(spec.native_engine.replace(":new_game", ":new_core"))
        template = engine(self.num_players, variant, np.random.default_rng(0), **options)
        self._core: Any = module.VectorEnv(template, self.num_envs, bool(explicit))
        n = self.num_envs
        self.num_actions, self.observation_size = int(module.NUM_ACTIONS), int(module.OBS_SIZE)
        self.obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, self.num_actions), dtype=np.int8)
        self.seat = np.zeros(n, dtype=np.int32)
        self.rewards = np.zeros((n, MAX_SEATS), dtype=np.float32)
        self.scores = np.zeros((n, MAX_SEATS), dtype=np.int32)
        self._done = np.zeros(n, dtype=np.uint8)
        self._core.write(self.obs, self.mask, self.seat)

    @property
    def done(self) -> np.ndarray:
        """Which games ended in the last :meth:`step` (bool; their rows of ``rewards`` and ``scores`` are set)."""
        return self._done.view(bool)

    def _native(self) -> Any:
        """The native games (the caller holds :attr:`lock`); ``RuntimeError`` once closed."""
        if self._core is None:
            raise RuntimeError("the vector environment is closed (close() was called)")
        return self._core

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game again, game ``i`` from ``default_rng(seed + i)`` (a random seed if None); the
        native random moves (:data:`RANDOM`) are seeded from it too. Returns ``(obs, mask, seat)``."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63 - MAX_ENVS:
            raise ValueError(f"seed must be an integer from 0 to 2**63 - {MAX_ENVS}, got {seed!r}")
        seeds = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(seed)
        with self.lock:
            core = self._native()
            core.reset(seeds)
            core.seed_moves(int(seed) + 2**62)
            core.write(self.obs, self.mask, self.seat)
        return self.obs, self.mask, self.seat

    def step(self, actions: np.ndarray | Sequence[int], final_seat: np.ndarray | None = None,
             final_obs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game (an id, :data:`RANDOM` or :data:`SKIP`; ints only, see :func:`action_ids`);
        returns ``(obs, mask, seat, rewards, done)`` (the arrays of this object, overwritten by the next call).
        An illegal action raises ``ValueError`` naming the game, and then no game has moved. ``final_obs``
        (float32 ``(N, obs)``), when given, receives ``final_seat[i]``'s observation of each finished game's
        last position."""
        acts = action_ids(actions, self.num_envs)
        with self.lock:
            core = self._native()
            core.step(acts, self.rewards, self._done, self.scores, final_seat, final_obs)
            core.write(self.obs, self.mask, self.seat)
        return self.obs, self.mask, self.seat, self.rewards, self.done

    def learner_step(self, actions: np.ndarray | None, learner: np.ndarray, reward: np.ndarray, done: np.ndarray,
                     final_obs: np.ndarray) -> None:
        """One learner seat per game (``learner``, int32), native random opponents: each game's learner action
        (``actions``; None after a reset: none), then random moves until every game waits on its learner; then
        ``obs``, ``mask`` and ``seat`` written. A game that ends meanwhile sets ``done`` (uint8), ``reward`` (the
        learner's +1 / -1) and ``final_obs`` (its last observation), and is dealt again. The Gymnasium vector
        environment's native path; an illegal action raises ``ValueError`` and no game moves."""
        acts = None if actions is None else action_ids(actions, self.num_envs)
        with self.lock:
            core = self._native()
            core.learner_step(acts, learner, reward, done, final_obs)
            core.write(self.obs, self.mask, self.seat)

    def state(self, index: int) -> Any:
        """Game ``index`` as a state of the native engine (a copy: the State protocol, for agents)."""
        with self.lock:
            core = self._native().state(int(index))
        return load(self.spec.native_engine.replace(":new_game", ":wrap_core"))(core)

    def native_states(self, rows: Sequence[int], view: bool = True) -> list[Any]:
        """Games ``rows`` as compiled states of the game's native module (copies; none converted to Python,
        what :meth:`state`'s agent views cost), for the agents that decide in C++. With ``view`` (default), each
        as its seat on move sees it: the native ``public_view(seat)``, equal to the ``info["view"]`` agents
        are given (hidden cards redrawn by the game's fixed rule)."""
        with self.lock:
            core = self._native()
            if not view:
                return [core.state(int(i)) for i in rows]
            return [core.state(int(i)).public_view(int(self.seat[i])) for i in rows]

    def close(self) -> None:
        """Free the native games (the arrays stay); a later call raises ``RuntimeError``. Waits for a call under
        way in another thread; closing twice is harmless."""
        with self.lock:
            self._core = None


__all__ = ["VectorGameEnv", "RANDOM", "SKIP", "MAX_SEATS", "MAX_ENVS", "action_ids", "check_memory",
           "check_num_envs", "game_bytes", "native_module"]
