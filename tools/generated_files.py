"""The one loop of the scripts that write generated documentation (``game_pages.py``, ``ladder_docs.py``):
write each file whose text changed, or, with ``--check``, write nothing and say which are stale."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_or_check(files: dict[Path, str], check: bool, script: str, what: str) -> int:
    """Write every file of ``files`` (path -> text) whose text differs (whole, atomically), or with ``check``
    only list them; returns the exit status (1: ``check`` found stale files)."""
    from five_towers_env.atomic import write_text

    stale = []
    for path, text in files.items():
        if path.is_file() and path.read_text() == text:
            continue
        stale.append(path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path))
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, text)
    if check and stale:
        print(f"stale: {', '.join(stale)}; run python {script}", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(stale)}" if stale else f"{what} are up to date")
    return 0
