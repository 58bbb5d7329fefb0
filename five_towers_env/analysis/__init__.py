"""Tools that study trained policies, beside the trainers rather than inside them: the learning curve of a run's
checkpoints over many seeded games (:mod:`.checkpoint_curve`). A game's own studies live in its folder (5 Towers'
phase ablation: ``games/five_towers/diagnosis.py``). The scripts in the repository's ``training/`` folder run
them."""
