"""Portable numerics: a short training run prints the same table and writes the same weights under every
kernel path this machine can be forced onto, and with any number of environment workers."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from five_towers_env import numerics

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "ppo_smoke.yaml"
#: the variables through which the kernels can be forced from outside (each library reads its own)
KERNEL_VARIABLES = (*numerics.FIXED, numerics.NUMPY_FEATURES, numerics.MARKER)
#: kernel paths to force: torch's baseline and widest, MKL's compatible path, OpenBLAS's oldest and AVX-512
#: kernels, numpy without its AVX2 loops
FORCED = {
    "this CPU's choice": {},
    "torch default, MKL compatible": {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"},
    "torch avx512, OpenBLAS SkylakeX": {"ATEN_CPU_CAPABILITY": "avx512", "OPENBLAS_CORETYPE": "SkylakeX"},
    "OpenBLAS Prescott, 2 threads": {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "2"},
}

needs_avx2 = pytest.mark.skipif(numerics.portable_problem() is not None,
                                reason=f"portable numerics unavailable here: {numerics.portable_problem()}")


def train(tmp_path: Path, name: str, forced: dict[str, str], *settings: str) -> tuple[str, str]:
    """Run the smoke config in a fresh process under ``forced`` kernels; (printed table, weights digest)."""
    env = {k: v for k, v in os.environ.items() if k not in KERNEL_VARIABLES}
    env.update(forced)
    proc = subprocess.run(
        [sys.executable, "-m", "five_towers_env.cli", "train", "--config", str(SMOKE), "--no-progress",
         "--eval-games", "10", "--set", f"out_dir={tmp_path}", f"name={name}", "total_timesteps=1024",
         "checkpoint_every=1024", *settings],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("against"))
    table = "\n".join(lines[start:start + 4])
    weights = np.load(tmp_path / name / "policy.npz")
    digest = hashlib.sha256(b"".join(weights[k].tobytes() for k in sorted(weights.files) if k != "meta"))
    return table, digest.hexdigest()


@needs_avx2
def test_portable_runs_agree_under_every_forced_kernel_path_and_worker_count(tmp_path: Path) -> None:
    runs = {label: train(tmp_path, f"p{i}", forced) for i, (label, forced) in enumerate(FORCED.items())}
    runs["2 environment workers"] = train(tmp_path, "workers", {}, "subproc=true", "env_workers=2")
    first = next(iter(runs.values()))
    for label, run in runs.items():
        assert run == first, f"{label}: {run} differs from {first}"


@needs_avx2
def test_native_runs_follow_the_kernels(tmp_path: Path) -> None:
    """The check above can fail: without the pin, the same forced paths change the weights."""
    native = [train(tmp_path, f"n{i}", forced, "numerics=native")[1]
              for i, forced in enumerate([{}, {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE",
                                               "OPENBLAS_CORETYPE": "Prescott"}])]
    assert native[0] != native[1]


def test_portable_environment_names_every_kernel_choice() -> None:
    env = numerics.portable_environment()
    assert env["ATEN_CPU_CAPABILITY"] == "avx2" and env["MKL_CBWR"] == "AVX2"
    assert env["OPENBLAS_CORETYPE"] == "Haswell" and env["OPENBLAS_NUM_THREADS"] == "1"
    assert all(name == "X86_V4" or name.startswith(("AVX512", "AVX10", "AMX"))
               for name in env[numerics.NUMPY_FEATURES].split())
    assert env[numerics.MARKER] == numerics.PORTABLE


def test_batched_logits_are_the_rows_own(tmp_path: Path) -> None:
    """A batch's logits are each row's alone: the batch's size and a row's place in it change nothing."""
    from five_towers_env.agents.policy import PolicyAgent

    agent = PolicyAgent()  # the shipped 5 Towers policy
    obs = np.random.default_rng(0).random((9, agent.obs_size), dtype=np.float32)
    alone = np.stack([agent.logits(row) for row in obs])
    assert np.array_equal(agent.logits(obs), alone)
    assert np.array_equal(agent.logits(obs[3:7]), alone[3:7])
