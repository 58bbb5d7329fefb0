"""Policies for every setup: training over several setups, warm starts, the one-against-a-field evaluation,
the equal-share column, ``ppo`` choosing the shipped policy per setup, and the policy zoo."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.core.game import GAMES, get_game
from five_towers_env.training.ppo.config import ConfigError, load_config, parse_setup

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


# -- config -----------------------------------------------------------------------------------

def test_setups_parse_and_validate():
    assert parse_setup("4p-great_powers") == (4, "great_powers")
    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {"setups": ["3p-base", "2p-great_powers"]})
    assert cfg.setup_list == [(3, "base"), (2, "great_powers")]
    assert load_config(CONFIGS / "ppo_smoke.yaml").setup_list == [(2, "base")]
    for bad, message in [(["3-base"], "not a setup"), (["6p-base"], "players must be 2..5"),
                         (["3p-pile"], "variant must be one of"), (["3p-base", "3p-base"], "each setup once"),
                         (["3p-base", "4p-base", "5p-base"], "a multiple of the 3 setups")]:
        with pytest.raises(ConfigError, match=message):
            load_config(CONFIGS / "ppo_smoke.yaml", {"setups": bad})
    with pytest.raises(ConfigError, match="init_policy: no policy file"):
        load_config(CONFIGS / "ppo_smoke.yaml", {"init_policy": "no/such/policy.npz"})


#: training runs whose config file is not named after the run (run name -> config)
RUN_CONFIGS = {"ppo_2p_v2": "ppo_selfplay_2p.yaml"}


@pytest.mark.parametrize("game", list(GAMES))
def test_every_shipped_policy_comes_from_a_committed_config_of_its_setup(game):
    """Each setup's shipped policy names its training run; that run's config is committed and trains the setup."""
    from five_towers_env.evaluation.zoo import shipped

    for policy in shipped(game):
        run = policy.meta["name"]
        cfg = load_config(CONFIGS / RUN_CONFIGS.get(run, f"{run}.yaml"))
        assert cfg.game == game and (policy.num_players, policy.variant) in cfg.setup_list, (policy.setup, run)


def test_pool_sampler_fits_each_game_size():
    from five_towers_env.training.ppo.pool import PoolSampler
    from five_towers_env.wrappers.single_agent import SingleAgentGymEnv

    sampler = PoolSampler([("random", 1.0)], num_opponents=1, game="five_towers")
    assert len(sampler.for_players(5)(np.random.default_rng(0))) == 4
    assert sampler.for_players(2) is sampler
    env = SingleAgentGymEnv("five_towers", num_players=4, opponent_sampler=sampler)
    env.reset(seed=0)  # a sampler drawing one opponent would fail here: 4 players need 3
    assert env.num_players == 4


# -- training over several setups, warm-started ---------------------------------------------

@pytest.fixture(scope="module")
def setups_run(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.trainer import PPOTrainer

    out = tmp_path_factory.mktemp("runs")
    shipped = "five_towers_env/games/campanile/policies/ppo_campanile_2p.npz"
    cfg = load_config(CONFIGS / "ppo_campanile_smoke.yaml", {
        "out_dir": str(out), "setups": ["3p-pile", "2p-played"], "init_policy": shipped, "value_warmup_steps": 512,
        "imitation.games": 0, "ppo.net_arch": [256, 256], "ppo.activation": "relu", "eval_opponents": ["random"],
        "final_eval_games": 2, "pool.snapshot_weight": 0.0})
    trainer = PPOTrainer(cfg, progress=False)
    first = trainer.current_agent()
    first_logits = first.logits(np.eye(first.obs_size, dtype=np.float32)[:8])
    policy = trainer.run().network
    return cfg, trainer, policy, first_logits


def test_warm_start_copies_the_actor(setups_run):
    from five_towers_env.agents.policy import PolicyAgent

    *_, first_logits = setups_run
    shipped = PolicyAgent(game="campanile")
    np.testing.assert_allclose(first_logits, shipped.logits(np.eye(shipped.obs_size, dtype=np.float32)[:8]),
                               rtol=1e-5, atol=1e-5)


def test_value_warmup_leaves_the_actor_alone(setups_run):
    """Evaluations are deterministic: the same games before and after the warm-up, the same results."""
    cfg, trainer, _, _ = setups_run
    rows = trainer.eval_rows
    assert rows[0]["timesteps"] == 0 and rows[1]["timesteps"] >= cfg.value_warmup_steps
    keys = [k for k in rows[0] if k.startswith(("win_rate_vs_random", "margin_vs_random"))]
    assert keys == ["win_rate_vs_random@3p-pile", "margin_vs_random@3p-pile", "win_rate_vs_random@2p-played",
                    "margin_vs_random@2p-played"]
    assert [rows[0][k] for k in keys] == [rows[1][k] for k in keys]


def test_a_multi_setup_policy_records_its_setups_and_plays_them_all(setups_run):
    from five_towers_env.agents.policy import PolicyAgent
    from five_towers_env.core.agent import SetupWarning
    from five_towers_env.evaluation import evaluate

    cfg, _, policy, _ = setups_run
    agent = PolicyAgent(policy, game="campanile")
    assert agent.meta["setups"] == ["3p-pile", "2p-played"]
    assert agent.trained_setups() == [(3, "pile"), (2, "played")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SetupWarning)  # trained for both: no warning
        assert agent.check_setup(3, "pile") and agent.check_setup(2, "played")
    with pytest.warns(SetupWarning, match="trained for Campanile with 3 players, variant pile, 2 players"):
        assert not agent.check_setup(4, "played")
    result = evaluate([("ppo", {"path": str(policy)})], num_games=3, num_players=3, variant="pile", field="random",
                      game="campanile", progress=False)
    assert result.agents[0]["n_seat_games"] == 3
    from five_towers_env.training.ppo.eval_games import final_evaluation

    text = final_evaluation(policy, cfg, games=2, progress=False)
    assert "(campanile, 3 players, pile" in text and "(campanile, 2 players, played" in text
    final = json.loads((cfg.run_dir / "final_eval.json").read_text())
    assert [(s["num_players"], s["variant"]) for s in final["setups"]] == cfg.setup_list
    assert {(r["num_players"], r["variant"]) for r in final["rows"]} == set(cfg.setup_list)


def test_warm_start_refuses_another_architecture(tmp_path):
    pytest.importorskip("sb3_contrib")
    from five_towers_env.training.ppo.trainer import PPOTrainer

    cfg = load_config(CONFIGS / "ppo_smoke.yaml", {
        "out_dir": str(tmp_path), "init_policy": "five_towers_env/games/five_towers/policies/ppo_2p_base.npz"})
    with pytest.raises(ValueError, match="is a typed network; this run trains a mlp one"):
        PPOTrainer(cfg, progress=False)
    cfg = load_config(CONFIGS / "ppo_campanile_smoke.yaml", {
        "out_dir": str(tmp_path), "init_policy": "five_towers_env/games/campanile/policies/ppo_campanile_2p.npz"})
    with pytest.raises(ValueError, match=r"w0 is \(256, \d+\), the run's network needs \(64, \d+\)"):
        PPOTrainer(cfg, progress=False)


# -- one agent against a field, the equal share ---------------------------------------------

def test_field_fills_the_other_seats_and_rotates_the_agent():
    from five_towers_env.evaluation import evaluate

    result = evaluate(["greedy"], num_games=8, num_players=4, field="random", seed=3, progress=False)
    assert [r["lineup"].count(0) for r in result.records] == [1] * 8
    assert [r["lineup"].index(0) for r in result.records] == [0, 3, 2, 1, 0, 3, 2, 1]  # every seat of each deal
    assert len({r["deal_seed"] for r in result.records}) == 2
    greedy, field = result.agents
    assert field["agent"] == "random" and field["n_seat_games"] == 24
    assert greedy["vs_equal_share"] == pytest.approx(greedy["win_rate"] * 4)
    assert result.config["field"] == "random" and result.config["rotation"] == 4
    assert "x 1/4" in result.table()
    with pytest.raises(ValueError, match="leave no seat to fill"):
        evaluate(["greedy", "random"], num_games=2, num_players=2, field="random", progress=False)


def test_two_player_tables_have_no_equal_share_column():
    from five_towers_env.evaluation import evaluate

    assert "x 1/" not in evaluate(["greedy", "random"], num_games=2, progress=False).table()


def test_cli_field(capsys):
    from five_towers_env.cli import main

    assert main(["evaluate", "--agents", "greedy", "--field", "random", "--players", "3", "--games", "3",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "x 1/3" in out and "seat-games" in out
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--agents", "greedy", "random", "--field", "random", "--no-progress"])
    assert exc.value.code == 2
    assert "the agents leave no seat to fill" in capsys.readouterr().err


def test_tournament_of_more_than_two_players_shows_the_equal_share():
    from five_towers_env.evaluation import round_robin

    result = round_robin(["greedy", "random", "heuristic"], games=3, num_players=3, progress=False)
    assert "x 1/3" in result.table()


# -- ppo: the shipped policy of each setup ---------------------------------------------------

@pytest.mark.parametrize("game", list(GAMES))
def test_every_setup_ships_a_policy(game):
    spec = get_game(game)
    for n in range(spec.min_players, spec.max_players + 1):
        for variant in spec.variants:
            path = spec.policy_path(n, variant)
            assert path is not None and path.is_file(), f"{game}: no policy for {n}p-{variant}"


@pytest.mark.parametrize("game", list(GAMES))
def test_ppo_plays_the_policy_shipped_for_the_setup(game):
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.play import play_game

    spec = get_game(game)
    for n, variant in [(3, spec.variants[0]), (4, spec.variants[-1])]:
        agent = make_agent("ppo", game=game)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the right policy: no setup warning
            play_game([agent] + [make_agent("random", seed=s, game=game) for s in range(n - 1)], variant=variant,
                      seed=5, game=game)
        assert agent.path == spec.policy_path(n, variant)
        assert (n, variant) in agent.trained_setups()


def test_ppo_says_when_no_policy_is_shipped_for_the_setup(monkeypatch):
    from five_towers_env.agents.registry import make_agent
    from five_towers_env.evaluation import evaluate

    spec = get_game("campanile")
    monkeypatch.setattr(type(spec), "policy_path", lambda self, n, v, version=None: None if n == 4 else
                        GAMES["campanile"].package_file(self.shipped_policies["2p-pile"]))
    with pytest.raises(ValueError, match=r"Campanile ships no policy for 4 players, variant played "
                                         r"\(shipped: .*\); give ppo:path=\.\.\."):
        evaluate(["ppo", "random"], num_games=2, num_players=4, variant="played", game="campanile", progress=False)
    make_agent("ppo", game="campanile").check_setup(3, "played")  # shipped: no error


def test_ppo_version_is_the_setup_it_was_shipped_for():
    from five_towers_env.agents.registry import make_agent

    old = make_agent("ppo", version=1)
    old.check_setup(2, "base")
    assert old.path.name == "ppo_2p_base_v1.npz"
    with pytest.raises(ValueError, match="ships no policy version 1 for 3 players, variant base"):
        old.check_setup(3, "base")


# -- the zoo ----------------------------------------------------------------------------------

def test_zoo_lists_and_measures_the_shipped_policies(tmp_path, capsys):
    from five_towers_env.cli import main
    from five_towers_env.evaluation.zoo import shipped

    policies = shipped("campanile")
    assert {p.setup for p in policies} == {f"{n}p-{v}" for n in range(2, 6) for v in ("pile", "played")}
    assert main(["zoo", "--game", "campanile", "--games", "2", "--setups", "3p-played", "--out", str(tmp_path),
                 "--runs", str(Path(__file__).resolve().parents[1] / "results"), "--no-progress"]) == 0
    table = json.loads((tmp_path / "table.json").read_text())
    assert [(r["setup"], r["opponent"]) for r in table["rows"]] == [("3p-played", o) for o in
                                                                    ("heuristic", "greedy", "random")]
    assert all(r["vs_equal_share"] == pytest.approx(3 * r["win_rate"]) for r in table["rows"])
    assert (tmp_path / "3p-played" / "vs_heuristic.json").is_file()
    assert "| 3p-played |" in (tmp_path / "table.md").read_text()


def test_imitation_teacher_takes_agent_settings():
    """``imitation.teacher`` is an agent spec: a search teacher with its budget, a bad setting named."""
    from five_towers_env.training.ppo.config import ConfigError, build_config

    assert build_config({"imitation": {"teacher": "mcts:simulations=200"}}).imitation.teacher == "mcts:simulations=200"
    with pytest.raises(ConfigError, match="imitation.teacher: mcts has no setting 'simulation'"):
        build_config({"imitation": {"teacher": "mcts:simulation=200"}})
    with pytest.raises(ConfigError, match="imitation.teacher: unknown agent 'alphazero'"):
        build_config({"imitation": {"teacher": "alphazero"}})


def test_several_setup_curves_are_drawn_as_multiples_of_the_equal_share(tmp_path, monkeypatch):
    """A several-setup run's curve puts 3- and 5-player win rates on one axis: each times its player count,
    the pool test's rate (scaled to two players) times 2; a one-setup run's curve stays a plain win rate."""
    pytest.importorskip("matplotlib")  # the eval extra draws curves; the core install has none
    import matplotlib.axes

    from five_towers_env.training.run_folder import plot_curve, share_multiple, write_csv

    assert share_multiple("win_rate_vs_heuristic@5p-great_powers", True) == 5.0
    assert share_multiple("win_rate_vs_pool", True) == 2.0
    assert share_multiple("win_rate_vs_heuristic", False) == 1.0
    drawn: dict[str, list[float]] = {}
    real_plot = matplotlib.axes.Axes.plot

    def record(self, xs, ys, *args, label=None, **kwargs):
        drawn[label] = list(ys)
        return real_plot(self, xs, ys, *args, label=label, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", record)
    several = write_csv(tmp_path / "several.csv", [
        {"timesteps": 0, "win_rate_vs_heuristic@3p-base": 0.4, "win_rate_vs_heuristic@5p-base": 0.25,
         "win_rate_vs_pool": 0.6}])
    plot_curve(several, tmp_path / "several.png")
    assert drawn == {"heuristic@3p-base": [pytest.approx(1.2)], "heuristic@5p-base": [pytest.approx(1.25)],
                     "pool": [pytest.approx(1.2)]}
    drawn.clear()
    plot_curve(write_csv(tmp_path / "one.csv", [{"timesteps": 0, "win_rate_vs_heuristic": 0.7}]), tmp_path / "one.png")
    assert drawn == {"heuristic": [pytest.approx(0.7)]}
    assert (tmp_path / "several.png").stat().st_size > 1000
