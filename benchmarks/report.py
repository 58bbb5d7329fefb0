"""What the MCTS timing scripts share: the machine line of their reports and writing them as JSON."""
from __future__ import annotations

import json
import platform


def machine() -> str:
    """The processor and Python version, as the reports name the machine."""
    return f"{platform.processor() or platform.machine()}, python {platform.python_version()}"


def write_json(path: str | None, out: dict) -> None:
    """Write ``out`` to ``path`` as indented JSON with a final newline (nothing if ``path`` is None)."""
    if path:
        with open(path, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
