"""Goofspiel as a PettingZoo AEC environment: :class:`raw_env` over the engine, and :func:`env`.

The shared part (agents, spaces, ``step``, infos, rewards, the extras) is
:class:`~five_towers_env.core.env.GameEnv`'s; this module supplies the game's own: the reset, the
observation, the rendering and who is on move after each bid.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from five_towers_env.core.env import GameEnv, wrap_env
from five_towers_env.core.errors import PositionError

from . import SPEC, actions
from .observation import OBS_SIZE, encode
from .position import POSITION_KEYS, load_position
from .state import GoofState, check_setup
from .ui import text_view

RENDER_MODES = (None, "human", "ansi")


class raw_env(GameEnv):  # PettingZoo names it raw_env
    """Goofspiel for ``num_players`` 2..4, ``variant`` ``"discard"`` or ``"carry"``, ``render_mode``
    ``None``, ``"ansi"`` (``render()`` returns the table as text) or ``"human"`` (prints it)."""

    game_spec = SPEC  # GameEnv: the codec, the position format and the name
    _reset_options = ("position",)
    _position_keys = POSITION_KEYS
    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, variant: str = "discard", render_mode: str | None = None) -> None:
        super().__init__()
        check_setup(num_players, variant)
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.variant, self.render_mode = variant, render_mode
        self._init_agents(num_players, spaces.Box(low=0.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Shuffle the prizes (or load ``options["position"]``, which must fit this setup) and start."""
        options = self._reset_options_of(options)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        if "position" in options:
            game = load_position(options["position"])
            if (game.num_players, game.variant) != (self.num_players, self.variant):
                raise PositionError(f"the position is a {game.num_players}-player {game.variant!r} game; this "
                                    f"environment plays {self.num_players}-player {self.variant!r} games")
        else:
            game = GoofState.new_game(self.num_players, self.variant, rng)
        self._start(game, rng)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation vector and its action mask (all zeros off turn)."""
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(actions.NUM_ACTIONS, dtype=np.int8)
        if seat == self.game.current_player:
            mask[self.game.legal_actions()] = 1
        return {"observation": encode(self.game, seat), "action_mask": mask}

    def _advance(self) -> None:
        """The next seat to bid, or the rewards at the end (the last seat, which ended it, stays selected)."""
        if self.game.is_terminal():
            self._publish_end(self.game.returns())
            self.agent_selection = self.possible_agents[-1]
        else:
            self._publish_live(self.game.phase_name, self.game.current_player)

    def render(self) -> str | None:
        """The table as a spectator sees it: returned for ``"ansi"``, printed for ``"human"``."""
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "human":
            print(text_view(self.game, None))
            return None
        return text_view(self.game, None)


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` in PettingZoo's standard wrappers."""
    return wrap_env(raw_env(**kwargs))


__all__ = ["raw_env", "env"]
