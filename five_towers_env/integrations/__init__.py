"""Adapters of the environment to other training frameworks, each in its own module.

Nothing here is imported by ``import five_towers_env`` and this package imports no framework:
import the module of the framework you use: ``five_towers_env.integrations.rllib`` (needs the
``rllib`` extra: ``pip install "five-towers-env[rllib]"``) or ``five_towers_env.integrations.openspiel``
(the ``openspiel`` extra; registers both games with ``pyspiel``).
"""
