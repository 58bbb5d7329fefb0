"""The ``five-towers`` command line: one module per subcommand (:mod:`.main` lists them), each a thin layer
of arguments and checks over a call into the package."""
from five_towers_env.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
