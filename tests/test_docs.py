"""The docs state what is true: their tables are the code's layout, and the README's commands are CI's."""
import re
from pathlib import Path

import pytest

from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.observation import layout_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
#: the published tables of results: docs/results.md (the README links to it)
RESULTS_DOC = (ROOT / "docs" / "results.md").read_text()
ENV_DOC = (ROOT / "docs" / "environment.md").read_text()


def test_layout_table_matches_code():
    start = ENV_DOC.index("<!-- layout-table:start -->") + len("<!-- layout-table:start -->")
    end = ENV_DOC.index("<!-- layout-table:end -->")
    assert ENV_DOC[start:end].strip() == layout_table().strip(), \
        "docs/environment.md observation table is stale: regenerate it from layout_table()"


def test_action_table_offsets():
    for first, size, name in A.BLOCKS:
        row = f"| {first}-{first + size - 1} |" if size > 1 else f"| {first} |"
        assert row in ENV_DOC, f"docs/environment.md action table lacks the row for block {name!r} ({row})"
    assert f"Discrete({A.NUM_ACTIONS})" in ENV_DOC


def test_ci_runs_the_readme_test_command():
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text()
    command = ('python -m pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu'
               ' && python -m pip install -q -e ".[dev]" && python -m pytest -q')
    assert command in README and command in ci


def test_dict_table_matches_code():
    from five_towers_env.games.five_towers.dict_observation import dict_layout_table

    start = ENV_DOC.index("<!-- dict-table:start -->") + len("<!-- dict-table:start -->")
    end = ENV_DOC.index("<!-- dict-table:end -->")
    assert ENV_DOC[start:end].strip() == dict_layout_table().strip(), "docs/environment.md dict table is stale"


# -- the published figures (docs/results.md) are the result files' ---------------------------------------

RESULTS = ROOT / "results"


def _csv(path):
    import csv

    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _rate_cells(row, prefix=""):
    rate, lo, hi = (float(row[f"{prefix}{k}"]) for k in ("win_rate", "ci_low", "ci_high"))
    return f"{rate:.3f} | [{lo:.3f}, {hi:.3f}]"


def _policy_row(label: str, r: dict) -> str:
    return f"| {label} | {int(r['games']):,} ({int(r['deals'])}) | {_rate_cells(r)} | {_rate_cells(r, 'strict_')} |"


def shipped_rows() -> list[str]:
    """The table of the shipped 5 Towers policy (version 2), written from results/ppo_2p_v2."""
    pairs = {r["opponent"]: r for r in _csv(RESULTS / "ppo_2p_v2/tournament/tournament_pairs.csv")
             if r["agent"] == "ppo"}
    rows = [(opp, pairs[opp]) for opp in ("random", "greedy", "heuristic")]
    rows.append(("`ppo:version=1` (the first shipped policy)",
                 next(r for r in _csv(RESULTS / "ppo_2p_v2/vs_v1/evaluate_summary.csv") if r["agent"] == "ppo")))
    rows.append(("mcts (400 simulations)",
                 next(r for r in _csv(RESULTS / "ppo_2p_v2/mcts_vs_ppo/evaluate_summary.csv") if r["agent"] == "ppo")))
    return [_policy_row(label, r) for label, r in rows]


def headline_rows() -> list[str]:
    """The table of the first shipped policy (``ppo:version=1``, then named ``ppo``), written
    from results/headline_2p."""
    rows = _csv(RESULTS / "headline_2p/tournament/tournament_pairs.csv")
    pairs = {r["opponent"]: r for r in rows if r["agent"] == "ppo"}
    mcts = next(r for r in _csv(RESULTS / "headline_2p/mcts_vs_ppo/evaluate_summary.csv") if r["agent"] == "ppo")
    rows = [(opp, pairs[opp]) for opp in ("random", "greedy", "heuristic")] + [("mcts (400 simulations)", mcts)]
    return [_policy_row(label, r) for label, r in rows]


def baseline_rows() -> list[str]:
    """The matrix of the baselines (tie = 1/2), written from the same tournament and MCTS files."""
    matrix = {r["agent"]: r for r in _csv(RESULTS / "headline_2p/tournament/tournament_matrix.csv")}
    order = ["ppo", "heuristic", "greedy", "random"]
    mcts = {opp: next(r for r in _csv(RESULTS / f"headline_2p/mcts_vs_{opp}/evaluate_summary.csv")
                      if r["agent"].startswith("mcts"))
            for opp in ("ppo", "heuristic")}
    lines = []
    for a in order:
        cells = ["-" if a == b else f"{float(matrix[a][b]):.3f}" for b in order]
        lines.append(f"| {'ppo v1' if a == 'ppo' else a} | " + " | ".join(cells) + " |")
    cells = [f"{float(mcts[b]['win_rate']):.3f}" if b in mcts else "" for b in order]
    lines.append("| mcts (400 simulations) | " + " | ".join(cells) + " |")
    return lines


def test_results_doc_tables_are_the_result_files():
    for row in shipped_rows() + headline_rows() + baseline_rows():
        assert row in RESULTS_DOC, f"docs/results.md lacks the row written from results/: {row}"


def test_speed_headline_table_is_the_benchmark_file():
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("speed_table", ROOT / "benchmarks" / "speed_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = module.speed_table(json.loads((RESULTS / "benchmark" / "benchmark.json").read_text()), headline=True)
    assert table in (ROOT / "docs" / "speed.md").read_text(), \
        "docs/speed.md's headline table differs from results/benchmark/benchmark.json (benchmarks/speed_table.py)"


def test_readme_quick_start_table_is_the_committed_run():
    text = (RESULTS / "ppo_quick_2p" / "final_eval.md").read_text()
    table = text.split("```")[1].strip("\n")  # the table exactly as `five-towers train` printed it
    marked = README.split("<!-- table: main-job -->\n```\n", 1)[1].split("\n```", 1)[0]
    assert table.count("\n") >= 4 and table == marked, \
        "README quick-start table differs from results/ppo_quick_2p/final_eval.md"


def test_rl_extra_brings_what_the_documented_commands_need():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    rl = {re.split(r"[<>=;\[ ]", d)[0] for d in extras["rl"]}
    assert {"torch", "stable-baselines3", "sb3-contrib", "tqdm", "openskill", "matplotlib"} <= rl


def test_readme_links_stay_inside_the_repository():
    import re

    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)", doc.read_text()):
            if target.startswith(("http://", "https://")):
                continue
            assert (doc.parent / target).resolve().is_relative_to(ROOT), f"{doc.name} links outside the repo: {target}"
            assert (doc.parent / target).exists(), f"{doc.name} links to a missing file: {target}"


def test_campanile_figures_are_the_result_files():
    """The Campanile matrix and policy table, cell by cell, from results/campanile_2p."""
    matrix = {r["agent"]: r for r in _csv(RESULTS / "campanile_2p/tournament/tournament_matrix.csv")}
    agents = ["ppo", "heuristic", "greedy", "random"]
    for a in agents:
        cells = ["-" if a == b else f"{float(matrix[a][b]):.3f}" for b in agents]
        assert f"| {a} | " + " | ".join(cells) + " |" in RESULTS_DOC, f"Campanile matrix row {a} is stale"
    mcts = {opp: _csv(RESULTS / f"campanile_2p/mcts_vs_{opp}/evaluate_summary.csv")[0] for opp in agents}
    row = " | ".join(f"{float(mcts[o]['win_rate']):.3f}" for o in agents)
    assert f"| mcts (400 simulations) | {row} |" in RESULTS_DOC
    pairs = {r["opponent"]: r for r in _csv(RESULTS / "campanile_2p/tournament/tournament_pairs.csv")
             if r["agent"] == "ppo"}
    for opp in ("random", "greedy", "heuristic"):
        r = pairs[opp]
        line = (f"| {opp} | 1,000 (500) | {_rate_cells(r)} | "
                f"{_rate_cells(r, 'strict_').replace('strict_', '')} |")
        assert line in RESULTS_DOC, f"Campanile policy row against {opp} is stale: {line}"


#: the expert-iteration table of docs/results.md: its rows' result folders
EXPERT_RESULTS = ["expert_2p_dagger/guided_vs_mcts", "expert_2p_dagger/guided_vs_heuristic",
                  "expert_2p_dagger/net_vs_heuristic", "expert_2p_dagger/net_vs_mcts",
                  "expert_2p_dagger/ppo_vs_heuristic",
                  "expert_campanile_2p/guided_vs_heuristic", "expert_campanile_2p/guided_vs_mcts",
                  "expert_campanile_2p/net_vs_heuristic", "expert_campanile_2p/net_vs_mcts",
                  "expert_campanile_2p/ppo_vs_heuristic"]


#: the table of OpenSpiel's bots in docs/results.md: its rows' result folders (docs/openspiel.md shows it too)
OPENSPIEL_RESULTS = ["openspiel/mcts_vs_heuristic", "openspiel/mcts_vs_mcts", "openspiel/ismcts_vs_heuristic",
                     "openspiel/ismcts_vs_mcts"]


@pytest.mark.parametrize("folder", EXPERT_RESULTS + OPENSPIEL_RESULTS)
def test_evaluation_rows_are_the_result_files(folder):
    """Each row of the expert-iteration and OpenSpiel tables of docs/results.md: games, deals, both rates and intervals
    from its file (the OpenSpiel rows in docs/openspiel.md too)."""
    r = _csv(RESULTS / folder / "evaluate_summary.csv")[0]
    cells = f"| {int(r['games']):,} ({int(r['deals'])}) | {_rate_cells(r)} | {_rate_cells(r, 'strict_')} |"
    assert cells in RESULTS_DOC, f"docs/results.md lacks the row written from results/{folder}: {cells}"
    if folder in OPENSPIEL_RESULTS:
        assert cells in (ROOT / "docs" / "openspiel.md").read_text(), f"docs/openspiel.md lacks {cells}"


# -- the policy zoo: docs/results.md and docs/policies.md show the zoo tables of the shipped policies -----

POLICIES_DOC = (ROOT / "docs" / "policies.md").read_text()


def _between(text, marker):
    start = text.index(f"<!-- {marker}:start -->") + len(f"<!-- {marker}:start -->")
    return text[start:text.index(f"<!-- {marker}:end -->")].strip()


@pytest.mark.parametrize("game", ["five_towers", "campanile"])
def test_zoo_tables_are_the_result_files_of_the_shipped_policies(game):
    import json

    from five_towers_env.core.game import get_game
    from five_towers_env.evaluation.zoo import zoo_markdown

    folder = RESULTS / "zoo" / game
    table = (folder / "table.md").read_text().strip()
    data = json.loads((folder / "table.json").read_text())
    assert zoo_markdown(data["rows"]) == table  # the markdown is what the command wrote from its rows
    assert _between(RESULTS_DOC, f"zoo:{game}") == table
    assert _between(POLICIES_DOC, f"zoo:{game}") == table
    spec = get_game(game)
    for row in data["rows"]:  # measured with the files shipped now (a retrained policy needs a new table)
        assert spec.policy_path(row["num_players"], row["variant"]).name == row["policy"]
        assert row["games"] >= 1000 and row["games"] % row["num_players"] == 0
    every = {f"{n}p-{v}" for n in range(spec.min_players, spec.max_players + 1) for v in spec.variants}
    assert {row["setup"] for row in data["rows"]} == every


def test_policies_doc_names_every_shipped_file_and_its_curve():
    from five_towers_env.core.game import GAMES, get_game

    for game in GAMES:
        for rel in set(get_game(game).shipped_policies.values()):
            assert f"`{Path(rel).name}`" in POLICIES_DOC, rel
    for image in re.findall(r"\]\((\.\./results/[^)]+\.png)\)", POLICIES_DOC):
        assert (ROOT / "docs" / image).resolve().is_file(), image
