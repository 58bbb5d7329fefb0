"""The baseline agents: legal play in every setup, determinism, no peeking at the deck order."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from rules_case_runner import case_files

from five_towers_env.agents import agent_info, make_agent
from five_towers_env.agents.greedy import GreedyAgent
from five_towers_env.agents.heuristic import HeuristicAgent
from five_towers_env.engine import actions as A
from five_towers_env.engine.state import GameState, Phase
from five_towers_env.environment import raw_env
from five_towers_env.play import play_game

AGENT_NAMES = ("random", "greedy", "heuristic")
VARIANTS = ("base", "great_powers")


class LegalityChecker:
    """Wraps an agent and asserts every action it chooses is legal (and that it got a redacted view)."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.decisions = 0

    def act(self, observation, info):
        view = info["view"]
        assert list(view.deck) == sorted(view.deck), "agents must only see the deck as a sorted multiset"
        a = self.agent.act(observation, info)
        assert isinstance(a, int)
        assert a in info["legal_actions"], f"{self.name} chose illegal {A.action_name(a)}; legal: {info['legal_action_names']}"
        assert observation["action_mask"][a] == 1
        self.decisions += 1
        return a


def _play(names, variant, seed, explicit=False):
    """Play one game through raw_env; return (scores, action list)."""
    agents = [LegalityChecker(make_agent(name, seed=seed * 10 + i)) for i, name in enumerate(names)]
    env = raw_env(num_players=len(agents), variant=variant, explicit=explicit)
    env.reset(seed=seed)
    actions = []
    while not env.game.is_terminal():
        seat = env.game.current_player
        a = agents[seat].act(env.observe(env.possible_agents[seat]), agent_info(env.game, seat))
        actions.append(a)
        env.step(a)
    return env.game.scores(), actions


def test_registry_builds_the_agents():
    for name in AGENT_NAMES:
        agent = make_agent(name, seed=3)
        assert agent.name == name
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent("heuristic", chain_weight=0.5), HeuristicAgent)
    with pytest.raises(ValueError, match="unknown HeuristicAgent parameter"):
        HeuristicAgent(bogus=1.0)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
@pytest.mark.parametrize("name", AGENT_NAMES)
def test_agent_plays_complete_legal_games(name, num_players, variant):
    # the agent in every seat, then in a mixed table
    scores, _ = _play([name] * num_players, variant, seed=num_players)
    assert len(scores) == num_players
    mixed = [AGENT_NAMES[(AGENT_NAMES.index(name) + i) % 3] for i in range(num_players)]
    result = play_game([LegalityChecker(make_agent(m, seed=i)) for i, m in enumerate(mixed)], variant=variant, seed=11)
    assert len(result["scores"]) == num_players


@pytest.mark.parametrize("variant", VARIANTS)
def test_explicit_mode_games_are_legal(variant):
    # every decision point, forced ones included, is put to the agents
    scores, actions = _play(["heuristic", "greedy", "random"], variant, seed=5, explicit=True)
    assert len(scores) == 3 and actions


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_game(variant):
    names = ["heuristic", "greedy", "random"]
    first = _play(names, variant, seed=21)
    second = _play(names, variant, seed=21)
    assert first == second
    for name in AGENT_NAMES:
        a = play_game([make_agent(name, seed=1), make_agent(name, seed=2)], variant=variant, seed=8)
        b = play_game([make_agent(name, seed=1), make_agent(name, seed=2)], variant=variant, seed=8)
        assert a == b


def _reordered(game: GameState, rng: np.random.Generator) -> GameState:
    """The same position with the hidden deck in another order."""
    other = game.clone()
    other.deck = [int(c) for c in rng.permutation(other.deck)]
    return other


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", AGENT_NAMES)
def test_agents_ignore_the_deck_order(name, variant):
    # two copies of an agent, one shown the real game and one the game with its deck reordered,
    # choose the same action at every decision of a whole game
    rng = np.random.default_rng(0)
    seats = 3
    real = [make_agent(name, seed=40 + i) for i in range(seats)]
    twins = [make_agent(name, seed=40 + i) for i in range(seats)]
    env = raw_env(num_players=seats, variant=variant)
    env.reset(seed=9)
    while not env.game.is_terminal():
        seat = env.game.current_player
        obs = env.observe(env.possible_agents[seat])
        a = real[seat].act(obs, agent_info(env.game, seat))
        b = twins[seat].act(obs, agent_info(_reordered(env.game, rng), seat))
        assert a == b
        env.step(a)


def test_greedy_bids_highest_and_tears_down_only_when_needed():
    agent = GreedyAgent(seed=0)
    env = raw_env(num_players=2, variant="base")
    env.reset(seed=4)
    seen = set()
    while not env.game.is_terminal():
        seat = env.game.current_player
        info = agent_info(env.game, seat)
        a = agent.act(env.observe(env.possible_agents[seat]), info)
        legal = info["legal_actions"]
        if env.game.phase == Phase.BID:
            bids = [x for x in legal if x <= A.BID + A.MAX_BID]
            assert a == max(bids)
            seen.add("bid")
        elif env.game.phase == Phase.TEARDOWN and A.NO_TEARDOWN in legal:
            assert a == A.NO_TEARDOWN
            seen.add("teardown")
        env.step(a)
    assert seen == {"bid", "teardown"}


def _case_positions():
    out = []
    for path in case_files():
        case = json.loads(path.read_text())
        if not case.get("rejected") and "position" in case:
            out.append((path.name, case["position"]))
    return out


CASE_POSITIONS = _case_positions()


def test_agents_finish_a_round_from_every_rules_case_position():
    # rules-case positions reach the corners: tree payment, stop, sand bottom, recover chains, ...
    assert CASE_POSITIONS
    for name in ("greedy", "heuristic"):
        for i, (case, pos) in enumerate(CASE_POSITIONS):
            env = raw_env(num_players=pos["num_players"], variant=pos.get("variant", "base"), explicit=True)
            env.reset(seed=i, options={"position": pos})
            agents = [LegalityChecker(make_agent(name, seed=i)) for _ in range(env.num_players)]
            start = env.game.rounds_played
            while not env.game.is_terminal() and env.game.rounds_played == start:
                seat = env.game.current_player
                env.step(agents[seat].act(env.observe(env.possible_agents[seat]), agent_info(env.game, seat)))


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_search_agrees_with_the_masks(variant):
    # the heuristic's own simulation of the builder's round finds a complete plan after exactly
    # the actions the engine offers; its per-type bid programme finds exactly the legal bids (base)
    agent = HeuristicAgent(seed=0)
    for seed, players in enumerate((2, 3, 3, 4, 5)):
        game = GameState.new_game(players, variant, np.random.default_rng(seed))
        rng = np.random.default_rng(seed + 100)
        while not game.is_terminal():
            legal = game.legal_actions()
            view = agent_info(game, game.current_player)["view"]
            ctx = agent._context(view)
            if game.phase == Phase.BID:
                for q in range(game.num_players):
                    values = ctx.bid_values(game.towers[q], game.piles[q], game.display)
                    mask = game.bid_mask(q)
                    found = {k for k, v in values.items() if v > -math.inf}
                    legal_bids = {k for k in range(A.MAX_BID + 1) if (mask >> k) & 1}
                    if variant == "base":
                        assert found == legal_bids
                    else:
                        assert found <= legal_bids
            else:
                root = agent._root(view, game.current_player)
                feasible = {a for a, child in ctx.children(root) if ctx.plan_value(child) > -math.inf}
                assert feasible == set(legal), (game, sorted(feasible), legal)
            game.apply_action(legal[rng.integers(len(legal))])


def test_heuristic_beats_the_baselines():
    # a small seeded (so deterministic) sanity check, not a measurement of strength
    wins = {"random": 0.0, "greedy": 0.0}
    for opponent in wins:
        for g in range(6):
            agents = [make_agent("heuristic", seed=g), make_agent(opponent, seed=g)]
            if g % 2:
                agents.reverse()
            s = play_game(agents, seed=100 + g)["scores"]
            me, them = (s[1], s[0]) if g % 2 else (s[0], s[1])
            wins[opponent] += 1.0 if me > them else 0.5 if me == them else 0.0
    assert wins["random"] >= 5.5
    assert wins["greedy"] >= 4
