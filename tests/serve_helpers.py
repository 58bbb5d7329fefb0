"""What the tests of ``five-towers serve`` share: a real server in a subprocess on a free port, agents that fail
in each way, a game's fingerprint (what must not change when a request is refused), and games played through
Starlette's test client (imported only when a test asks for one: the browser tests run without it)."""
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

    class Stuck:
        """Never returns in time: waits until the file ``release`` exists (a test's way to end its threads)."""
        name = "stuck"
        def __init__(self, seed=None, release="release"):
            self.release = release
            self.last_values = {}  # looks like a search agent, so that it can stand as a hint agent too
        def act(self, observation, info):
            import os
            while not os.path.exists(self.release):
                time.sleep(0.02)
            return info["legal_actions"][0]
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


JSON = {"content-type": "application/json"}


def client(game: str = "five_towers", agents=("human", "random"), players: int = 2, variant: str | None = None,
           **kw):
    """Starlette's test client on a server of this setup (``kw``: the rest of :class:`Setup`, or
    ``allowed_hosts``/``token`` of ``create_app``)."""
    import warnings

    from five_towers_env.core.game import get_game
    from five_towers_env.web.app import create_app
    from five_towers_env.web.tables import Setup

    with warnings.catch_warnings():  # Starlette 1.10 suggests httpx2, which needs Python 3.11+
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    app_kw = {k: kw.pop(k) for k in ("allowed_hosts", "token") if k in kw}
    variant = variant or get_game(game).default_variant
    return TestClient(create_app(Setup(game, variant, players, tuple(agents), **kw), **app_kw))


def tables_of(c):
    """The games of a test client's server."""
    return c.app.state.tables


def new(c) -> dict:
    r = c.post("/api/games", json={})
    assert r.status_code == 201, r.text
    return r.json()


def step(c, s: dict) -> dict:
    """One move: the person's first legal move, or the next agent's (or forced) one."""
    if s["waiting"] == "person":
        r = c.post(f"/api/games/{s['id']}/move", json={"action": s["legal"][0]["action"], "at": s["moves"]})
    else:
        r = c.post(f"/api/games/{s['id']}/advance", json={"at": s["moves"]})
    assert r.status_code == 200, r.text
    return r.json()


def finish(c, s: dict) -> dict:
    while s["waiting"] != "over":
        assert s["waiting"] in ("person", "agent", "forced"), s["error"]
        s = step(c, s)
    return s


def fingerprint(table) -> str:
    """Everything about a game a request could change: its record (positions and moves), where it stands, its
    error and hint."""
    live = table.live
    return json.dumps([table.recorder.record(), live.moves, live.over or live.seat,
                       None if live.over else live.legal(), table.error, table.hint, table.thinking,
                       table.hint_busy], sort_keys=True, default=str)
