"""five_towers_env: the card game 5 Towers (and its Great Powers expansion) for reinforcement learning.

``five_towers_env.env(num_players=2, variant="base")`` is a PettingZoo AEC environment;
``five_towers_env.engine`` is the pure rules engine underneath it.
"""
from .engine import action_from_name, action_name
from .env import env, raw_env

__version__ = "0.1.0"
ENV_ID = "five_towers_env/FiveTowers-v0"


def _register() -> None:
    import pettingzoo

    if ENV_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", ENV_ID, entry_point="five_towers_env.env:env")


_register()

from .wrappers import register_gymnasium  # noqa: E402  (needs the package above)

register_gymnasium()

__all__ = ["env", "raw_env", "action_name", "action_from_name", "ENV_ID", "__version__"]
