"""Expert iteration (``five-towers expert``; the trainer needs torch): a policy-value network and the search it
guides, each improving the other.

- :mod:`.trainer`: :class:`~.trainer.ExpertTrainer`, the generations;
- :mod:`.config`: its validated settings and checkpoints (imported without torch);
- :mod:`.data`: the games that feed the replay buffer, and the buffer;
- :mod:`.model`: the policy-value network and its loss.
"""
from five_towers_env.training.expert.config import ExpertConfig, load_expert_config

__all__ = ["ExpertConfig", "load_expert_config"]
