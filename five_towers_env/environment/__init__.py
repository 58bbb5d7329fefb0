"""PettingZoo environment, observation encoding and text rendering."""
from .aec import env, raw_env
from .observation import OBS_SIZE, describe, encode, layout_table, pieces

__all__ = ["env", "raw_env", "OBS_SIZE", "describe", "encode", "layout_table", "pieces"]
