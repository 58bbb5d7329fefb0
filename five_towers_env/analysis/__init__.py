"""Tools that study trained policies, beside the trainers rather than inside them: the learning curve of a run's
checkpoints over many seeded games (:mod:`.checkpoint_curve`) and which kind of decision costs a policy its games
(:mod:`.diagnosis`). The scripts in the repository's ``training/`` folder run them."""
