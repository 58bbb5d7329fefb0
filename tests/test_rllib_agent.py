"""RLlibCheckpointAgent (``five_towers_env/agents/rllib_agent.py``): a checkpoint written by
``examples/rllib_selfplay.py`` plays through ``evaluate``, as the module plays in training, and is refused,
with a one-line message, in another game or when the folder is not such a checkpoint.

Needs the ``rllib`` extra (``bash .ci/rllib.sh`` builds its environment)."""
from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra: pip install -e '.[rllib]' (or run bash .ci/rllib.sh)")
torch = pytest.importorskip("torch")

from five_towers_env.agents import rllib_agent  # noqa: E402
from five_towers_env.agents.rllib_agent import GAME_RECORD, RLlibCheckpointAgent, checkpoint_game  # noqa: E402
from five_towers_env.core.game import get_game  # noqa: E402
from five_towers_env.evaluation.guard import AgentError  # noqa: E402
from five_towers_env.evaluation.match import evaluate  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_selfplay.py"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The example's run folder after one tiny iteration (its checkpoint in ``checkpoint/``)."""
    spec = importlib.util.spec_from_file_location("rllib_selfplay_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path_factory.mktemp("rllib") / "run"
    example.main(["--env-runners", "0", "--iterations", "1", "--batch", "200", "--minibatch", "100", "--epochs", "1",
                  "--hiddens", "16", "--snapshots", "1", "--eval-games", "0", "--out", str(out)])
    return out


def test_the_example_records_the_game_in_the_checkpoint(run):
    assert json.loads((run / "checkpoint" / GAME_RECORD).read_text())["game"] == "five_towers"
    assert checkpoint_game(run / "checkpoint") == "five_towers"


def test_a_checkpoint_plays_in_evaluate(run):
    for path, deterministic in ((run / "checkpoint", True), (run, False)):  # the run folder is accepted too
        player = functools.partial(RLlibCheckpointAgent, path=str(path), deterministic=deterministic)
        result = evaluate([player, "random"], num_games=4, seed=2, progress=False)
        assert result.agents[0]["games"] == 4


def test_it_plays_legal_actions_as_the_trained_module_does(run):
    """Sampled choices are legal; greedy ones are those of the module as the example evaluates it."""
    from five_towers_env.integrations.rllib import RLlibAgent as ModuleAgent
    from five_towers_env.integrations.rllib import load_module

    spec = get_game("five_towers")
    sampled, greedy = RLlibCheckpointAgent(run, seed=1, deterministic=False), RLlibCheckpointAgent(run)
    reference = ModuleAgent(load_module(run / "checkpoint"))
    env = spec.make_raw_env(num_players=3)
    env.reset(seed=4)
    while not env.game.is_terminal():
        seat = env.game.current_player
        observation, info = env.observe(env.possible_agents[seat]), spec.agent_info(env.game, seat)
        assert greedy.act(observation, info) == reference.act(observation, info)
        action = sampled.act(observation, info)
        assert type(action) is int and action in info["legal_actions"]
        env.step(action)


def _one_line_error(make, words, error=ValueError):
    with pytest.raises(error) as caught:
        make()
    message = str(caught.value)
    assert words in message and "\n" not in message, message
    return message


def test_a_checkpoint_of_another_game_is_refused(run, tmp_path):
    checkpoint = run / "checkpoint"
    message = _one_line_error(lambda: RLlibCheckpointAgent(run, game="campanile"), "cannot play Campanile")
    assert str(checkpoint) in message
    # seated in another game by a factory: the run stops with the agent's error, in one line
    _one_line_error(lambda: evaluate([functools.partial(RLlibCheckpointAgent, path=str(run)), "random"], num_games=2,
                                     progress=False, game="campanile"), "cannot play Campanile", AgentError)
    # a record naming another game than the module's sizes
    copy = shutil.copytree(checkpoint, tmp_path / "checkpoint")
    rllib_agent.write_checkpoint_game(copy, "campanile")
    _one_line_error(lambda: RLlibCheckpointAgent(copy), "recorded as a Campanile checkpoint")
    # without the record: the game of the run's log.json, else of the module's sizes
    (copy / GAME_RECORD).unlink()
    assert checkpoint_game(copy) is None and RLlibCheckpointAgent(copy).game == "five_towers"


def test_folders_that_are_not_checkpoints_are_refused(run, tmp_path):
    (tmp_path / "file.txt").write_text("x")
    for path, words in ((tmp_path / "missing", "no checkpoint folder"), (tmp_path / "file.txt", "is a file"),
                        (tmp_path, "no rllib_checkpoint.json")):
        assert str(path) in _one_line_error(lambda p=path: RLlibCheckpointAgent(p), words)
    _one_line_error(lambda: RLlibCheckpointAgent(run, module_id="nope"), "its modules: main, random, snapshot_0")
    _one_line_error(lambda: RLlibCheckpointAgent(run, module_id="random"), "not the masked policy network")
    player = RLlibCheckpointAgent(run)
    _one_line_error(lambda: player.act({"observation": np.zeros(5, np.float32), "action_mask": np.ones(307)}, {}),
                    "observations of 2116 values")


def test_missing_ray_is_an_import_error_with_the_install_hint(run, monkeypatch):
    monkeypatch.setattr(rllib_agent, "_MODULES", {})  # nothing restored yet
    monkeypatch.setitem(sys.modules, "five_towers_env.integrations.rllib", None)  # its import fails
    with pytest.raises(ImportError, match=r'pip install -e "\.\[rllib\]"') as caught:
        RLlibCheckpointAgent(run)
    assert "\n" not in str(caught.value)
