"""The pyspiel ``Game`` / ``State`` / observer classes over a game's :class:`~five_towers_env.core.chance.ChanceState`.

Game-neutral: :func:`game_class` makes one ``pyspiel.Game`` subclass per registered game that
declares a chance model (``GameSpec.chance``); the rules, the chance events and what each seat sees
all come from the game's engine and its chance model.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from five_towers_env.core.chance import CHANCE, TERMINAL, ChanceState
from five_towers_env.core.errors import IllegalActionError
from five_towers_env.core.game import GameSpec

PREFIX = "python_"
#: the number of players when a game string names none
DEFAULT_PLAYERS = 2


def short_name(spec: GameSpec) -> str:
    """The pyspiel name of a game: ``python_<name>`` (``python_five_towers``, ``python_campanile``)."""
    return PREFIX + spec.name


def game_type(spec: GameSpec) -> pyspiel.GameType:
    """OpenSpiel's facts about the game (the same for every setup)."""
    model = spec.chance_state()
    info = pyspiel.GameType.Information
    params: dict[str, Any] = {"players": DEFAULT_PLAYERS, "variant": spec.default_variant}
    params.update({name: values[0] for name, values in model.options.items()})
    return pyspiel.GameType(
        short_name=short_name(spec),
        long_name=f"Python {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info.PERFECT_INFORMATION if model.perfect_information else info.IMPERFECT_INFORMATION,
        # +1 for each winner, -1 for the others: a shared win makes the sum vary
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def game_class(spec: GameSpec) -> type:
    """A ``pyspiel.Game`` subclass playing ``spec``'s game (register it with ``pyspiel.register_game``)."""
    gtype = game_type(spec)
    model: type[ChanceState] = spec.chance_state()

    class Game(pyspiel.Game):
        __doc__ = f"{spec.title} for OpenSpiel: parameters players, variant{''.join(', ' + o for o in model.options)}."

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            params = {**gtype.parameter_specification, **(params or {})}
            self.num_players_ = int(params["players"])
            self.variant = str(params["variant"])
            self.settings = model.check_options({k: params[k] for k in model.options})
            spec.check(self.num_players_, self.variant)
            self.spec, self.model = spec, model
            info = pyspiel.GameInfo(
                num_distinct_actions=spec.num_actions,
                max_chance_outcomes=model.max_chance_outcomes,
                num_players=self.num_players_,
                min_utility=-1.0,
                max_utility=1.0,
                max_game_length=model.max_game_length(self.num_players_, self.variant, **self.settings),
            )
            super().__init__(gtype, info, params)

        def new_initial_state(self, *args: Any) -> State:
            """The start of a game: chance deals first."""
            return State(self)

        def max_chance_nodes_in_history(self) -> int:
            """An upper bound on the chance nodes of one game."""
            return model.max_chance_nodes(self.num_players_, self.variant, **self.settings)

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
            """The observation (default) or the perfect-recall information state (``perfect_recall=True``)."""
            return Observer(self, iig_obs_type, params)

        def new_core(self) -> ChanceState:
            """The chance model's state at the start of a game."""
            return model.new(self.num_players_, self.variant, **self.settings)

        def state_from_engine(self, engine: Any) -> State:
            """A state at an engine position (a bot's view of a game in progress); its history starts there."""
            return self.state_from_core(model.from_engine(engine))

        def state_from_core(self, core: ChanceState) -> State:
            """A state over a chance-model state of this game's setup."""
            if (core.num_players, core.variant, core.settings) != (self.num_players_, self.variant, self.settings):
                raise ValueError(f"the position is {core.num_players}p-{core.variant} {core.settings}, the game "
                                 f"{self.num_players_}p-{self.variant} {self.settings}")
            state = State(self)
            state._core = core
            return state

    Game.__name__ = Game.__qualname__ = "".join(w.title() for w in spec.name.split("_")) + "Game"
    return Game


class State(pyspiel.State):
    """A pyspiel state over a chance model's state (``core``); everything is asked of the core."""

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        # made on first use: OpenSpiel's clone() builds a fresh state and then copies this attribute over
        self._core: ChanceState | None = None

    @property
    def core(self) -> ChanceState:
        """The game's chance-model state (:class:`~five_towers_env.core.chance.ChanceState`)."""
        if self._core is None:
            self._core = self.get_game().new_core()
        return self._core

    def current_player(self) -> int:
        player = self.core.current_player()
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return player

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        try:
            self.core.apply(action)
        except IllegalActionError as err:
            raise pyspiel.SpielError(str(err)) from None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.core.outcome_text(action)
        return self.core.action_text(action)

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def returns(self) -> list[float]:
        return self.core.returns()

    def __str__(self) -> str:
        return self.core.text()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> State:
        """A state drawn uniformly among those ``player_id`` cannot tell from this one (games with hidden
        information); ``probability_sampler()`` (a number in [0, 1)) seeds the draw."""
        seed = int(probability_sampler() * 2**63)
        base, steps = self.core.resample(player_id, np.random.default_rng(seed))
        game = self.get_game()
        state = game.new_initial_state() if base is None else game.state_from_engine(base)
        for action in steps:
            state.apply_action(action)
        return state


class Observer:
    """OpenSpiel's Python observer: the game's observation, or a seat's perfect-recall information state."""

    def __init__(self, game: Any, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.info_state = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER) \
                and not game.model.perfect_information:
            raise ValueError("only the player's own observation and information state are offered "
                             "(public_info=True, private_info=SINGLE_PLAYER)")
        probe = game.new_core()
        size = probe.information_size() if self.info_state else game.model.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state" if self.info_state else "observation": self.tensor}

    def set_from(self, state: State, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        core = state.core
        self.tensor[:] = core.information_tensor(player) if self.info_state else core.observation(player)

    def string_from(self, state: State, player: int) -> str:
        """``player``'s view of ``state`` as text."""
        core = state.core
        return core.information_text(player) if self.info_state else core.observation_text(player)


__all__ = ["PREFIX", "short_name", "game_type", "game_class", "State", "Observer"]
