"""Names a training config uses: setups (``"3p-base"``), the files it names, and its error type."""
from __future__ import annotations

from pathlib import Path


class ConfigError(ValueError):
    """A config file or mapping that cannot be used; the message names the offending key."""


def parse_setup(text: str) -> tuple[int, str]:
    """``"4p-great_powers"`` -> ``(4, "great_powers")`` (the keys of ``GameSpec.shipped_policies``)."""
    players, sep, variant = str(text).partition("p-")
    if not sep or not players.isdigit() or not variant:
        raise ConfigError(f"setups: {text!r} is not a setup; write <players>p-<variant>, e.g. 3p-base")
    return int(players), variant


def init_policy_path(text: str) -> Path:
    """The file ``init_policy`` names: the path as given, or else inside the installed package's parent folder
    (so ``five_towers_env/games/.../policies/x.npz`` names a shipped policy from any working directory)."""
    path = Path(text)
    if path.is_file() or path.is_absolute():
        return path
    import five_towers_env

    return Path(five_towers_env.__file__).resolve().parents[1] / path


def setup_key(num_players: int, variant: str) -> str:
    """``(4, "base")`` -> ``"4p-base"``."""
    return f"{num_players}p-{variant}"


__all__ = ["ConfigError", "init_policy_path", "parse_setup", "setup_key"]
