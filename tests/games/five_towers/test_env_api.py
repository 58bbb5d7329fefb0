"""The PettingZoo AEC environment: API conformance, masks, rewards, errors, rendering and hidden information."""
from __future__ import annotations

import copy
import random
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

import five_towers_env
from five_towers_env.games.five_towers import OBS_SIZE, IllegalActionError, PositionError, layout_table, pieces, raw_env
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers import env as make_env
from five_towers_env.games.five_towers.cards import CARD_NAMES, TYPES

# PettingZoo's api_test checks a nested Dict observation from 1.24.4 on (before, it reads obs["observation"].dtype)
OLD_API_TEST = tuple(int(p) for p in re.findall(r"\d+", pettingzoo.__version__)[:3]) < (1, 24, 4)

VARIANTS = ("base", "great_powers")
PLAYERS = (2, 3, 4, 5)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# -- PettingZoo conformance ---------------------------------------------------------------

# api_test and seed_test for every player count and variant: tests/test_game_conformance.py

@pytest.mark.parametrize("variant", VARIANTS)
def test_api_test_explicit(variant):
    api_test(make_env(num_players=4, variant=variant, explicit=True), num_cycles=40)


def test_pettingzoo_make():
    if not hasattr(pettingzoo, "make"):
        pytest.skip("pettingzoo.make (PettingZoo's env registry) needs PettingZoo >= 1.27")
    e = pettingzoo.make("aec", "five_towers_env/FiveTowers-v0", num_players=3)
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.unwrapped.num_players == 3
    assert five_towers_env.ENV_ID == "five_towers_env/FiveTowers-v0"


def test_spaces_are_stable_objects():
    e = raw_env(num_players=4, variant="great_powers")
    e.reset(seed=1)
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        assert e.action_space(a).n == A.NUM_ACTIONS
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
    e.step(e.legal_actions()[0])
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)


# -- helpers ------------------------------------------------------------------------------

def play(e, rng: random.Random, check=None, max_steps: int = 20_000) -> dict:
    """Play random legal actions through agent_iter; return the rewards summed per agent and the
    info each agent saw when it was done."""
    total = dict.fromkeys(e.possible_agents, 0.0)
    final_infos = {}
    steps = 0
    for agent in e.agent_iter(max_steps):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if check is not None:
            check(e, agent, obs, term, trunc, info)
        if term or trunc:
            final_infos[agent] = info
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(list(legal))))
        steps += 1
    assert steps < max_steps
    assert not e.agents and set(final_infos) == set(e.possible_agents)
    return total, final_infos


def _check_step(e, agent, obs, term, trunc, info):
    raw = e.unwrapped
    assert type(term) is bool and type(trunc) is bool
    for a in raw.agents:
        assert type(raw.terminations[a]) is bool and type(raw.truncations[a]) is bool
        assert raw.infos[a]["phase"] == raw.phase
    assert info["phase"] == raw.phase
    for a in raw.possible_agents:
        o = raw.observe(a)
        assert o["action_mask"].dtype == np.int8 and o["action_mask"].shape == (A.NUM_ACTIONS,)
        assert o["observation"].dtype == np.float32 and o["observation"].shape == (OBS_SIZE,)
        assert raw.observation_space(a).contains(o)
        if raw.game.is_terminal() or a != raw.agent_selection:
            assert not o["action_mask"].any(), f"{a} is not on move but has a non-zero mask"
        else:
            assert sorted(np.flatnonzero(o["action_mask"]).tolist()) == sorted(raw.legal_actions())


# -- masks, infos, rewards ----------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
def test_full_game_masks_infos_rewards(n, variant):
    e = raw_env(num_players=n, variant=variant)
    e.reset(seed=10 + n)
    total, infos = play(e, random.Random(n), check=_check_step)
    g = e.game
    assert g.is_terminal()
    scores, winners = g.scores(), g.winners()
    for i, a in enumerate(e.possible_agents):
        info = infos[a]
        assert info["phase"] == "game_over"
        assert info["score"] == scores[i] and info["scores"].tolist() == scores
        assert np.flatnonzero(info["winners"]).tolist() == winners
        assert total[a] == (1.0 if i in winners else -1.0)
    assert winners == [i for i, s in enumerate(scores) if s == max(scores)]


@pytest.mark.parametrize("n", PLAYERS)
def test_margin_reward(n):
    e = raw_env(num_players=n, reward="margin")
    e.reset(seed=n)
    total, _ = play(e, random.Random(0))
    scores = e.game.scores()
    for i, a in enumerate(e.possible_agents):
        assert total[a] == scores[i] - max(s for j, s in enumerate(scores) if j != i)


def test_rewards_zero_before_the_end():
    e = raw_env(num_players=3)
    e.reset(seed=2)
    rng = random.Random(2)
    while not e.game.is_terminal():
        assert all(r == 0 for r in e.rewards.values())
        assert not any(e.terminations.values())
        e.step(rng.choice(e.legal_actions()))


# -- illegal actions ------------------------------------------------------------------------

def plain_infos(infos: dict) -> dict:
    """``infos`` with their numpy arrays as lists, so that ``==`` compares them."""
    return {a: {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}
            for a, info in infos.items()}


def _snapshot(e):
    return (e.position(), e.legal_action_names(), e.agent_selection, e.game.current_player,
            dict(e.rewards), dict(e.terminations), plain_infos(e.infos))


@pytest.mark.parametrize("variant", VARIANTS)
def test_raw_env_illegal_action_raises_and_changes_nothing(variant):
    e = raw_env(num_players=3, variant=variant, explicit=True)
    e.reset(seed=4)
    rng = random.Random(4)
    tried = 0
    for _ in range(300):
        if e.game.is_terminal():
            break
        legal = set(e.legal_actions())
        illegal = [a for a in range(A.NUM_ACTIONS) if a not in legal]
        for a in rng.sample(illegal, 3):
            before = _snapshot(e)
            with pytest.raises(IllegalActionError) as err:
                e.step(a)
            msg = str(err.value)
            assert A.action_name(a) in msg
            for name in e.legal_action_names():
                assert name in msg, f"{msg!r} does not list legal {name!r}"
            assert _snapshot(e) == before
            tried += 1
        e.step(rng.choice(sorted(legal)))
    assert tried > 100


@pytest.mark.parametrize("bad", [-1, A.NUM_ACTIONS, None])
def test_raw_env_out_of_range_action(bad):
    e = raw_env(num_players=2)
    e.reset(seed=0)
    before = _snapshot(e)
    with pytest.raises(ValueError):
        e.step(bad)
    assert _snapshot(e) == before


def test_wrapped_env_illegal_move_terminates():
    e = make_env(num_players=3)
    e.reset(seed=3)
    rng = random.Random(3)
    for _ in range(7):  # a few legal moves first
        obs, *_ = e.last()
        e.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
    offender = e.agent_selection
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1
    assert all(r == 0 for a, r in e.rewards.items() if a != offender)
    seen = {}
    for agent in e.agent_iter(100):
        _, reward, term, trunc, _ = e.last()
        assert term or trunc
        seen[agent] = reward
        e.step(None)
    assert seen[offender] == -1 and all(r == 0 for a, r in seen.items() if a != offender)
    assert not e.agents


# -- bad arguments ----------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs,words", [
    ({"num_players": 7}, ["num_players", "7"]),
    ({"num_players": 1}, ["num_players", "1"]),
    ({"num_players": "3"}, ["num_players"]),
    ({"num_players": 2.0}, ["num_players"]),
    ({"variant": "foo"}, ["variant", "foo"]),
    ({"render_mode": "rgb"}, ["render_mode", "rgb", "rgb_array"]),
    ({"reward": "score"}, ["reward", "score"]),
    ({"observation": "vector"}, ["observation", "vector"]),
    ({"observation": None}, ["observation", "None"]),
])
@pytest.mark.parametrize("factory", [raw_env, make_env], ids=["raw_env", "env"])
def test_bad_arguments(factory, kwargs, words):
    with pytest.raises(ValueError) as err:
        factory(**kwargs)
    for w in words:
        assert w in str(err.value)


# -- rendering ------------------------------------------------------------------------------

def _deck_only_names(game) -> list[str]:
    elsewhere = set(game.display) | set(game.discard) | set(game.hand)
    for p in range(game.num_players):
        elsewhere |= set(game.piles[p])
        elsewhere |= {t * 16 + v for t, tw in enumerate(game.towers[p]) for v in tw}
    return [CARD_NAMES[c] for c in set(game.deck) - elsewhere]


@pytest.mark.parametrize("variant", VARIANTS)
def test_render_ansi_hides_the_deck(variant):
    e = raw_env(num_players=2, variant=variant, render_mode="ansi")
    e.reset(seed=8)
    rng = random.Random(8)
    nprng = np.random.default_rng(8)
    steps = 0
    while not e.game.is_terminal() and steps < 150:
        text = e.render()
        assert isinstance(text, str) and text
        for name in _deck_only_names(e.game):
            assert not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), f"{name} (in the deck) is rendered"
        nprng.shuffle(e.game.deck)
        assert e.render() == text, "render depends on the deck order"
        e.step(rng.choice(e.legal_actions()))
        steps += 1
    assert isinstance(e.render(), str)


def test_render_human_prints(capsys):
    e = raw_env(num_players=2, render_mode="human")
    e.reset(seed=0)
    assert e.render() is None
    assert "seat 0" in capsys.readouterr().out


def test_render_without_mode_returns_none():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    assert e.render() is None


# -- explicit mode, determinism -------------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_default_mode_skips_forced_decisions(variant):
    singles = 0
    for n in PLAYERS:
        d = raw_env(num_players=n, variant=variant)
        d.reset(seed=n)
        rng = random.Random(n)
        while not d.game.is_terminal():
            legal = d.legal_actions()
            assert len(legal) >= 2, f"default mode presents a forced decision: {d.legal_action_names()}"
            d.step(rng.choice(legal))
        x = raw_env(num_players=n, variant=variant, explicit=True)
        x.reset(seed=n)
        rng = random.Random(n)
        while not x.game.is_terminal():
            legal = x.legal_actions()
            assert legal
            singles += len(legal) == 1
            x.step(rng.choice(legal))
    assert singles > 0, "explicit mode never put a forced decision to a player"


@pytest.mark.parametrize("explicit", [False, True])
def test_explicit_and_default_agree_on_the_game(explicit):
    # Replaying the default game's choices in explicit mode (forced ones filled in) reaches the same end.
    d = raw_env(num_players=3, variant="great_powers")
    d.reset(seed=21)
    x = raw_env(num_players=3, variant="great_powers", explicit=True)
    x.reset(seed=21)
    rng = random.Random(21)
    while not d.game.is_terminal():
        a = rng.choice(d.legal_actions())
        while len(x.legal_actions()) == 1:
            x.step(x.legal_actions()[0])
        assert x.position() == d.position()
        assert x.agent_selection == d.agent_selection
        d.step(a)
        x.step(a)
    while not x.game.is_terminal():
        assert len(x.legal_actions()) == 1
        x.step(x.legal_actions()[0])
    assert x.position() == d.position() and x.scores() == d.scores()


def _trace(seed: int, n: int, variant: str, policy_seed: int) -> list:
    e = raw_env(num_players=n, variant=variant)
    e.reset(seed=seed)
    rng = random.Random(policy_seed)
    out = []
    while not e.game.is_terminal():
        obs = [e.observe(a) for a in e.possible_agents]
        a = rng.choice(e.legal_actions())
        out.append((e.agent_selection, a, [o["observation"].tobytes() for o in obs],
                    [o["action_mask"].tobytes() for o in obs]))
        e.step(a)
    out.append(e.game.scores())
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_game(variant):
    assert _trace(5, 3, variant, 1) == _trace(5, 3, variant, 1)
    assert _trace(5, 3, variant, 1) != _trace(6, 3, variant, 1)


# -- hidden information: the deck order -------------------------------------------------------

def _all_obs(e) -> list:
    return [(o["observation"].tobytes(), o["action_mask"].tobytes()) for o in (e.observe(a) for a in e.possible_agents)]


def _round_start_positions(n: int, variant: str, seed: int) -> list[dict]:
    e = raw_env(num_players=n, variant=variant, explicit=True)
    e.reset(seed=seed)
    rng = random.Random(seed)
    out = []
    while not e.game.is_terminal() and len(out) < 4:
        if e.game.phase_name == "bid" and e.game.bid_turn == 0 and len(e.game.deck) > 30:
            out.append(e.position())
        e.step(rng.choice(e.legal_actions()))
    return out


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("keep", [0, 10])
def test_deck_order_invisible_between_positions(n, variant, keep):
    """Positions differing only in the order of the deck below its top ``keep`` cards give every
    player identical observations, masks, infos and renders until one of those cards is revealed."""
    rng = random.Random(n * 7 + keep)
    compared = 0
    for pos in _round_start_positions(n, variant, seed=n + 30):
        other = copy.deepcopy(pos)
        tail = other["deck"][keep:]
        while tail == pos["deck"][keep:]:
            rng.shuffle(tail)
        other["deck"] = other["deck"][:keep] + tail
        e1 = raw_env(num_players=n, variant=variant, render_mode="ansi")
        e2 = raw_env(num_players=n, variant=variant, render_mode="ansi")
        e1.reset(seed=99, options={"position": copy.deepcopy(pos)})
        e2.reset(seed=99, options={"position": other})
        assert e1.position()["deck"] != e2.position()["deck"]
        full = len(pos["deck"])
        while True:
            assert _all_obs(e1) == _all_obs(e2)
            assert plain_infos(e1.infos) == plain_infos(e2.infos) and e1.rewards == e2.rewards
            assert e1.agent_selection == e2.agent_selection
            assert e1.render() == e2.render()
            compared += 1
            if e1.game.is_terminal():
                break
            a = rng.choice(e1.legal_actions())
            e1.step(a)
            e2.step(a)
            if len(e1.game.deck) < full - keep or e1.game.deck_ran_out:
                break  # a card of the permuted part is now revealed
    assert compared >= 8


@pytest.mark.parametrize("variant", VARIANTS)
def test_observation_ignores_deck_permutation(variant):
    for n in (2, 5):
        e = raw_env(num_players=n, variant=variant)
        e.reset(seed=n)
        rng = random.Random(n)
        nprng = np.random.default_rng(n)
        while not e.game.is_terminal():
            before = _all_obs(e)
            infos = plain_infos(e.infos)
            nprng.shuffle(e.game.deck)
            assert _all_obs(e) == before
            assert plain_infos(e.infos) == infos
            e.step(rng.choice(e.legal_actions()))


def test_infos_never_carry_the_deck():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    rng = random.Random(0)
    while not e.game.is_terminal():
        for info in e.infos.values():
            assert set(info) == {"phase", "score", "scores", "winners"}, info
            assert info["score"] == 0 and not info["scores"].any() and not info["winners"].any()
        e.step(rng.choice(e.legal_actions()))
    for info in e.infos.values():
        assert set(info) == {"phase", "score", "scores", "winners"}


# -- observation layout ---------------------------------------------------------------------

def test_obs_size_and_layout_table():
    ps = pieces()
    assert sum(size for _, size, _ in ps) == OBS_SIZE
    names = [name for name, _, _ in ps]
    assert len(set(names)) == len(names)
    table = layout_table()
    assert str(OBS_SIZE) in table
    for name in names:
        m = re.match(r"seat(\d)\.(.*)", name)
        if m and m.group(1) != "0":
            assert "seat1..seat4" in table, name
            name = "seat0." + m.group(2)
        if f"`{name}`" in table:
            continue
        parts = name.split(".")
        assert len(parts) == 3 and parts[1] in TYPES, f"piece {name} is not in the layout table"
        assert f"`seat0.TYPE.{parts[2]}`" in table, f"piece {name} is not in the layout table"
        assert all(t in table for t in TYPES)
    e = raw_env(num_players=5, variant="great_powers")
    e.reset(seed=0)
    assert e.observe("player_0")["observation"].shape == (OBS_SIZE,)


def test_position_from_env_restores_the_game():
    # env.position() holds the whole game, deck order included: an environment reset to a round-start
    # position (from another seed) plays on exactly as the original until the reshuffle, which the
    # position does not fix (it is drawn from the environment's own generator)
    e = raw_env(num_players=3, variant="great_powers", explicit=True)
    e.reset(seed=0)
    rng = random.Random(0)
    while e.game.rounds_played < 3:
        e.step(rng.choice(e.legal_actions()))
    copy_ = raw_env(num_players=3, variant="great_powers", explicit=True)
    copy_.reset(seed=123, options={"position": e.position()})
    compared = 0
    while not e.game.deck_ran_out:
        assert copy_.position() == e.position() and _all_obs(copy_) == _all_obs(e)
        assert copy_.agent_selection == e.agent_selection
        a = rng.choice(e.legal_actions())
        e.step(a)
        copy_.step(a)
        compared += 1
    assert compared > 50


# -- seeding across resets --------------------------------------------------------------------

@pytest.mark.parametrize("position_players", [3, 2])
def test_seeded_reset_from_a_position_keeps_the_seed(position_players):
    pos = {"num_players": position_players, "display": ["candy-1", "candy-2"]}

    def next_game_deck():
        e = raw_env(num_players=position_players)
        e.reset(seed=1, options={"position": copy.deepcopy(pos)})
        e.reset()
        return e.position()["deck"]

    assert next_game_deck() == next_game_deck()


def test_reset_start_player_option_validated():
    e = raw_env(num_players=2)
    with pytest.raises(ValueError, match="start_player"):
        e.reset(seed=0, options={"start_player": 5})


# -- observation="dict" at construction ---------------------------------------------------------

@pytest.mark.skipif(OLD_API_TEST, reason="PettingZoo < 1.24.4: api_test cannot check a nested Dict observation")
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("n", (2, 4))
def test_dict_observation_api_test(n, variant):
    api_test(make_env(num_players=n, variant=variant, observation="dict"), num_cycles=60)


@pytest.mark.parametrize("n,variant", [(2, "base"), (3, "great_powers")])
def test_dict_observation_in_space_and_equal_to_the_flat_one(n, variant):
    from five_towers_env.games.five_towers.dict_observation import dict_observation_space, split_flat

    d = raw_env(num_players=n, variant=variant, observation="dict")
    f = raw_env(num_players=n, variant=variant)
    space = d.observation_space("player_0")
    assert all(d.observation_space(a) is space for a in d.possible_agents)
    assert space["observation"] == dict_observation_space(action_mask=False)
    assert "action_mask" not in space["observation"].spaces
    assert space["action_mask"] == f.observation_space("player_0")["action_mask"]
    rng = np.random.default_rng(n)
    d.reset(seed=5)
    f.reset(seed=5)
    while not d.game.is_terminal():
        for a in d.agents:
            obs, flat = d.observe(a), f.observe(a)
            assert obs in d.observation_space(a) and obs in space
            assert set(obs["observation"]) == set(space["observation"].spaces)
            assert np.array_equal(obs["action_mask"], flat["action_mask"])
            expected = split_flat(flat["observation"])
            assert all(np.array_equal(obs["observation"][k], expected[k]) for k in expected)
        action = int(rng.choice(np.flatnonzero(d.observe(d.agent_selection)["action_mask"])))
        d.step(action)
        f.step(action)
    assert d.observation_space("player_0") is space


def test_position_of_another_setup_rejected_and_dict_observation_kept():
    e = raw_env(num_players=2, observation="dict")
    e.reset(seed=0)
    before = e.position()
    with pytest.raises(PositionError, match="position has 3 players but this environment was made with num_players=2"):
        e.reset(seed=0, options={"position": {"num_players": 3, "display": ["candy-1", "candy-2"]}})
    assert e.num_players == 2 and e.observation_mode == "dict" and e.position() == before
    e3 = raw_env(num_players=3, observation="dict")
    e3.reset(seed=0, options={"position": {"num_players": 3, "display": ["candy-1", "candy-2"]}})
    obs = e3.observe("player_2")
    assert isinstance(obs["observation"], dict) and obs in e3.observation_space("player_2")


def test_flat_observation_is_the_default():
    e = raw_env(num_players=2)
    assert e.observation_mode == "flat"
    e.reset(seed=0)
    obs = e.observe("player_0")
    assert isinstance(obs["observation"], np.ndarray) and obs["observation"].shape == (OBS_SIZE,)
    assert obs["observation"].dtype == np.float32 and obs in e.observation_space("player_0")
    same = raw_env(num_players=2, observation="flat")
    same.reset(seed=0)
    assert np.array_equal(obs["observation"], same.observe("player_0")["observation"])
