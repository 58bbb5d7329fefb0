"""Write the shipped ladders into the docs: ``docs/ladder.md``'s ladders section and the README's headline.

Both are made from the ladder files the games ship (``five_towers_env/games/<game>/ladder/<setup>.json``),
so a recalibration changes them only through this script, and ``tests/test_ladder.py`` fails until it
is run:

* ``docs/ladder.md``, from its ``## The ladders`` heading to the end: a table of every calibrated setup
  (its agents, games and widest interval), then a section per setup with its command, its table and its
  picture;
* ``README.md``, between ``<!-- ladder:headline:start -->`` and ``<!-- ladder:headline:end -->``: the
  2-player ladders side by side (:func:`~five_towers_env.evaluation.ladder.summary_table`).

    python tools/ladder_docs.py            # rewrite both (whole files)
    python tools/ladder_docs.py --check    # exit 1, naming them, if a committed file is stale
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: the package is the repository's
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # generated_files.py, beside this script

from generated_files import write_or_check  # noqa: E402

from five_towers_env.core.game import BUILTIN_GAMES, get_game, parse_setup_key, setup_key  # noqa: E402
from five_towers_env.evaluation.ladder import Ladder, ladder_folder, shipped_ladder, summary_table  # noqa: E402
from five_towers_env.evaluation.report import markdown_table  # noqa: E402

SCRIPT = "tools/ladder_docs.py"
LADDER_DOC = ROOT / "docs" / "ladder.md"
README = ROOT / "README.md"
HEADING = "## The ladders\n"
START, END = "<!-- ladder:headline:start -->\n", "\n<!-- ladder:headline:end -->"


def shipped() -> list[Ladder]:
    """Every shipped ladder: game by game, then by variant, then by players."""
    out = []
    for name in BUILTIN_GAMES:
        spec = get_game(name)
        if not spec.ladder:
            continue
        keys = [parse_setup_key(p.stem) for p in ladder_folder(spec).glob("*p-*.json")]
        for players, variant in sorted(keys, key=lambda k: (k[0] > 2, spec.variants.index(k[1]), k[0])):
            out.append(shipped_ladder(spec, players, variant))
    return out


def command(lad: Ladder) -> str:
    """The command that calibrates and ships ``lad``."""
    return (f"five-towers ladder --game {lad.game} --players {lad.num_players} --variant {lad.variant} "
            "--workers 2 --ship")


def results_dir(lad: Ladder) -> str:
    """``lad``'s results folder, relative to the repository."""
    return f"results/ladder/{lad.game}/{lad.setup}"


def widest(lad: Ladder) -> float:
    """The widest 95% half-width of the ladder's agents."""
    return max(a["half_width"] for a in lad.agents)


def total_games(lad: Ladder) -> int:
    """The games the ladder was fitted on (every game counts once per seat in its agents' games)."""
    return sum(a["games"] for a in lad.agents) // lad.num_players


def overview(ladders: list[Ladder]) -> str:
    """One row per calibrated setup: its agents, games and widest interval."""
    rows = [[f"[{get_game(lad.game).title} {lad.setup}](#{anchor(lad)})", str(len(lad.agents)),
             f"{total_games(lad):,}", f"±{widest(lad):.0f}"] for lad in ladders]
    return markdown_table(["setup", "agents", "games", "widest 95% interval"], rows)


def title(lad: Ladder) -> str:
    """The section heading of ``lad``."""
    return f"{get_game(lad.game).title}, {lad.num_players} players, {lad.variant}"


def anchor(lad: Ladder) -> str:
    """The Markdown anchor of ``lad``'s section heading (GitHub's and MkDocs' slug of :func:`title`)."""
    text = "".join(c for c in title(lad).lower() if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def section(lad: Ladder) -> str:
    """``lad``'s section: heading, command, table, footnote and picture."""
    where = results_dir(lad)
    return (f"### {title(lad)}\n\n```bash\n{command(lad)}\n```\n\n{lad.markdown()}\n\n"
            f"Plan seed {lad.seed}, {total_games(lad):,} games; every pair's score, the plan and the bootstrap "
            f"refits: [`ladder.json`](../{where}/ladder.json).\n\n"
            f"![{get_game(lad.game).title} {lad.setup} ladder](../{where}/ladder.png)\n")


def missing(ladders: list[Ladder]) -> str:
    """A sentence naming the setups without a shipped ladder, game by game."""
    have = {(lad.game, lad.setup) for lad in ladders}
    parts = []
    for name in BUILTIN_GAMES:
        spec = get_game(name)
        if not spec.ladder:
            continue
        lacking = [setup_key(n, v) for v in spec.variants for n in range(spec.min_players, spec.max_players + 1)
                   if (spec.name, setup_key(n, v)) not in have]
        if lacking:
            parts.append(f"{spec.title} {', '.join(lacking)}")
    if not parts:
        return "Every setup of every game has its ladder.\n"
    return (f"Not calibrated yet (`rate` refuses these setups and names the calibrated ones): {'; '.join(parts)}.\n")


def ladder_section(ladders: list[Ladder]) -> str:
    """``docs/ladder.md`` from :data:`HEADING` on."""
    parts = [HEADING, f"<!-- written by {SCRIPT} from the shipped ladder files; edit the script, not this -->\n",
             overview(ladders) + "\n", missing(ladders)]
    parts += [section(lad) for lad in ladders]
    return "\n".join(parts)


def headline(ladders: list[Ladder]) -> str:
    """The README's headline table: the 2-player ladders side by side."""
    return summary_table([lad for lad in ladders if lad.num_players == 2])


def files() -> dict[Path, str]:
    """Each file this script writes, with its text."""
    ladders = shipped()
    doc = LADDER_DOC.read_text()
    if HEADING not in doc:
        raise SystemExit(f"{LADDER_DOC.relative_to(ROOT)} has no {HEADING.strip()!r} heading")
    readme = README.read_text()
    if START not in readme or END not in readme:
        raise SystemExit(f"README.md lacks the {START.strip()} ... {END.strip()} markers")
    head, rest = readme.split(START, 1)
    tail = rest.split(END, 1)[1]
    return {LADDER_DOC: doc.split(HEADING, 1)[0] + ladder_section(ladders),
            README: head + START + headline(ladders) + END + tail}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a committed file is stale")
    args = parser.parse_args(argv)
    return write_or_check(files(), args.check, SCRIPT, "the ladder docs")


if __name__ == "__main__":
    sys.exit(main())
