"""OpenSpiel's bots as our agents (openspiel-mcts, openspiel-ismcts) and the example that plays them."""
from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from five_towers_env.agents.registry import make_agent  # noqa: E402
from five_towers_env.evaluation import evaluate  # noqa: E402
from five_towers_env.integrations.openspiel import load_game  # noqa: E402
from five_towers_env.integrations.openspiel.bots import ISMCTSAgent, MCTSAgent  # noqa: E402

from test_examples import run  # noqa: E402


def _games(result) -> list:
    """Every game's record, timings left out."""
    return [{k: v for k, v in r.items() if not k.endswith("seconds")} for r in result.records]


@pytest.mark.parametrize("game,agent", [("five_towers", "openspiel-mcts:simulations=4"),
                                        ("campanile", "openspiel-ismcts:simulations=16")])
def test_bots_play_our_evaluation_and_repeat_with_the_seed(game, agent):
    one = evaluate([agent, "random"], num_games=2, game=game, seed=4, progress=False)
    two = evaluate([agent, "random"], num_games=2, game=game, seed=4, progress=False)
    assert sum(a["wins"] for a in one.agents) == pytest.approx(2)
    assert _games(one) == _games(two)


def test_the_agents_are_in_the_games_registries():
    assert isinstance(make_agent("openspiel-mcts", game="five_towers", seed=1, simulations=3), MCTSAgent)
    assert isinstance(make_agent("openspiel-ismcts", game="campanile", seed=1, worlds=4), ISMCTSAgent)
    with pytest.raises(ValueError, match="simulations"):
        MCTSAgent(simulations=0)


def test_mcts_refuses_a_game_with_hidden_cards():
    with pytest.raises(ValueError, match="hidden cards"):
        MCTSAgent(seed=0)._bot(load_game("campanile"))


def test_openspiel_bots_example():
    out = run("examples/openspiel_bots.py", "--games", "2", "--simulations", "4")
    assert out.count("the search bot won") == 2 and out.count("as our agent") == 2
