"""Self-play PPO (``five-towers train``; the trainer needs the ``rl`` extra: torch, stable-baselines3, sb3-contrib).

- :mod:`.trainer`: :class:`~.trainer.PPOTrainer`, the training loop;
- :mod:`.config`: its validated settings (imported without torch, as is everything below but :mod:`.networks`);
- :mod:`.checkpoints`: its checkpoints in the shared scheme, with the Stable-Baselines3 checks;
- :mod:`.pool` (the opponents), :mod:`.vec_env` and :mod:`.turns` (the games stepped together),
  :mod:`.reward`, :mod:`.eval_games` (the evaluations), :mod:`.imitation` and :mod:`.warm_start` (the start),
  :mod:`.networks` (the typed actor-critic).
"""
from five_towers_env.training.ppo.config import (
    ImitationSettings,
    PoolSettings,
    PPOSettings,
    TrainConfig,
    config_from_dict,
    load_config,
)

__all__ = ["ImitationSettings", "PoolSettings", "PPOSettings", "TrainConfig", "config_from_dict", "load_config"]
