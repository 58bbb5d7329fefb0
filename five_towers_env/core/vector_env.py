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
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game, load

#: step() actions besides the ids: a random legal move (drawn natively), and a game that does not move
RANDOM, SKIP = -1, -2
#: the most seats a row of rewards and scores holds
MAX_SEATS = 5
MAX_ENVS = 1 << 20


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
        num_envs: how many games (1 to 1,048,576).
        num_players: the setup's player count.
        variant: the setup's variant (default: the game's first).
        explicit: put single-choice decisions to the players too.
        **options: the game's own settings (Campanile ``bet_chip``).

    Attributes (written in place by every call): ``obs``, ``mask``, ``seat`` (int32), and after
    :meth:`step` ``rewards`` (float32 ``(N, 5)``), ``scores`` (int32 ``(N, 5)``), ``done`` (bool ``(N,)``).
    """

    def __init__(self, game: str | GameSpec = DEFAULT_GAME, num_envs: int = 1, num_players: int = 2,
                 variant: str | None = None, explicit: bool = False, **options: Any) -> None:
        spec = get_game(game)
        variant = spec.default_variant if variant is None else variant
        spec.check(num_players, variant)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be an integer from 1 to {MAX_ENVS}, got {num_envs!r}")
        module = native_module(spec)
        self.spec, self.num_envs, self.num_players, self.variant = spec, int(num_envs), int(num_players), variant
        engine = load(spec.native_engine.replace(":new_game", ":new_core"))
        template = engine(self.num_players, variant, np.random.default_rng(0), **options)
        self._core = module.VectorEnv(template, self.num_envs, bool(explicit))
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

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game again, game ``i`` from ``default_rng(seed + i)`` (a random seed if None); the
        native random moves (:data:`RANDOM`) are seeded from it too. Returns ``(obs, mask, seat)``."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> 1)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63 - MAX_ENVS:
            raise ValueError(f"seed must be an integer from 0 to 2**63 - {MAX_ENVS}, got {seed!r}")
        seeds = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(seed)
        self._core.reset(seeds)
        self._core.seed_moves(int(seed) + 2**62)
        self._core.write(self.obs, self.mask, self.seat)
        return self.obs, self.mask, self.seat

    def step(self, actions: np.ndarray | list[int], final_seat: np.ndarray | None = None,
             final_obs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game (an id, :data:`RANDOM` or :data:`SKIP`); returns ``(obs, mask, seat, rewards,
        done)`` (the arrays of this object, overwritten by the next call). An illegal action raises
        ``ValueError`` naming the game, and then no game has moved. ``final_obs`` (float32 ``(N, obs)``),
        when given, receives ``final_seat[i]``'s observation of each finished game's last position."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer ids, got shape {acts.shape} of {acts.dtype}")
        self._core.step(acts.astype(np.int64, copy=False), self.rewards, self._done, self.scores, final_seat, final_obs)
        self._core.write(self.obs, self.mask, self.seat)
        return self.obs, self.mask, self.seat, self.rewards, self.done

    def state(self, index: int) -> Any:
        """Game ``index`` as a state of the native engine (a copy: the State protocol, for agents)."""
        return load(self.spec.native_engine.replace(":new_game", ":wrap_core"))(self._core.state(int(index)))

    def native_states(self, rows: Sequence[int], view: bool = True) -> list[Any]:
        """Games ``rows`` as compiled states of the game's native module (copies; none converted to Python,
        what :meth:`state`'s agent views cost), for the agents that decide in C++. With ``view`` (default), each
        as its seat on move sees it: the native ``public_view(seat)``, equal to the ``info["view"]`` agents
        are given (hidden cards redrawn by the game's fixed rule)."""
        core = self._core
        if not view:
            return [core.state(int(i)) for i in rows]
        return [core.state(int(i)).public_view(int(self.seat[i])) for i in rows]


__all__ = ["VectorGameEnv", "RANDOM", "SKIP", "MAX_SEATS", "native_module"]
