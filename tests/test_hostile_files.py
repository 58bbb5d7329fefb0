"""Issue 66, files and values a hostile user hands us: a config whose aliases expand without end, config values
with a NUL or far too long to quote, policy paths that are devices or FIFOs, a journal that is a symbolic link
out of ``--out``, and actions that are not integers (the PettingZoo environment also under ``python -O``, the
single-agent Gymnasium environment). Each was a hang, a traceback, a write outside the folder or a move played
at commit 988ebee."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from five_towers_env.cli import main
from five_towers_env.core.env import ActionOutOfBoundsError, ActionTypeError
from five_towers_env.core.errors import IllegalActionError
from five_towers_env.training.config_base import MAX_CONFIG_VALUES, ConfigError, load_yaml, read_config_file

ROOT = Path(__file__).resolve().parents[1]
#: `train` and `expert` report a missing rl extra before they read a config (the oldest-versions run has none)
needs_rl = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="training needs the rl extra")
CONFIG = ROOT / "configs" / "ppo_quick_2p.yaml"


def one_line_error(capsys, *argv: object) -> str:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def alias_bomb(levels: int = 10, width: int = 10, key: str = "name") -> str:
    """YAML of a few hundred bytes whose last key stands for ``width ** levels`` values."""
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines + [f"{key}: *a{levels - 1}"]) + "\n"


# -- configs -------------------------------------------------------------------------------------------

def cli(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command line in a process of its own: one that hangs fails the test at ``timeout``."""
    return subprocess.run([sys.executable, "-m", "five_towers_env.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


@needs_rl
@pytest.mark.parametrize("command", ["train", "expert"])
def test_an_alias_chain_is_refused_at_once(tmp_path, command):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    assert path.stat().st_size < 600
    done = cli(command, "--config", path)  # at 988ebee: past 1 GB and growing, never an answer
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert "aliases" in lines[0] and f"{MAX_CONFIG_VALUES:,}" in lines[0] and len(lines[0]) < 300


def test_aliases_within_the_cap_still_load():
    data = load_yaml("base: &b {lr: 0.1, n: 3}\nppo: *b\nother: *b\n", "test")
    assert data == {"base": {"lr": 0.1, "n": 3}, "ppo": {"lr": 0.1, "n": 3}, "other": {"lr": 0.1, "n": 3}}
    with pytest.raises(ConfigError, match="aliases"):
        load_yaml(alias_bomb(levels=6), "test")  # a million values


@needs_rl
def test_a_set_override_with_an_alias_chain_is_refused():
    parts = ["&a0 [" + ", ".join(["x"] * 10) + "]"]
    parts += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    bomb = "[" + ", ".join(parts + ["*a9"]) + "]"  # flow style: one command-line value
    done = cli("train", "--config", CONFIG, "--set", f"name={bomb}")
    assert done.returncode == 2 and "aliases" in done.stderr and "Traceback" not in done.stderr


@needs_rl
def test_error_messages_quote_only_the_start_of_a_long_value(tmp_path, capsys):
    path = tmp_path / "long.yaml"
    path.write_text("total_timesteps: [" + ", ".join(["123456789"] * 20000) + "]\n")
    line = one_line_error(capsys, "train", "--config", path)
    assert "total_timesteps" in line and len(line) < 400


@needs_rl
def test_a_nul_in_a_config_string_names_its_key(tmp_path, capsys):
    path = tmp_path / "nul.yaml"
    path.write_text('name: "a\\0b"\n')
    line = one_line_error(capsys, "train", "--config", path)
    assert "name: must not contain a NUL character" in line and "embedded null byte" not in line


@needs_rl
@pytest.mark.parametrize("device", ["/dev/zero", "fifo"])
def test_a_config_that_is_no_regular_file_is_refused(tmp_path, capsys, device):
    if device == "fifo":
        device = tmp_path / "fifo.yaml"
        os.mkfifo(device)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_config_file(device)
    assert "not a regular file" in one_line_error(capsys, "train", "--config", device)


# -- policy paths ------------------------------------------------------------------------------------

@pytest.mark.parametrize("agent", ["ppo", "net", "guided"])
def test_a_policy_path_that_is_a_device_is_refused(agent):
    done = cli("play", "--agents", f"{agent}:path=/dev/zero", "random")  # at 988ebee: read on at 330 MB/s
    assert done.returncode == 2 and "not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_a_policy_path_that_is_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "policy.npz"
    os.mkfifo(fifo)
    done = cli("play", "--agents", f"ppo:path={fifo}", "random")  # a FIFO with no writer: opening it would block
    assert done.returncode == 2 and "not a regular file" in done.stderr


@needs_rl
def test_an_init_policy_that_is_a_device_is_refused(capsys):
    line = one_line_error(capsys, "train", "--config", CONFIG, "--set", "init_policy=/dev/zero")
    assert "init_policy" in line and "not a regular file" in line


# -- files stay where the user put them --------------------------------------------------------------

@pytest.mark.parametrize("dangling", [True, False])
def test_a_journal_that_is_a_link_out_of_the_folder_is_refused(tmp_path, capsys, dangling):
    out, target = tmp_path / "out", tmp_path / "elsewhere.jsonl"
    out.mkdir()
    if not dangling:
        target.write_text("")
    (out / "evaluate_journal.jsonl").symlink_to(target)
    line = one_line_error(capsys, "evaluate", "--agents", "random", "greedy", "--games", "2", "--out", out)
    assert "symbolic link" in line
    assert target.exists() is not dangling and (not target.exists() or target.read_text() == "")


def test_open_append_refuses_a_link(tmp_path):
    from five_towers_env.atomic import LinkRefused, open_append

    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(LinkRefused, match="symbolic link"):
        open_append(tmp_path / "link")
    assert not (tmp_path / "target").exists()
    with open_append(tmp_path / "plain") as f:
        f.write("x")
    assert (tmp_path / "plain").read_text() == "x"


# -- actions are integers ------------------------------------------------------------------------------

NOT_INTEGERS = [0.0, 0.9, 1.5, "1", "3", True, np.True_, np.float32(2), float("inf"), float("nan"), np.array([1.0]),
                None]


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
@pytest.mark.parametrize("action", NOT_INTEGERS, ids=repr)
def test_the_gymnasium_env_plays_only_integers(game, action):
    name = {"five_towers": "five_towers_env/FiveTowers-v0", "campanile": "five_towers_env/Campanile-v0"}[game]
    for mode in ("penalize", "raise"):
        env = gymnasium.make(name, illegal_action=mode)
        obs, _ = env.reset(seed=3)
        with pytest.raises(ActionTypeError):
            env.step(action)
        again, _ = env.reset(seed=3)
        assert np.array_equal(obs, again)


AEC_SCRIPT = r"""
import numpy as np
from five_towers_env.core.env import ActionOutOfBoundsError, ActionTypeError
from five_towers_env.games import five_towers, campanile
assert not __debug__  # python -O: PettingZoo's assert is gone
for module, space in ((five_towers, 307), (campanile, 31)):
    env = module.env()
    env.reset(seed=1)
    before = env.unwrapped.game.legal_actions()
    for action in [space, -1, 10**30, np.int64(999), 0.0, 0.9, "1", True, float("inf"), float("nan")]:
        try:
            env.step(action)
        except (ActionOutOfBoundsError, ActionTypeError):
            pass
        else:
            raise SystemExit(f"{module.__name__}: {action!r} was played")
        assert env.unwrapped.game.legal_actions() == before and env.agent_selection == "player_0"
print("ok")
"""


@pytest.mark.parametrize("optimize", ["-O", None])
def test_the_pettingzoo_env_refuses_what_is_not_in_its_space_also_under_python_O(optimize):
    script = AEC_SCRIPT if optimize else AEC_SCRIPT.replace("assert not __debug__", "pass")
    done = subprocess.run([sys.executable, *([optimize] if optimize else []), "-c", script], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_out_of_bounds_error_is_both_illegal_and_an_assertion():
    assert issubclass(ActionOutOfBoundsError, IllegalActionError) and issubclass(ActionOutOfBoundsError, AssertionError)


@pytest.mark.parametrize("c_puct", [-1.0, 0.0, 1e9])
def test_expert_iteration_checks_c_puct_against_the_guided_range(c_puct):
    import yaml

    from five_towers_env.training.expert.config import build_expert_config

    data = yaml.safe_load((ROOT / "configs" / "expert_2p.yaml").read_text())
    with pytest.raises(ConfigError, match="c_puct: must be a number above 0"):
        build_expert_config(data, {"c_puct": c_puct})
    assert build_expert_config(data, {"c_puct": 2.5}).c_puct == 2.5
