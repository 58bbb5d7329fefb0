"""Games on Ray (``--ray``, :mod:`five_towers_env.evaluation.distributed`): a local 2-CPU Ray instance plays
the same records as one process. Skipped without the ``ray`` extra; ``.ci/rllib.sh`` runs it in the RLlib venv,
which has Ray."""
from __future__ import annotations

import pytest

pytest.importorskip("ray")

from five_towers_env.cli import main
from five_towers_env.evaluation.guard import AgentError
from five_towers_env.evaluation.match import evaluate
from five_towers_env.evaluation.tournament import round_robin

TIMINGS = ("think_seconds", "wall_seconds")


def _played(records):
    return [{k: v for k, v in r.items() if k not in TIMINGS} for r in records]


@pytest.fixture(scope="module")
def ray_local():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_evaluate_matches_local(ray_local):
    args = {"num_games": 8, "num_players": 2, "seed": 11, "progress": False}
    local = evaluate(["heuristic", "random"], **args)
    on_ray = evaluate(["heuristic", "random"], workers=2, ray="local", **args)
    assert _played(on_ray.records) == _played(local.records)
    assert on_ray.config["ray"] == "local"


def test_ray_tournament_matches_local_campanile(ray_local):
    args = {"games": 6, "num_players": 3, "seed": 5, "progress": False, "game": "campanile"}
    agents = ["random", "greedy", "heuristic", "mcts:simulations=4"]
    local = round_robin(agents, **args)
    on_ray = round_robin(agents, ray="local", workers=2, **args)
    assert _played(on_ray.records) == _played(local.records)


def test_ray_sends_a_local_factory_and_reports_its_error(ray_local):
    # cloudpickle carries a class and a lambda defined here by value, which a process pool cannot send;
    # the agent's own error comes back, not Ray's wrapper
    class Illegal:
        name = "illegal"

        def act(self, observation, info):
            return -1

    _illegal = lambda seed=None: Illegal()  # noqa: E731
    with pytest.raises(AgentError, match="returned -1, not a legal action"):
        evaluate([_illegal, "random"], num_games=4, progress=False, ray="local", workers=2)
    result = evaluate([_illegal, "random"], num_games=4, progress=False, ray="local", workers=2,
                      on_agent_error="forfeit")
    assert result.config["forfeits"] == 4


def test_cli_ray_local(tmp_path, capsys):
    assert main(["evaluate", "--agents", "greedy", "random", "--games", "4", "--ray", "local", "--workers", "2",
                 "--no-progress", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "evaluate.json").is_file()
    assert not (tmp_path / "evaluate_journal.jsonl").exists()
