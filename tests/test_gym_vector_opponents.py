"""The Gymnasium vector environment's opponents: decided class by class in one call each (``act_group``), with
exactly the moves and generator draws of the per-game path (each agent's ``act``, one game at a time), and
drawn per game from an ``opponent_sampler``.

Every comparison runs one configuration twice from one seed with the same learner actions, batched and per
game, and compares every action the core was given (learners' and opponents'), every observation and reward,
and at the end every opponent's generator. A spy checks that the batched run really decided through the
classes' hooks (no ``act`` call where a class has one), so that the comparison cannot pass by running the
per-game path twice.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.core.agent import RandomAgent, group_actions, rounds
from five_towers_env.core.backend import native_built
from five_towers_env.core.game import get_game, load
from five_towers_env.training.ppo.pool import SNAPSHOT, PoolSampler

pytestmark = [pytest.mark.skipif(not native_built()[0], reason=f"native core not built: {native_built()[1]}"),
              pytest.mark.skipif(not hasattr(gymnasium.vector, "AutoresetMode"),
                                 reason="gymnasium < 1.0: no vector entry points")]


def _vector(game: str, n: int, batch: bool, **kwargs):
    from five_towers_env.wrappers.gym_vector import GymVectorEnv

    return GymVectorEnv(n, game=game, batch_opponents=batch, **kwargs)


def _pick(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def _play(env, seed: int, steps: int) -> tuple[list[np.ndarray], int]:
    """Every action the core was given and everything the learner saw over ``steps`` learner steps from
    ``reset(seed=seed)``, then every opponent's generator state; and the games finished."""
    moves: list[np.ndarray] = []
    core_step = env.env.step

    def recording(actions, *args, **kwargs):
        moves.append(np.array(actions, copy=True))
        return core_step(actions, *args, **kwargs)

    env.env.step = recording
    obs, infos = env.reset(seed=seed)
    trace = [obs.copy(), infos["action_mask"].copy()]
    rng = np.random.default_rng(seed)
    games = 0
    for _ in range(steps):
        obs, reward, terminated, _, infos = env.step(_pick(rng, infos["action_mask"]))
        trace += [obs.copy(), reward.copy(), terminated.copy()]
        if terminated.any():
            trace.append(infos["final_obs"][terminated].copy())
        games += int(terminated.sum())
    states = [str(a.rng.bit_generator.state) for row in env._agents for a in row if hasattr(a, "rng")]
    env.env.step = core_step
    return moves + trace + [np.array(states)], games


def _spy(monkeypatch, classes) -> dict[str, int]:
    """Count the ``act`` calls of ``classes`` (patched on each class, so a hook's ``type(a).act`` check still
    sees the class's own ``act``)."""
    calls = {cls.__name__: 0 for cls in classes}
    for cls in classes:
        def counted(self, *args, _act=cls.act, _name=cls.__name__, **kwargs):
            calls[_name] += 1
            return _act(self, *args, **kwargs)
        monkeypatch.setattr(cls, "act", counted)
    return calls


def _same_moves(game: str, n: int, steps: int, seed: int, hooked=(), **kwargs) -> int:
    """Run batched and per game; assert the same everything; return the games each run finished. ``hooked``:
    agent classes that must decide through their hook in the batched run (never ``act``)."""
    per_game, games = _play(_vector(game, n, False, **kwargs), seed, steps)
    with pytest.MonkeyPatch.context() as mp:
        calls = _spy(mp, hooked)
        batched, games_batched = _play(_vector(game, n, True, **kwargs), seed, steps)
    assert not any(calls.values()), f"decided through act, not the hook: {calls}"
    assert games == games_batched and len(per_game) == len(batched)
    for k, (a, b) in enumerate(zip(per_game, batched)):
        assert np.array_equal(a, b), f"the runs part at entry {k} of {len(per_game)}"
    return games


def _campanile_agents():
    campanile = get_game("campanile")
    return load(campanile.agents["greedy"]), load(campanile.agents["heuristic"])


@pytest.fixture(scope="module")
def snapshot() -> str:
    """A Campanile policy file, as a self-play pool's snapshot label."""
    return SNAPSHOT + str(get_game("campanile").policy_path(2, "pile"))


CAMPANILE_CASES = {  # id -> (players, GymVectorEnv keywords)
    "greedy": (2, {"opponents": "greedy"}),
    "heuristic": (2, {"opponents": "heuristic"}),
    "ppo": (2, {"opponents": "ppo"}),
    "ppo sampled": (2, {"opponents": "ppo:deterministic=false"}),
    "mix 3p": (3, {"opponents": ["greedy", "heuristic:spread=2"]}),
    "heuristics 3p": (3, {"opponents": ["heuristic", "heuristic:spread=2"]}),
    "mix 4p": (4, {"opponents": ["ppo", "random", "heuristic"]}),
}


@pytest.mark.parametrize("case", list(CAMPANILE_CASES))
def test_campanile_batched_moves_are_the_per_game_moves(case):
    players, kwargs = CAMPANILE_CASES[case]
    greedy, heuristic = _campanile_agents()
    games = _same_moves("campanile", 64, 100, seed=7, hooked=(greedy, heuristic, PolicyAgent, RandomAgent),
                        num_players=players, **kwargs)
    assert games >= 150  # many games, each one a comparison of every opponent move


def test_campanile_greedy_ties_are_drawn_as_act_draws_them():
    """Greedy breaks ties with its generator: the per-game and batched runs leave every agent's generator in
    the same state, and the draws did happen (the generators moved from their seeds)."""
    greedy, _ = _campanile_agents()
    env = _vector("campanile", 16, True, opponents="greedy")
    env.reset(seed=3)
    fresh = [str(a.rng.bit_generator.state) for row in env._agents for a in row]
    rng = np.random.default_rng(0)
    masks = env.action_masks()
    for _ in range(30):
        *_, infos = env.step(_pick(rng, masks))
        masks = infos["action_mask"]
    moved = [str(a.rng.bit_generator.state) for row in env._agents for a in row]
    assert sum(a != b for a, b in zip(fresh, moved)) >= 8
    _same_moves("campanile", 16, 30, seed=3, hooked=(greedy,), opponents="greedy")


def test_one_agent_object_in_every_game_draws_row_after_row():
    """One stochastic agent object seated in every game: its draws follow the rows' order (greedy: successive
    compiled calls, one per occurrence; a sampled network: one generator read row by row)."""
    greedy, _ = _campanile_agents()
    shared_greedy, shared_ppo = greedy(seed=1), PolicyAgent(seed=2, deterministic=False, game="campanile")
    games = _same_moves("campanile", 32, 80, seed=5, hooked=(greedy, PolicyAgent), num_players=3,
                        opponents=[shared_greedy, shared_ppo])
    assert games >= 50


def test_campanile_sampled_opponents_same_moves(snapshot):
    """A self-play pool (baselines by weight and a sampled snapshot network) draws every game's opponents."""
    greedy, heuristic = _campanile_agents()
    pool = PoolSampler([("random", 1.0), ("greedy", 1.0), ("heuristic", 1.0), (snapshot, 2.0)], 1,
                       game="campanile")
    games = _same_moves("campanile", 64, 100, seed=9, hooked=(greedy, heuristic, PolicyAgent, RandomAgent),
                        opponent_sampler=pool)
    assert games >= 150
    shared = greedy(seed=0)
    mixed = _same_moves("campanile", 48, 80, seed=4, hooked=(greedy, heuristic, RandomAgent), num_players=3,
                        opponent_sampler=lambda rng: [["greedy", shared, "random", "heuristic"][i]
                                                      for i in rng.integers(4, size=2)])
    assert mixed >= 80


FIVE_TOWERS_CASES = {
    "greedy": (2, {"opponents": "greedy"}),
    "heuristic": (2, {"opponents": "heuristic"}),
    "ppo": (2, {"opponents": "ppo"}),
    "mix 3p": (3, {"opponents": ["greedy", "heuristic"]}),
    "heuristics 3p": (3, {"opponents": ["heuristic", "heuristic:opponent_weight=0.5"]}),
    "sampler": (2, {"opponent_sampler": lambda rng: [["greedy", "heuristic", "ppo", "random"][rng.integers(4)]]}),
}


@pytest.mark.parametrize("case", list(FIVE_TOWERS_CASES))
def test_five_towers_batched_moves_are_the_per_game_moves(case):
    """5 Towers' agents: the network batched, greedy and heuristic in one compiled call per round."""
    players, kwargs = FIVE_TOWERS_CASES[case]
    variant = "base" if players == 2 else "great_powers"
    greedy, heuristic = (load(get_game("five_towers").agents[name]) for name in ("greedy", "heuristic"))
    games = _same_moves("five_towers", 16, 150, seed=2, hooked=(greedy, heuristic, PolicyAgent, RandomAgent),
                        num_players=players, variant=variant, **kwargs)
    assert games >= 10


def test_the_sampler_draws_each_new_game_from_its_own_seeded_generator():
    """Game i's e-th game since reset(seed=s) draws from default_rng([s, i, e]); reset(seed=s) twice gives the
    same games, another seed others."""
    drawn: list[str] = []

    def sampler(rng: np.random.Generator) -> list[str]:
        drawn.append(str(rng.bit_generator.state))
        return [["greedy", "heuristic", "random"][rng.integers(3)]]

    env = _vector("campanile", 8, True, opponent_sampler=sampler)
    first, games = _play(env, 21, 60)
    expected = sorted(str(np.random.default_rng([21, i, e]).bit_generator.state)
                      for i in range(8) for e in range(int(env._episodes[i]) + 1))
    assert games >= 10 and sorted(drawn) == expected and len(drawn) == 8 + games
    again, _ = _play(env, 21, 60)
    assert all(np.array_equal(a, b) for a, b in zip(first, again)) and len(first) == len(again)
    other, _ = _play(env, 22, 60)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_same_seed_same_games_with_agent_objects():
    """Agent objects are re-seeded at reset, so that a reset with the same seed plays the same games."""
    greedy, _ = _campanile_agents()
    env = _vector("campanile", 8, True, opponents=[greedy(seed=0)])
    first, _ = _play(env, 1, 50)
    again, _ = _play(env, 1, 50)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))


def test_opponents_and_sampler_are_checked():
    with pytest.raises(ValueError, match="not both"):
        _vector("campanile", 2, True, opponents="greedy", opponent_sampler=lambda rng: ["greedy"])
    with pytest.raises(TypeError, match="callable"):
        _vector("campanile", 2, True, opponent_sampler="greedy")
    env = _vector("campanile", 2, True, num_players=3, opponent_sampler=lambda rng: ["greedy"])
    with pytest.raises(ValueError, match="3 players need 2 opponents"):
        env.reset(seed=0)
    pool = PoolSampler([("heuristic", 1.0)], 1, game="campanile")  # fits itself to 3 players (for_players)
    env = _vector("campanile", 2, True, num_players=3, opponent_sampler=pool)
    env.reset(seed=0)
    assert [type(a).__name__ for a in env._agents[0]] == ["HeuristicAgent"] * 2


class _Games:
    """Two waiting games for group_actions without an environment."""

    game, num_players, variant = "campanile", 2, "pile"

    def observations(self, rows):
        return np.zeros((len(rows), 3), np.float32), np.array([[1, 0, 1]] * len(rows), np.int8)

    def inputs(self, row):
        return {"observation": np.zeros(3, np.float32), "action_mask": np.array([1, 0, 1], np.int8)}, \
            {"legal_actions": [0, 2]}

    def native_views(self, rows):
        return None


def test_group_actions_groups_by_class_and_checks_the_hooks_answer():
    class Plain:  # no AgentBase, no hook: each act
        name = "plain"

        def act(self, observation, info):
            return 2

    class Short(RandomAgent):
        @classmethod
        def act_group(cls, agents, games, rows):
            return np.zeros(len(rows) + 1, dtype=np.int64)

    one, two = RandomAgent(seed=0), RandomAgent(seed=0)
    assert group_actions([Plain(), one, Plain()], _Games(), [0, 1, 2])[[0, 2]].tolist() == [2, 2]
    # one generator shared by two rows draws as two act calls in row order would
    shared = RandomAgent(seed=5)
    alone = RandomAgent(seed=5)
    expected = [alone.act(*_Games().inputs(r)) for r in range(2)]
    assert group_actions([shared, shared], _Games(), [0, 1]).tolist() == expected
    assert two.act(*_Games().inputs(0)) == group_actions([RandomAgent(seed=0)], _Games(), [0])[0]
    with pytest.raises(ValueError, match="Short.act_group gave"):
        group_actions([Short()], _Games(), [0])
    assert rounds(["a", "b", "a", "a", "c", "b"], key=str) == [[0, 1, 4], [2, 5], [3]]


def test_an_agent_told_to_decide_in_python_is_asked_through_act():
    """Campanile's hooks hand back to act where the agent is not to decide natively: the same moves, every
    decision through act."""
    greedy, _ = _campanile_agents()
    slow = greedy(seed=3)
    slow.native = False
    with pytest.MonkeyPatch.context() as mp:
        calls = _spy(mp, (greedy,))
        env = _vector("campanile", 4, True, opponents=[slow])
        env.reset(seed=0)
        env.step(_pick(np.random.default_rng(0), env.action_masks()))
    assert calls["GreedyAgent"] > 0
    _same_moves("campanile", 8, 30, seed=0, opponents=[slow])


def test_agents_of_one_policy_file_share_its_network(tmp_path):
    """The agents built for many games read a policy file once; a file rewritten since is read again."""
    campanile = get_game("campanile")
    path = tmp_path / "policy.npz"
    path.write_bytes(campanile.policy_path(2, "pile").read_bytes())
    one, two = PolicyAgent(path, game="campanile"), PolicyAgent(path, game="campanile", seed=1)
    assert one.network is two.network
    path.write_bytes(campanile.policy_path(3, "pile").read_bytes())
    three = PolicyAgent(path, game="campanile")
    assert three.network is not one.network
    obs = np.random.default_rng(0).random(three.obs_size, dtype=np.float32)
    assert not np.array_equal(three.logits(obs), one.logits(obs))
