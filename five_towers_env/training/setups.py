"""Names a training config uses: setups (``"3p-base"``), the files it names, and its error type."""
from __future__ import annotations

from pathlib import Path

from five_towers_env.core.game import parse_setup_key, setup_key


class ConfigError(ValueError):
    """A config file or mapping that cannot be used; the message names the offending key."""


def parse_setup(text: str) -> tuple[int, str]:
    """``"4p-great_powers"`` -> ``(4, "great_powers")`` (the keys of ``GameSpec.shipped_policies``), or
    :class:`ConfigError`."""
    try:
        return parse_setup_key(text)
    except ValueError as e:
        raise ConfigError(f"setups: {e}") from None


def init_policy_path(text: str) -> Path:
    """The file ``init_policy`` names: the path as given, or else inside the installed package's parent folder
    (so ``five_towers_env/games/.../policies/x.npz`` names a shipped policy from any working directory)."""
    path = Path(text)
    if path.is_file() or path.is_absolute():
        return path
    import five_towers_env

    return Path(five_towers_env.__file__).resolve().parents[1] / path


__all__ = ["ConfigError", "init_policy_path", "parse_setup", "setup_key"]
