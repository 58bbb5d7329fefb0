"""The baseline agents: legal play in every setup, determinism, no peeking at the deck order."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from five_towers_env.agents import make_agent
from five_towers_env.core.game import get_game
from five_towers_env.games.five_towers import SPEC, raw_env
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.agents.greedy import GreedyAgent
from five_towers_env.games.five_towers.agents.heuristic import HeuristicAgent
from five_towers_env.games.five_towers.state import GameState, Phase
from five_towers_env.play import play_game

from agent_checks import LegalityChecker
from rules_case_runner import OFFERED_VARIANTS, case_files, case_game

agent_info = SPEC.agent_info

AGENT_NAMES = ("random", "greedy", "heuristic")
VARIANTS = ("base", "great_powers")


def _play(names, variant, seed, explicit=False, checkers=None):
    """Play one game through raw_env; return (scores, action list). ``checkers`` (a list) receives
    the seats' legality checkers."""
    agents = [LegalityChecker(make_agent(name, seed=seed * 10 + i)) for i, name in enumerate(names)]
    if checkers is not None:
        checkers.extend(agents)
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
    # the agent in every seat, then in a mixed table; every seat is asked, every step of the game
    # goes through a legality check, and the default mode never asks about a forced move
    checkers = []
    _play([name] * num_players, variant, seed=num_players, checkers=checkers)
    assert all(c.decisions > 0 for c in checkers) and not any(c.forced for c in checkers)
    mixed = [AGENT_NAMES[(AGENT_NAMES.index(name) + i) % 3] for i in range(num_players)]
    checkers = [LegalityChecker(make_agent(m, seed=i)) for i, m in enumerate(mixed)]
    result = play_game(checkers, variant=variant, seed=11)
    assert all(c.decisions > 0 for c in checkers) and not any(c.forced for c in checkers)
    assert sum(c.decisions for c in checkers) == result["steps"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_explicit_mode_games_are_legal(variant):
    # every decision point, forced ones included, is put to the agents
    checkers = []
    _play(["heuristic", "greedy", "random"], variant, seed=5, explicit=True, checkers=checkers)
    assert sum(c.forced for c in checkers) > 0, "explicit mode put no forced decision to the agents"


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


#: every registered agent, the search and the trained policy included (mcts on a small budget)
ALL_AGENTS = {**{name: {} for name in AGENT_NAMES}, "mcts": {"simulations": 20}, "ppo": {}}


def _twin_at_round_start(env, variant: str, rng: random.Random, seed: int):
    """A second environment at ``env``'s round start that differs only in the hidden information:
    the deck in another order, and another game generator (the one that reshuffles later)."""
    pos = env.position()
    deck = list(pos["deck"])
    if len(set(deck)) > 1:
        while deck == pos["deck"]:
            rng.shuffle(deck)
    twin = raw_env(num_players=env.num_players, variant=variant, explicit=True)
    twin.reset(seed=seed, options={"position": {**pos, "deck": deck}})
    assert twin.position()["deck"] == deck and twin.game.display == env.game.display
    return twin, deck != pos["deck"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", sorted(ALL_AGENTS))
def test_agents_ignore_the_deck_order(name, variant):
    # Two copies of an agent play two games that differ only in the deck order (and the reshuffle
    # generator), each shown its own game's observation and info, and must choose the same action
    # at every decision. The decks show once the display is refilled, so at every round start the
    # twin game is rebuilt from the real one's position with the deck reordered.
    rng = random.Random(0)
    seats = 3
    real = [make_agent(name, seed=40 + i, **ALL_AGENTS[name]) for i in range(seats)]
    twins = [make_agent(name, seed=40 + i, **ALL_AGENTS[name]) for i in range(seats)]
    env = raw_env(num_players=seats, variant=variant, explicit=True)  # explicit: every round start is a decision
    env.reset(seed=9)
    twin, synced, reordered, decisions = None, -1, 0, 0
    while not env.game.is_terminal():
        if env.game.rounds_played != synced:
            assert env.game.phase == Phase.BID and env.game.bid_turn == 0
            twin, differs = _twin_at_round_start(env, variant, rng, seed=1000 + env.game.rounds_played)
            synced, reordered = env.game.rounds_played, reordered + differs
        seat = env.game.current_player
        assert twin.game.current_player == seat
        agent = env.possible_agents[seat]
        a = real[seat].act(env.observe(agent), agent_info(env.game, seat))
        b = twins[seat].act(twin.observe(agent), agent_info(twin.game, seat))
        assert a == b, f"round {synced}: {A.action_name(a)} in the real game, {A.action_name(b)} in the twin"
        env.step(a)
        twin.step(b)
        decisions += 1
    assert reordered >= 10 and decisions > 100


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
        # as the rules-case runner: cases of a variant this package does not offer are left out
        if case_game(case) != "five_towers":  # Campanile cases have their own agents' tests
            continue
        offered = "position" in case and case["position"].get("variant", "base") in OFFERED_VARIANTS
        if not case.get("rejected") and offered:
            out.append((path.name, case["position"]))
    return out


CASE_POSITIONS = _case_positions()


def test_agents_finish_a_round_from_every_rules_case_position():
    # rules-case positions reach the corners: tree payment, stop, sand bottom, recover chains, ...
    assert CASE_POSITIONS
    for name in ("greedy", "heuristic"):
        for i, (_case, pos) in enumerate(CASE_POSITIONS):
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


def test_ppo_warns_once_in_a_setup_it_was_not_trained_for(monkeypatch):
    import warnings as w

    from five_towers_env.agents import policy
    from five_towers_env.core.agent import SetupWarning
    from five_towers_env.evaluation import evaluate

    monkeypatch.setattr(policy, "_WARNED", set())
    # a policy given by path plays any setup, after a warning
    two = f"ppo:path={get_game('five_towers').policy_path(2, 'base')}"
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always")
        evaluate([two, "random"], num_games=2, num_players=2, variant="base", progress=False)
        evaluate(["ppo", "random"], num_games=4, num_players=4, variant="great_powers", progress=False)
        assert not [c for c in caught if issubclass(c.category, SetupWarning)]  # ppo: the setup's own policy
        evaluate([two, "random"], num_games=4, num_players=4, variant="great_powers", progress=False)
        evaluate([two, "random"], num_games=2, num_players=4, variant="great_powers", progress=False)
    found = [str(c.message) for c in caught if issubclass(c.category, SetupWarning)]
    assert len(found) == 1, found  # once per setup and process, not once per game
    assert "trained for 5 Towers with 2 players, variant base" in found[0]
    assert "playing 4 players, variant great_powers" in found[0]


def test_cli_says_in_one_line_that_ppo_plays_an_untrained_setup(monkeypatch, capsys):
    from five_towers_env.agents import policy
    from five_towers_env.cli import main

    monkeypatch.setattr(policy, "_WARNED", set())
    shipped = get_game("five_towers").policy_path(2, "base")
    assert main(["play", "--agents", f"ppo:path={shipped}", "random", "random", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("five-towers: warning: ppo: ppo_2p_base.npz was trained for 5 Towers with 2 players")
    assert len(err.strip().splitlines()) == 1
