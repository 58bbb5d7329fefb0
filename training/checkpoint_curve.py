"""Evaluate every checkpoint of a training run over many seeded games: a learning curve without
the noise of the 100-game points drawn during training.

    python training/checkpoint_curve.py runs/ppo_selfplay_2p                      # 1,000 games per point
    python training/checkpoint_curve.py runs/ppo_selfplay_2p --opponents heuristic --games 300 --workers 2

A thin entry point: everything (options, evaluation, CSV / PNG, printed table) is
:mod:`five_towers_env.analysis.checkpoint_curve`.
"""
import sys

from five_towers_env.analysis.checkpoint_curve import main

if __name__ == "__main__":
    sys.exit(main())
