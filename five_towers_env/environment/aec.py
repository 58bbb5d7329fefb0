"""The PettingZoo AEC environment over the rules engine."""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..engine import actions as A
from ..engine.position import load_position, save_position
from ..engine.state import PHASE_NAMES, GameState, IllegalActionError, Phase, check_setup
from .dict_observation import dict_observation_space, split_flat
from .observation import OBS_SIZE, SeatCache, encode
from .render import render_text

REWARDS = ("win_loss", "margin")
GAME_OVER = Phase.GAME_OVER
OBSERVATIONS = ("flat", "dict")


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming convention
    """5 Towers as a PettingZoo AEC environment.

    Args:
        num_players: 2..5.
        variant: ``"base"`` or ``"great_powers"``.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        explicit: put every decision point to the players, even forced single choices (SPEC §7).
        reward: ``"win_loss"`` (+1 each winner, -1 every other seat) or ``"margin"``
            (own score minus the best other score, in VP). Given only at game end.
        observation: ``"flat"`` (default: ``"observation"`` is the float32 vector of
            :mod:`five_towers_env.environment.observation`) or ``"dict"`` (``"observation"`` is the
            structured ``gymnasium.spaces.Dict`` of :mod:`five_towers_env.environment.dict_observation`,
            without its ``action_mask`` key). Either way the observation also holds ``"action_mask"``.
    """

    metadata = {"name": "five_towers_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 2, variant: str = "base", render_mode: str | None = None,
                 explicit: bool = False, reward: str = "win_loss", observation: str = "flat") -> None:
        super().__init__()
        check_setup(num_players, variant)
        if render_mode not in (None, "human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        self.num_players = int(num_players)
        self.variant = variant
        self.render_mode = render_mode
        self.explicit = bool(explicit)
        self.reward_mode = reward
        self.observation_mode = observation
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        if observation == "dict":
            inner: spaces.Space = dict_observation_space(action_mask=False)
        else:
            inner = spaces.Box(low=-1.0, high=2.0, shape=(OBS_SIZE,), dtype=np.float32)
        obs_space = spaces.Dict({
            "observation": inner,
            "action_mask": spaces.Box(low=0, high=1, shape=(A.NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self._seat_cache = SeatCache()
        self.game: GameState | None = None

    # -- PettingZoo API -----------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The (shared) observation space: the flat vector (or the structured dict) and the int8 action mask."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(NUM_ACTIONS)``, the same for every phase and both variants."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; ``options={"position": {...}}`` starts from a SPEC §8 position."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = options or {}
        if "position" in options:
            game = load_position(options["position"], self._rng)
            if game.num_players != self.num_players or game.variant != self.variant:
                self._adopt_setup(game.num_players, game.variant)
        else:
            game = GameState.new_game(self.num_players, self.variant, self._rng,
                                      start_player=options.get("start_player", 0))
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._advance()

    def _adopt_setup(self, num_players: int, variant: str) -> None:
        # A position may name another player count or variant than the constructor did; the
        # seeded generator carries over so the next reset() stays reproducible.
        rng = self._rng
        self.__init__(num_players, variant, self.render_mode, self.explicit, self.reward_mode, self.observation_mode)
        self._rng = rng

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector (or dict of float32 arrays), "action_mask": int8}``; the
        mask is all zeros off turn."""
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat == self.game.current_player:
            for a in self.game.legal_actions():  # a few ids: faster than fancy indexing with a list
                mask[a] = 1
        vector = encode(self.game, seat, self._seat_cache)
        if self.observation_mode == "dict":
            return {"observation": split_flat(vector), "action_mask": mask}
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action; an illegal one raises ``IllegalActionError`` and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(self.game.illegal_message(-1) + " (got None for a live agent)")
        self.game.apply_action(action)
        self._cumulative_rewards[agent] = 0.0
        self._advance()
        if self.game.phase == GAME_OVER:  # before the end every reward is 0.0: nothing to add
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _advance(self) -> None:
        """Apply forced single-choice decisions (unless explicit) and publish the new turn."""
        game = self.game
        if not self.explicit:
            while game.phase != GAME_OVER:
                legal = game.legal_actions()
                if len(legal) != 1:
                    break
                game.apply_action(legal[0])
        phase = PHASE_NAMES[game.phase]
        if game.phase == GAME_OVER:
            scores = game.scores()
            winners = game.winners()
            returns = self._final_rewards(scores, winners)
            for i, a in enumerate(self.agents):
                self.rewards[a] = returns[i]
                self.terminations[a] = True
                self.infos[a] = {"phase": phase, "score": scores[i], "scores": scores, "winners": winners}
            # the seat that ended the game stays selected; _was_dead_step walks the rest
            if getattr(self, "agent_selection", None) not in self.agents:
                self.agent_selection = self.agents[0]
        else:
            # rewards stay 0.0 until the game ends (reset() starts them at 0.0)
            infos = self.infos
            for a in self.agents:
                infos[a] = {"phase": phase}
            self.agent_selection = self.possible_agents[game.current_player]

    def _final_rewards(self, scores: list[int], winners: list[int]) -> list[float]:
        if self.reward_mode == "margin":
            return [float(s - max(scores[:i] + scores[i + 1:])) for i, s in enumerate(scores)]
        return [1.0 if i in winners else -1.0 for i in range(self.num_players)]

    def render(self) -> str | None:
        """Text picture of the table: returned for ``"ansi"``, printed for ``"human"``."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    # -- extras ---------------------------------------------------------------------------

    def action_name(self, action: int) -> str:
        """SPEC §7 name of an action id."""
        return A.action_name(action)

    def action_from_name(self, name: str) -> int:
        """Action id of a SPEC §7 name."""
        return A.action_from_name(name)

    def legal_actions(self) -> list[int]:
        """Legal action ids of the agent on move (empty once the game is over)."""
        return list(self.game.legal_actions())

    def legal_action_names(self) -> list[str]:
        """Names of the legal actions of the agent on move."""
        return [A.action_name(a) for a in self.game.legal_actions()]

    def position(self) -> dict[str, Any]:
        """The current position in SPEC §8 form (with ``"hand"`` mid-round). Contains the deck order:
        for saving and debugging, never for an agent's observation."""
        return save_position(self.game)

    def scores(self) -> list[int]:
        """Each seat's score if the game were scored now."""
        return self.game.scores()

    def winners(self) -> list[int]:
        """Seats sharing the highest score now (the victory, once the game is over)."""
        return self.game.winners()

    @property
    def phase(self) -> str:
        """Name of the current phase."""
        return self.game.phase_name


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` wrapped as PettingZoo classic environments are: illegal moves end the game with
    -1 for the offender, out-of-bounds actions are caught, and the agent order is enforced."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e
