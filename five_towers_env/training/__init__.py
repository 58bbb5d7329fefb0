"""Training: one skeleton that every learner stands on, and one package per learner.

The package's ``training/`` is the library; the repository's top-level ``training/`` folder holds the short
scripts people read and run over it (``training/README.md``).

- The shared layer, here: the trainer protocol and the table of trainers (:mod:`.trainer`), settings and
  ``--set`` overrides with :class:`ConfigError` (:mod:`.config_base`), the run folder (:mod:`.run_folder`),
  the one checkpoint scheme (:mod:`.checkpoint_files`) and interrupts (:mod:`.interrupts`).
- :mod:`.ppo`: self-play PPO (``five-towers train``).
- :mod:`.expert`: expert iteration (``five-towers expert``).

Nothing here imports torch; a learner's package does once its trainer module is imported.
"""
from five_towers_env.training.config_base import ConfigError
from five_towers_env.training.trainer import TRAINERS, Trainer, TrainerBase, TrainResult, find_trainer

__all__ = ["ConfigError", "TRAINERS", "Trainer", "TrainerBase", "TrainResult", "find_trainer"]
