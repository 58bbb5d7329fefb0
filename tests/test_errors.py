"""Bad input gets a clear error: on the command line a usage error (exit status 2, ``error:`` on
stderr, no traceback), in Python an exception naming the problem and the allowed values; and
nothing changes (no run folder made, the environment as it was)."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.agents.registry import AgentSettingError, check_agent_settings, make_agent
from five_towers_env.cli import main
from five_towers_env.evaluation.match import evaluate
from five_towers_env.evaluation.runner import resolve_workers
from five_towers_env.evaluation.specs import parse_agent_spec
from five_towers_env.games.five_towers import IllegalActionError, PositionError, raw_env

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``main(argv)``'s exit status (a usage error exits, a command returns it), stdout and stderr."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(capsys, *argv: str) -> str:
    code, _, err = run_cli(capsys, *argv)
    assert code == 2, err
    assert "error:" in err and "Traceback" not in err
    return err


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder, so a run folder made by mistake (runs/...) would show."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def nothing_written(folder: Path, *keep: Path) -> bool:
    return sorted(p for p in folder.iterdir() if p not in keep) == []


# -- 1. train without the rl extra ----------------------------------------------------------

@pytest.mark.parametrize("hidden", [("yaml", "torch"), ("torch",)], ids=["yaml_and_torch", "torch"])
def test_train_without_the_rl_extra_says_how_to_install_it(tmp_path, hidden):
    config = tmp_path / "c.yaml"
    config.write_text("seed: 1\n")
    code = ("import sys\n"
            + "".join(f"sys.modules[{m!r}] = None\n" for m in hidden)
            + "from five_towers_env.cli import main\n"
            + f"sys.exit(main(['train', '--config', {str(config)!r}, '--set', 'total_timesteps=1000']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert "Traceback" not in err and "ModuleNotFoundError" not in err
    assert "error: training needs the rl extra" in err
    assert 'pip install -e ".[rl]"' in err
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in err
    assert "torch" in err and (("pyyaml" in err) == ("yaml" in hidden))
    assert nothing_written(tmp_path, config)


def test_cli_module_runs_as_a_script():
    done = subprocess.run([sys.executable, "-m", "five_towers_env.cli", "evaluate", "--agents", "random",
                           "random", "--players", "two"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "five-towers evaluate: error: argument --players: must be one of 2, 3, 4, 5" in done.stderr


# -- 2. empty config ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("", "the config file is empty"),
    ("# only a comment\n", "the config file is empty"),
    ("- seed: 1\n", "must be a mapping of settings"),
    ("just words\n", "must be a mapping of settings"),
], ids=["empty", "comment_only", "list", "scalar"])
def test_empty_or_non_mapping_config_rejected(in_tmp, capsys, text, words):
    from five_towers_env.training.ppo.config import ConfigError, load_config

    config = in_tmp / "c.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=words):
        load_config(config)
    pytest.importorskip("sb3_contrib")
    err = assert_usage_error(capsys, "train", "--config", config)
    assert words in err and str(config) in err
    assert nothing_written(in_tmp, config)


def test_missing_config_file_or_folder_rejected(in_tmp, capsys):
    pytest.importorskip("sb3_contrib")
    assert "config file nope.yaml does not exist" in assert_usage_error(capsys, "train", "--config", "nope.yaml")
    (in_tmp / "folder").mkdir()
    assert "is a folder" in assert_usage_error(capsys, "train", "--config", "folder")
    assert nothing_written(in_tmp, in_tmp / "folder")


# -- 3. --players --------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["play", "evaluate", "tournament"])
@pytest.mark.parametrize("value", ["two", "1", "6"])
def test_players_lists_the_allowed_counts(capsys, command, value):
    err = assert_usage_error(capsys, command, "--agents", "random", "random", "--players", value)
    assert "argument --players: must be one of 2, 3, 4, 5" in err and repr(value) in err


# -- 4. agent names and settings ---------------------------------------------------------------

def test_agent_setting_of_the_wrong_type(capsys):
    message = "mcts setting simulations must be an integer, got 'abc'"
    err = assert_usage_error(capsys, "evaluate", "--agents", "mcts:simulations=abc", "random", "--games", "2")
    assert message in err and "not supported between" not in err
    with pytest.raises(ValueError, match=message):
        parse_agent_spec("mcts:simulations=abc")
    with pytest.raises(TypeError, match=message):
        make_agent("mcts", simulations="abc")
    with pytest.raises(ValueError, match=message):
        evaluate([("mcts", {"simulations": "abc"}), "random"], num_games=2, progress=False)
    with pytest.raises(ValueError, match="must be an integer, got 100.0; write 100"):
        parse_agent_spec("mcts:simulations=1e2")
    with pytest.raises(ValueError, match="heuristic setting chain_weight must be a number, got 'x'"):
        make_agent("heuristic", chain_weight="x")
    with pytest.raises(ValueError, match="ppo setting deterministic must be true or false, got 1"):
        make_agent("ppo", deterministic=1)
    # the right types still pass: an int for a float, None for an optional setting
    assert make_agent("mcts", simulations=np.int64(10), beta=1, time_limit=None).simulations == 10


def test_unknown_agent_setting_lists_the_valid_ones(capsys):
    err = assert_usage_error(capsys, "evaluate", "--agents", "mcts:sims=10", "random", "--games", "2")
    assert "mcts has no setting 'sims'; its settings: simulations, time_limit, rollout_rounds" in err
    with pytest.raises(AgentSettingError, match="heuristic has no setting 'bogus'; its settings: .*chain_weight"):
        make_agent("heuristic", bogus=1.0)
    with pytest.raises(ValueError, match="random has no setting 'depth'; its settings: name"):
        evaluate(["random:depth=3", "random"], num_games=2, progress=False)
    with pytest.raises(ValueError, match="seed is not an agent setting"):
        parse_agent_spec("greedy:seed=3")
    settings = {"path": "x.npz", "deterministic": False}
    assert check_agent_settings("ppo", settings, game="five_towers") == settings


def test_unknown_agent_lists_the_known_ones(capsys):
    err = assert_usage_error(capsys, "play", "--agents", "alphazero", "random")
    assert "unknown agent 'alphazero'; known: random, greedy, heuristic, mcts, net, guided, openspiel-mcts, ppo" in err
    with pytest.raises(ValueError, match="unknown agent 'alphazero'; known: random, greedy"):
        make_agent("alphazero")


# -- 5. ppo policy files ---------------------------------------------------------------------------

def test_ppo_missing_policy_file(tmp_path, capsys):
    missing = tmp_path / "missing.npz"
    err = assert_usage_error(capsys, "evaluate", "--agents", f"ppo:path={missing}", "random")
    assert f"ppo: no policy file at {missing}" in err
    with pytest.raises(FileNotFoundError, match="ppo: no policy file at"):
        make_agent("ppo", path=str(missing))


def test_ppo_policy_path_is_a_folder(tmp_path, capsys):
    err = assert_usage_error(capsys, "evaluate", "--agents", f"ppo:path={tmp_path}", "random")
    assert f"ppo: {tmp_path} is a folder" in err
    with pytest.raises(IsADirectoryError, match="is a folder"):
        make_agent("ppo", path=tmp_path)


@pytest.mark.parametrize("kind", ["text", "npy", "foreign_npz"])
def test_ppo_policy_file_that_is_not_a_policy(tmp_path, capsys, kind):
    path = tmp_path / {"text": "notes.txt", "npy": "a.npy", "foreign_npz": "other.npz"}[kind]
    if kind == "text":
        path.write_text("not a policy\n")
    elif kind == "npy":
        np.save(path, np.zeros(3))
    else:
        np.savez(path, a=np.zeros(3))
    err = assert_usage_error(capsys, "evaluate", "--agents", f"ppo:path={path}", "random")
    assert f"ppo: {path} is not a policy .npz/.zip" in err
    assert "allow_pickle" not in err
    with pytest.raises(ValueError, match=r"is not a policy \.npz/\.zip"):
        make_agent("ppo", path=path)


# -- 6. and 7. --workers, --games -----------------------------------------------------------------

def test_negative_workers_rejected(capsys):
    for command in ("evaluate", "tournament"):
        err = assert_usage_error(capsys, command, "--agents", "random", "random", "--workers", "-3")
        assert "argument --workers: must be an integer >= 0 (1: in this process, 0: every CPU), got '-3'" in err
    err = assert_usage_error(capsys, "train", "--config", CONFIGS / "ppo_smoke.yaml", "--workers", "-1")
    assert "argument --workers: must be an integer >= 0" in err
    with pytest.raises(ValueError, match="workers must be >= 0"):
        resolve_workers(-3)
    with pytest.raises(ValueError, match="workers must be >= 0"):
        evaluate(["random", "random"], num_games=2, workers=-3, progress=False)
    with pytest.raises(TypeError, match="workers must be an integer"):
        resolve_workers(2.5)
    assert resolve_workers(0) == (os.cpu_count() or 1) == resolve_workers(None)
    assert resolve_workers(3) == 3


@pytest.mark.parametrize("games", ["0", "-5", "many"])
def test_games_must_be_positive(capsys, games):
    for command in ("evaluate", "tournament"):
        err = assert_usage_error(capsys, command, "--agents", "random", "random", "--games", games)
        assert f"argument --games: must be an integer from 1 to 1,000,000, got '{games}'" in err


def test_evaluate_games_must_be_positive_in_python():
    with pytest.raises(ValueError, match="num_games must be at least 1"):
        evaluate(["random", "random"], num_games=0, progress=False)


# -- 8. step() takes integer ids ---------------------------------------------------------------------

def _env_state(e: raw_env) -> tuple:
    return (e.position(), e.legal_action_names(), e.agent_selection, dict(e.rewards),
            e._rng.bit_generator.state)


def test_step_with_an_action_name_says_to_use_action_from_name():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = _env_state(e)
    with pytest.raises(IllegalActionError) as err:
        e.step("bid 3")
    assert isinstance(err.value, TypeError)
    assert "actions are integer ids" in str(err.value)
    assert "env.action_from_name('bid 3')" in str(err.value) and "(here: 3)" in str(err.value)
    assert _env_state(e) == before


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), 3.0, np.float64(3.0), "3", [3]],
                         ids=["True", "False", "np_bool", "float", "np_float", "digit_string", "list"])
def test_step_rejects_bools_floats_and_strings(bad):
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = _env_state(e)
    with pytest.raises(TypeError, match="actions are integer ids"):
        e.step(bad)
    assert _env_state(e) == before


@pytest.mark.parametrize("wrap", [int, np.int64, np.int32, np.array], ids=["int", "int64", "int32", "0d_array"])
def test_step_accepts_integer_ids_of_any_kind(wrap):
    e = raw_env(num_players=2)
    e.reset(seed=0)
    action = e.legal_actions()[0]
    e.step(wrap(action))
    ref = raw_env(num_players=2)
    ref.reset(seed=0)
    ref.step(action)
    assert e.position() == ref.position()


# -- 9. reset options -------------------------------------------------------------------------------

def test_unknown_reset_option_lists_the_known_ones():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = _env_state(e)
    with pytest.raises(ValueError, match="unknown reset option.*'postion'.*did you mean 'position'.*"
                                         "known: position, start_player"):
        e.reset(options={"postion": {"num_players": 2, "display": ["candy-1"]}})
    with pytest.raises(ValueError, match="'start_players': did you mean 'start_player'"):
        e.reset(options={"start_players": 1})
    # PettingZoo's api_test resets with an arbitrary option and needs it to pass: other keys warn
    with pytest.warns(UserWarning, match="reset\\(\\) ignores unknown option.*'colour'; known: position, start_player"):
        e.reset(seed=0, options={"colour": 1})
    e.reset(seed=0)
    before = _env_state(e)
    with pytest.raises(TypeError, match="options must be a dict"):
        e.reset(options=["position"])
    with pytest.raises(ValueError, match="exclude each other"):
        e.reset(options={"position": {"num_players": 2, "display": ["candy-1"]}, "start_player": 1})
    with pytest.raises(ValueError, match="start_player"):
        e.reset(seed=5, options={"start_player": 9})
    assert _env_state(e) == before


# -- 10. a position of another setup ----------------------------------------------------------------

def test_position_of_another_player_count_or_variant_rejected():
    two = raw_env(num_players=2)
    two.reset(seed=4)
    pos = two.position()
    e = raw_env(num_players=3)
    e.reset(seed=1)
    before = _env_state(e)
    with pytest.raises(PositionError,
                       match="position has 2 players but this environment was made with num_players=3"):
        e.reset(seed=7, options={"position": copy.deepcopy(pos)})
    assert _env_state(e) == before and e.num_players == 3 and len(e.possible_agents) == 3
    gp = {"num_players": 3, "variant": "great_powers", "display": ["candy-1", "candy-2"]}
    with pytest.raises(PositionError, match="position is for variant 'great_powers' but this environment was "
                                            "made with variant='base'"):
        e.reset(options={"position": gp})
    assert _env_state(e) == before and e.variant == "base"
    with pytest.raises(ValueError, match=r"a position goes in as options=\{'position'"):
        e.reset(options=gp)
    # the failed resets consumed no randomness: the next game is the one it would have been
    e.reset()
    other = raw_env(num_players=3)
    other.reset(seed=1)
    other.reset()
    assert e.position() == other.position()


# -- 11. and 12. config values and --set ---------------------------------------------------------------

def test_exponent_numbers_get_a_yaml_hint(in_tmp, capsys):
    from five_towers_env.training.ppo.config import ConfigError, config_from_dict, load_config

    config = in_tmp / "c.yaml"
    config.write_text("total_timesteps: 1e5\n")
    hint = "total_timesteps must be an integer; write 100000 (YAML reads 1e5 as a string)"
    with pytest.raises(ConfigError, match=r"c\.yaml: " + hint.replace("(", r"\(").replace(")", r"\)")):
        load_config(config)
    with pytest.raises(ConfigError, match="ppo.learning_rate must be a number; write 0.0003"):
        config_from_dict({"ppo": {"learning_rate": "3e-4"}})
    with pytest.raises(ConfigError, match="eval_every must be an integer; write 50000$"):
        config_from_dict({"eval_every": 5.0e4})
    with pytest.raises(ConfigError, match="n_envs: expected int, got 'eight'"):
        config_from_dict({"n_envs": "eight"})
    pytest.importorskip("sb3_contrib")
    assert hint in assert_usage_error(capsys, "train", "--config", config)
    config.write_text("seed: 1\n")
    err = assert_usage_error(capsys, "train", "--config", config, "--set", "total_timesteps=1e5")
    assert f"--set total_timesteps=1e5: {hint}" in err
    assert nothing_written(in_tmp, config)


def test_set_typo_is_blamed_on_the_set_override(in_tmp, capsys):
    from five_towers_env.training.ppo.config import ConfigError, load_config

    config = in_tmp / "c.yaml"
    config.write_text("seed: 1\n")
    with pytest.raises(ConfigError) as err:
        load_config(config, {"total_timestep": 5})
    assert str(err.value).startswith("--set total_timestep=5: unknown key(s) total_timestep; known:")
    assert str(config) not in str(err.value)
    with pytest.raises(ConfigError, match=r"^--set ppo\.n_epoch=2: unknown key\(s\) ppo\.n_epoch"):
        load_config(config, {"ppo.n_epoch": 2})
    with pytest.raises(ConfigError, match=r"^--set seed=-1: seed: must be >= 0"):
        load_config(config, {"seed": -1})
    # a mistake in the file is still the file's, with or without overrides
    config.write_text("sed: 1\n")
    with pytest.raises(ConfigError, match=r"c\.yaml: unknown key\(s\) sed"):
        load_config(config, {"seed": 2})
    # an override may repair the file
    config.write_text("total_timesteps: 0\n")
    assert load_config(config, {"total_timesteps": 10}).total_timesteps == 10
    pytest.importorskip("sb3_contrib")
    config.write_text("seed: 1\n")
    err = assert_usage_error(capsys, "train", "--config", config, "--set", "total_timestep=5")
    assert "five-towers train: error: --set total_timestep=5: unknown key(s) total_timestep" in err
    assert nothing_written(in_tmp, config)


# -- 13. --resume ---------------------------------------------------------------------------------------

def _zip(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", "{}")
    return path


def test_resume_missing_checkpoint(in_tmp, capsys):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.checkpoints import checkpoint_state

    ckpt = in_tmp / "runs" / "x" / "checkpoints" / "step_5.zip"
    err = assert_usage_error(capsys, "train", "--resume", ckpt)
    assert f"checkpoint {ckpt} does not exist" in err and ".json" not in err
    ckpt.parent.mkdir(parents=True)
    ckpt.with_suffix(".json").write_text("{}")
    err = assert_usage_error(capsys, "train", "--resume", ckpt)
    assert f"checkpoint {ckpt} does not exist (its companion {ckpt.with_suffix('.json')} exists" in err
    with pytest.raises(FileNotFoundError, match="does not exist"):
        checkpoint_state(ckpt)
    assert sorted(p.name for p in (in_tmp / "runs" / "x").iterdir()) == ["checkpoints"]


def test_resume_checkpoint_without_its_json(in_tmp, capsys):
    pytest.importorskip("sb3_contrib")
    ckpt = _zip(in_tmp / "run.zip")
    err = assert_usage_error(capsys, "train", "--resume", ckpt)
    assert f"checkpoint {ckpt} has no companion {ckpt.with_suffix('.json')}" in err
    assert nothing_written(in_tmp, ckpt)


def test_resume_wrong_files(in_tmp, capsys):
    pytest.importorskip("sb3_contrib")
    text = in_tmp / "notes.zip"
    text.write_text("hello\n")
    assert f"{text} is not a checkpoint .zip" in assert_usage_error(capsys, "train", "--resume", text)
    ckpt = _zip(in_tmp / "step_7.zip")
    assert "not a run folder or its checkpoint" in assert_usage_error(capsys, "train", "--resume",
                                                                      ckpt.with_suffix(".json"))
    assert "no whole checkpoint in it" in assert_usage_error(capsys, "train", "--resume", in_tmp)
    ckpt.with_suffix(".json").write_text("not json")
    assert "is not valid JSON" in assert_usage_error(capsys, "train", "--resume", ckpt)
    ckpt.with_suffix(".json").write_text(json.dumps({"config": {"seed": 1}}))
    assert "is not a checkpoint's state: no snapshots, eval_rows" in \
        assert_usage_error(capsys, "train", "--resume", ckpt)
    assert sorted(p.name for p in in_tmp.iterdir()) == ["notes.zip", "step_7.json", "step_7.zip"]


# -- 14. other arguments --------------------------------------------------------------------------------

def test_out_must_be_a_folder(tmp_path, capsys):
    file = tmp_path / "results.csv"
    file.write_text("x\n")
    for command in ("evaluate", "tournament"):
        for out in (file, file / "sub"):
            err = assert_usage_error(capsys, command, "--agents", "random", "random", "--games", "2", "--out", out)
            assert "argument --out: must be a folder" in err and "is a file, not a folder" in err
    assert file.read_text() == "x\n"


def test_train_out_dir_that_is_a_file(in_tmp, capsys):
    pytest.importorskip("sb3_contrib")
    file = in_tmp / "runs"
    file.write_text("x\n")
    err = assert_usage_error(capsys, "train", "--config", CONFIGS / "ppo_smoke.yaml", "--set", f"out_dir={file}")
    assert "the run folder" in err and "is a file, not a folder" in err


@pytest.mark.parametrize("argv, words", [
    (["play", "--variant", "classic"], "argument --variant: invalid choice: 'classic'"),
    (["play", "--seed", "-1"], "argument --seed: must be an integer >= 0, got '-1'"),
    (["play", "--game", "x"], "argument --game: must be a game (five_towers, campanile), got 'x'"),
    (["play", "--game", "-1"], "argument --game: must be a game (five_towers, campanile), got '-1'"),
    (["play", "--game-index", "x"], "argument --game-index: must be an integer from 0 to 999,999, got 'x'"),
    (["evaluate", "--agents", "random", "--seed", "abc"], "argument --seed: must be an integer >= 0, got 'abc'"),
    (["train", "--config", "c.yaml", "--eval-games", "-2"],
     "argument --eval-games: must be an integer from 0 to 1,000,000"),
    (["train", "--config", "c.yaml", "--set", "seed"], "argument --set: expected KEY=VALUE"),
])
def test_other_bad_arguments(capsys, argv, words):
    assert words in assert_usage_error(capsys, *argv)
