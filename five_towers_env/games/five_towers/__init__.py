"""5 Towers (Kasper Lapp, 2023) and its Great Powers expansion: rules engine, PettingZoo environment, agents.

| | |
|---|---|
| registry name | `five_towers` |
| players | 2-5 |
| variants | `base` (default), `great_powers` |
| other settings | `explicit` (single choices put to the players too), `reward`, `observation` (docs/environment.md) |
| actions | `Discrete(307)`: bid, pass, take, teardown, build and the Great Powers decisions (`actions.py`) |
| observation | 2,116 float32 (`observation.py`, table in docs/environment.md) |
| hidden information | the deck order only |
| OpenSpiel | `python_five_towers` (`chance.py`; docs/openspiel.md) |
| PettingZoo / Gymnasium id | `five_towers_env/FiveTowers-v0` |
| rules | docs/rules.md ("SPEC §n" in comments is its section §n) |
| agents | `random`, `greedy`, `heuristic`, `mcts`, `net`, `guided`, `openspiel-mcts`, `ppo`, `human` |

The files have the same roles in every game: ``cards.py`` and ``scoring.py`` (fixed numbers and
scoring; ``builder.py`` and ``lookahead*.py`` are this game's decision search), ``state.py`` (the
state type: ``new_game``, ``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``),
``actions.py`` (the action codec), ``position.py`` (JSON positions), ``observation.py``, ``env.py``
(the AEC environment), ``render.py`` / ``picture.py`` / ``svg.py`` (text, RGB array, SVG), ``ui.py``
(the human seat and replays) and ``agents/``. Importing this package loads neither PettingZoo nor
Gymnasium (``env``/``raw_env`` load them on first use) and no other game.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from five_towers_env.core.builtin_games import BUILTIN_GAMES
from five_towers_env.core.game import GameSpec, register_game
from five_towers_env.games.five_towers.actions import (
    ACTION_NAMES,
    MAX_BID,
    NUM_ACTIONS,
    action_from_name,
    action_name,
)
from five_towers_env.games.five_towers.cards import (
    CARD_NAMES,
    TYPES,
    can_place,
    card_id,
    card_name,
    card_set,
    card_set_counts,
    parse_card,
)
from five_towers_env.games.five_towers.observation import OBS_SIZE, describe, encode, layout_table, pieces
from five_towers_env.games.five_towers.position import PositionError, load_position, save_position
from five_towers_env.games.five_towers.scoring import pair_bonus, score_player, teardown_penalty
from five_towers_env.games.five_towers.state import (
    PHASE_NAMES,
    VARIANTS,
    GameState,
    IllegalActionError,
    Phase,
    check_setup,
)

if TYPE_CHECKING:  # PettingZoo is imported on first use, not with the game
    from pettingzoo import AECEnv

    from five_towers_env.core.env import GameEnv

#: the PettingZoo and Gymnasium id (written once, in the built-in games' table)
ENV_ID = BUILTIN_GAMES["five_towers"].pettingzoo_id


def env(**kwargs: Any) -> AECEnv:
    """The PettingZoo AEC environment in PettingZoo's standard wrappers (see ``raw_env`` for arguments)."""
    return SPEC.make_env(**kwargs)  # through the spec's target: the environment's module imports this package


def raw_env(**kwargs: Any) -> GameEnv:
    """The unwrapped PettingZoo AEC environment (:class:`five_towers_env.games.five_towers.aec.raw_env`)."""
    return SPEC.make_raw_env(**kwargs)


SPEC = register_game(GameSpec(
    name="five_towers", title="5 Towers", module=__name__, variants=VARIANTS, min_players=2, max_players=5,
    num_actions=NUM_ACTIONS, observation_size=OBS_SIZE,
    raw_env=f"{__name__}.aec:raw_env", env=f"{__name__}.aec:env", codec=f"{__name__}.actions",
    save_position=f"{__name__}.position:save_position", check_setup=f"{__name__}.state:check_setup",
    ui=f"{__name__}.ui:FIVE_TOWERS",
    # its own mcts refines the flat search (rollouts by a strong default policy); net, guided and
    # openspiel-mcts come with observe and chance
    agents={"greedy": f"{__name__}.agents.greedy:GreedyAgent",
            "heuristic": f"{__name__}.agents.heuristic:HeuristicAgent",
            "mcts": f"{__name__}.agents.mcts:MCTSAgent"},
    pettingzoo_id=ENV_ID, gymnasium_id=ENV_ID,
    # ppo's policy per setup (docs/policies.md): 2-player base its current one (also "v2") and an earlier one
    # ("v1", for comparison), 2-player Great Powers its own, one network for base with 3-5 players and one
    # for Great Powers with 3-5 players
    shipped_policies={"2p-base": "policies/ppo_2p_base.npz", "2p-base:v2": "policies/ppo_2p_base.npz",
                      "2p-base:v1": "policies/ppo_2p_base_v1.npz", "2p-great_powers": "policies/ppo_gp_2p.npz",
                      **{f"{n}p-base": "policies/ppo_base_3-5p_mcts.npz" for n in (3, 4, 5)},
                      **{f"{n}p-great_powers": "policies/ppo_gp_3-5p.npz" for n in (3, 4, 5)}},
    explicit=True, perfect_information=True,
    observe=f"{__name__}.observation:encode",
    chance=f"{__name__}.chance:FiveTowersChance",
    shipped_networks={"2p-base": "policies/pv_2p_base.npz"},
    ladder="ladder",
    # the structured observation (SingleAgentGymEnv(observation="dict")) and the network that reads the
    # tower types alike (ppo.architecture: typed)
    observations={"dict": f"{__name__}.dict_wrapper:DictObservationWrapper"},
    architectures={"typed": f"{__name__}.typed_layout:LAYOUT"},
    # the bare engines: the Python reference, and the native core beside it (five_towers_env.engine_backend)
    engine=f"{__name__}.state:GameState.new_game", native_engine=f"{__name__}.native_engine:new_game",
    # the rule-based opponents trainers evaluate against and mix into their pools, and the teacher they imitate
    opponents=("random", "greedy", "heuristic"), pool_weights={"random": 0.1, "greedy": 0.3, "heuristic": 0.6},
    teacher="heuristic",
))

__all__ = [
    "SPEC", "ENV_ID", "env", "raw_env", "OBS_SIZE", "describe", "encode", "layout_table", "pieces",
    "ACTION_NAMES", "MAX_BID", "NUM_ACTIONS", "action_from_name", "action_name",
    "CARD_NAMES", "TYPES", "can_place", "card_id", "card_name", "card_set", "card_set_counts", "parse_card",
    "PositionError", "load_position", "save_position", "pair_bonus", "score_player", "teardown_penalty",
    "PHASE_NAMES", "VARIANTS", "GameState", "IllegalActionError", "Phase", "check_setup",
]
