"""Campanile (Hanno and Wilfried Kuhn, Blatz 1996): rules engine, PettingZoo environment, agents.

| | |
|---|---|
| registry name | `campanile` |
| players | 2-5 |
| variants | `pile` (bet on a tower shown face up on a pile; default), `played` (only the tower just played onto) |
| other settings | `bet_chip`: `at_least` (default) or `exact` |
| actions | `Discrete(31)`: play a card and storeys, bet a chip on a tower, or no bet (`actions.py`) |
| observation | 278 float32 in [0, 1] (`observation.py`, table in docs/campanile.md) |
| hidden information | the hands and the pile cards below the face-up one |
| OpenSpiel | `python_campanile` (`chance.py`; docs/openspiel.md) |
| PettingZoo / Gymnasium id | `five_towers_env/Campanile-v0` |
| rules | docs/campanile.md ("SPEC Cn" in comments is its section Cn) |
| agents | `random`, `greedy`, `heuristic`, `mcts`, `net`, `guided`, `openspiel-ismcts`, `ppo`, `human` |

The files have the same roles in every game: ``rules.py`` (fixed numbers and scoring),
``state.py`` (the state type: ``new_game``, ``legal_actions``, ``apply_action``, ``is_terminal``,
``returns``), ``actions.py`` (the action codec), ``position.py`` (JSON positions),
``observation.py``, ``env.py`` (the AEC environment), ``render.py`` / ``picture.py`` / ``svg.py``
(text, RGB array, SVG), ``ui.py`` (the human seat and replays) and ``agents/``. Importing this
package loads neither PettingZoo nor Gymnasium (``env``/``raw_env`` load them on first use) and no
other game.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from five_towers_env.core.builtin_games import BUILTIN_GAMES
from five_towers_env.core.game import GameSpec, register_game
from five_towers_env.games.campanile.actions import (
    ACTION_NAMES,
    NUM_ACTIONS,
    action_from_name,
    action_name,
    bet_action,
    play_action,
)
from five_towers_env.games.campanile.observation import OBS_SIZE, describe, encode, layout_table
from five_towers_env.games.campanile.position import PositionError, load_position, save_position
from five_towers_env.games.campanile.rules import BET_CHIPS, TOWERS, VARIANTS, score_towers
from five_towers_env.games.campanile.state import PHASE_NAMES, CampanileState, IllegalActionError, Phase, check_setup

if TYPE_CHECKING:  # PettingZoo is imported on first use, not with the game
    from pettingzoo import AECEnv

    from five_towers_env.core.env import GameEnv

#: the PettingZoo and Gymnasium id (written once, in the built-in games' table)
ENV_ID = BUILTIN_GAMES["campanile"].pettingzoo_id


def env(**kwargs: Any) -> AECEnv:
    """The PettingZoo AEC environment in PettingZoo's standard wrappers (see ``raw_env`` for arguments)."""
    return SPEC.make_env(**kwargs)  # through the spec's target: the environment's module imports this package


def raw_env(**kwargs: Any) -> GameEnv:
    """The unwrapped PettingZoo AEC environment (:class:`five_towers_env.games.campanile.aec.raw_env`):
    ``num_players`` 2..5, ``variant`` ``"pile"``/``"played"``, ``render_mode``, ``bet_chip``."""
    return SPEC.make_raw_env(**kwargs)


SPEC = register_game(GameSpec(
    name="campanile", title="Campanile", module=__name__, variants=VARIANTS, min_players=2, max_players=5,
    num_actions=NUM_ACTIONS, observation_size=OBS_SIZE,
    raw_env=f"{__name__}.aec:raw_env", env=f"{__name__}.aec:env", codec=f"{__name__}.actions",
    save_position=f"{__name__}.position:save_position", check_setup=f"{__name__}.state:check_setup",
    ui=f"{__name__}.ui:CAMPANILE",
    # its own mcts refines the flat search (whole turns, heuristic candidates); net, guided and
    # openspiel-ismcts come with observe and chance
    agents={"greedy": f"{__name__}.agents:GreedyAgent", "heuristic": f"{__name__}.agents:HeuristicAgent",
            "mcts": f"{__name__}.agents:MCTSAgent"},
    pettingzoo_id=ENV_ID, gymnasium_id=ENV_ID,
    # ppo's policy per setup: 2-player pile and played each have their own; one network trained over seven
    # setups (configs/ppo_campanile_setups.yaml) plays the other 3 to 5 player setups, and one trained on
    # from it against heuristics (configs/ppo_campanile_pile_3-4p.yaml) plays pile with 3 and 4 players
    shipped_policies={"2p-pile": "policies/ppo_campanile_2p.npz", "2p-played": "policies/ppo_campanile_played_2p.npz",
                      **{f"{n}p-pile": "policies/ppo_campanile_pile_3-4p.npz" for n in (3, 4)},
                      "5p-pile": "policies/ppo_campanile_setups.npz",
                      **{f"{n}p-played": "policies/ppo_campanile_setups.npz" for n in (3, 4, 5)}},
    observe=f"{__name__}.observation:encode",
    chance=f"{__name__}.chance:CampanileChance",
    shipped_networks={"2p-pile": "policies/pv_campanile_2p.npz"},
    ladder="ladder",
    # the bare engines: the Python reference, and the native core beside it (five_towers_env.engine_backend)
    engine=f"{__name__}.state:CampanileState.new_game", native_engine=f"{__name__}.native_engine:new_game",
    # the rule-based opponents trainers evaluate against and mix into their pools, and the teacher they imitate
    opponents=("random", "greedy", "heuristic"), pool_weights={"random": 0.1, "greedy": 0.3, "heuristic": 0.6},
    teacher="heuristic",
))

__all__ = ["SPEC",
    "env", "raw_env", "ENV_ID", "CampanileState", "Phase", "PHASE_NAMES", "IllegalActionError", "PositionError",
    "check_setup", "load_position", "save_position", "ACTION_NAMES", "NUM_ACTIONS", "action_name",
    "action_from_name", "play_action", "bet_action", "OBS_SIZE", "encode", "describe", "layout_table",
    "TOWERS", "VARIANTS", "BET_CHIPS", "score_towers",
]
