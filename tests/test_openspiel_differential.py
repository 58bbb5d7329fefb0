"""500 random games through the OpenSpiel adapter and through our PettingZoo environments side by side:
the chance outcomes the adapter offers include every card the environment deals, and both agree on
the seat to act, the legal action names, the end, the returns and the final position."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from five_towers_env.core.game import get_game  # noqa: E402
from five_towers_env.games.campanile.state import deal_layout  # noqa: E402
from five_towers_env.integrations.openspiel import load_game  # noqa: E402

from test_openspiel import SETUPS, setup_id  # noqa: E402

GAMES = 500
# 200 games over 5 Towers' 8 setups, 320 over Campanile's 16
PER_SETUP = {"five_towers": 25, "campanile": 20}
assert 8 * PER_SETUP["five_towers"] + 16 * PER_SETUP["campanile"] >= GAMES


def _dealt_cards(game: str, engine) -> list[int]:
    """The cards the environment dealt that the adapter's chance nodes turn next, in their order."""
    if game == "five_towers":
        return sorted(engine.display)
    hands = [list(h) for h in engine.hands]
    piles = [list(p) for p in engine.piles]
    rest = list(engine.leftover)
    return [hands[w].pop(0) if kind == "hand" else piles[w].pop(0) if kind == "pile" else rest.pop(0)
            for kind, w in deal_layout(engine.num_players)]


def _feed_chance(state, cards: list[int]) -> None:
    for card in cards:
        assert card in dict(state.chance_outcomes()), "the environment dealt a card the adapter rules out"
        state.apply_action(card)
    assert not state.is_chance_node()


def _play_side_by_side(game: str, n: int, variant: str, options: dict, seed: int, g) -> None:
    spec = get_game(game)
    kwargs = {"explicit": True} if spec.explicit else {}
    env = spec.make_raw_env(num_players=n, variant=variant, **options, **kwargs)
    env.reset(seed=seed)
    state = g.new_initial_state()
    rng = np.random.default_rng(seed)
    _feed_chance(state, _dealt_cards(game, env.game))
    while not env.game.is_terminal():
        assert not state.is_terminal()
        seat = state.current_player()
        assert env.agent_selection == env.agents[seat]
        legal = state.legal_actions()
        assert [state.action_to_string(seat, a) for a in legal] == env.legal_action_names()
        action = int(legal[rng.integers(len(legal))])
        rounds = getattr(env.game, "rounds_played", None)
        env.step(action)
        state.apply_action(action)
        if state.is_chance_node():  # 5 Towers: a round ended and the environment turned the next display
            assert env.game.rounds_played != rounds
            _feed_chance(state, _dealt_cards(game, env.game))
    assert state.is_terminal()
    assert state.returns() == [env.rewards[a] for a in env.agents] == list(env.game.returns())
    assert state.core.engine.scores() == env.game.scores()
    assert state.observation_tensor(0) == env.observe(env.agents[0])["observation"].tolist()


@pytest.mark.parametrize("setup", SETUPS, ids=setup_id)
def test_adapter_and_environment_agree(setup):
    game, n, variant, options = setup
    g = load_game(game, n, variant, **options)
    for i in range(PER_SETUP[game]):
        _play_side_by_side(game, n, variant, options, seed=1000 * n + i, g=g)
