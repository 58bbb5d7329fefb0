"""Agent settings have ranges (issue 66, defect 7): every number an agent of either game takes is declared with
its range on the agent's class (``SETTING_RANGES``, five_towers_env/core/setting_ranges.py), and the registry
refuses a value outside it, or a number that is not finite, when the spec is parsed: one line naming the agent,
the setting and its range. The property test over every setting's boundary values is in tests/test_cli_audit.py."""
from __future__ import annotations

import importlib.util
import math
import typing
from types import UnionType

import pytest

from five_towers_env.agents.registry import (
    ANY_SETTING,
    AgentSettingError,
    agent_setting_defaults,
    agent_setting_ranges,
    agent_settings,
    agents_of,
    make_agent,
    make_agent_from_text,
)
from five_towers_env.core.game import BUILTIN_GAMES
from five_towers_env.core.setting_ranges import OneOf, Range, product_settings, range_problem
from five_towers_env.evaluation.specs import parse_agent_spec, to_spec

NAN, INF = float("nan"), float("inf")

#: what the issue found built and played without a word at 988ebee: (game, agent, setting, value)
ISSUE_DEFECTS = [
    *[("five_towers", "mcts", "time_limit", v) for v in (-1, 0, 1e308, INF)],
    *[("five_towers", "mcts", "temperature", v) for v in (0, -1, INF)],
    *[("five_towers", "mcts", "rollout_rounds", v) for v in (-1, 10**9)],
    ("five_towers", "mcts", "beta", -1), ("five_towers", "mcts", "race_z", -1),
    ("five_towers", "mcts", "min_samples", 0), ("five_towers", "mcts", "min_samples", -1),
    ("five_towers", "mcts", "min_simulations", -3), ("five_towers", "mcts", "simulations", 2**64),
    *[("five_towers", "mcts", key, NAN) for key in ("time_limit", "beta", "eval_weight", "temperature",
                                                    "margin_weight", "race_z")],
    *[("five_towers", "guided", "c_puct", v) for v in (-1, 0, INF, NAN)],
    *[("five_towers", "guided", "noise", v) for v in (-1, 2, INF)],
    ("five_towers", "guided", "prior_weight", -1), ("five_towers", "guided", "prior_weight", INF),
    *[("five_towers", "heuristic", key, v) for key in ("chain_weight", "zero_weight", "pair_weight",
                                                       "recover_relief", "opponent_weight") for v in (INF, NAN)],
    *[("campanile", "mcts", "candidates", v) for v in (-1, 10**9)],
    ("campanile", "mcts", "rollout_turns", -1),
    *[("campanile", "mcts", "bet_rate", v) for v in (-1, 2, INF, NAN)],
    *[("campanile", "mcts", "temperature", v) for v in (0, -1, NAN)],
    ("campanile", "mcts", "prior", -1), ("campanile", "mcts", "search_from", -1),
    ("five_towers", "openspiel-mcts", "uct_c", -1), ("five_towers", "openspiel-mcts", "uct_c", NAN),
    ("campanile", "openspiel-ismcts", "worlds", 0), ("campanile", "openspiel-ismcts", "worlds", -5),
    ("campanile", "openspiel-ismcts", "uct_c", NAN),
]


@pytest.mark.parametrize("game, name, key, value", ISSUE_DEFECTS,
                         ids=[f"{g}-{n}-{k}={v!r}" for g, n, k, v in ISSUE_DEFECTS])
def test_the_issue_s_settings_are_refused_in_one_line(game, name, key, value):
    if name.startswith("openspiel-") and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("the OpenSpiel bots need the openspiel extra (their ranges are on their classes)")
    # refused when parsed, before the agent is built: no optional dependency is needed for the refusal
    with pytest.raises(AgentSettingError) as caught:
        make_agent(name, seed=0, game=game, **{key: value})
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300, message
    assert message.startswith(f"{name} setting {key} must be "), message
    assert str(agent_setting_ranges(name, game=game)[key]) in message


def test_the_ranges_read_as_the_messages_and_the_docs_say_them():
    assert str(Range(1, 50_000)) == "from 1 to 50,000"
    assert str(Range(0, 100, low_open=True)) == "above 0 and at most 100"
    assert str(Range(0)) == "at least 0" and str(Range()) == "any finite number"
    assert str(Range(1, 10, also={-1: "none"})) == "-1 (none), or from 1 to 10"
    assert str(OneOf("puct", "rollouts")) == "one of puct, rollouts"
    assert range_problem(NAN, Range(0, 1), "a number") == "must be a finite number from 0 to 1, got nan"
    assert (range_problem(10**400, Range(1, 5), "an integer")
            == "must be an integer from 1 to 5, got an integer of 401 digits")
    assert range_problem(-1, Range(1, 10, also={-1: "none"}), "an integer") is None
    assert range_problem(None, Range(1, 2), "an integer") is None  # the type says whether None is allowed
    assert range_problem(1.5, None, "a number") is None and range_problem(-INF, None, "a number") is not None


def _numeric(hint) -> bool:
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, UnionType) else (hint,)
    return any(a in (int, float) for a in args)


CLASSES = [(game, name) for game in BUILTIN_GAMES for name in agents_of(game)]


@pytest.mark.parametrize("game, name", CLASSES, ids=[f"{g}-{n}" for g, n in CLASSES])
def test_every_number_an_agent_takes_has_a_range_its_default_is_in(game, name):
    if name.startswith("openspiel-") and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("the OpenSpiel bots need the openspiel extra (their ranges are on their classes)")
    settings = agent_settings(name, game=game)
    ranges = agent_setting_ranges(name, game=game)
    defaults = agent_setting_defaults(name, game=game)
    unranged = [key for key, hint in settings.items() if key != ANY_SETTING and _numeric(hint) and key not in ranges]
    assert not unranged, f"{game} {name}: declare the range of {unranged} in SETTING_RANGES"
    for key, allowed in ranges.items():
        names = product_settings(key) or (key,)
        assert set(names) <= set(settings), f"{game} {name}: SETTING_RANGES names {key}, not a setting"
        values = [defaults.get(k) for k in names]
        if None not in values:
            assert math.prod(values) in allowed if len(names) > 1 else values[0] in allowed, (game, name, key)


@pytest.mark.parametrize("game, text", [("five_towers", "mcts:rollout_rounds=0,min_simulations=0"),
                                        ("five_towers", "mcts:time_limit=None,race_z=None,rollout_rounds=None"),
                                        ("campanile", "mcts:candidates=0,rollout_turns=0,search_from=0"),
                                        ("campanile", "mcts:rollout_turns=None,lead_rate=1.0,bet_rate=0")])
def test_a_zero_or_none_that_means_something_stays_allowed(game, text):
    # rollout_rounds=0: the static evaluation at the round's end; candidates=0: all of them; min_simulations=0:
    # no minimum under a time_limit; None: to the end of the game, or no race
    assert make_agent_from_text(text, seed=0, game=game) is not None


def test_openspiel_ismcts_keeps_minus_one_worlds_and_bounds_the_work_of_a_decision():
    pytest.importorskip("pyspiel", reason="the OpenSpiel bots need the openspiel extra")
    assert make_agent_from_text("openspiel-ismcts:worlds=-1", seed=0, game="campanile").worlds == -1
    with pytest.raises(AgentSettingError, match=r"simulations and rollouts: .* from 2 to 600, got 300 \* 3 = 900"):
        make_agent_from_text("openspiel-ismcts:simulations=300,rollouts=3", seed=0, game="campanile")


def test_a_game_setting_names_the_game_played():
    # through the Python API this was a TypeError: make_agent got ``game`` twice
    agent = make_agent_from_text("ppo:game=campanile", seed=0, game="campanile")
    assert agent.game == "campanile"
    with pytest.raises(AgentSettingError, match=r"^ppo setting game must be the game played, 'five_towers', got "
                                                r"'campanile'; leave it out"):
        make_agent_from_text("ppo:game=campanile", seed=0)
    with pytest.raises(AgentSettingError, match="game must be the game played"):
        to_spec(("net", {"game": "five_towers"}), "campanile")
    # None ("the policy's own game") is the game played too: filled in, not the 5 Towers policy
    assert parse_agent_spec("ppo:game=None", "campanile").build(0).game == "campanile"
    assert parse_agent_spec("ppo:name='p',game='campanile'", "campanile").build(0).name == "p"


def test_guided_checks_the_settings_its_network_file_gives(tmp_path):
    from five_towers_env.agents.guided import shipped_network
    from five_towers_env.agents.network_file import read_network, write_network

    net = read_network(shipped_network("five_towers"))
    path = write_network(tmp_path / "greedy.npz", net.architecture, net.arrays,
                         {**net.meta, "guided": {"search": "puct", "simulations": 10**9}})
    with pytest.raises(ValueError, match=r"^guided: simulations \(from greedy.npz's meta\) must be a number "
                                         r"from 1 to 10,000, got 1000000000$"):
        make_agent("guided", game="five_towers", path=str(path))
    assert make_agent("guided", game="five_towers", path=str(path), simulations=8).settings.simulations == 8
