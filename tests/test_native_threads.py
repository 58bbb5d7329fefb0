"""Several Python threads on one native vector environment, or on states a compiled agent reads: no crash, no
damaged game, no livelock.

Each case runs tests/native_thread_stress.py in a subprocess (a segfault is then this test's failure, not
pytest's end): four threads, thousands of calls of steps, resets, reads and writes, a close while the others
step, on a :class:`~five_towers_env.core.vector_env.VectorGameEnv`, a ``gymnasium.make_vec`` env, a raw
``_native.VectorEnv`` and the compiled agents' batched calls, for both games. Then every game must be valid
(``from_fields(fields())`` round-trips, a legal move where it is not over) and the arrays its games'. A
generous time bound stands for "no livelock" (the same stress takes a few seconds). On the code before the
native core's lock (988ebee) every case crashed, damaged a game or hung. CI runs this file again on the
sanitizer builds (.ci/sanitize.sh, .ci/tsan.sh).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import five_towers_env
from five_towers_env.core.backend import native_built

pytestmark = pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}")

STRESS = Path(__file__).with_name("native_thread_stress.py")
#: no livelock: the stress takes seconds; a sanitizer build is several times slower
TIME_BOUND = float(os.environ.get("FIVE_TOWERS_THREAD_TIMEOUT", "300"))


@pytest.mark.parametrize("target", ["vector", "gym", "raw", "states"])
def test_threads_share_native_games_safely(target):
    if target == "gym":
        gymnasium = pytest.importorskip("gymnasium")
        if int(gymnasium.__version__.split(".")[0]) < 1:
            pytest.skip("the Gymnasium vector environment needs gymnasium>=1.0")
    root = str(Path(five_towers_env.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    try:
        done = subprocess.run([sys.executable, str(STRESS), target], capture_output=True, text=True, env=env,
                              timeout=TIME_BOUND)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{target}: no end in {TIME_BOUND:.0f} s (livelock)")
    output = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, f"{target}: exit status {done.returncode} (negative: killed by that signal)\n{output}"
    assert done.stdout.count("ok ") == 2, output  # both games
