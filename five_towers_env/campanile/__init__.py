"""Campanile (Kuhn & Kuhn, Blatz 1996): a pure rules engine and a PettingZoo AEC environment.

The rules are in docs/campanile.md ("SPEC Cn" in comments means its section Cn).
``five_towers_env.campanile.env(num_players=2, variant="pile")`` is the wrapped PettingZoo AEC
environment, also registered as ``pettingzoo.make("aec", "five_towers_env/Campanile-v0")``.
Importing this package loads neither PettingZoo nor Gymnasium: ``env``/``raw_env`` load them
on first use. Everything else here is the engine:

* :class:`CampanileState` (``new_game``, ``legal_actions``, ``apply_action``, ``is_terminal``,
  ``scores``, ``winners``, ``returns``, ``clone``, ``determinize``);
* :func:`load_position` / :func:`save_position` (SPEC C7 JSON);
* the action codec (:data:`NUM_ACTIONS`, :func:`action_name`, :func:`action_from_name`);
* :func:`encode`, the observation vector of one seat (public information and its own hand only).
"""
from __future__ import annotations

from typing import Any

from ..registration import CAMPANILE_PETTINGZOO_ID as ENV_ID
from .actions import ACTION_NAMES, NUM_ACTIONS, action_from_name, action_name, bet_action, play_action
from .observation import OBS_SIZE, describe, encode, layout_table
from .position import PositionError, load_position, save_position
from .rules import BET_CHIPS, TOWERS, VARIANTS, score_towers
from .state import PHASE_NAMES, CampanileState, IllegalActionError, Phase, check_setup


def env(**kwargs: Any):
    """The PettingZoo AEC environment in PettingZoo's standard wrappers (see ``raw_env`` for arguments)."""
    from .aec import env as make_env

    return make_env(**kwargs)


def raw_env(**kwargs: Any):
    """The unwrapped PettingZoo AEC environment (:class:`five_towers_env.campanile.aec.raw_env`):
    ``num_players`` 2..5, ``variant`` ``"pile"``/``"played"``, ``render_mode``, ``bet_chip``."""
    from .aec import raw_env as make_raw_env

    return make_raw_env(**kwargs)


__all__ = [
    "env", "raw_env", "ENV_ID", "CampanileState", "Phase", "PHASE_NAMES", "IllegalActionError", "PositionError",
    "check_setup", "load_position", "save_position", "ACTION_NAMES", "NUM_ACTIONS", "action_name",
    "action_from_name", "play_action", "bet_action", "OBS_SIZE", "encode", "describe", "layout_table",
    "TOWERS", "VARIANTS", "BET_CHIPS", "score_towers",
]
