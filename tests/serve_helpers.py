"""What the tests of ``five-towers serve`` share: a real server in a subprocess on a free port, agents that fail
in each way, and a game's fingerprint (what must not change when a request is refused)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: agents a test seats with ``py:path=<file>:<name>``: one too slow, one that raises, one answering an illegal move
BAD_AGENTS = textwrap.dedent('''
    import time

    class Slow:
        name = "slow"
        def __init__(self, seed=None, seconds=1.5):
            self.seconds = seconds
        def act(self, observation, info):
            time.sleep(self.seconds)
            return info["legal_actions"][0]

    class Boom:
        name = "boom"
        def __init__(self, seed=None):
            pass
        def act(self, observation, info):
            raise ValueError("boom")

    class Illegal:
        name = "illegal"
        def __init__(self, seed=None):
            pass
        def act(self, observation, info):
            return -5
''')


def bad_agents(folder: Path) -> Path:
    """The file of :data:`BAD_AGENTS` in ``folder``."""
    path = folder / "bad_agents.py"
    path.write_text(BAD_AGENTS)
    return path


class Server:
    """``five-towers serve ARGS --port 0`` in a subprocess; :attr:`url` its address, read from its first line."""

    def __init__(self, *args: str, timeout: float = 60.0) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "five_towers_env.cli", "serve", "--port", "0", *args],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        line = self.proc.stdout.readline()
        if "http://" not in line or time.monotonic() > deadline:
            self.stop()
            raise RuntimeError(f"five-towers serve did not start: {line!r} {self.output}")
        self.first_line = line
        self.url = line.split()[2]

    def stop(self) -> int:
        """Interrupt the server (Ctrl-C) and wait for it; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.output = "".join(s.read() for s in (self.proc.stdout, self.proc.stderr) if s is not None)
        return self.proc.returncode

    output = ""


def fingerprint(table) -> str:
    """Everything about a game a request could change: its record (positions and moves), where it stands, its
    error and hint."""
    live = table.live
    return json.dumps([table.recorder.record(), live.moves, live.over or live.seat,
                       None if live.over else live.legal(), table.error, table.hint, table.thinking,
                       table.hint_busy], sort_keys=True, default=str)
