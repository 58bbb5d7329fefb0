"""Campanile as a PettingZoo AEC environment, over the pure engine in this package.

Follows the 5 Towers environment's contract (``five_towers_env.environment.aec``): agents
``player_k``, one ``Discrete(31)`` action space, ``{"observation": float32, "action_mask": int8}``
observations with an all-zero mask off turn, +1 / -1 win-loss rewards at game end only, and the
same extras (``position()``, ``action_name``, ``legal_action_names``, ``scores``, ``winners``).
Every decision is put to the players, even a lone ``no bet``: Campanile has no forced
sequences worth skipping, and the rules cases step through each one.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..aec_common import GameEnvExtras, wrap_env
from ..engine.position import PositionError
from ..engine.state import IllegalActionError
from . import actions as A
from .observation import OBS_SIZE, encode
from .position import load_position, save_position
from .render import render_text
from .state import CampanileState, check_setup

RENDER_MODES = (None, "human", "ansi")
RESET_OPTIONS = ("position",)
#: the keys of every ``infos[agent]``, present from ``reset()`` on
INFO_KEYS = ("phase", "score", "scores", "winners")


def _action_id(action: Any) -> int:
    """``action`` as an int id; names, floats and bools raise ``IllegalActionError`` with a hint."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        raise IllegalActionError(f"actions are integer ids 0..{A.NUM_ACTIONS - 1}, got the bool {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        pass
    hint = " (use env.action_from_name(name) to get an id)" if isinstance(action, str) else ""
    raise IllegalActionError(f"actions are integer ids 0..{A.NUM_ACTIONS - 1}, got {type(action).__name__} "
                             f"{action!r}{hint}")


class raw_env(GameEnvExtras, AECEnv):  # noqa: N801 - PettingZoo naming convention
    """Campanile as a PettingZoo AEC environment.

    Args:
        num_players: 2..5.
        variant: ``"pile"`` (bet on a tower shown face up on a pile, the default) or ``"played"``
            (bet only on the tower just played onto), SPEC C3.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        bet_chip: ``"at_least"`` (default: the chip is worth at least the storeys played) or
            ``"exact"`` (it must equal them), SPEC C3.

    ``infos[agent]`` holds, from ``reset()`` on: ``"phase"`` (``play``, ``bet`` or ``game_over``),
    ``"score"`` (the seat's final score, 0 before the end), ``"scores"`` (int64 array of every
    seat's final score, zeros before the end) and ``"winners"`` (bool array, all False before the end).
    """

    _actions = A  # GameEnvExtras: SPEC C6 names
    _save_position = staticmethod(save_position)  # GameEnvExtras: SPEC C7 positions
    metadata = {"name": "campanile_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, variant: str = "pile", render_mode: str | None = None,
                 bet_chip: str = "at_least") -> None:
        super().__init__()
        check_setup(num_players, variant, bet_chip)
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.num_players = int(num_players)
        self.variant = variant
        self.bet_chip = bet_chip
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=1.0, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._no_scores = np.zeros(self.num_players, dtype=np.int64)
        self._no_winners = np.zeros(self.num_players, dtype=bool)
        self._no_scores.flags.writeable = self._no_winners.flags.writeable = False
        self.game: CampanileState | None = None

    # -- PettingZoo API -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The (shared) observation space: the flat vector and the int8 action mask."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(31)``, the same for both phases and both variants."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``options={"position": {...}}`` starts from a SPEC C7 position with this
        environment's player count, variant and chip rule instead. A bad position raises
        ``PositionError`` and changes nothing."""
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict (keys: {', '.join(RESET_OPTIONS)}), got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - set(RESET_OPTIONS)))
        if unknown:  # api_test resets with an arbitrary option and requires it to pass: warn only
            warnings.warn(f"reset() ignores unknown option(s) {', '.join(map(repr, unknown))}; "
                          f"known: {', '.join(RESET_OPTIONS)}", stacklevel=2)
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        if "position" in options:
            game = load_position(options["position"], rng)
            self._check_setup_of(game)
        else:
            game = CampanileState.new_game(self.num_players, self.variant, rng, bet_chip=self.bet_chip)
        self._rng = rng
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._publish()

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
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat == game.current_player:
            for a in game.legal_actions():  # empty once the game is over
                mask[a] = 1
        return {"observation": encode(game, seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; an illegal one raises ``IllegalActionError`` and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None and self.game.done:
                # PettingZoo refuses it too (a ValueError); this one names the action, as SPEC C3
                # says no action is legal once the game has ended
                raise IllegalActionError(self.game.illegal_message(action) + " (a finished game takes only None)")
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(self.game.illegal_message(-1) + " (got None for a live agent)")
        self.game.apply_action(_action_id(action))
        self._cumulative_rewards[agent] = 0.0
        self._publish()
        if self.game.done:  # before the end every reward is 0.0: nothing to add
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _publish(self) -> None:
        """Set the selected agent, and at game end the rewards, terminations and final infos."""
        game = self.game
        if game.done:
            scores, winners = game.scores(), game.winners()
            score_array = np.array(scores, dtype=np.int64)
            winner_array = np.zeros(self.num_players, dtype=bool)
            winner_array[winners] = True
            returns = game.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = returns[i]
                self.terminations[a] = True
                self.infos[a] = {"phase": "game_over", "score": int(scores[i]), "scores": score_array.copy(),
                                 "winners": winner_array.copy()}
            # the seat that ended the game stays selected; _was_dead_step walks the rest
            self.agent_selection = self.possible_agents[game.current_player]
            return
        phase = game.phase_name
        for a in self.agents:
            self.infos[a] = {"phase": phase, "score": 0, "scores": self._no_scores, "winners": self._no_winners}
        self.agent_selection = self.possible_agents[game.current_player]

    def render(self) -> str | None:
        """The table as text (public information only): returned for ``"ansi"``, printed for ``"human"``."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
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
    # scores, winners, phase come from GameEnvExtras (the same for every game)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped as PettingZoo classic environments are (and as ``five_towers_env.env``):
    an illegal move ends the game with -1 for the offender, out-of-bounds actions are caught,
    and the agent order is enforced."""
    return wrap_env(raw_env(**kwargs))


__all__ = ["raw_env", "env", "INFO_KEYS", "RENDER_MODES"]
