"""The cases an audit of the command line found escaping as tracebacks: each is one line on stderr and exit 2
now. Every crafted file is made here."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from five_towers_env.cli import main

LONG = "x" * 300  # longer than a file name may be


def one_line_exit_2(capsys, argv: list[str]) -> str:
    try:
        code = main(argv)
    except SystemExit as exc:  # a usage error
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def _bigint_record(tmp: Path) -> list[str]:
    path = tmp / "bigint.json"
    path.write_text('{"seats": [' + "9" * 5000 + "]}")
    return ["replay", str(path)]


def _deep_config(tmp: Path) -> list[str]:
    path = tmp / "deep.yaml"
    path.write_text("a: " + "[" * 3000)
    return ["train", "--config", str(path)]


def _journal_is_a_folder(tmp: Path) -> list[str]:
    (tmp / "out" / "evaluate_journal.jsonl").mkdir(parents=True)
    return ["evaluate", "--agents", "random", "random", "--games", "2", "--no-progress", "--out", str(tmp / "out")]


def _binary_run_log(tmp: Path) -> list[str]:
    from five_towers_env.evaluation.zoo import shipped

    name = next(p for p in shipped("five_towers") if p.setup == "2p-base").meta["name"]
    (tmp / "runs" / name).mkdir(parents=True)
    (tmp / "runs" / name / "eval_log.csv").write_bytes(b"wall_s\n\xff\xfe\x00")
    return ["zoo", "--games", "1", "--setups", "2p-base", "--field", "random", "--no-progress", "--runs",
            str(tmp / "runs")]


CASES = {
    "a training log that is not text": _binary_run_log,
    "a long --out name": lambda tmp: ["evaluate", "--agents", "random", "random", "--games", "2", "--out",
                                      str(tmp / LONG)],
    "a long --html name": lambda tmp: ["replay", "g.json", "--html", str(tmp / f"{LONG}.html")],
    "a device as --record": lambda tmp: ["play", "--record", "/dev/null"],
    "a record holding a 5000-digit number": _bigint_record,
    "more agents than seats": lambda tmp: ["play", "--agents", *["random"] * 7],
    "an unknown zoo setup": lambda tmp: ["zoo", "--games", "1", "--setups", "bogus"],
    "an empty --resume": lambda tmp: ["train", "--resume", ""],
    "a deep --set value": lambda tmp: ["train", "--config", "configs/ppo_smoke.yaml", "--set", "a=" + "[" * 3000],
    "a deep config file": _deep_config,
    "a shipped policy that does not fit the setup": lambda tmp: [
        "evaluate", "--agents", "ppo:version=1", "random", "--players", "4", "--games", "2", "--no-progress"],
    "a journal path that is a folder": _journal_is_a_folder,
    "a long run folder name": lambda tmp: ["train", "--config", "configs/ppo_smoke.yaml", "--set",
                                           f"out_dir={tmp}", f"name={LONG}"],
}
NEEDS_RL = {"an empty --resume", "a deep --set value", "a deep config file", "a long run folder name"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, capsys, monkeypatch):
    if case in NEEDS_RL and importlib.util.find_spec("torch") is None:
        pytest.skip("training needs the rl extra")
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    one_line_exit_2(capsys, CASES[case](tmp_path))


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed here")
def test_ray_without_ray_is_a_usage_error(capsys):
    err = one_line_exit_2(capsys, ["evaluate", "--agents", "random", "random", "--games", "2", "--ray", "auto"])
    assert "Ray is not installed" in err


def test_the_record_checks_hold_for_json_numbers_python_cannot_read(tmp_path):
    from five_towers_env.replay import RecordError, loads_record

    with pytest.raises(RecordError, match="number"):
        loads_record(json.dumps({"seats": []})[:-1] + ', "x": ' + "9" * 5000 + "}")


@pytest.mark.parametrize("kind_name, state", [
    ("ppo", {"config": {}, "snapshots": [1], "eval_rows": []}),
    ("ppo", {"config": {}, "snapshots": [], "eval_rows": 3}),
    ("ppo", {"config": {}, "snapshots": [], "eval_rows": ["x"]}),
    ("ppo", {"config": {}, "snapshots": [], "eval_rows": [], "timesteps": -1}),
    ("ppo", "[" * 3000),
    ("expert", {"generation": -1, "games": 0, "wall_s": 0, "rng": {}, "losses": {}}),
    ("expert", {"generation": 10**30, "games": 0, "wall_s": 0, "rng": {}, "losses": {}}),
    ("expert", {"generation": 1, "games": 0, "wall_s": 0, "rng": "x", "losses": {}}),
    ("expert", {"generation": 1, "games": 0, "wall_s": 0,
                "rng": {"bit_generator": "PCG64", "state": {}}, "losses": ["x"]}),
])
def test_damaged_checkpoint_states_are_refused_in_one_line(kind_name, state, tmp_path):
    from five_towers_env.training.checkpoint_files import CheckpointError, read_state

    if kind_name == "ppo":
        from five_towers_env.training.ppo.checkpoints import PPO_CHECKPOINT as kind
    else:
        pytest.importorskip("torch")
        from five_towers_env.training.expert.config import EXPERT_CHECKPOINT as kind
    checkpoint = tmp_path / f"step_1{kind.suffix}"
    kind.state_file(checkpoint).write_text(state if isinstance(state, str) else json.dumps(state))
    with pytest.raises(CheckpointError) as exc:
        read_state(checkpoint, kind, hint=False)
    assert "\n" not in str(exc.value)


def _damaged_zip(tmp: Path, how: str) -> Path:
    """A zip with SB3's entries, damaged ``how``: a bad CRC, an unknown compression method, nested data."""
    import zipfile

    path = tmp / f"{how}.zip"
    data = '{"a": ' + "[" * 5000 + "]" * 5000 + "}" if how == "deep" else '{"policy_class": {}}'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("data", data)
        z.writestr("policy.pth", b"\0" * 64)
    raw = bytearray(path.read_bytes())
    if how == "crc":
        at = raw.index(b'{"policy_class"')
        raw[at + 3] ^= 0xFF
    elif how == "method":  # the entry's method in its local header and in the central directory: 99, unknown
        for header in (b"PK\x03\x04", b"PK\x01\x02"):
            at = raw.index(header)
            offset = 8 if header == b"PK\x03\x04" else 10
            raw[at + offset:at + offset + 2] = (99).to_bytes(2, "little")
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize("how", ["crc", "method", "deep"])
@pytest.mark.parametrize("agent", ["sb3", "ppo"])
def test_damaged_model_zips_are_one_line_and_exit_2(how, agent, tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    path = _damaged_zip(tmp_path, how)
    one_line_exit_2(capsys, ["play", "--agents", f"{agent}:path={path}", "random"])


USER_AGENTS = '''
class BadInit:
    def __init__(self, seed=None):
        raise KeyError("fails as it is built")

    def act(self, observation, info):
        return 0


class BadName:
    def __init__(self, seed=None):
        pass

    @property
    def name(self):
        raise RuntimeError("fails when named")

    def act(self, observation, info):
        return 0


class BadCheck:
    def __init__(self, seed=None):
        pass

    def check_setup(self, num_players, variant):
        raise RuntimeError("fails when it checks")

    def act(self, observation, info):
        return 0
'''


@pytest.mark.parametrize("name", ["BadInit", "BadName", "BadCheck"])
def test_user_agents_whose_code_fails_are_one_line_and_exit_2(name, tmp_path, capsys):
    (tmp_path / "mine.py").write_text(USER_AGENTS)
    one_line_exit_2(capsys, ["evaluate", "--agents", f"py:path={tmp_path / 'mine.py'}:{name}", "random",
                             "--games", "2", "--no-progress"])
