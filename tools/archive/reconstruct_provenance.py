"""Write a reconstructed ``provenance.json`` into every folder of ``results/`` that has no real one.

The folders made before provenance files existed (``five_towers_env/provenance.py``) get one written
afterwards from git history and the table of ``results/README.md``:

- ``command``: the folder's row's command (the first command of its command column; for a training
  run resumed in legs, the last leg, the earlier legs in ``earlier``);
- ``commit``: the commit that first added the folder's files (``git log --diff-filter=A``, merges
  included, the paths before the restructure of ``results/`` included); ``later_commits``: the
  commits that changed those files since (a re-run's files are the last one's);
- ``version``: the package's ``__version__`` at that commit; ``dirty``, ``environment``, ``started``:
  unknown (``null``);
- ``machine`` / ``libraries``: from the folder's ``machine.txt`` where it has one, else ``null``;
- ``wall_s``: from the folder's ``stdout.txt`` / ``*_stdout.txt`` / ``*_time.txt`` (a last ``N s wall``
  line, or the shell's ``real 1m2.3s``), else ``null``;
- ``reconstructed: true`` and a ``note`` saying so.

    python tools/archive/reconstruct_provenance.py            # write the missing (and reconstructed) ones
    python tools/archive/reconstruct_provenance.py --check    # only list what would be written; exit 1 if any

A folder whose ``provenance.json`` was written by its command (no ``reconstructed``) is left alone, and
the files are written in a fixed form (no time of writing), so running it again changes nothing. It
needs git and a checkout with its history. ``tests/test_provenance.py`` reads the table with
:func:`readme_commands`.
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
FILENAME = "provenance.json"
NOTE = ("reconstructed: written afterwards by tools/archive/reconstruct_provenance.py from git history and "
        "results/README.md, for a result made before provenance files existed")
#: the programs a command of the table runs (other spans of its command cell are preparation or paths)
PROGRAMS = ("five-towers", "python", "bash")
#: the training commands whose invocations continue one run folder (legs)
LEG_COMMANDS = ("five-towers train", "five-towers expert")

# the restructure of results/ (one folder per command): where each moved file was before, so that
# its history is found before that move is committed (after it, the old path still finds the first add)
_EVALUATIONS = ["campanile_2p/" + n for n in ("mcts_vs_greedy", "mcts_vs_heuristic", "mcts_vs_ppo", "mcts_vs_random",
                                              "tournament")]
_EVALUATIONS += ["expert_2p/" + n for n in ("guided48_vs_mcts", "guided_vs_heuristic", "guided_vs_mcts",
                                            "net_vs_heuristic", "net_vs_mcts", "ppo_vs_heuristic")]
_EVALUATIONS += ["expert_campanile_2p/" + n for n in ("guided_vs_heuristic", "guided_vs_mcts", "net_vs_heuristic",
                                                      "net_vs_mcts", "ppo_vs_heuristic")]
_EVALUATIONS += ["headline_2p/mcts_vs_heuristic", "headline_2p/mcts_vs_ppo", "headline_2p/tournament"]
_EVALUATIONS += ["openspiel/" + n for n in ("ismcts_vs_heuristic", "ismcts_vs_mcts", "mcts_vs_heuristic",
                                            "mcts_vs_mcts")]
_EVALUATIONS += ["ppo_2p_v2/mcts_vs_ppo", "ppo_2p_v2/tournament", "ppo_2p_v2/vs_v1"]
#: new path -> old path, both relative to results/
MOVED: dict[str, str] = {f"{f}/stdout.txt": f"{f}_stdout.txt" for f in _EVALUATIONS}
for _name in ("benchmark", "interleaving", "mcts_ab_base", "mcts_ab_gp", "train_throughput",
              "expert_2p/decision_time", "expert_2p/decision_time_48", "expert_campanile_2p/decision_time",
              "rllib/throughput_0_runners", "rllib/throughput_1_runners", "rllib/throughput_2_runners"):
    _base = _name.rpartition("/")[2]
    MOVED[f"{_name}/{_base}.json"] = f"{_name}.json"
    MOVED[f"{_name}/stdout.txt"] = f"{_name}_stdout.txt"
for _name in ("fingerprint", "timing_campanile", "timing_campanile_search_every_turn", "timing_five_towers",
              "timing_five_towers_great_powers"):
    MOVED[f"search_ab/{_name}/{_name}.json"] = f"search_ab/{_name}.json"
for _ext in ("csv", "png"):
    MOVED[f"ppo_2p_typed/checkpoint_curve/checkpoint_curve.{_ext}"] = f"ppo_2p_typed/checkpoint_curve.{_ext}"
MOVED["ppo_2p_typed/checkpoint_curve/stdout.txt"] = "ppo_2p_typed/checkpoint_curve_stdout.txt"
MOVED["rllib/ci_rllib/stdout.txt"] = "rllib/ci_rllib_stdout.txt"


# -- the table of results/README.md ---------------------------------------------------------------

def normalize(command: str) -> str:
    """A command of the table as ``provenance.json`` records it: without the shell's ``NAME=value``
    before it and ``> FILE`` / ``2>&1`` after it."""
    command = re.sub(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+", "", command.strip())
    command = re.sub(r"\s+(?:\d?>>?\s*\S+|\d>&\d)(?:\s+(?:\d?>>?\s*\S+|\d>&\d))*\s*$", "", command)
    return command.strip()


def _is_command(span: str) -> bool:
    return normalize(span).split(" ", 1)[0] in PROGRAMS


def readme_commands(text: str) -> dict[str, list[str]]:
    """The table of ``results/README.md``: each folder (relative to ``results/``, no trailing slash)
    of a row's first cell -> the commands of its last cell, in order, normalized."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        folders = re.findall(r"`([^`]+)`", cells[0])
        commands = [normalize(s) for s in re.findall(r"`([^`]+)`", cells[-1]) if _is_command(s)]
        for folder in folders:
            if folder.endswith("/"):
                found[folder.rstrip("/")] = commands
    return found


def provenance_command(commands: list[str]) -> tuple[str, list[str]]:
    """The command a folder's ``provenance.json`` records, and the earlier legs' commands: the first
    command, or for a training run resumed in legs (several ``train`` / ``expert`` commands) the last leg."""
    if not commands:
        raise ValueError("a row without a command")
    first = commands[0]
    if first.startswith(LEG_COMMANDS):
        legs = [c for c in commands if c.startswith(LEG_COMMANDS)]
        return legs[-1], legs[:-1]
    return first, []


# -- git and the folder's own files ------------------------------------------------------------------

def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout


def own_files(folder: str, folders: set[str]) -> list[Path]:
    """The files of ``folder`` (relative to results/) that its command wrote: those in it and in its
    subfolders that have no row of their own (README.md and provenance.json left out)."""
    base = RESULTS / folder
    out = []
    for path in sorted(base.rglob("*")):
        if not path.is_file() or path.name in ("README.md", FILENAME):
            continue
        parent = path.parent.relative_to(RESULTS).as_posix()
        while parent != folder and parent not in folders:
            parent = parent.rpartition("/")[0]
        if parent == folder:
            out.append(path)
    return out


def history(files: list[Path]) -> tuple[str | None, list[str]]:
    """The commit that first added ``files`` (their paths before the restructure included) and the
    later commits that changed them, oldest first."""
    paths = []
    for path in files:
        rel = path.relative_to(RESULTS).as_posix()
        paths.append(f"results/{rel}")
        if rel in MOVED:
            paths.append(f"results/{MOVED[rel]}")
    if not paths:
        return None, []
    added = _git("log", "-m", "--no-renames", "--diff-filter=A", "--format=%H", "--", *paths).split()
    if not added:
        return None, []
    first = added[-1]
    changed = _git("log", "-m", "--no-renames", "--diff-filter=M", "--format=%H", f"{first}..HEAD", "--",
                   *paths).split()
    return first, list(dict.fromkeys(reversed(changed)))


def version_at(commit: str) -> str | None:
    try:
        text = _git("show", f"{commit}:five_towers_env/__init__.py")
    except subprocess.CalledProcessError:
        return None
    match = re.search(r'^__version__ = "([^"]+)"', text, flags=re.M)
    return match.group(1) if match else None


def wall_seconds(folder: Path) -> float | None:
    """The wall time a printout of ``folder`` ends with (``N s wall``, or the shell's ``real 1m2.3s``)."""
    for path in sorted(folder.iterdir()):
        if not (path.name == "stdout.txt" or re.search(r"(_stdout|_time)\.txt$", path.name)):
            continue
        for line in reversed(path.read_text(errors="replace").splitlines()):
            match = re.match(r"^(\d+(?:\.\d+)?) s wall\b", line.strip())
            if match:
                return float(match.group(1))
            match = re.match(r"^real\s+(\d+)m(\d+(?:\.\d+)?)s$", line.strip())
            if match:
                return round(int(match.group(1)) * 60 + float(match.group(2)), 2)
    return None


def machine_txt(folder: Path) -> tuple[dict | None, dict | None]:
    """``machine.txt`` (``.ci/quickstart.py --machine``) as provenance's ``machine`` and ``libraries``."""
    path = folder / "machine.txt"
    if not path.is_file():
        return None, None
    fields = dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)
    cpu = fields.get("cpu", "")
    match = re.match(r"^(.*?) \(flags: ([^)]*)\)$", cpu)
    machine = {"cpu": match.group(1) if match else cpu or None, "simd": match.group(2).split() if match else None}
    libraries = {k: fields[k] for k in ("python", "numpy", "torch") if k in fields}
    return machine, libraries or None


def reconstruct(folder: str, commands: list[str], folders: set[str]) -> dict:
    """The reconstructed ``provenance.json`` of ``folder`` (relative to results/)."""
    command, earlier = provenance_command(commands)
    files = own_files(folder, folders)
    commit, later = history(files)
    machine, libraries = machine_txt(RESULTS / folder)
    data = {
        "command": command,
        "commit": commit,
        "dirty": None,
        "environment": None,
        "libraries": libraries,
        "machine": machine,
        "note": NOTE,
        "reconstructed": True,
        "started": None,
        "version": version_at(commit) if commit else None,
        "wall_s": wall_seconds(RESULTS / folder),
    }
    if earlier:
        data["earlier"] = [{"command": c} for c in earlier]
    if later:
        data["later_commits"] = later
    return dict(sorted(data.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list what would be written; write nothing")
    args = parser.parse_args(argv)
    rows = readme_commands((RESULTS / "README.md").read_text())
    todo = []
    for folder, commands in rows.items():
        if not (RESULTS / folder).is_dir():
            print(f"results/README.md names {folder}/, which does not exist", file=sys.stderr)
            return 2
        path = RESULTS / folder / FILENAME
        if path.exists():
            old = json.loads(path.read_text())
            if not old.get("reconstructed"):
                continue  # written by its command
        data = reconstruct(folder, commands, set(rows))
        text = json.dumps(data, indent=2) + "\n"
        if path.exists() and path.read_text() == text:
            continue
        todo.append(path)
        if not args.check:
            sys.path.insert(0, str(ROOT))
            from five_towers_env.atomic import write_text

            write_text(path, text)
        print(f"{'would write' if args.check else 'wrote'} {path.relative_to(ROOT)}")
    return 1 if args.check and todo else 0


if __name__ == "__main__":
    sys.exit(main())
