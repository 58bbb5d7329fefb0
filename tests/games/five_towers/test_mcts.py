"""The Monte Carlo search agent: legal, deterministic given its seed, blind to the deck order."""
from __future__ import annotations

import numpy as np
import pytest

from five_towers_env.agents.registry import AgentSettingError, make_agent, make_agent_from_text
from five_towers_env.core.agent import RandomAgent
from five_towers_env.games.five_towers import SPEC, GameState
from five_towers_env.games.five_towers.agents.mcts import MCTSAgent, fast_rollout, rollout_action
from five_towers_env.play import play_game

agent_info = SPEC.agent_info


class Checked:
    """Wraps an agent: checks that it sees only a redacted view and answers a legal action."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.actions: list[int] = []

    def act(self, observation, info):
        view = info["view"]
        assert view.deck == sorted(view.deck), "the view must hide the deck order"
        assert info["seat"] == view.current_player
        action = self.agent.act(observation, info)
        assert action in info["legal_actions"]
        assert observation["action_mask"][action] == 1
        self.actions.append(int(action))
        return action


@pytest.mark.parametrize("variant", ["base", "great_powers"])
@pytest.mark.parametrize("num_players", [2, 4])
def test_plays_whole_games_legally(num_players, variant):
    mcts = Checked(MCTSAgent(seed=1, simulations=8))
    others = [Checked(RandomAgent(seed=10 + k)) for k in range(num_players - 1)]
    result = play_game([mcts] + others, variant=variant, seed=3)
    assert result["winners"] == [0], result["scores"]  # seeded: even 8 rollouts a move beat random play here
    assert len(mcts.actions) > 10


@pytest.mark.parametrize("setting", ["search='ismcts'", "search='flat'", "c=1.4"])
def test_the_removed_tree_search_settings_are_unknown(setting):
    with pytest.raises(AgentSettingError, match="mcts has no setting"):
        make_agent_from_text(f"mcts:simulations=8,{setting}")


def test_same_seed_same_moves():
    def run():
        a = Checked(MCTSAgent(seed=7, simulations=12))
        b = Checked(MCTSAgent(seed=8, simulations=12))
        result = play_game([a, b], variant="base", seed=11)
        return a.actions, b.actions, result["scores"]

    assert run() == run()


def _mid_game(num_players=2, variant="base", seed=0, decisions=25):
    game = GameState.new_game(num_players, variant, np.random.default_rng(seed))
    made = 0
    while made < decisions:
        legal = game.legal_actions()
        if len(legal) > 1:
            made += 1
        game.apply_action(rollout_action(game))
    while game.phase_name != "bid" or len(game.legal_actions()) < 3:  # stop at a real bid decision
        game.apply_action(rollout_action(game))
    return game


def test_move_does_not_depend_on_the_deck_order():
    game = _mid_game(seed=5)
    other = game.clone(rng=np.random.default_rng(99))
    other.deck = list(reversed(game.deck))  # same unseen multiset, another order
    moves = []
    for g in (game, other):
        info = agent_info(g, g.current_player)
        moves.append(MCTSAgent(seed=3, simulations=30).act(None, info))
    assert moves[0] == moves[1]


def test_never_touches_the_game_it_is_shown():
    game = _mid_game(seed=6)
    view = game.public_view(game.current_player)
    before = (list(view.deck), view.towers[:], view.display, view.current_player, view.phase)
    agent = MCTSAgent(seed=0, simulations=20)
    agent.act(None, {"view": view, "seat": view.current_player, "legal_actions": list(view.legal_actions())})
    assert (list(view.deck), view.towers[:], view.display, view.current_player, view.phase) == before
    assert agent.last_simulations > 0


def test_single_legal_action_is_answered_without_search():
    game = _mid_game(seed=2)
    agent = MCTSAgent(seed=0, simulations=50)
    legal = game.legal_actions()
    info = {"view": game.public_view(game.current_player), "seat": game.current_player, "legal_actions": [legal[0]]}
    assert agent.act(None, info) == legal[0]
    assert agent.last_simulations == 0


def test_time_limit_and_registry():
    agent = make_agent("mcts", seed=1, simulations=8)
    assert agent.name == "mcts" and isinstance(agent, MCTSAgent)
    game = _mid_game(seed=8)
    timed = MCTSAgent(seed=1, time_limit=0.05)
    action = timed.act(None, agent_info(game, game.current_player))
    assert action in game.legal_actions()


def test_fast_rollout_reaches_the_end_and_keeps_towers_buildable():
    from five_towers_env.games.five_towers.cards import can_place

    for variant in ("base", "great_powers"):
        game = GameState.new_game(3, variant, np.random.default_rng(1))
        towers, piles, over, left = fast_rollout(game, np.random.default_rng(2), 0.45, None)
        assert over and left == 0.0
        assert sum(len(tw) for seat in towers for tw in seat) > 20
        for seat in towers:
            for tw in seat:
                assert all(can_place(a, b) for a, b in zip(tw, tw[1:]))


def test_beats_random_in_a_short_match():
    wins = 0
    for g in range(4):
        seat = g % 2
        agents = [RandomAgent(seed=g), RandomAgent(seed=g)]
        agents[seat] = MCTSAgent(seed=g, simulations=16)
        result = play_game(agents, variant="base", seed=100 + g)
        wins += result["winners"] == [seat]
    assert wins >= 3


def test_transposition_cuts_keep_every_hand_reachable():
    from five_towers_env.games.five_towers import actions as A
    from five_towers_env.games.five_towers.agents.mcts import tree_actions

    game = GameState.new_game(2, "base", np.random.default_rng(4))
    game.apply_action(A.BID + max(a - A.BID for a in game.legal_actions() if a != A.PASS))
    while game.phase_name == "bid":
        game.apply_action(A.PASS if A.PASS in game.legal_actions() else game.legal_actions()[0])
    assert game.phase_name == "take" and game.target >= 2
    game.apply_action(max(game.legal_actions()))  # a high card first, as an earlier search may
    legal = game.legal_actions()
    assert tree_actions(game, game.hand) == legal  # the search root still offers every card
    higher = [a for a in legal if a >= A.TAKE + game.hand[-1]]
    assert tree_actions(game) == (higher or legal)  # inside a search: increasing order, if possible


def test_rollouts_make_only_legal_moves(monkeypatch):
    """The search's rollouts go through the engine's unchecked path; every move they make must be
    one the checked path accepts (so the fast path never plays outside the rules)."""
    from five_towers_env.games.five_towers.agents.mcts import play_rounds

    def checked(self, actions):
        for a in actions:
            assert a in self.legal_actions(), (self, a)
            self.apply_action(a)

    monkeypatch.setattr(GameState, "apply_unchecked", checked)
    for seed in range(12):
        variant = ("base", "great_powers")[seed % 2]
        game = GameState.new_game(2 + seed % 4, variant, np.random.default_rng(seed))
        over, left = play_rounds(game, 0.45, None)
        assert over and left == 0.0 and game.is_terminal()


def test_unchecked_path_matches_the_checked_one():
    from five_towers_env.games.five_towers.agents.mcts import play_rounds

    for seed in range(6):
        variant = ("base", "great_powers")[seed % 2]
        game = GameState.new_game(3, variant, np.random.default_rng(seed))
        fast, slow = game.clone(), game.clone()
        play_rounds(fast, 0.45, None)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(GameState, "apply_unchecked", lambda s, acts: [s.apply_action(a) for a in acts])
            play_rounds(slow, 0.45, None)
        assert fast.towers == slow.towers and fast.piles == slow.piles and fast.scores() == slow.scores()


def test_redeal_deals_the_unseen_cards_again():
    game = GameState.new_game(2, "base", np.random.default_rng(3))
    unseen = sorted(game.deck + list(game.display))
    new = game.redeal(unseen, np.random.default_rng(0))
    assert new.display == tuple(sorted(unseen[-5:])) and new.deck == unseen[:-5]
    assert game.deck != new.deck  # the original is untouched
    with pytest.raises(ValueError):
        game.redeal(unseen[:-1], np.random.default_rng(0))
