"""The rating ladder and ``rate`` (:mod:`five_towers_env.evaluation.ladder`, :mod:`~.ratings`, :mod:`~.rate`):
the fit recovers known ratings, calibration is deterministic and extends by playing only new games, the
shipped ladders meet their promise, and a rated agent lands where the ladder says it should."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from five_towers_env.cli import main
from five_towers_env.core.game import GAMES, parse_setup_key
from five_towers_env.evaluation.ladder import (
    Ladder,
    LadderPlan,
    calibrate,
    fingerprints,
    ladder_folder,
    load_plan,
    playable_agents,
)
from five_towers_env.evaluation.rate import fit_one, rate
from five_towers_env.evaluation.ratings import bootstrap, expected_score, fit

ROOT = Path(__file__).resolve().parents[1]
#: the setups whose ladders are shipped with every interval within +-40 (docs/ladder.md: what is calibrated)
TWO_PLAYER = [("five_towers", "2p-base"), ("five_towers", "2p-great_powers"), ("campanile", "2p-pile"),
              ("campanile", "2p-played")]
#: the README's headline: the 2-player ladders, in this order, those that are shipped
HEADLINE = [("five_towers", 2, "base"), ("five_towers", 2, "great_powers"), ("campanile", 2, "pile"),
            ("campanile", 2, "played")]


def _expected_wins(true: np.ndarray, n: float) -> np.ndarray:
    gap = true[:, None] - true[None, :]
    wins = n / (1.0 + 10.0 ** (-gap / 400.0))
    np.fill_diagonal(wins, 0.0)
    return wins


def test_fit_recovers_known_ratings_with_the_anchor_at_zero():
    true = np.array([0.0, 450.0, 900.0, 1000.0, 1150.0])
    ratings = fit(_expected_wins(true, 1e6), anchor=0, prior=0.0)
    assert ratings == pytest.approx(true, abs=1e-3)
    with_new = _expected_wins(np.r_[true, 700.0], 1e6)
    against = np.stack([with_new[-1, :-1], with_new[:-1, -1]], axis=1)
    assert fit_one(against, true, prior=0.0) == pytest.approx(700, abs=1e-3)
    assert expected_score(0) == 0.5 and expected_score(400) == pytest.approx(10 / 11)


def test_bootstrap_is_seeded_and_brackets_the_fit():
    rng = np.random.default_rng(0)
    true = np.array([0.0, 300.0, 600.0])
    clusters = []
    for _ in range(300):  # 300 deals of each pair, one comparison each
        for a, b in ((0, 1), (1, 2), (0, 2)):
            w = np.zeros((3, 3))
            ahead = rng.random() < expected_score(true[a] - true[b])
            w[a, b], w[b, a] = float(ahead), float(not ahead)
            clusters.append(w)
    wins = np.stack(clusters)
    groups = [c % 3 for c in range(len(clusters))]
    one = bootstrap(wins, groups, 0, 50, np.random.default_rng(5))
    assert np.array_equal(one, bootstrap(wins, groups, 0, 50, np.random.default_rng(5)))
    point = fit(wins.sum(axis=0), 0)
    assert np.all(one[:, 0] == 0)
    for i in (1, 2):
        assert np.percentile(one[:, i], 2.5) < point[i] < np.percentile(one[:, i], 97.5)


def test_calibration_is_deterministic_resumes_and_extends(tmp_path, monkeypatch):
    small = LadderPlan(seed=3, agents=("random", "greedy", "heuristic"), games={2: 8},
                       extra=((frozenset({"random", "greedy"}), 12),), bootstrap=40)
    a = calibrate("campanile", 2, "pile", tmp_path / "a", small, progress=False)
    calibrate("campanile", 2, "pile", tmp_path / "b", small, progress=False, workers=2)
    assert (tmp_path / "a" / "ladder.json").read_text() == (tmp_path / "b" / "ladder.json").read_text()
    assert a.rating("random") == 0 and a.agents[0]["games"] == 12 + 8
    # an agent added: the groups already played come from the kept journal, only the new ones are played
    bigger = LadderPlan(seed=3, agents=small.agents + ("mcts:simulations=8",), games={2: 8}, extra=small.extra,
                        bootstrap=40)
    from five_towers_env.evaluation import runner

    played = []
    real = runner.play_job
    monkeypatch.setattr(runner, "play_job", lambda *args, **kw: played.append(1) or real(*args, **kw))
    c = calibrate("campanile", 2, "pile", tmp_path / "a", bigger, progress=False)
    assert len(played) == 3 * 8 and len(c.agents) == 4  # the new agent against each of the three
    again = calibrate("campanile", 2, "pile", tmp_path / "c", bigger, progress=False)
    assert json.dumps(c.agents) == json.dumps(again.agents)


def test_an_agent_whose_file_changed_is_played_again(tmp_path, monkeypatch):
    import warnings

    from five_towers_env.evaluation import runner

    policies = ROOT / "five_towers_env" / "games" / "campanile" / "policies"
    mine = tmp_path / "mine.npz"
    shutil.copy(policies / "ppo_campanile_2p.npz", mine)
    label = f"ppo:path={mine}"
    plan = LadderPlan(seed=4, agents=("random", "greedy", label), games={2: 4}, bootstrap=20)
    calibrate("campanile", 2, "pile", tmp_path / "lad", plan, progress=False)
    played = []
    real = runner.play_job
    monkeypatch.setattr(runner, "play_job", lambda *args, **kw: played.append(1) or real(*args, **kw))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        calibrate("campanile", 2, "pile", tmp_path / "lad", plan, progress=False)  # nothing changed: no games
    assert played == [] and not [w for w in caught if "files changed" in str(w.message)]
    shutil.copy(policies / "ppo_campanile_played_2p.npz", mine)  # retrained under the same name
    with pytest.warns(UserWarning, match="files changed.*its 8 games are played again"):
        calibrate("campanile", 2, "pile", tmp_path / "lad", plan, progress=False)
    assert len(played) == 2 * 4  # its games against random and greedy, not random-greedy's


def test_plan_seats_an_agent_only_at_its_player_counts():
    plan = LadderPlan(seed=3, agents=("random", "greedy", "mcts:simulations=8"), games={2: 8, 3: 6},
                      players={"mcts:simulations=8": (2,)})
    assert plan.panel(2) == ("random", "greedy", "mcts:simulations=8")
    assert plan.panel(3) == ("random", "greedy")
    assert LadderPlan.from_dict(plan.to_dict()) == plan
    with pytest.raises(ValueError, match="not among its agents"):
        LadderPlan(seed=3, agents=("random",), games={2: 8}, players={"greedy": (2,)})
    with pytest.raises(ValueError, match="anchor"):
        LadderPlan(seed=3, agents=("random", "greedy"), games={2: 8}, players={"random": (2,)})


def test_plans_name_agents_of_their_game():
    for game in GAMES.values():
        if not game.ladder:
            continue
        plan = load_plan(game)
        assert plan.anchor in plan.agents
        for players in range(game.min_players, game.max_players + 1):
            for variant in game.variants:
                assert plan.anchor in playable_agents(game, plan.agents, players, variant)


def _shipped():
    for game in GAMES.values():
        if game.ladder:
            for path in sorted(ladder_folder(game).glob("*p-*.json")):
                yield game.name, path


@pytest.mark.parametrize("game, setup", TWO_PLAYER)
def test_two_player_ladders_are_shipped_within_40_points(game, setup):
    path = ladder_folder(game) / f"{setup}.json"
    ladder = Ladder.from_dict(json.loads(path.read_text()))
    assert ladder.rating("random") == 0
    assert {"random", "greedy", "heuristic", "ppo"} <= set(ladder.labels)
    assert sum(a["agent"].startswith("mcts") for a in ladder.agents) >= 2
    wide = [f"{a['agent']} ±{a['half_width']}" for a in ladder.agents if a["half_width"] > 40]
    assert not wide, f"{game} {setup}: intervals wider than ±40: {wide}"


def test_every_setup_has_a_ladder_within_45_points():
    """Every setup of every built-in game ships a ladder; with 3-5 players each interval is within ±45
    (what docs/ladder.md states), with 2 within ±40 (above)."""
    missing, wide = [], []
    for game in GAMES.values():
        if not game.ladder:
            continue
        for variant in game.variants:
            for n in range(game.min_players, game.max_players + 1):
                path = ladder_folder(game) / f"{n}p-{variant}.json"
                if not path.is_file():
                    missing.append(f"{game.name} {path.stem}")
                    continue
                ladder = Ladder.from_dict(json.loads(path.read_text()))
                wide += [f"{game.name} {path.stem} {a['agent']} ±{a['half_width']}" for a in ladder.agents
                         if a["half_width"] > 45]
    assert not missing and not wide, f"no ladder: {missing}; wider than ±45: {wide}"


@pytest.mark.parametrize("game, path", list(_shipped()), ids=lambda x: getattr(x, "stem", x))
def test_shipped_ladders_are_the_results_files(game, path):
    """The package's copy is byte for byte the calibration's ladder.json under results/ladder/."""
    result = ROOT / "results" / "ladder" / game / path.stem / "ladder.json"
    if not result.parent.parent.parent.is_dir():
        pytest.skip("results/ is not beside this package")
    assert path.read_bytes() == result.read_bytes()
    players, variant = parse_setup_key(path.stem)
    d = json.loads(path.read_text())
    assert (d["num_players"], d["variant"], d["game"]) == (players, variant, game)
    assert len(d["replicates"]) == d["plan"]["bootstrap"]


@pytest.mark.parametrize("game, path", list(_shipped()), ids=lambda x: getattr(x, "stem", x))
def test_shipped_ladders_were_played_with_todays_files(game, path):
    """Every agent of a shipped ladder that plays from a file (``ppo``, ``net``, ``guided``) played its
    games with the file shipped now: a retrained network shipped under the same name needs the ladder
    recalibrated (its journal then replays that agent's games)."""
    journal = ROOT / "results" / "ladder" / game / path.stem / "journal.jsonl.gz"
    if not journal.is_file():
        pytest.skip("results/ is not beside this package")
    with gzip.open(journal, "rt") as f:
        header = json.loads(f.readline())
    players, variant = parse_setup_key(path.stem)
    labels = Ladder.from_dict(json.loads(path.read_text())).labels
    assert header.get("fingerprints", {}) == fingerprints(game, labels, players, variant), (
        f"{game} {path.stem}: an agent's file changed since its ladder was played; recalibrate it "
        f"(docs/ladder.md)")


def test_rate_places_a_ladder_agent_near_its_own_rating(tmp_path, capsys):
    result = rate("heuristic", game="campanile", games=160, seed=9, progress=False)
    own = result.ladder.rating("heuristic")
    assert result.ci_low <= result.rating <= result.ci_high
    assert result.ci_low - 60 <= own <= result.ci_high + 60
    assert result.agent == "heuristic (rated)"
    assert main(["rate", "heuristic", "--game", "campanile", "--games", "160", "--seed", "9", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    saved = json.loads((tmp_path / "rate.json").read_text())
    assert saved["rating"] == result.rating and saved["ci_low"] == result.ci_low
    assert {e["agent"] for e in saved["ladder"]} == set(result.ladder.labels)
    assert all("rating" in e for e in saved["ladder"])
    out = capsys.readouterr().out
    assert "rates" in out and "nearest on the ladder" in out


def test_rate_places_an_agent_on_a_multi_player_ladder():
    """With three players the rated agent sits with two copies of one ladder agent at a time; the heuristic
    lands near its own rating."""
    result = rate("heuristic", game="campanile", num_players=3, variant="pile", games=150, seed=4, progress=False)
    assert result.ladder.num_players == 3 and result.ci_low <= result.rating <= result.ci_high
    assert result.ci_low - 80 <= result.ladder.rating("heuristic") <= result.ci_high + 80


def test_rate_without_a_ladder_for_the_setup_says_which_exist(capsys, tmp_path, monkeypatch):
    from five_towers_env.evaluation import ladder as ladder_module

    shutil.copy(ladder_folder("campanile") / "2p-pile.json", tmp_path / "2p-pile.json")
    monkeypatch.setattr(ladder_module, "ladder_folder", lambda game: tmp_path)
    assert main(["rate", "random", "--game", "campanile", "--players", "5", "--variant", "played",
                 "--no-progress"]) == 2
    assert "ships no ladder for 5p-played; calibrated: 2p-pile" in capsys.readouterr().err


def test_readme_rate_commands_run_as_written(tmp_path):
    """The README's `rate` commands, with fewer games: the SB3 snippet's model, and the Python agent of the
    README's own-agent snippet in my_agents.py."""
    pytest.importorskip("sb3_contrib")
    import re
    import shlex
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text()
    snippets = dict(re.findall(r"<!-- snippet: (\w+)[^>]*-->\n```python\n(.*?)```", readme, flags=re.S))
    (tmp_path / "runs").mkdir()
    (tmp_path / "train.py").write_text(snippets["sb3"])
    subprocess.run([sys.executable, "train.py"], cwd=tmp_path, check=True, capture_output=True, timeout=600)
    (tmp_path / "my_agents.py").write_text(snippets["own_agent"].split("\nresult = ")[0])
    block = readme.split("<!-- commands: rate -->", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) == 2 and all(c.startswith("five-towers rate ") for c in commands)
    for command in commands:
        argv = shlex.split(re.sub(r"--games \d+", "--games 16", command))[1:]
        if "--games" not in argv:
            argv += ["--games", "18"]
        done = subprocess.run([sys.executable, "-m", "five_towers_env.cli", *argv, "--no-progress"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}:\n{done.stderr[-2000:]}"
        assert "rates" in done.stdout
    assert (tmp_path / "runs" / "rate" / "rate.json").is_file()


def test_readme_headline_is_the_shipped_ladders():
    from five_towers_env.evaluation.ladder import shipped_ladder, summary_table

    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- ladder:headline:start -->\n", 1)[1].split("\n<!-- ladder:headline:end -->", 1)[0]
    ladders = [shipped_ladder(game, players, variant) for game, players, variant in HEADLINE
               if (ladder_folder(game) / f"{players}p-{variant}.json").is_file()]
    assert len(ladders) >= len(TWO_PLAYER) and table == summary_table(ladders)


def test_ladder_doc_shows_every_shipped_ladder():
    from five_towers_env.evaluation.ladder import shipped_ladder

    doc = (ROOT / "docs" / "ladder.md").read_text()
    for game, path in _shipped():
        players, variant = parse_setup_key(path.stem)
        lad = shipped_ladder(game, players, variant)
        assert lad.markdown() in doc, f"docs/ladder.md lacks the {game} {path.stem} ladder's table"
        assert f"five-towers ladder --game {game} --players {players} --variant {variant}" in doc


def test_ladder_docs_are_the_shipped_ladders():
    """docs/ladder.md's ladders and the README's headline are what tools/ladder_docs.py writes from the files."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ladder_docs", ROOT / "tools" / "ladder_docs.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for path, text in tool.files().items():
        assert path.read_text() == text, f"{path.relative_to(ROOT)} is stale: run python tools/ladder_docs.py"
    assert len(tool.shipped()) == sum(1 for _ in _shipped())

