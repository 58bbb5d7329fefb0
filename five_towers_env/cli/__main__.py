"""``python -m five_towers_env.cli``: the ``five-towers`` command."""
import sys

from five_towers_env.cli.main import main

sys.exit(main())
