"""Goofspiel, a toy third game: proof that a game is one folder that registers through the contract.

| | |
|---|---|
| registry name | `goofspiel` |
| players | 2-4 |
| variants | `discard` (a tied round's prize is lost; default), `carry` (it is added to the next prize) |
| actions | `Discrete(5)`: `bid 1` .. `bid 5` (`actions.py`) |
| observation | 77 float32 in [0, 1] (`observation.py`, `layout_table()`) |
| hidden information | the other seats' face-down bids this round, the order of the prize deck |
| PettingZoo / Gymnasium id | none (`raw_env` / `env` through the registry only) |
| rules | `ui.RULES`: five rounds; each bids a card 1-5 face down for a prize 1-5; the sole highest bid wins it |
| agents | `random`, `match`, `ppo` (no policy shipped: needs `path=`), `human` |

Files: ``state.py`` (the rules and the state type: ``new_game``, ``legal_actions``,
``apply_action``, ``is_terminal``, ``returns``, ``scores``, ``winners``), ``actions.py`` (the
action codec), ``observation.py`` (the observation from named pieces), ``position.py`` (JSON
positions), ``aec.py`` (the PettingZoo environment, a :class:`~five_towers_env.core.env.GameEnv`),
``agents.py`` (``agent_info``, ``determinize`` and the ``match`` agent) and ``ui.py`` (the
:class:`~five_towers_env.core.gameui.GameUI`). Nothing outside this folder names the game: put the
folder holding this package on ``sys.path`` and import it, or name it in ``FIVE_TOWERS_GAMES``
(``PYTHONPATH=tests/games/toy FIVE_TOWERS_GAMES=goofspiel five-towers play --game goofspiel``).
"""
from __future__ import annotations

from five_towers_env.core.game import GameSpec, register_game

from .actions import NUM_ACTIONS
from .observation import OBS_SIZE
from .state import MAX_PLAYERS, MIN_PLAYERS, VARIANTS, GoofState

SPEC = register_game(GameSpec(
    name="goofspiel", title="Goofspiel", module=__name__, variants=VARIANTS,
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, num_actions=NUM_ACTIONS, observation_size=OBS_SIZE,
    raw_env=f"{__name__}.aec:raw_env", env=f"{__name__}.aec:env", codec=f"{__name__}.actions",
    save_position=f"{__name__}.position:save_position", check_setup=f"{__name__}.state:check_setup",
    ui=f"{__name__}.ui:GOOFSPIEL", agents={"match": f"{__name__}.agents:MatchAgent"},
    observe=f"{__name__}.observation:encode", chance=f"{__name__}.chance:GoofChance",
    engine=f"{__name__}.state:GoofState.new_game",  # Python only: no native_engine
    opponents=("random", "match"), pool_weights={"random": 0.5, "match": 0.5}, teacher="match",
))

__all__ = ["SPEC", "GoofState"]
