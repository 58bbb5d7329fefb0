"""The Campanile agents (five_towers_env.games.campanile.agents): legality, determinism, hidden information,
strength."""
from __future__ import annotations

import inspect
import typing

import numpy as np
import pytest

from five_towers_env.core.agent import RandomAgent
from five_towers_env.games.campanile import SPEC, CampanileState, action_name, encode
from five_towers_env.games.campanile.agents import GreedyAgent, HeuristicAgent, MCTSAgent

agent_info = SPEC.agent_info

VARIANTS = ("pile", "played")
#: the fields of a state that make up a position (everything but the generator and caches)
FIELDS = ("num_players", "variant", "bet_chip", "hands", "piles", "leftover", "heights", "bets", "chips",
          "revealed", "cards_played", "current_player", "phase", "played_tower", "played_storeys", "done", "turns")


def snapshot(state: CampanileState) -> dict:
    """Every position field of ``state``, as plain comparable values."""
    out = {}
    for f in FIELDS:
        v = getattr(state, f)
        out[f] = [tuple(x) if isinstance(x, (list, tuple)) else x for x in v] if isinstance(v, list) else v
    return out


def observation(state: CampanileState, seat: int, info: dict) -> dict:
    """The environment's observation dict for ``seat`` (campanile/aec.py ``observe``)."""
    mask = np.zeros(31, dtype=np.int8)
    mask[info["legal_actions"]] = 1
    return {"observation": encode(state, seat), "action_mask": mask}


class Checked:
    """Wraps an agent: every choice must be a legal int, also set in the mask; records the choices."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.choices: list[int] = []

    def act(self, obs, info):
        view = info["view"]
        assert isinstance(view, CampanileState)
        a = self.agent.act(obs, info)
        assert type(a) is int, f"{self.name} returned {a!r} ({type(a).__name__})"
        assert a in info["legal_actions"], (f"{self.name} chose illegal {action_name(a)}; "
                                            f"legal: {info['legal_action_names']}")
        assert obs["action_mask"][a] == 1
        self.choices.append(a)
        return a


def play_game(agents, num_players: int, variant: str, seed: int) -> CampanileState:
    """One game on the engine, each seat asked with its own observation and info."""
    s = CampanileState.new_game(num_players, variant, np.random.default_rng(seed))
    while not s.is_terminal():
        seat = s.current_player
        info = agent_info(s, seat)
        s.apply_action(agents[seat].act(observation(s, seat, info), info))
    return s


def random_positions(num_players: int, variant: str, seed: int, count: int) -> list[CampanileState]:
    """Positions from random games (both phases, early and late), the game still running."""
    rng = np.random.default_rng(seed)
    out: list[CampanileState] = []
    while len(out) < count:
        s = CampanileState.new_game(num_players, variant, rng)
        stop = int(rng.integers(0, 60))
        while not s.is_terminal() and stop > 0:
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            stop -= 1
        if not s.is_terminal():
            out.append(s)
    return out


def reshuffled(state: CampanileState, seat: int, rng: np.random.Generator) -> CampanileState:
    """A state differing from ``state`` only in the cards hidden from ``seat`` (redealt at random)."""
    other = state.determinize(seat, rng)
    other.rng = np.random.default_rng(int(rng.integers(1 << 30)))  # a different game generator too
    return other


def small_mcts(seed: int | None) -> MCTSAgent:
    """MCTS on a small budget that searches from the first turn (``search_from``), for speed and coverage."""
    return MCTSAgent(seed, simulations=24, search_from=99)


def fast_agents(seed: int):
    """The three agents (MCTS: :func:`small_mcts`)."""
    return [GreedyAgent(seed), HeuristicAgent(seed), small_mcts(seed)]


# -- info and view ---------------------------------------------------------------------


def test_agent_info_keys_and_legal_actions():
    s = CampanileState.new_game(3, "pile", np.random.default_rng(0))
    info = agent_info(s, 0)
    assert set(info) == {"game", "seat", "phase", "legal_actions", "legal_action_names", "view"}
    assert info["game"] == "campanile" and info["seat"] == 0 and info["phase"] == "play"
    assert info["legal_actions"] == s.legal_actions()
    assert info["legal_action_names"] == [action_name(a) for a in s.legal_actions()]
    off_turn = agent_info(s, 1)
    assert off_turn["legal_actions"] == [] and off_turn["legal_action_names"] == []
    s.apply_action(s.legal_actions()[0])
    assert agent_info(s, 0)["phase"] == "bet"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", VARIANTS)
def test_view_keeps_public_information(n, variant):
    for s in random_positions(n, variant, seed=10 * n, count=6):
        for seat in range(n):
            v = s.public_view(seat)
            assert v is not s and v.rng is not s.rng
            for f in ("heights", "bets", "chips", "revealed", "cards_played", "current_player", "phase",
                      "played_tower", "played_storeys", "done", "turns", "variant", "bet_chip"):
                assert getattr(v, f) == getattr(s, f), f
            assert v.hands[seat] == s.hands[seat]
            assert v.face_up() == s.face_up()
            assert [len(p) for p in v.piles] == [len(p) for p in s.piles]
            assert len(v.leftover) == len(s.leftover)
            assert [len(h) for h in v.hands] == [len(h) for h in s.hands]
            for p in range(n):  # C5/C9.1: the drawn cards everybody saw are still in the hands
                assert all(v.hands[p].count(c) >= v.revealed[p].count(c) for c in set(v.revealed[p]))
            assert v.unseen_counts(seat) == s.unseen_counts(seat)
            assert v.scores() == s.scores() and v.flag_order() == s.flag_order()
            assert (encode(v, seat) == encode(s, seat)).all()
            if seat == s.current_player:
                assert v.legal_actions() == s.legal_actions()


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("variant", VARIANTS)
def test_view_ignores_hidden_cards(n, variant):
    """Two states differing only in cards hidden from a seat give that seat identical views."""
    rng = np.random.default_rng(n)
    changed = 0
    for s in random_positions(n, variant, seed=100 + n, count=8):
        for seat in range(n):
            other = reshuffled(s, seat, rng)
            changed += snapshot(other) != snapshot(s)
            assert snapshot(s.public_view(seat)) == snapshot(other.public_view(seat))
    assert changed > 0  # the test did change hidden cards


def test_view_does_not_reveal_the_hidden_cards():
    """The view's hidden cards are a fixed deal of the unseen multiset, not the true ones."""
    s = random_positions(2, "pile", seed=5, count=1)[0]
    v = s.public_view(0)
    assert v.piles != s.piles or v.hands[1] != s.hands[1]
    # the same public information always gives the same deal: nothing of the truth leaks through it
    assert snapshot(s.public_view(0)) == snapshot(v)


def test_determinize_redraws_every_hidden_card():
    """determinize (used by the view and MCTS) changes the hidden cards and only those."""
    s = random_positions(3, "pile", seed=7, count=1)[0]
    rng = np.random.default_rng(0)
    seen_hands, seen_piles = set(), set()
    for _ in range(40):
        d = s.determinize(0, rng)
        seen_hands.add(tuple(d.hands[1]))
        seen_piles.add(tuple(tuple(p[:-1]) for p in d.piles))
        assert d.hands[0] == s.hands[0] and d.face_up() == s.face_up()
        assert d.unseen_counts(0) == s.unseen_counts(0)
    assert len(seen_piles) > 30 and len(seen_hands) > 1


@pytest.mark.parametrize("n", [2, 4])
def test_agents_ignore_hidden_cards(n):
    """Changing the hidden cards of the true state changes no agent's choice."""
    rng = np.random.default_rng(3)
    for s in random_positions(n, "pile", seed=200 + n, count=6):
        seat = s.current_player
        other = reshuffled(s, seat, rng)
        for make in (GreedyAgent, HeuristicAgent, small_mcts, MCTSAgent):
            i1, i2 = agent_info(s, seat), agent_info(other, seat)
            assert make(9).act(observation(s, seat, i1), i1) == make(9).act(observation(other, seat, i2), i2)


# -- legality and determinism ------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", VARIANTS)
def test_agents_play_only_legal_actions(n, variant):
    for g in range(2):
        seed = 1000 * n + g
        pool = fast_agents(seed) + [RandomAgent(seed)]
        agents = [Checked(pool[(p + g) % len(pool)]) for p in range(n)]
        s = play_game(agents, n, variant, seed)
        assert s.is_terminal()
        assert all(a.choices for a in agents)


def test_agents_use_the_mask_without_legal_actions():
    """With an empty ``legal_actions`` the agents fall back to the mask (agents/base.py legal_actions)."""
    s = CampanileState.new_game(2, "played", np.random.default_rng(1))
    for agent in fast_agents(1):
        info = agent_info(s, 0)
        obs = observation(s, 0, info)
        info["legal_actions"] = []
        assert agent.act(obs, info) in s.legal_actions()


@pytest.mark.parametrize("make", [GreedyAgent, HeuristicAgent, small_mcts])
def test_same_seed_same_moves(make):
    runs = []
    for _ in range(2):
        agents = [Checked(make(5)), Checked(make(6)), Checked(RandomAgent(7))]
        play_game(agents, 3, "pile", seed=11)
        runs.append([a.choices for a in agents])
    assert runs[0] == runs[1]


def test_mcts_answers_a_single_legal_action_at_once():
    s = CampanileState.new_game(2, "pile", np.random.default_rng(0))
    s.apply_action(s.legal_actions()[-1])  # play ... 3: only the 3-chip may follow
    s2 = s.clone()
    s2.chips[0] = (5, 3, 0)  # no 3-chip: `no bet` is the only legal action
    s2._legal = None
    info = agent_info(s2, 0)
    assert info["legal_actions"] == [15]
    agent = MCTSAgent(0, simulations=10_000)
    assert agent.act(observation(s2, 0, info), info) == 15 and agent.last_values == {}


def test_settings_are_type_hinted():
    """The registry checks settings against the ``__init__`` hints: every keyword has one."""
    for cls in (GreedyAgent, HeuristicAgent, MCTSAgent):
        hints = typing.get_type_hints(cls.__init__)
        for p in list(inspect.signature(cls.__init__).parameters)[1:]:
            assert p in hints, f"{cls.__name__}.{p} has no type hint"
    with pytest.raises(ValueError):
        MCTSAgent(simulations=0)


# -- strength ----------------------------------------------------------------------------


def win_rate(make_a, make_b, deals: int, seed: int = 0) -> float:
    """A's win share over ``deals`` 2-player deals, each played twice with the seats swapped."""
    won = 0.0
    for d in range(deals):
        for swap in (False, True):
            a, b = make_a(seed + d), make_b(seed + 500 + d)
            agents = [b, a] if swap else [a, b]
            s = play_game(agents, 2, "pile", seed + 1000 + d)
            w = s.winners()
            if (1 if swap else 0) in w:
                won += 1.0 / len(w)
    return won / (2 * deals)


def test_greedy_beats_random():
    assert win_rate(GreedyAgent, RandomAgent, 30) >= 0.7


def test_heuristic_beats_random():
    assert win_rate(HeuristicAgent, RandomAgent, 30) >= 0.8


def test_heuristic_beats_greedy():
    assert win_rate(HeuristicAgent, GreedyAgent, 20) >= 0.65
