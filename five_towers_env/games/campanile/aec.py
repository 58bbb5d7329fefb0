"""Campanile as a PettingZoo AEC environment, over the pure engine in this package.

Follows the 5 Towers environment's contract (``five_towers_env.games.five_towers.aec``): agents
``player_k``, one ``Discrete(31)`` action space, ``{"observation": float32, "action_mask": int8}``
observations with an all-zero mask off turn, +1 / -1 win-loss rewards at game end only, and the
same extras (``position()``, ``action_name``, ``legal_action_names``, ``scores``, ``winners``).
Every decision is put to the players, even a lone ``no bet``: Campanile has no forced
sequences worth skipping, and the rules cases step through each one.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from five_towers_env.core.env import INFO_KEYS, GameEnv, wrap_env
from five_towers_env.core.errors import PositionError
from five_towers_env.games.campanile import SPEC
from five_towers_env.games.campanile import actions as A
from five_towers_env.games.campanile.observation import OBS_SIZE, encode
from five_towers_env.games.campanile.position import POSITION_KEYS, load_position
from five_towers_env.games.campanile.render import render_text
from five_towers_env.games.campanile.state import CampanileState, check_setup

RENDER_MODES = (None, "human", "ansi", "rgb_array")
RESET_OPTIONS = ("position",)
#: Campanile's one reward (``reward=`` is taken so that asking for 5 Towers' ``"margin"`` says why not)
REWARDS = ("win_loss",)


class raw_env(GameEnv):
    """Campanile as a PettingZoo AEC environment.

    Args:
        num_players: 2..5.
        variant: ``"pile"`` (bet on a tower shown face up on a pile, the default) or ``"played"``
            (bet only on the tower just played onto), SPEC C3.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it) or
            ``"rgb_array"`` (``render()`` returns an ``(H, W, 3)`` uint8 picture of the table, see
            :mod:`five_towers_env.games.campanile.picture`).
        bet_chip: ``"at_least"`` (default: the chip is worth at least the storeys played) or
            ``"exact"`` (it must equal them), SPEC C3.
        reward: ``"win_loss"``, the only one (+1 each winner, -1 every other seat, at game end).

    ``infos[agent]`` holds, from ``reset()`` on: ``"phase"`` (``play``, ``bet`` or ``game_over``),
    ``"score"`` (the seat's final score, 0 before the end), ``"scores"`` (int64 array of every
    seat's final score, zeros before the end) and ``"winners"`` (bool array, all False before the end).
    """

    game_spec = SPEC  # GameEnv: the codec, the position format and the name
    game: Any  # the state (None until the first reset): a CampanileState, or its native twin (SPEC.new_state)
    _reset_options = RESET_OPTIONS  # GameEnv: the reset option check
    _position_keys = POSITION_KEYS
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, variant: str = "pile", render_mode: str | None = None,
                 bet_chip: str = "at_least", reward: str = "win_loss") -> None:
        super().__init__()
        check_setup(num_players, variant, bet_chip)
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"Campanile has no {reward!r} reward, only 'win_loss' (+1 / -1 at the end)")
        self.variant = variant
        self.bet_chip = bet_chip
        self.render_mode = render_mode
        self._init_agents(num_players, spaces.Box(low=0.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32))

    # -- PettingZoo API -----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``options={"position": {...}}`` starts from a SPEC C7 position with this
        environment's player count, variant and chip rule instead. A bad position raises
        ``PositionError`` and changes nothing."""
        options = self._reset_options_of(options)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        if "position" in options:
            game = load_position(options["position"], rng)
            self._check_setup_of(game)
            game = SPEC.adopt(game)
        else:  # a state of the active backend (five_towers_env.engine_backend())
            game = SPEC.new_state(self.num_players, self.variant, rng=rng, bet_chip=self.bet_chip)
        self._start(game, rng)

    def _check_setup_of(self, game: CampanileState) -> None:
        """A position must match the setup fixed at construction (agents and rules)."""
        for key, have, want in (("num_players", game.num_players, self.num_players),
                                ("variant", game.variant, self.variant),
                                ("bet_chip", game.bet_chip, self.bet_chip)):
            if have != want:
                raise PositionError(f"position has {key}={have!r} but this environment was made with "
                                    f"{key}={want!r}; make one with raw_env({key}={have!r}, ...) for it")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8}``; the mask is all zeros off turn."""
        seat = self.agent_name_mapping[agent]
        game = self.game
        if game.backend == "native":  # the mask and the vector written in C++
            mask = game.mask() if seat == game.current_player else np.zeros(A.NUM_ACTIONS, dtype=np.int8)
            return {"observation": game.observe(seat), "action_mask": mask}
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat == game.current_player:
            for a in game.legal_actions():  # empty once the game is over
                mask[a] = 1
        return {"observation": encode(game, seat), "action_mask": mask}

    def _advance(self) -> None:
        """Publish the turn: the agent on move, or at game end the rewards, terminations and final infos."""
        game = self.game
        if game.is_terminal():
            self._publish_end(game.returns())
            # the seat that ended the game stays selected; _was_dead_step walks the rest
            self.agent_selection = self.possible_agents[game.current_player]
        else:
            self._publish_live(game.phase_name, game.current_player)

    def render(self) -> str | np.ndarray | None:
        """The table (public information only): text returned for ``"ansi"``, printed for ``"human"``;
        an ``(H, W, 3)`` uint8 picture for ``"rgb_array"`` (a blank one before the first reset)."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; "
                                  "pass render_mode='ansi', 'human' or 'rgb_array'.")
            return None
        if self.render_mode == "rgb_array":
            from five_towers_env.games.campanile.picture import picture_shape, render_rgb

            if self.game is None:
                return np.zeros(picture_shape(self.num_players), dtype=np.uint8)
            return render_rgb(self.game)
        if self.game is None:
            return None if self.render_mode == "human" else ""
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # -- extras: action_name, action_from_name, legal_actions, legal_action_names, position,
    # scores, winners, phase come from GameEnv (the same for every game)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped as PettingZoo classic environments are (and as ``five_towers_env.env``):
    an illegal move ends the game with -1 for the offender, out-of-bounds actions are caught,
    and the agent order is enforced."""
    return wrap_env(raw_env(**kwargs))


__all__ = ["raw_env", "env", "INFO_KEYS", "RENDER_MODES"]
