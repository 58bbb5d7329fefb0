"""Any agent on the command line and in ``evaluate()``: ``py:`` agents in every form, a factory that cannot
be sent to worker processes, and each bad spec a one-line usage error with exit status 2."""
from __future__ import annotations

import functools
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

from five_towers_env.cli import main
from five_towers_env.evaluation.match import evaluate

AGENTS = '''
import numpy as np

CALLS = 0


class First:
    """Takes the legal action at position ``offset``."""

    def __init__(self, seed=None, offset=0):
        self.name, self.offset = "first", offset

    def act(self, observation, info):
        legal = info["legal_actions"]
        return legal[min(self.offset, len(legal) - 1)]


def make_first(seed=None, offset=0):
    return First(seed, offset)


def last_legal(observation, info):
    return int(np.flatnonzero(observation["action_mask"])[-1])


class Random:
    def __init__(self, seed=None):
        self.name, self.rng = "rnd", np.random.default_rng(seed)

    def act(self, observation, info):
        global CALLS
        CALLS += 1
        return int(self.rng.choice(info["legal_actions"]))


NOT_CALLABLE = 3
INSTANCE = First()
'''


@pytest.fixture()
def user_file(tmp_path):
    path = tmp_path / "my_agents.py"
    path.write_text(textwrap.dedent(AGENTS))
    return path


@pytest.mark.parametrize("attr", ["First,offset=1", "make_first,offset=2", "last_legal", "Random"])
@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_py_agent_forms_play_both_games(user_file, attr, game):
    result = evaluate([f"py:path={user_file}:{attr}", "random"], num_games=2, progress=False, game=game)
    assert result.agents[0]["games"] == 2


def test_py_agent_by_module_path(user_file, monkeypatch):
    monkeypatch.syspath_prepend(str(user_file.parent))
    result = evaluate(["py:path=my_agents.First", "py:path=my_agents:last_legal"], num_games=2, progress=False)
    assert [a["games"] for a in result.agents] == [2, 2]


def test_py_agent_in_play_tournament_zoo_and_rate_commands(user_file, tmp_path, capsys):
    agent = f"py:path={user_file}:Random"
    assert main(["play", "--agents", agent, "random", "--quiet"]) == 0
    assert main(["tournament", "--agents", agent, "random", "greedy", "--games", "2", "--no-progress",
                 "--no-plot"]) == 0
    assert main(["zoo", "--game", "campanile", "--games", "2", "--setups", "2p-pile", "--field", agent,
                 "--no-progress"]) == 0
    assert "vs py:path=" in capsys.readouterr().out
    assert main(["rate", agent, "--game", "campanile", "--games", "16", "--no-progress"]) == 0
    assert "rates" in capsys.readouterr().out


def _usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("spec, words", [
    ("py:path=no_such_module_here.Agent", "does not import"),
    ("py:path={file}:Nobody", "has no attribute 'Nobody'"),
    ("py:path={file}:NOT_CALLABLE", "not callable"),
    ("py:path={file}:INSTANCE", "is an agent object"),
    ("py:path={file}:First,depth=3", "refused its settings"),
    ("py:path={folder}/missing.py:First", "no file"),
    ("sb3:path={folder}/not_a_model.zip", "not a Stable-Baselines3 model"),
])
def test_bad_specs_are_one_line_usage_errors(capsys, user_file, spec, words):
    bad_zip = user_file.parent / "not_a_model.zip"
    with zipfile.ZipFile(bad_zip, "w") as z:
        z.writestr("weights.npy", b"\0")
    text = spec.format(file=user_file, folder=user_file.parent)
    for argv in (["evaluate", "--agents", text, "random"], ["rate", text]):
        err = _usage_error(capsys, *argv)
        assert words in err and "error:" in err


class _Bot:
    name = "bot"

    def __init__(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, info):
        return int(self.rng.choice(info["legal_actions"]))


def test_a_factory_that_cannot_be_pickled_plays_in_process_with_a_warning():
    args = {"num_games": 4, "progress": False, "seed": 3}
    reference = evaluate([functools.partial(_Bot), "random"], **args)
    with pytest.warns(UserWarning, match="cannot be sent to worker processes.*playing in this process"):
        result = evaluate([lambda seed=None: _Bot(seed), "random"], workers=2, **args)
    assert [r["scores"] for r in result.records] == [r["scores"] for r in reference.records]


def test_the_cli_takes_its_defaults_from_the_library():
    """The command line states no default of its own: rate's game count, the agent-error choices and the zoo's
    opponents are the library's."""
    from five_towers_env.cli import build_parser
    from five_towers_env.cli.zoo import check
    from five_towers_env.core.game import get_game
    from five_towers_env.evaluation import guard, rate

    parser = build_parser()
    assert parser.parse_args(["rate", "random"]).games == rate.DEFAULT_GAMES
    on_error = [a for a in build_parser()._subparsers._group_actions[0].choices["evaluate"]._actions
                if a.dest == "on_agent_error"][0]
    assert tuple(on_error.choices) == guard.ON_ERROR
    args = parser.parse_args(["zoo", "--game", "campanile"])
    check(parser, args)
    assert args.field == list(reversed(get_game("campanile").opponents))


def test_registry_lists_the_user_agents_for_every_game():
    from five_towers_env.agents.registry import agents_of
    from five_towers_env.core.game import GAMES

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for game in GAMES.values():
            assert {"py", "sb3", "rllib"} <= set(agents_of(game))
