"""Self-play PPO training (needs the ``rl`` extra: torch, stable-baselines3, sb3-contrib).

:mod:`.config` (validated YAML settings) and :mod:`.pool` import without torch; :mod:`.selfplay`
holds the training loop.
"""
from five_towers_env.training.config import (
    ConfigError,
    ImitationSettings,
    PoolSettings,
    PPOSettings,
    TrainConfig,
    config_from_dict,
    load_config,
)

__all__ = ["ConfigError", "ImitationSettings", "PoolSettings", "PPOSettings", "TrainConfig", "config_from_dict",
           "load_config"]
