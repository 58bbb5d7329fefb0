"""Expert iteration's agents and search: the network file, the guided search, hidden information.

The networks here are made in the test from a shipped ppo policy plus a random value head (numpy
only), so the tests do not depend on how well a shipped network plays.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from five_towers_env.agents import make_agent
from five_towers_env.agents.guided import GuidedSearchAgent, NetworkAgent, PolicyValueNet
from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.core.game import GameSpec, get_game
from five_towers_env.core.guided_search import PUCT, guided_search
from five_towers_env.core.state import shares_of
from five_towers_env.games.campanile import SPEC as CAMPANILE
from five_towers_env.games.campanile import CampanileState
from five_towers_env.games.five_towers import SPEC as FIVE_TOWERS
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers import raw_env
from five_towers_env.games.five_towers.state import Phase

GAMES = ("five_towers", "campanile")


def make_network(path, game: str, seed: int = 0, players: int = 2):
    """A policy-value file: the game's shipped ppo policy plus a random value head."""
    spec = get_game(game)
    with np.load(spec.default_policy()) as d:
        arrays = dict(d)
    features = 256
    rng = np.random.default_rng(seed)
    arrays["value.w0"] = (rng.standard_normal((64, features)) * 0.1).astype(np.float32)
    arrays["value.b0"] = np.zeros(64, np.float32)
    arrays["value.w1"] = (rng.standard_normal((players, 64)) * 0.5).astype(np.float32)
    arrays["value.b1"] = np.zeros(players, np.float32)
    np.savez(path, **arrays)
    return str(path)


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    root = tmp_path_factory.mktemp("pv")
    return {g: make_network(root / f"{g}.npz", g) for g in GAMES}


def _observation(game: str, state, seat: int) -> dict:
    spec = get_game(game)
    mask = np.zeros(spec.num_actions, np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": spec.observer()(state, seat), "action_mask": mask}


def _info(game: str, state, seat: int) -> dict:
    return (FIVE_TOWERS if game == "five_towers" else CAMPANILE).agent_info(state, seat)


def _positions(game: str, seed: int, count: int):
    """Running positions of random games with more than one legal action."""
    spec = get_game(game)
    env = spec.make_raw_env(num_players=2)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        env.reset(seed=int(rng.integers(1 << 30)))
        s = env.game
        for _ in range(int(rng.integers(0, 60))):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        if not s.is_terminal() and len(s.legal_actions()) > 1:
            out.append(s.clone())
    return out


def test_win_shares():
    assert shares_of([0], 2) == [1.0, 0.0]
    assert shares_of([0, 1], 3) == [0.5, 0.5, 0.0]


@pytest.mark.parametrize("game", GAMES)
def test_network_file_reads_as_ppo_and_net(game, networks):
    """The policy part of a network file is a ppo policy: the bare network plays what ppo plays."""
    net, ppo = NetworkAgent(networks[game], game=game), PolicyAgent(get_game(game).default_policy(), game=game)
    pv = PolicyValueNet(networks[game], game=game)
    for s in _positions(game, 1, 12):
        obs, info = _observation(game, s, s.current_player), _info(game, s, s.current_player)
        assert net.act(obs, info) == ppo.act(obs, info)
        logits, values = pv(obs["observation"][None])
        np.testing.assert_allclose(logits[0], ppo.logits(obs["observation"]), rtol=1e-4, atol=1e-4)
        assert values.shape == (1, 2) and abs(values.sum() - 1) < 1e-5


def test_ppo_file_has_no_value_head():
    with pytest.raises(ValueError, match="no value head"):
        PolicyValueNet(get_game("campanile").default_policy(), game="campanile")


def test_no_shipped_network_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(GameSpec, "network_path", lambda *a: None)
    with pytest.raises(ValueError, match="ships no policy-value network"):
        NetworkAgent(game="campanile")


@pytest.mark.parametrize("game", GAMES)
def test_search_visits_and_policy(game, networks):
    """The search spends its budget, its policy is a distribution over the legal actions only, and the
    same generator seed gives the same result."""
    spec = get_game(game)
    agent = GuidedSearchAgent(networks[game], seed=0, game=game)
    settings = PUCT(simulations=40, determinisations=4)
    for s in _positions(game, 2, 4):
        seat = s.current_player
        view = _info(game, s, seat)["view"]
        r1 = guided_search(agent.hooks, view, seat, agent.net, settings, np.random.default_rng(5))
        r2 = guided_search(agent.hooks, view, seat, agent.net, settings, np.random.default_rng(5))
        assert r1.action == r2.action and np.array_equal(r1.visits, r2.visits)
        assert r1.action in s.legal_actions() and r1.evaluations <= 40
        pi = r1.visit_policy(spec.num_actions)
        improved = r1.improved_policy(spec.num_actions)
        assert abs(improved.sum() - 1) < 1e-5 and set(np.flatnonzero(improved)) <= set(s.legal_actions())
        assert abs(pi.sum() - 1) < 1e-6 and set(np.flatnonzero(pi)) <= set(s.legal_actions())
        assert r1.visits.sum() >= 40 - 4  # every simulation after the roots visits a root child


def test_search_takes_a_win_it_sees():
    """A Campanile position one move from the end: the search finds the move the exact rewards favour."""
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(200):
        s = CampanileState.new_game(2, "pile", rng)
        while not s.is_terminal():
            legal = s.legal_actions()
            wins = []
            for a in legal:
                c = s.clone()
                c.apply_action(a)
                if c.is_terminal() and s.current_player in c.winners():
                    wins.append(a)
            if wins and len(wins) < len(legal):
                break
            s.apply_action(legal[int(rng.integers(len(legal)))])
        if s.is_terminal():
            continue
        info = CAMPANILE.agent_info(s, s.current_player)
        if info["view"].legal_actions() != s.legal_actions():
            continue
        agent = GuidedSearchAgent(make_network("/tmp/_pv_win.npz", "campanile", seed=1), seed=0, simulations=200,
                                  game="campanile")
        view = info["view"]
        c = view.clone()
        c.apply_action(agent.act(_observation("campanile", s, s.current_player), info))
        assert c.is_terminal()  # an immediate win is worth 1 in every determinisation
        found += 1
        if found == 3:
            break
    assert found


def test_guided_refuses_another_player_count(networks):
    agent = GuidedSearchAgent(networks["campanile"], seed=0, game="campanile")
    s = CampanileState.new_game(3, "pile", np.random.default_rng(0))
    with pytest.raises(ValueError, match="2-player"):
        agent.act(None, CAMPANILE.agent_info(s, 0))


def test_registry_builds_both_agents(networks):
    for game in GAMES:
        assert isinstance(make_agent("net", seed=1, game=game, path=networks[game]), NetworkAgent)
        guided = make_agent("guided", seed=1, game=game, path=networks[game], simulations=16)
        assert isinstance(guided, GuidedSearchAgent) and guided.settings.simulations == 16


# -- hidden information ----------------------------------------------------------------------


FIVE_TOWERS_SETTINGS = {"net": {}, "guided": {"simulations": 24, "determinisations": 4},
                        "guided:search=rollouts": {"search": "rollouts", "simulations": 40, "top_k": 3},
                        "mcts": {"simulations": 40}}


def _training_target(agent, num_actions: int):
    """The policy target expert iteration makes from the agent's last decision: the PUCT search's improved
    policy (self-play), or the soft-max of a search's candidate values (teacher generations)."""
    from five_towers_env.training.expert.data import value_target

    result = getattr(agent, "last", None)
    if result is not None:
        return result.improved_policy(num_actions)
    values = getattr(agent, "last_values", None)
    return None if not values else value_target(values, num_actions, 0.05)


def _same_target(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


@pytest.mark.parametrize("label", list(FIVE_TOWERS_SETTINGS))
def test_five_towers_agents_ignore_the_deck_order(label, networks):
    """Two copies of the agent play two games that differ only in the deck order (and the reshuffle
    generator); at every decision they choose the same action, and a search agent makes the same training
    target from it. The twin is rebuilt from the real game's position, its deck reordered, at every round
    start."""
    name = label.split(":")[0]
    settings = {**({} if name == "mcts" else {"path": networks["five_towers"]}), **FIVE_TOWERS_SETTINGS[label]}
    real = [make_agent(name, seed=40 + i, game="five_towers", **settings) for i in range(2)]
    twins = [make_agent(name, seed=40 + i, game="five_towers", **settings) for i in range(2)]
    env = raw_env(num_players=2, variant="base", explicit=True)
    env.reset(seed=9)
    rng = random.Random(0)
    twin, synced, reordered, decisions, searched = None, -1, 0, 0, 0
    while not env.game.is_terminal() and decisions < 160:
        if env.game.rounds_played != synced:
            assert env.game.phase == Phase.BID
            pos = env.position()
            deck = list(pos["deck"])
            if len(set(deck)) > 1:
                while deck == pos["deck"]:
                    rng.shuffle(deck)
            twin = raw_env(num_players=2, variant="base", explicit=True)
            twin.reset(seed=1000 + env.game.rounds_played, options={"position": {**pos, "deck": deck}})
            synced, reordered = env.game.rounds_played, reordered + (deck != pos["deck"])
        seat = env.game.current_player
        agent = env.possible_agents[seat]
        a = real[seat].act(env.observe(agent), FIVE_TOWERS.agent_info(env.game, seat))
        b = twins[seat].act(twin.observe(agent), FIVE_TOWERS.agent_info(twin.game, seat))
        assert a == b, f"round {synced}: {A.action_name(a)} in the real game, {A.action_name(b)} in the twin"
        targets = [_training_target(agent_, A.NUM_ACTIONS) for agent_ in (real[seat], twins[seat])]
        assert _same_target(*targets), f"round {synced}: the training targets differ"
        searched += targets[0] is not None
        env.step(a)
        twin.step(b)
        decisions += 1
    assert reordered >= 5 and decisions > 60
    assert searched > 20 or name == "net"


CAMPANILE_SETTINGS = {"net": {}, "guided": {"simulations": 32}, "mcts": {"simulations": 32}}


@pytest.mark.parametrize("name", list(CAMPANILE_SETTINGS))
def test_campanile_agents_ignore_hidden_cards(name, networks):
    """Changing the cards hidden from the seat (the other hand, the face-down pile cards) and the game's
    generator changes neither the agent's choice nor the training target a search agent makes from it."""
    rng = np.random.default_rng(3)
    settings = {**({} if name == "mcts" else {"path": networks["campanile"]}), **CAMPANILE_SETTINGS[name]}
    changed, searched = 0, 0
    for s in _positions("campanile", 7, 10):
        seat = s.current_player
        other = s.determinize(seat, rng)
        other.rng = np.random.default_rng(int(rng.integers(1 << 30)))
        changed += other.hands != s.hands
        i1, i2 = CAMPANILE.agent_info(s, seat), CAMPANILE.agent_info(other, seat)
        agents = [make_agent(name, seed=9, game="campanile", **settings) for _ in range(2)]
        a = agents[0].act(_observation("campanile", s, seat), i1)
        b = agents[1].act(_observation("campanile", other, seat), i2)
        assert a == b
        targets = [_training_target(agent, CAMPANILE.num_actions) for agent in agents]
        assert _same_target(*targets)
        searched += targets[0] is not None
    assert changed > 0
    assert searched > 0 or name == "net"


def test_rollout_search_searches_the_network_s_likeliest_candidates(networks):
    """search=rollouts: the game's rollout search over the network's top_k candidates only, with their
    log-probability priors; top_k=1 plays the network's own most likely candidate."""
    from five_towers_env.core.search import ActionPrior

    prior = ActionPrior(lambda obs: obs, top_k=2, weight=0.1)
    keep, bonus = prior.candidates([[0], [1, 2], [3]], [0.2, 0.3, 0.3, 0.2])
    assert keep == [0, 1] and bonus[1] == 0 and bonus[0] == pytest.approx(0.1 * np.log(0.2 / 0.6))
    rollouts = make_agent("guided", seed=3, game="five_towers", path=networks["five_towers"], search="rollouts",
                          simulations=30, top_k=1)
    for s in _positions("five_towers", 5, 12):
        seat = s.current_player
        obs, info = _observation("five_towers", s, seat), _info("five_towers", s, seat)
        chosen = rollouts.act(obs, info)
        assert rollouts.rollouts.last_simulations == 0  # one candidate: nothing to roll out
        probs = rollouts.probabilities(obs)
        assert probs[chosen] > 0 and probs.sum() == pytest.approx(1)
    wide = make_agent("guided", seed=3, game="five_towers", path=networks["five_towers"], search="rollouts",
                      simulations=30, top_k=50)
    rolled = 0
    for s in _positions("five_towers", 6, 6):
        wide.act(_observation("five_towers", s, s.current_player), _info("five_towers", s, s.current_player))
        rolled += wide.rollouts.last_simulations
    assert rolled > 0


def test_guided_settings_come_from_the_network_file_unless_given(networks, tmp_path):
    from five_towers_env.agents.network_file import read_network, write_network

    net = read_network(networks["five_towers"])
    path = write_network(tmp_path / "tuned.npz", net.architecture, net.arrays,
                         {**net.meta, "game": "five_towers", "guided": {"search": "rollouts", "simulations": 99}})
    stored = make_agent("guided", game="five_towers", path=str(path))
    assert stored.config["search"] == "rollouts" and stored.rollouts.simulations == 99
    given = make_agent("guided", game="five_towers", path=str(path), search="puct", simulations=12)
    assert given.rollouts is None and given.settings.simulations == 12
    with pytest.raises(ValueError, match="search must be one of puct, rollouts"):
        make_agent("guided", game="five_towers", path=str(path), search="tree")
    with pytest.raises(ValueError, match="Campanile's mcts takes no policy"):
        make_agent("guided", game="campanile", path=networks["campanile"], search="rollouts")


def test_both_agents_play_without_torch(networks):
    """net and guided need numpy alone: a game between them with torch and the RL frameworks unimportable."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        import sys
        for name in ("torch", "stable_baselines3", "sb3_contrib"):
            sys.modules[name] = None      # any import of them now fails
        from five_towers_env.agents import make_agent
        from five_towers_env.play import play_game
        path = {networks['campanile']!r}
        agents = [make_agent("net", seed=0, game="campanile", path=path),
                  make_agent("guided", seed=1, game="campanile", path=path, simulations=16)]
        print(len(play_game(agents, seed=3, game="campanile")["scores"]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2"


@pytest.mark.parametrize("game, setup", [("five_towers", (2, "base")), ("campanile", (2, "pile"))])
def test_shipped_networks_load_by_default(game, setup):
    """Each game ships a policy-value network from an expert-iteration run, played by net and guided."""
    net = NetworkAgent(game=game)
    assert net.meta["method"] == "expert_iteration" and net.trained_setup() == setup
    guided = GuidedSearchAgent(game=game, simulations=8)
    assert guided.net.num_players == 2 and guided.net.policy.path == net.path
