"""The PettingZoo AEC environment over the rules engine."""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from five_towers_env.core.env import INFO_KEYS, ActionTypeError, GameEnv, wrap_env
from five_towers_env.games.five_towers import SPEC
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.dict_observation import dict_observation_space, split_flat
from five_towers_env.games.five_towers.observation import OBS_SIZE, SeatCache, encode
from five_towers_env.games.five_towers.position import POSITION_KEYS, PositionError, load_position
from five_towers_env.games.five_towers.render import render_frame
from five_towers_env.games.five_towers.state import PHASE_NAMES, VARIANTS, Phase, check_setup

REWARDS = ("win_loss", "margin")
GAME_OVER = Phase.GAME_OVER
OBSERVATIONS = ("flat", "dict")
RENDER_MODES = (None, "human", "ansi", "rgb_array")
RESET_OPTIONS = ("position", "start_player")


class raw_env(GameEnv):
    """5 Towers as a PettingZoo AEC environment.

    Args:
        num_players: 2..5.
        variant: ``"base"`` or ``"great_powers"``.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it) or
            ``"rgb_array"`` (``render()`` returns an ``(H, W, 3)`` uint8 picture of the table, see
            :mod:`five_towers_env.games.five_towers.picture`).
        explicit: put every decision point to the players, even forced single choices (SPEC §7).
        reward: ``"win_loss"`` (+1 each winner, -1 every other seat) or ``"margin"``
            (own score minus the best other score, in VP). Given only at game end.
        observation: ``"flat"`` (default: ``"observation"`` is the float32 vector of
            :mod:`five_towers_env.games.five_towers.observation`) or ``"dict"`` (``"observation"`` is the
            structured ``gymnasium.spaces.Dict`` of :mod:`five_towers_env.games.five_towers.dict_observation`,
            without its ``action_mask`` key). Either way the observation also holds ``"action_mask"``.

    Every agent's ``infos[agent]`` holds the same keys from ``reset()`` on, each of one shape and
    dtype for a given player count (as Tianshou's buffers need): ``"phase"`` (str), ``"score"``
    (int: the seat's final score, 0 before the end), ``"scores"`` (int64 array of ``num_players``:
    every seat's final score, zeros before the end) and ``"winners"`` (bool array of
    ``num_players``: the seats sharing the top score, all False before the end;
    ``np.flatnonzero(info["winners"])`` lists them, as :meth:`winners` does).
    """

    game_spec = SPEC  # GameEnv: the codec, the position format and the name
    game: Any  # the state (None until the first reset): a GameState, or its native twin (SPEC.new_state)
    _reset_options = RESET_OPTIONS  # GameEnv: the reset option check
    _position_keys = POSITION_KEYS
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, variant: str = "base", render_mode: str | None = None,
                 explicit: bool = False, reward: str = "win_loss", observation: str = "flat") -> None:
        super().__init__()
        check_setup(num_players, variant)
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.variant = variant
        self.render_mode = render_mode
        self.explicit = bool(explicit)
        self.reward_mode = reward
        self.observation_mode = observation
        if observation == "dict":
            inner: spaces.Space = dict_observation_space(action_mask=False)
        else:
            inner = spaces.Box(low=-1.0, high=2.0, shape=(OBS_SIZE,), dtype=np.float32)
        self._init_agents(num_players, inner)
        self._seat_cache = SeatCache()

    # -- PettingZoo API -----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``options={"position": {...}}`` starts from a SPEC §8 position with
        this environment's player count and variant, ``options={"start_player": k}`` a new game with
        seat ``k`` to start. Bad options raise (``PositionError`` for a position) and change nothing."""
        options = self._reset_options_of(options)
        if "position" in options and "start_player" in options:
            raise ValueError("reset options 'position' and 'start_player' exclude each other: "
                             "a position names its own start_player")
        # the seeded generator is kept only once the new game stands; a rejected position or
        # start_player consumes no randomness (both are checked before any shuffle)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        if "position" in options:
            pos = options["position"]
            if isinstance(pos, dict):
                self._check_position_setup(pos)
            game = SPEC.adopt(load_position(pos, rng))
        else:  # a state of the active backend (five_towers_env.engine_backend())
            game = SPEC.new_state(self.num_players, self.variant, rng=rng, start_player=options.get("start_player", 0))
        self._start(game, rng)

    def _check_position_setup(self, pos: dict) -> None:
        """A position must be for this environment's player count and variant (its agents and spaces
        are fixed at construction): raise ``PositionError`` naming both otherwise."""
        n, variant = pos.get("num_players"), pos.get("variant", "base")
        if isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n != self.num_players:
            raise PositionError(f"position has {n} players but this environment was made with "
                                f"num_players={self.num_players}; make one with raw_env(num_players={n}, ...) for it")
        if variant in VARIANTS and variant != self.variant:
            raise PositionError(f"position is for variant {variant!r} but this environment was made with "
                                f"variant={self.variant!r}; make one with raw_env(variant={variant!r}, ...) for it")

    def observe(self, agent: str) -> dict[str, Any]:
        """``{"observation": float32 vector (or dict of float32 arrays), "action_mask": int8}``; the
        mask is all zeros off turn."""
        seat = self.agent_name_mapping[agent]
        game = self.game
        if game.backend == "native":  # the mask and the vector written in C++
            mask = game.mask() if seat == game.current_player else np.zeros(A.NUM_ACTIONS, dtype=np.int8)
            vector = game.observe(seat)
        else:
            mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
            if seat == game.current_player:
                for a in game.legal_actions():  # a few ids: faster than fancy indexing with a list
                    mask[a] = 1
            vector = encode(game, seat, self._seat_cache)
        if self.observation_mode == "dict":
            return {"observation": split_flat(vector), "action_mask": mask}
        return {"observation": vector, "action_mask": mask}

    def _advance(self) -> None:
        """Apply forced single-choice decisions (unless explicit) and publish the new turn."""
        game = self.game
        if not self.explicit:
            while not game.is_terminal():
                legal = game.legal_actions()
                if len(legal) != 1:
                    break
                game.apply_action(legal[0])
        if game.is_terminal():
            self._publish_end(self._final_rewards(game.scores(), game.winners()))
            # the seat that ended the game stays selected; _was_dead_step walks the rest
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            self._publish_live(PHASE_NAMES[game.phase], game.current_player)

    def _final_rewards(self, scores: list[int], winners: list[int]) -> list[float]:
        if self.reward_mode == "margin":
            return [float(s - max(scores[:i] + scores[i + 1:])) for i, s in enumerate(scores)]
        return [1.0 if i in winners else -1.0 for i in range(self.num_players)]

    def render(self) -> str | np.ndarray | None:
        """The table: text returned for ``"ansi"``, printed for ``"human"``; an ``(H, W, 3)`` uint8
        image for ``"rgb_array"`` (public information only, one size per player count)."""
        return render_frame(self.game, self.render_mode, self.num_players)

    def close(self) -> None:
        """Nothing to release."""

    # -- extras: action_name, action_from_name, legal_actions, legal_action_names, position,
    # scores, winners, phase come from GameEnv (the same for every game)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped as PettingZoo classic environments are: illegal moves end the game with
    -1 for the offender, out-of-bounds actions are caught, and the agent order is enforced."""
    return wrap_env(raw_env(**kwargs))


__all__ = ["raw_env", "env", "ActionTypeError", "INFO_KEYS", "RENDER_MODES", "RESET_OPTIONS", "REWARDS", "OBSERVATIONS"]
