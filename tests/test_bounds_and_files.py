"""Hostile files and absurd inputs (issue 55): upper bounds on the command line and in the configs, configs
with infinities, and crafted network ``.npz`` files (a huge declared shape, a bad CRC, deflate bombs, NaN
weights, layers that do not chain), each refused in one line with exit status 2; and a fuzz test of the
``.npz`` reader. Every crafted file is made here, never stored."""
from __future__ import annotations

import argparse
import dataclasses
import io
import struct
import time
import tracemalloc
import typing
import zipfile
from pathlib import Path

import numpy as np
import pytest

from five_towers_env import limits
from five_towers_env.agents.network_file import NetworkFileError, NumpyNetwork, read_network, write_network
from five_towers_env.agents.npz_reader import MAX_ENTRY_BYTES, NpzError, read_npz
from five_towers_env.cli import main
from five_towers_env.core.game import game_names, get_game
from five_towers_env.training.config_base import ConfigError
from five_towers_env.training.expert.config import ExpertConfig, build_expert_config
from five_towers_env.training.ppo import config as train_config

OBS, ACTIONS = get_game("campanile").observation_size, get_game("campanile").num_actions


def run_cli(capsys, *argv: object) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, *argv: object) -> str:
    code, _, err = run_cli(capsys, *argv)
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "error:" in lines[0] and "Traceback" not in err, err
    return lines[0]


# -- crafted network files -------------------------------------------------------------------------------

def tiny_arrays(hidden: int = 8, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"w0": rng.normal(size=(hidden, OBS)).astype(np.float32), "b0": np.zeros(hidden, np.float32),
            "w1": rng.normal(size=(ACTIONS, hidden)).astype(np.float32), "b1": np.zeros(ACTIONS, np.float32)}


def tiny_network(path: Path, **changes: np.ndarray) -> Path:
    return write_network(path, "mlp", {**tiny_arrays(), **changes}, {"game": "campanile"}, activation="relu")


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()


def npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def policy_entries() -> dict[str, bytes]:
    """A tiny Campanile policy's entries as .npy bytes (the file write_network writes)."""
    entries = {"format": np.array(2), "architecture": np.array("mlp"), "activation": np.array("relu"),
               "layers": np.array(2), "meta": np.array(repr({"game": "campanile"})), **tiny_arrays()}
    return {f"{k}.npy": npy(v) for k, v in entries.items()}


def write_zip(path: Path, entries: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def huge_shape(path: Path) -> Path:
    """w0's header declares 10**12 floats; the file is a few kilobytes."""
    entries = policy_entries()
    entries["w0.npy"] = npy_header((10**12,)) + b"\0" * 64
    return write_zip(path, entries)


def bad_crc(path: Path) -> Path:
    write_zip(path, policy_entries())
    data = bytearray(path.read_bytes())
    at = data.find(tiny_arrays()["w0"].tobytes()[:64]) + 100
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def deflate_bomb(path: Path, megabytes: int, declared: int | None = None) -> Path:
    """A policy whose w0 is ``megabytes`` MB of zeros, deflated (a fraction of a megabyte on disk), streamed
    into the zip; ``declared``: the size the zip's directory then claims for it (a lie)."""
    count = megabytes * 2**20 // 4
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in policy_entries().items():
            if name != "w0.npy":
                z.writestr(name, data)
        with z.open("w0.npy", "w", force_zip64=True) as f:
            f.write(npy_header((count,)))
            chunk = bytes(2**20)
            for _ in range(megabytes):
                f.write(chunk)
    if declared is not None:  # the central directory's entry of w0.npy claims `declared` bytes
        data = bytearray(path.read_bytes())
        entry = data.rfind(b"PK\x01\x02", 0, data.rfind(b"w0.npy"))
        size_at = entry + 24
        if data[size_at:size_at + 4] == b"\xff\xff\xff\xff":  # zip64: the size is in the extra field
            name_len, extra_len = struct.unpack("<HH", data[entry + 28:entry + 32])
            extra = entry + 46 + name_len
            assert struct.unpack("<H", data[extra:extra + 2])[0] == 1
            size_at = extra + 4
            data[size_at:size_at + 8] = struct.pack("<Q", declared)
        else:
            data[size_at:size_at + 4] = struct.pack("<I", declared)
        path.write_bytes(bytes(data))
    return path


def nan_weights(path: Path) -> Path:
    w1 = tiny_arrays()["w1"]
    w1[3, 2] = np.nan
    return tiny_network(path, w1=w1)


def inf_weights(path: Path) -> Path:
    return tiny_network(path, b0=np.full(8, np.inf, np.float32))


def wrong_shape(path: Path) -> Path:
    """A Campanile network whose second layer reads 5 features from a first layer of 8."""
    return tiny_network(path, w1=np.ones((ACTIONS, 5), np.float32))


CRAFTED = {"huge_shape": huge_shape, "bad_crc": bad_crc, "nan_weights": nan_weights, "inf_weights": inf_weights,
           "wrong_shape": wrong_shape, "bomb": lambda p: deflate_bomb(p, 300),
           "lying_bomb": lambda p: deflate_bomb(p, 50, declared=4096)}


def test_a_tiny_network_plays(tmp_path, capsys):
    path = tiny_network(tmp_path / "ok.npz")
    assert NumpyNetwork(read_network(path)).game == "campanile"
    code, out, err = run_cli(capsys, "play", "--game", "campanile", "--agents", f"ppo:path={path}", "random",
                             "--quiet")
    assert code == 0, err


@pytest.mark.parametrize("kind", list(CRAFTED))
def test_crafted_network_files_are_refused_in_one_line(kind, tmp_path, capsys):
    path = CRAFTED[kind](tmp_path / f"{kind}.npz")
    assert path.stat().st_size < 2 * 2**20  # small on disk, whatever it declares
    tracemalloc.start()
    try:
        with pytest.raises(NetworkFileError):
            NumpyNetwork(read_network(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"{kind}: {peak:,} bytes at the peak: read more than it may"
    line = one_line_error(capsys, "play", "--game", "campanile", "--agents", f"ppo:path={path}", "random")
    assert str(path) in line


def test_the_reader_says_why(tmp_path):
    with pytest.raises(NpzError, match=r"declares shape \(1000000000000,\)"):
        read_npz(huge_shape(tmp_path / "a.npz"))
    with pytest.raises(NpzError, match="CRC"):
        read_npz(bad_crc(tmp_path / "b.npz"))
    with pytest.raises(NpzError, match=f"more than the {MAX_ENTRY_BYTES:,}"):
        read_npz(deflate_bomb(tmp_path / "c.npz", 300))
    with pytest.raises(NetworkFileError, match="NaN or infinite"):
        read_network(nan_weights(tmp_path / "d.npz"))
    with pytest.raises(NetworkFileError, match="do not fit together"):
        NumpyNetwork(read_network(wrong_shape(tmp_path / "e.npz")))
    pickled = write_zip(tmp_path / "f.npz", {**policy_entries(), "x.npy": npy_header((1,), "|O") + b"\0" * 8})
    with pytest.raises(NpzError, match="dtype object"):
        read_npz(pickled)


def test_shipped_networks_still_read():
    for game in game_names():
        for path in sorted((Path(get_game(game).default_policy() or ".").parent).glob("*.npz")):
            assert NumpyNetwork(read_network(path)).game == game


def test_mutated_npz_files_are_accepted_or_refused_cleanly(tmp_path):
    """10,000 byte mutations of a tiny policy, stored and deflated: each one reads, or is refused with a
    NetworkFileError (the file) or a ValueError naming it (the network); nothing else escapes, nothing hangs."""
    stored = write_zip(tmp_path / "s.npz", policy_entries()).read_bytes()
    deflated = tiny_network(tmp_path / "d.npz").read_bytes()
    rng = np.random.default_rng(55)
    path = tmp_path / "m.npz"
    outcomes = {"read": 0, "refused": 0}
    start = time.perf_counter()
    for i in range(10_000):
        data = bytearray(stored if i % 2 else deflated)
        for _ in range(int(rng.integers(1, 4))):
            at = int(rng.integers(len(data)))
            mode = rng.integers(3)
            if mode == 0:
                data[at] = int(rng.integers(256))
            elif mode == 1:
                data[at] ^= 1 << int(rng.integers(8))
            else:
                del data[at: at + int(rng.integers(1, 16))]
        path.write_bytes(bytes(data))
        try:
            net = read_network(path)  # the file: NetworkFileError alone
        except NetworkFileError:
            outcomes["refused"] += 1
            continue
        try:  # the network it holds: a ValueError naming the file (e.g. another game's sizes)
            NumpyNetwork(net)
            outcomes["read"] += 1
        except ValueError as e:
            assert str(path) in str(e)
            outcomes["refused"] += 1
    assert sum(outcomes.values()) == 10_000 and outcomes["refused"] > 5_000, outcomes
    assert time.perf_counter() - start < 60


# -- bounds on the command line ------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["evaluate", "--agents", "random", "random", "--games", 10**12],
    ["tournament", "--agents", "random", "greedy", "--games", 10**12],
    ["rate", "random", "--games", 10**12],
    ["zoo", "--games", 10**12],
    ["play", "--agents", "random", "random", "--game-index", 10**12],
    ["train", "--config", "c.yaml", "--eval-games", 10**12],
    ["tournament", "--agents", "random", "greedy", "heuristic", "--games", 600_000],
])
def test_absurd_counts_are_refused_at_once(argv, capsys):
    start = time.perf_counter()
    line = one_line_error(capsys, *argv)
    assert time.perf_counter() - start < 5
    assert "1,000,000" in line or "999,999" in line


def test_the_last_game_index_is_played_without_the_games_before_it(capsys):
    from five_towers_env.evaluation.jobs import make_jobs

    for index, paired in [(0, True), (7, True), (12, False)]:
        assert limits.job_at([0, 1, 2], index, 3, 5, paired) == make_jobs([0, 1, 2], index + 1, 3, 5,
                                                                          paired=paired)[-1]
    start = time.perf_counter()
    code, _, err = run_cli(capsys, "play", "--agents", "random", "random", "--game-index", limits.MAX_GAME_INDEX,
                           "--quiet")
    assert code == 0 and time.perf_counter() - start < 10, err


def test_workers_above_the_cpus_warn_and_cap(monkeypatch, capsys):
    monkeypatch.setattr(limits, "usable_cpus", lambda: 1)
    code, out, err = run_cli(capsys, "evaluate", "--agents", "random", "random", "--games", 2, "--workers", 99,
                             "--no-progress")
    assert code == 0, err
    assert "warning: --workers 99 is more than the 1 CPU this process may use; using 1" in err
    args = argparse.Namespace(workers=99, force_workers=True, ray=None)
    limits.cap_workers(args)
    assert args.workers == 99
    args = argparse.Namespace(workers=99, force_workers=False, ray="auto")  # a cluster's own cores
    limits.cap_workers(args)
    assert args.workers == 99


# -- configs ---------------------------------------------------------------------------------------------

def float_settings(cls: type, prefix: str = "") -> list[tuple[str, str]]:
    """Every float setting of a settings dataclass (``(key, type)``; dict[str, float]: its values)."""
    out = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            out += float_settings(hint, f"{prefix}{f.name}.")
        elif hint is float or typing.get_args(hint)[-1:] == (float,):
            out.append((prefix + f.name, "dict" if typing.get_origin(hint) is dict else "float"))
    return out


TRAIN_FLOATS = float_settings(train_config.TrainConfig)
EXPERT_FLOATS = float_settings(ExpertConfig)


def nested(key: str, value: object) -> dict:
    data: dict = {}
    node = data
    *parents, last = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return data


def test_every_float_setting_is_listed():
    assert ("pool.baselines", "dict") in TRAIN_FLOATS and ("ppo.learning_rate", "float") in TRAIN_FLOATS
    assert len(TRAIN_FLOATS) >= 14 and len(EXPERT_FLOATS) >= 9


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize("key, kind", TRAIN_FLOATS)
def test_train_settings_refuse_non_finite_numbers(key, kind, value):
    setting = {"random": value} if kind == "dict" else value
    named = f"{key}.random" if kind == "dict" else key
    with pytest.raises(ConfigError, match=rf"{named}: must be a finite number"):
        train_config.build_config(nested(key, setting))


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
@pytest.mark.parametrize("key, kind", EXPERT_FLOATS)
def test_expert_settings_refuse_non_finite_numbers(key, kind, value):
    with pytest.raises(ConfigError, match=rf"{key}: must be a finite number"):
        build_expert_config({key: value})


@pytest.mark.parametrize("data, named", [
    ({"n_envs": 10**23}, "n_envs: at most 1,024"),
    ({"ppo": {"net_arch": [10**9]}}, r"ppo.net_arch\[0\]: at most 4,096"),
    ({"ppo": {"net_arch": [64] * 9}}, "ppo.net_arch: at most 8 entries"),
    ({"total_timesteps": 10**40}, "total_timesteps: at most"),
    ({"ppo": {"n_steps": 65_536}, "n_envs": 1_024}, r"ppo.n_steps \* n_envs: at most 262,144"),
    ({"imitation": {"games": 10**9}}, "imitation.games: at most 1,000,000"),
])
def test_train_sizes_have_upper_limits(data, named):
    with pytest.raises(ConfigError, match=named):
        train_config.build_config(data)


@pytest.mark.parametrize("data, named", [
    ({"hidden": [10**9]}, r"hidden\[0\]: at most 4,096"),
    ({"buffer_positions": 10**12}, "buffer_positions: at most 2,000,000"),
    ({"workers": 10**6}, "workers: at most 256"),
])
def test_expert_sizes_have_upper_limits(data, named):
    with pytest.raises(ConfigError, match=named):
        build_expert_config(data)


@pytest.mark.parametrize("command, text, key", [
    ("train", "pool:\n  baselines:\n    random: .inf\n", "pool.baselines.random"),
    ("train", "ppo:\n  learning_rate: .nan\n", "ppo.learning_rate"),
    ("train", "reward_margin: -.inf\n", "reward_margin"),
    ("train", "n_envs: 100000000000000000000000\n", "n_envs"),
    ("expert", "method: expert_iteration\nlearning_rate: .inf\n", "learning_rate"),
    ("expert", "method: expert_iteration\nhidden: [1000000000]\n", "hidden[0]"),
])
def test_a_config_error_leaves_no_run_folder(command, text, key, tmp_path, capsys):
    for module in ("torch", "tensorboard", *(("stable_baselines3", "sb3_contrib") if command == "train" else ())):
        pytest.importorskip(module)  # the command asks for the rl extra first
    config = tmp_path / "c.yaml"
    config.write_text(f"name: bad\nout_dir: {tmp_path / 'runs'}\n{text}")
    line = one_line_error(capsys, command, "--config", config, "--no-progress")
    assert key in line
    assert not (tmp_path / "runs").exists()
    # an override is blamed the same way
    config.write_text(f"name: bad\nout_dir: {tmp_path / 'runs'}\n" + ("method: expert_iteration\n"
                                                                       if command == "expert" else ""))
    line = one_line_error(capsys, command, "--config", config, "--set", f"{key.split('[')[0]}=.inf",
                          "--no-progress")
    assert key.split("[")[0] in line and not (tmp_path / "runs").exists()


# -- the PettingZoo API --------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", game_names())
def test_an_unknown_agent_is_named(game):
    import importlib

    env = importlib.import_module(f"five_towers_env.games.{game}").env()
    env.reset(seed=0)
    for call in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(KeyError, match="unknown agent 'nope'; this environment's agents are player_0"):
            call("nope")


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
def test_a_write_that_fails_after_the_games_keeps_the_journal_and_says_how_to_finish(command, tmp_path, capsys):
    out = tmp_path / "out"
    (out / f"{command}.json").mkdir(parents=True)  # a folder where a result goes: the write fails, even as root
    argv = [command, "--agents", "random", "random", "--games", "4", "--seed", "3", "--no-progress", "--out", str(out)]
    if command == "tournament":
        argv.append("--no-plot")
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    journal = out / f"{command}_journal.jsonl"
    assert "\n" not in err and "Traceback" not in err
    assert str(journal) in err and "run the same command again" in err
    assert journal.exists()
    played = journal.read_text().count("\n")
    (out / f"{command}.json").rmdir()
    assert main(argv) == 0
    assert (out / f"{command}.json").is_file() and not journal.exists()
    assert played == 5  # the header and the four games, which the second run read instead of playing them
