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
    "an agent setting past its range": lambda tmp: [
        "evaluate", "--agents", "mcts:time_limit=1e999", "random", "--games", "2", "--no-progress"],
    "a probability above 1": lambda tmp: ["play", "--game", "campanile", "--agents", "mcts:bet_rate=2", "random"],
    "an OpenSpiel bot's worlds of 0": lambda tmp: [
        "evaluate", "--game", "campanile", "--agents", "openspiel-ismcts:worlds=0", "random", "--games", "2",
        "--no-progress"],
    "a long run folder name": lambda tmp: ["train", "--config", "configs/ppo_smoke.yaml", "--set",
                                           f"out_dir={tmp}", f"name={LONG}"],
}
NEEDS_RL = {"an empty --resume", "a deep --set value", "a deep config file", "a long run folder name"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, capsys, monkeypatch):
    if case in NEEDS_RL and importlib.util.find_spec("torch") is None:
        pytest.skip("training needs the rl extra")
    if "OpenSpiel" in case and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("the OpenSpiel bots need the openspiel extra")
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


# -- every agent setting at its bounds (issue 66, deliverable 7) ---------------------------------------------------
# Over the registry: every agent of both games, every setting with a declared range (SETTING_RANGES; that every
# number has one is tests/test_setting_ranges.py's), its boundary values and just outside them (NaN and the
# infinities for a number): either the spec is refused in one line, or the agent builds and plays two decisions
# within CASE_SECONDS, never a hang or a traceback. The other settings are the cheapest that make sense (CHEAP)
# so that the whole sweep takes seconds; an upper bound that is slow by design (COSTLY: a decision of about ten
# seconds, by the bounds' own rule) is built and not played, its refusal just above it checked as any other.

#: cheap settings an agent is played with, the one setting under test put over them
CHEAP = {"mcts": {"simulations": 16}, "guided": {"simulations": 4, "determinisations": 2},
         "openspiel-mcts": {"simulations": 2}, "openspiel-ismcts": {"simulations": 2}}
#: the settings whose upper bound is a decision of several seconds: built there, not played
COSTLY = {"simulations", "determinisations", "rollouts", "time_limit"}
CASE_SECONDS = 60


def _bound_values(allowed, hint) -> list:
    """``allowed``'s bounds and the values just outside (and just inside an open bound), its extra values,
    and NaN and the infinities for a number; every word of a list and one that is not."""
    import math
    import typing
    from types import UnionType

    from five_towers_env.core.setting_ranges import OneOf

    if isinstance(allowed, OneOf):
        return [*allowed.choices, "no-such-" + allowed.choices[0]]
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, UnionType) else (hint,)
    integer = float not in args
    values: list = []
    for bound, is_open, outward in ((allowed.low, allowed.low_open, -1), (allowed.high, allowed.high_open, 1)):
        if bound is None:
            continue
        if integer:
            inner = int(bound) - outward if is_open else int(bound)
            values += [inner, inner + outward]
        else:
            values += [float(bound), math.nextafter(bound, outward * math.inf)]
            if is_open:
                values.append(math.nextafter(bound, -outward * math.inf))
    values += list(allowed.also or {})
    if not integer:
        values += [math.nan, math.inf, -math.inf]
    return values


def _bound_cases() -> list:
    from five_towers_env.agents.registry import agent_setting_ranges, agent_settings, agents_of
    from five_towers_env.core.game import BUILTIN_GAMES
    from five_towers_env.core.setting_ranges import product_settings

    cases = []
    for game in BUILTIN_GAMES:
        for name in agents_of(game):
            try:
                settings = agent_settings(name, game=game)
            except ImportError as missing:  # an extra that is not installed (openspiel): its class is its ranges
                cases.append(pytest.param(game, name, None, None, id=f"{game}-{name}",
                                          marks=pytest.mark.skip(reason=str(missing))))
                continue
            for key, allowed in agent_setting_ranges(name, game=game).items():
                if product_settings(key) is None:
                    cases += [pytest.param(game, name, key, value, id=f"{game}-{name}-{key}={value!r}")
                              for value in _bound_values(allowed, settings[key])]
    return cases


def _expected_to_pass(name: str, game: str, settings: dict) -> bool:
    """Whether ``settings`` are within every range ``name`` declares (a product's factors at their defaults
    where not given)."""
    import math

    from five_towers_env.agents.registry import agent_setting_defaults, agent_setting_ranges
    from five_towers_env.core.setting_ranges import product_settings

    values = {**agent_setting_defaults(name, game=game), **settings}
    for key, allowed in agent_setting_ranges(name, game=game).items():
        factors = [values.get(k) for k in product_settings(key) or (key,)]
        if None in factors:  # None is "none" or "the default", wherever a setting takes it
            continue
        value = math.prod(factors) if len(factors) > 1 else factors[0]
        if isinstance(value, float) and not math.isfinite(value) or value not in allowed:
            return False
    return True


def _upper_bound(name: str, game: str, key: str):
    """The upper bound agent ``name`` of ``game`` declares for ``key`` (None: none)."""
    from five_towers_env.agents.registry import agent_setting_ranges

    return getattr(agent_setting_ranges(name, game=game)[key], "high", None)


def _two_decisions(agent, game: str) -> int:
    """Seat ``agent`` first in a 2-player game of ``game``'s default variant (the other seat playing its first
    legal action) until it has made two decisions; returns them."""
    import importlib

    import numpy as np

    from five_towers_env.core.game import get_game

    spec = get_game(game)
    env = importlib.import_module(spec.module).env(num_players=2)
    env.reset(seed=3)
    made = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated or made == 2:
            break
        state = env.unwrapped.game
        if state.current_player == 0:
            action = agent.act(observation, spec.agent_info(state, 0))
            assert observation["action_mask"][action] == 1, f"{agent.name} chose illegal {action}"
            made += 1
        else:
            action = int(np.flatnonzero(observation["action_mask"])[0])
        env.step(int(action))
    env.close()
    return made


@pytest.mark.parametrize("game, name, key, value", _bound_cases())
def test_every_setting_at_its_bounds_plays_or_is_refused_in_one_line(game, name, key, value):
    import threading
    import time

    from five_towers_env.agents.registry import AgentSettingError, parse_agent_text
    from five_towers_env.evaluation.specs import to_spec

    if name.startswith("openspiel-") and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("the OpenSpiel bots need the openspiel extra")
    settings = {**CHEAP.get(name, {}), key: value}
    expected = _expected_to_pass(name, game, settings)
    text = f"{name}:" + ",".join(f"{k}={v!r}" for k, v in settings.items())
    try:
        to_spec((name, settings), game)  # the registry's check, as every command and evaluate() make it
    except AgentSettingError as refused:
        message = str(refused)
        assert not expected, f"{text} is within its ranges, yet refused: {message}"
        assert "\n" not in message and message.startswith(name) and key in message, message
        if not isinstance(value, float) or value == value:  # NaN has no literal: the API's check stands for it
            with pytest.raises(AgentSettingError):
                parse_agent_text(text, game=game)  # the command line's spelling is refused alike
        return
    assert expected, f"{text} is outside its ranges, yet accepted"
    try:
        agent = to_spec((name, settings), game).build(0)
    except ValueError as refused:  # the agent's own check of what no range says (a version the game ships)
        assert "\n" not in str(refused), str(refused)
        return
    if key in COSTLY and value == _upper_bound(name, game, key):
        return  # a decision of several seconds by design: built, not played
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(_two_decisions(agent, game)), daemon=True)
    start = time.perf_counter()
    worker.start()
    worker.join(CASE_SECONDS)
    assert not worker.is_alive(), f"{text}: two decisions took over {CASE_SECONDS} s"
    assert outcome == [2], f"{text}: the decisions raised (see the thread's traceback above)"
    assert time.perf_counter() - start < CASE_SECONDS

