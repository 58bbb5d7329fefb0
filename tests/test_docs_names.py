"""The README and every page of docs/ name only what exists: paths, configs, ``five-towers`` subcommands and
flags, agents and their settings, Python import paths (the checks: tests/doc_names.py). A wrong claim fails
here with ``file:line: what``.

The marked snippets run in tests/test_readme_snippets.py; the tables are the result files' in
tests/test_docs.py.
"""
from __future__ import annotations

import subprocess

import pytest

import doc_names as names

DOCS = names.doc_files()


def _all(check) -> list[str]:
    return [p for path in DOCS for p in check(names.read(path))]


@pytest.mark.parametrize("check", names.CHECKS, ids=lambda c: c.__name__)
def test_the_docs_name_what_exists(check):
    problems = _all(check)
    assert not problems, f"{check.__doc__.strip().splitlines()[0]}\n" + "\n".join(problems)


def test_the_configs_name_what_exists():
    """The paths in configs/*.yaml, in values and comments (``init_policy:``, "produces the policy ...")."""
    problems = [p for path in names.config_files() for p in names.check_paths(names.read(path))]
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def imports() -> names.Imports:
    out = names.Imports()
    for path in DOCS:
        found = names.check_imports(names.read(path))
        out.problems += found.problems
        for module, where in found.skipped.items():
            for w in where:
                out.skip(module, w)
    return out


def test_the_docs_import_what_exists(imports):
    assert not imports.problems, "\n".join(imports.problems)


def test_imports_of_packages_not_installed(imports):
    """What the docs import from a package this environment lacks is not checked here: said as a skip."""
    if imports.skipped:
        pytest.skip("not installed, so not checked: " + "; ".join(
            f"{module} ({', '.join(where)})" for module, where in sorted(imports.skipped.items())))


# -- the checks catch the known contradictions -------------------------------------------------------
#
# Each wrong claim, in its old wording, put back into today's text: where the fixed wording is there it is
# replaced, else the old wording is added at the end. The checks must report it on the claim's line, saying
# what each expected phrase says. The old wordings are quoted from the commit named (test below).

WRONG_CLAIMS = {
    "1 --game N": (
        "docs/evaluation.md", "cecc2d6",
        "(`--game` takes a\ngame's name, never a number)",
        "(`--game N`, a\nnumber, still means the same)",
        ["`--game N`: --game does not take a number"]),
    "2 every command takes --game": (
        "README.md", "cecc2d6",
        "# every command but train and expert takes --game campanile",
        "# every command takes --game campanile",
        ["says every command takes --game, but expert, train lack it"]),
    "3 a config that does not exist, credited with the shipped policies": (
        "docs/training.md", "cecc2d6",
        "five-towers train --config configs/ppo_five_towers_base_mcts.yaml     # 5 Towers: base, 3-5 players\n"
        "five-towers train --config configs/ppo_five_towers_gp_setups.yaml     # 5 Towers: Great Powers, 3-5 players\n",
        "five-towers train --config configs/ppo_five_towers_setups.yaml   "
        "# 5 Towers: base 3-5 players, Great Powers 2-5\n",
        ["configs/ppo_five_towers_setups.yaml: no such file",
         "configs/ppo_five_towers_setups.yaml: credited with a shipped policy, but no shipped file comes from"]),
    "4 typed_layout.py under agents/": (
        "docs/training.md", "bd8405a",
        "(`five_towers_env/games/five_towers/typed_layout.py`)",
        "(`five_towers_env/agents/typed_layout.py`)",
        ["five_towers_env/agents/typed_layout.py: no such file"]),
    "5 Campanile's policy under five_towers/, and one policy of three": (
        "docs/campanile.md", "cecc2d6",
        None,  # the row, rewritten: the old one is added
        "| agent | what it does |\n|---|---|\n"
        "| `ppo` | the shipped self-play PPO policy (`five_towers_env/games/five_towers/policies/ppo_campanile_2p.npz`,"
        " numpy only) |",
        ["five_towers_env/games/five_towers/policies/ppo_campanile_2p.npz: no such file",
         "`ppo` plays 4 shipped files of Campanile"]),
    "6 Campanile's agents without net, guided, openspiel-ismcts; ppo needing path=": (
        "docs/evaluation.md", "cecc2d6",
        "then Campanile's (`random`, `greedy`, `heuristic`, `mcts`, `net`, `guided`, `openspiel-ismcts`,\n"
        "`ppo`, `human`, `py`, `sb3`, `rllib`)",
        "then Campanile's (`random`, `greedy`, `heuristic`, `mcts`, `ppo` with a Campanile policy's\n"
        "`path=`, `human`)",
        ["Campanile's agents: the docs' list lacks guided, net, openspiel-ismcts",
         "says `ppo` needs path=, but Campanile's ppo plays without"]),
    "7 net's network shipped for 2 players": (
        "docs/evaluation.md", "cecc2d6",
        "default: the one the game ships, for `2p-base` in 5 Towers and `2p-pile` in Campanile)",
        "default: the one the game ships for 2 players)",
        ["ship networks for 2p-base, 2p-pile (GameSpec.shipped_networks); the line names none of them"]),
    "8 the config's comment on the policy's old path": (
        "configs/ppo_selfplay_2p.yaml", "cecc2d6",
        "# policy five_towers_env/games/five_towers/policies/ppo_2p_base.npz",
        "# policy five_towers_env/agents/policies/ppo_2p_base.npz",
        ["five_towers_env/agents/policies/ppo_2p_base.npz: no such file"]),
}


def _problems(name: str, text: str) -> list[str]:
    doc = names.read(names.ROOT / name, text)
    if name.startswith("configs/"):
        return names.check_paths(doc)
    return names.problems_of(doc)


@pytest.mark.parametrize("claim", WRONG_CLAIMS)
def test_the_checks_catch_the_known_wrong_claims(claim):
    name, _, fixed, old, expected = WRONG_CLAIMS[claim]
    today = (names.ROOT / name).read_text()
    if fixed is not None and fixed in today:
        wrong = today.replace(fixed, old, 1)
        line = today[:today.index(fixed)].count("\n") + 1
    else:
        wrong = today.rstrip("\n") + "\n\n" + (f"```bash\n{old}```" if old.startswith("five-towers") else old) + "\n"
        line = today.rstrip("\n").count("\n") + 3
    lines = range(line, line + old.count("\n") + 2)  # the claim's lines (a fence added: one more)
    found = [p for p in _problems(name, wrong) if p not in _problems(name, today)]
    for phrase in expected:
        assert any(phrase in p and names._order(p)[1] in lines for p in found), \
            f"claim {claim!r}: no problem says {phrase!r} on lines {lines.start}-{lines.stop - 1}; found:\n" \
            + "\n".join(found)


def test_the_wrong_claims_are_quoted_from_history():
    """Each old wording above is the text of its file at the commit named (where history is at hand)."""
    for claim, (name, commit, _, old, _) in WRONG_CLAIMS.items():
        shown = subprocess.run(["git", "show", f"{commit}:{name}"], cwd=names.ROOT, capture_output=True, text=True)
        if shown.returncode != 0:
            pytest.skip(f"no git history here ({commit}:{name})")
        quoted = old.split("\n", 2)[-1] if old.startswith("| agent |") else old  # the table head is added
        assert quoted in shown.stdout, f"claim {claim!r}: {commit}:{name} does not hold {quoted!r}"


# -- the checks themselves, on small pages -----------------------------------------------------------

CAUGHT = [
    ("[the rules](rules.md#no-such-heading)", "rules.md has no heading #no-such-heading"),
    ("[up](#nowhere)\n\n## Somewhere\n", "the page has no heading #nowhere"),
    ("`games/<game>/no_such_module.py`", "games/<game>/no_such_module.py: no such file"),
    ("`policies/ppo_7p.npz`", "policies/ppo_7p.npz: no such file"),
    ("`no_such_config.yaml`", "no_such_config.yaml: no file of this name"),
    ("`five_towers_env/FiveTowers-v9`", "five_towers_env/FiveTowers-v9: no such Gymnasium id"),
    ("```bash\nfive-towers evaluate --agents mcts heuristic --gmaes 10\n```", "evaluate has no --gmaes"),
    ("```bash\nfive-towers evaluate --agents mcts heuristic --games ten\n```", "does not parse"),
    ("```bash\nfive-towers train --config configs/ppo_smoke.yaml --game campanile\n```", "train has no --game"),
    ("```bash\nfive-towers evaluate --game campanile --agents openspiel-mcts heuristic\n```",
     "unknown agent 'openspiel-mcts' for Campanile"),
    ("`five-towers rate mcts:sims=3`", "mcts has no setting 'sims'"),
    ("`five-towers plya --agents human`", "no such subcommand"),
    ("`--agents ppo --field heuristc --players 4`", "unknown agent 'heuristc'"),
    ("`--no-such-flag`", "--no-such-flag: no five-towers subcommand has it"),
    ("```bash\npython benchmarks/bench.py --seconds 3 --no-such-flag\n```", "the script has no --no-such-flag"),
    ("`five-towers play | replay | evaluate`", "the list of commands, lacks"),
    ("every command takes `--seed`", "says every command takes --seed, but"),
    ("`--workers N`, `--variant 2`", "--variant does not take a number"),
    ("`mcts:simulation=400`", "mcts:simulation=400"),
    ("`from five_towers_env.core.game import GameSpecs`", "five_towers_env.core.game has no GameSpecs"),
    ("```python\nimport five_towers_env.no_such_module\n```", "five_towers_env has no no_such_module"),
    ("`five_towers_env.evaluation.rate.rates`", "five_towers_env.evaluation.rate has no rates"),
    ("`7p-base`", "7p-base: no game has this setup"),
    ("Since issue 41 the docs are checked.", "'issue 41'"),
    ("I will write it later.", "'I will'"),
]


@pytest.mark.parametrize("text, says", CAUGHT, ids=[says for _, says in CAUGHT])
def test_a_check_catches(text, says):
    problems = names.problems_of(names.read(names.ROOT / "docs" / "synthetic.md", text))
    assert any(says in p for p in problems), problems


PASSES = [
    "`games/<game>/state.py`, `policies/*.npz`, `agents/flat_search.py`, [policies](policies.md#the-policies)",
    "`five-towers play --game-index N`, `five-towers train --resume <path>`, `--html/--svg`, `--games N`",
    "`mcts:sims=10` is an error, and so is `mcts:simulations=abc`",
    "`five_towers_env.core.game.GameSpec`, `from five_towers_env.evaluation import evaluate`",
    "```bash\nfive-towers evaluate --game campanile --agents openspiel-ismcts:simulations=300 mcts --games 100\n```",
    "the log's headings: [expert iteration](experiments.md#expert-iteration-issue-29)",
]


@pytest.mark.parametrize("text", PASSES)
def test_a_check_passes(text):
    assert names.problems_of(names.read(names.ROOT / "docs" / "synthetic.md", text)) == []
