"""The pure rules engine of 5 Towers: no gymnasium, pettingzoo or torch in here."""
from .actions import ACTION_NAMES, MAX_BID, NUM_ACTIONS, action_from_name, action_name
from .cards import CARD_NAMES, TYPES, can_place, card_id, card_name, card_set, card_set_counts, parse_card
from .position import PositionError, load_position, save_position
from .scoring import pair_bonus, score_player, teardown_penalty
from .state import PHASE_NAMES, VARIANTS, GameState, IllegalActionError, Phase, check_setup

__all__ = [
    "ACTION_NAMES", "MAX_BID", "NUM_ACTIONS", "action_from_name", "action_name",
    "CARD_NAMES", "TYPES", "can_place", "card_id", "card_name", "card_set", "card_set_counts", "parse_card",
    "PositionError", "load_position", "save_position", "pair_bonus", "score_player", "teardown_penalty",
    "PHASE_NAMES", "VARIANTS", "GameState", "IllegalActionError", "Phase", "check_setup",
]
