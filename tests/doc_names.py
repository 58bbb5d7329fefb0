"""What the README and docs/ name must exist, and a few claims they make must hold: the checks of
tests/test_docs_names.py.

Each ``check_*`` function takes a :class:`Doc` (a Markdown page; a config file for :func:`check_paths`)
and returns its problems as ``"file:line: what"`` strings. The checks find names by precise patterns
(inline code, fenced shell blocks, link targets, paths rooted at a top folder) rather than by lists of
exceptions; the two exceptions there are (:data:`INVALID_ON_PURPOSE`, :data:`PAGE_GAME`) are short and
commented. docs/experiments.md (:data:`LOG`) is a log: the files and flags it names may be gone since, if
the repository's history has them, and it may give issue numbers and plans.

- :func:`check_paths`: repository paths (rooted, ``../``, package-relative such as ``agents/flat_search.py``,
  with ``<placeholder>``, ``*`` or ``{a,b}`` matching any name), bare module and config names, ``REV:path``
  at its commit, and Gymnasium ids;
- :func:`check_links`: relative links and their ``#anchors``;
- :func:`check_commands`: every ``five-towers ...`` command: its subcommand and flags are the parser's
  (``build_parser()``), a whole one parses, its agents are the game's with settings they accept; every
  ``python <script>.py --flag`` of a repository script: the script has the flag;
- :func:`check_flags`: a ``--flag`` alone in inline code is a flag of ``five-towers`` (or of a script
  the paragraph names), and one written with a number (``--game N``) takes a number;
- :func:`check_every_command`: "every command (but A and B) takes --X" holds, and a list of the commands
  (``five-towers play | replay | ...``) has every subcommand;
- :func:`check_agent_specs`: ``name:key=value`` in inline code is an agent of the game with those settings;
- :func:`check_agent_lists`: a list of a game's agents, or a page's agent table, is the game's registry;
  a ``ppo`` row naming shipped files names all; an agent said to need ``path=`` needs it; ``net``'s
  network "shipped for" names the setups of ``GameSpec.shipped_networks``;
- :func:`check_setups`: a setup written ``3p-played`` is one of a game's;
- :func:`check_shipped_runs`: a training command credited with a shipped policy trains one (the run a
  shipped file's ``meta`` names);
- :func:`check_wording`: no issue numbers or first-person plans outside the log;
- :func:`check_imports`: Python imports and dotted ``five_towers_env.`` names import and resolve (a
  third-party module that is not installed is reported as skipped).
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.util
import io
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "five_towers_env"


def doc_files() -> list[Path]:
    """The README and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def config_files() -> list[Path]:
    return sorted((ROOT / "configs").glob("*.yaml"))


# -- reading a page ---------------------------------------------------------------------------------

SHELL = {"bash", "sh", "shell", "console"}


@dataclass
class Block:
    line: int  # the line of its first code line
    lang: str
    code: str


@dataclass
class Doc:
    """A page: its text, its prose (fenced blocks blanked, offsets kept) and its fenced blocks."""

    name: str  # relative to the repository root, as problems name it
    text: str
    prose: str = ""
    blocks: list[Block] = field(default_factory=list)

    def __post_init__(self) -> None:
        lines = self.text.split("\n")
        out: list[str] = []
        fence: str | None = None
        for i, line in enumerate(lines):
            stripped = line.lstrip()
            if fence is None and stripped.startswith(("```", "~~~")):
                fence = stripped[:3]
                self.blocks.append(Block(i + 2, stripped[3:].strip().lower(), ""))
                out.append(" " * len(line))
            elif fence is not None and stripped.startswith(fence):
                fence = None
                out.append(" " * len(line))
            elif fence is not None:
                self.blocks[-1].code += line + "\n"
                out.append(" " * len(line))
            else:
                out.append(line)
        self.prose = "\n".join(out)

    @property
    def path(self) -> Path:
        return ROOT / self.name

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def line(self, number: int) -> str:
        return self.text.split("\n")[number - 1]

    def paragraph(self, number: int) -> str:
        """The lines around line ``number`` up to the blank lines before and after."""
        lines = self.text.split("\n")
        first = last = number - 1
        while first > 0 and lines[first - 1].strip():
            first -= 1
        while last + 1 < len(lines) and lines[last + 1].strip():
            last += 1
        return "\n".join(lines[first:last + 1])

    def spans(self) -> Iterator[tuple[int, str]]:
        """Inline code spans of the prose (a span may wrap a line), as ``(line, content)``."""
        for m in re.finditer(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", self.prose, flags=re.S):
            yield self.line_of(m.start()), " ".join(m.group(2).split())

    def shell_lines(self) -> Iterator[tuple[int, str]]:
        """The lines of the fenced shell blocks, a backslash continuation joined to its line."""
        for block in self.blocks:
            if block.lang not in SHELL:
                continue
            pending, start = "", 0
            for i, line in enumerate(block.code.split("\n")):
                if not pending:
                    start = block.line + i
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                yield start, pending + line
                pending = ""


def read(path: Path, text: str | None = None) -> Doc:
    return Doc(path.relative_to(ROOT).as_posix(), path.read_text() if text is None else text)


#: the one page that is a log: issue numbers and first-person plans belong there, and the files it names
#: may be gone since (each must be in the repository's history)
LOG = "docs/experiments.md"


def _where(doc: Doc, line: int, what: str) -> str:
    return f"{doc.name}:{line}: {what}"


# -- paths ----------------------------------------------------------------------------------------

#: the repository's top-level folders a path in the docs may start with
TOP = ("five_towers_env", "tests", "configs", "examples", "benchmarks", "training", "tools", "results", "docs",
       ".ci")
#: a rooted path anywhere in the text (prose, code, comments): a top folder, then a slash; ``REV:path`` is a
#: file at commit REV
ROOTED = re.compile(r"(?<![\w./~$<>@-])((?:[0-9a-f]{7,40}:)?(?:\.\./)*(?:" + "|".join(map(re.escape, TOP))
                    + r")/[\w.*<>{}/-]*)")
#: a relative path in inline code: a slash and a file suffix (``agents/flat_search.py``, ``policies/*.npz``)
SUFFIXES = ("py", "yaml", "yml", "npz", "md", "json", "csv", "png", "svg", "html", "txt", "gz", "toml", "cfg")
RELATIVE = re.compile(r"(?<![\w./~$<>:=-])([\w.*<>{}-]+(?:/[\w.*<>{}-]+)*/[\w*<>{}-]*\.(?:"
                      + "|".join(SUFFIXES) + r"))(?![\w/])")
#: a file named without its folder: a module, a config, a shipped network (``typed_layout.py``,
#: ``ppo_campanile_2p.yaml``, ``pv_*.npz``); not a flag's or a setting's value (``--record game.json``,
#: ``py:path=file.py``, the user's), nor other files a run writes (``policy.npz``)
BARE = re.compile(r"(?<![\w./<>*=-])([\w*-]+\.(?:py|yaml)|(?:ppo|pv)_[\w*-]*\.npz)(?![\w/])")
#: a Gymnasium id ``five_towers_env/Name-vN`` (it looks like a path)
GYM_ID = re.compile(r"^five_towers_env/[A-Z]\w*-v\d+$")


def _git(*args: str) -> str | None:
    """``git args`` in the repository: its output, or None where it fails (no git, no checkout, no such object)."""
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


@cache
def history_at_hand() -> bool:
    """Whether the repository's whole history is here (a git checkout, not shallow): without it, the log's
    names of files since gone and ``REV:path`` are not checked."""
    return _git("rev-parse", "--is-shallow-repository") == "false\n"


@cache
def _files() -> frozenset[str]:
    """Every file of the repository, relative to the root: tracked, or new and not ignored (``runs/`` and other
    outputs are not the repository's); what is on disk where this is no checkout."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if listed is not None:
        return frozenset(f for f in listed.split("\0") if f)
    return frozenset(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                     if p.is_file() and not {".git", "runs", "__pycache__"} & set(p.parts))


@cache
def _folders() -> frozenset[str]:
    return frozenset(str(parent) for f in _files() for parent in PurePosixPath(f).parents if str(parent) != ".")


@cache
def repository() -> tuple[str, ...]:
    """Every tracked file and folder."""
    return tuple(sorted(_files() | _folders()))


@cache
def _folder_names() -> frozenset[str]:
    return frozenset(PurePosixPath(f).name for f in _folders())


def _glob_regex(path: str) -> str:
    """``games/<game>/state.py`` -> a regex where ``<game>``, ``{a,b}``, ``...`` and ``*`` stand for any one
    name (never a slash), ``**`` for any folders."""
    out = []
    for piece in re.split(r"(<[^<>/]*>|\{[^{}/]*\}|\.\.\.|\*\*/|\*)", path):
        if piece == "**/":
            out.append("(?:.*/)?")
        elif piece and (piece in ("*", "...") or piece[0] in "<{"):
            out.append("[^/]*")
        else:
            out.append(re.escape(piece))
    return "".join(out)


def _matches(regex: str) -> bool:
    pattern = re.compile(regex)
    return any(pattern.fullmatch(f) for f in repository())


@cache
def _package_source() -> str:
    return "\n".join(p.read_text() for p in sorted(PACKAGE.rglob("*.py")))


@cache
def _existed(path: str, relative: bool) -> bool:
    """Whether the repository's history has ``path`` (the log names what was there then); True where the
    history is not at hand."""
    if not history_at_hand():
        return True
    spec = re.sub(r"<[^<>/]*>", "*", f":(glob)**/{path}" if relative else f":(glob){path}")
    return bool(_git("log", "-1", "--format=%h", "--", spec, f":(glob)five_towers_env/{path}"))


def _path_problem(doc: Doc, path: str, relative: bool) -> str | None:
    path = path.rstrip(".").rstrip("/") or path
    if GYM_ID.match(path):
        return None if path in _gym_ids() else f"{path}: no such Gymnasium id"
    m = re.match(r"([0-9a-f]{7,40}):(.*)", path)
    if m:  # a file at a commit
        found = not history_at_hand() or _git("cat-file", "-e", f"{m.group(1)}:{m.group(2)}") is not None
        return None if found else f"{path}: no such file at commit {m.group(1)}"
    if path.startswith("../"):
        resolved = (doc.path.parent / path).resolve()
        if not resolved.is_relative_to(ROOT):
            return f"{path}: outside the repository"
        path = resolved.relative_to(ROOT).as_posix()
    regex = _glob_regex(path)
    if relative:  # written from a folder the text names nearby: agents/search_hooks.py, policies/*.npz
        found = _matches(f"(?:.*/)?{regex}")
    else:
        found = _matches(regex) or _matches(f"five_towers_env/{regex}")
    if found:
        return None
    if "<" in path and path in _package_source():
        return None  # a pattern the code writes (a default output folder, results/ladder/<game>/<setup>)
    if doc.name == LOG and _existed(path, relative):
        return None
    return f"{path}: no such file or folder"


def check_paths(doc: Doc) -> list[str]:
    """Every repository path the page names exists (resolved against the root and ``five_towers_env/``; a
    path in inline code that starts at a folder of the repository, against any folder; ``<placeholder>``,
    ``{a,b}`` and ``*`` match any name; ``REV:path`` at commit REV; the log's paths in the history)."""
    problems = []
    for m in ROOTED.finditer(doc.text):
        problem = _path_problem(doc, m.group(1), relative=False)
        if problem:
            problems.append(_where(doc, doc.line_of(m.start()), problem))
    for line, span in doc.spans():
        for m in RELATIVE.finditer(span):
            path = m.group(1)
            if path.startswith(TOP) or path.split("/")[0] not in _folder_names():
                continue  # rooted (checked above), or not a folder of the repository: runs/, DIR/, <run>/
            problem = _path_problem(doc, path, relative=True)
            if problem:
                problems.append(_where(doc, line, problem))
        for m in BARE.finditer(span):  # a module, a config or a shipped network named without its folder
            if not _matches(f"(?:.*/)?{_glob_regex(m.group(1))}") and not (
                    doc.name == LOG and _existed(m.group(1), relative=True)):
                problems.append(_where(doc, line, f"{m.group(1)}: no file of this name"))
    return sorted(set(problems), key=_order)


@cache
def _gym_ids() -> frozenset[str]:
    import gymnasium

    import five_towers_env  # noqa: F401  (registers the ids)

    return frozenset(gymnasium.registry)


def _order(problem: str) -> tuple[str, int, str]:
    name, line, what = problem.split(":", 2)
    return name, int(line), what


# -- links ----------------------------------------------------------------------------------------


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(text: str) -> frozenset[str]:
    """The anchors of a page's headings (a repeated heading's second is ``slug-1``)."""
    found: list[str] = []
    for m in re.finditer(r"^#{1,6} (.+)$", Doc("", text).prose, flags=re.M):
        slug = _slug(m.group(1))
        n = sum(1 for s in found if s == slug or re.fullmatch(re.escape(slug) + r"-\d+", s))
        found.append(slug if n == 0 else f"{slug}-{n}")
    return frozenset(found)


def check_links(doc: Doc) -> list[str]:
    """A relative link points at a file of the repository, and its ``#anchor`` at a heading there."""
    problems = []
    for m in re.finditer(r"\]\(([^)\s]+)\)", doc.prose):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        file, _, anchor = target.partition("#")
        path = (doc.path.parent / file).resolve()
        line = doc.line_of(m.start())
        if not path.is_relative_to(ROOT):
            problems.append(_where(doc, line, f"{target}: a link outside the repository"))
        elif file and path.relative_to(ROOT).as_posix() not in repository():
            problems.append(_where(doc, line, f"{target}: no such file"))
        elif anchor and (not file or path.suffix == ".md"):
            text = path.read_text() if file else doc.text
            if anchor not in _anchors(text):
                problems.append(_where(doc, line, f"{target}: {path.name if file else 'the page'} has no heading "
                                                  f"#{anchor}"))
    return problems


# -- the command line -----------------------------------------------------------------------------


@cache
def _parser() -> argparse.ArgumentParser:
    from five_towers_env.cli import build_parser

    return build_parser()


@cache
def subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def flags(command: str) -> dict[str, argparse.Action]:
    return {o: a for a in subcommands()[command]._actions for o in a.option_strings}


def _parse(argv: list[str]) -> tuple[argparse.Namespace | None, str]:
    """``five-towers argv`` parsed, or None and the parser's message."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return _parser().parse_args(argv), ""
    except SystemExit:
        return None, " ".join(err.getvalue().split()) or "rejected"


#: a token that stands for a value (``N``, ``AGENT``, ``<run>``, ``...``): the command is a pattern
PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z_|]*|.*<[^>]*>.*|.*\.\.\..*|…)$")
#: what ends a command in a shell line
OPERATORS = {"&&", "||", ";", "|", ">", "2>&1"}


def _game_of(tokens: list[str], default: str | None = None) -> str:
    from five_towers_env.core.game import DEFAULT_GAME

    for i, t in enumerate(tokens[:-1]):
        if t == "--game":
            return tokens[i + 1]
        if t.startswith("--game="):
            return t.split("=", 1)[1]
    return default or DEFAULT_GAME


def _agent_problem(text: str, game: str) -> str | None:
    """Why agent ``text`` is not one of ``game``'s with settings it accepts, or None. A setting written as a
    pattern (``path=<file>``, ``path=CHECKPOINT``) is checked by name only."""
    from five_towers_env.agents.registry import ANY_SETTING, agent_settings, parse_agent_text

    name, _, rest = text.partition(":")
    items = [item for item in rest.split(",") if item]
    patterns = [item.partition("=")[0] for item in items if PLACEHOLDER.match(item.partition("=")[2])]
    concrete = [item for item in items if item.partition("=")[0] not in patterns]
    try:
        parse_agent_text(":".join([name, ",".join(concrete)]) if concrete else name, game=game)
        accepted = agent_settings(name, game=game)
    except ValueError as exc:  # AgentSettingError; an unknown game
        return f"agent {text!r}: {' '.join(str(exc).split())}"
    except ImportError:  # an agent of an optional extra that is not installed (openspiel-*): its settings unread
        return None
    unknown = [key for key in patterns if key not in accepted and ANY_SETTING not in accepted]
    return f"agent {text!r}: {name} has no setting {unknown[0]!r}" if unknown else None


def _command_problems(tokens: list[str], whole: bool) -> list[str]:
    """What is wrong with ``five-towers tokens``: a name that is not a subcommand, a flag the subcommand
    lacks; for a whole command (a shell line without placeholders) the parser's own error and the agents'
    problems, for a fragment (inline code, a pattern) those of :func:`_fragment_problems`."""
    if not tokens or tokens[0].endswith(":"):
        return []  # `five-towers train: error: ...` is a message, not a command
    names: list[str] = []
    rest = tokens
    while rest and re.fullmatch(r"[a-z]+(?:[|/][a-z]+)*", rest[0]):  # play, play/evaluate, play | replay
        names += [n for n in re.split(r"[|/]", rest[0]) if n]
        rest = rest[1:]
        if len(rest) < 2 or rest[0] != "|":
            break
        rest = rest[1:]
    if not names:
        return [] if tokens[0].startswith("-") else [f"five-towers {tokens[0]}: no such subcommand"]
    problems = [f"five-towers {n}: no such subcommand (there are {', '.join(subcommands())})"
                for n in names if n not in subcommands()]
    if problems:
        return problems
    for name in names:
        known = flags(name)
        for token in rest:
            for flag in _flags_in(token):
                if flag not in known:
                    problems.append(f"five-towers {name} {flag}: {name} has no {flag}")
    if problems:
        return problems
    if not whole or len(names) > 1 or any(PLACEHOLDER.match(t) for t in rest):
        return _fragment_problems(rest, names)
    args, message = _parse([names[0], *rest])
    if args is None:
        return [f"`five-towers {' '.join([names[0], *rest])}` does not parse: {message}"]
    field = getattr(args, "field", None)
    agents = [*(getattr(args, "agents", None) or []), *([field] if isinstance(field, str) else field or []),
              *([args.agent] if getattr(args, "agent", None) else [])]
    game = getattr(args, "game", None) or _game_of(rest)
    return [p for a in agents if (p := _agent_problem(a, game))]


def _flags_in(token: str) -> list[str]:
    """``--html/--svg`` -> both; ``--set=x`` -> ``--set``."""
    return re.findall(r"(?:^|/)(--[a-z][\w-]*)", token.split("=")[0])


#: what a number placeholder stands for (``--games N``)
NUMBER = re.compile(r"^(?:N|K|M|\d+)$")


def _fragment_problems(tokens: list[str], commands: list[str], parse: bool = True) -> list[str]:
    """A fragment of a command of ``commands``: a flag written with a number (``--game-index N``, ``--seed 3``)
    takes one; the agents after ``--agents`` / ``--field`` (and ``rate``'s) are the game's; without
    placeholders, it parses (arguments it leaves out aside)."""
    problems = []
    game = _game_of(tokens)
    for i, token in enumerate(tokens):
        value = tokens[i + 1] if i + 1 < len(tokens) else None
        if token.startswith("--") and "/" not in token and value is not None and NUMBER.match(value):
            actions = [flags(c)[token] for c in commands if token in flags(c)]
            reasons = [r for a in actions if (r := _number_refused(a, value))]
            if actions and len(reasons) == len(actions):
                problems.append(f"`{token} {value}`: {token} does not take a number ({reasons[0]})")
    problems += _listed_agent_problems(tokens, ("--agents", "--field"))
    if commands == ["rate"] and tokens and not tokens[0].startswith("-") and not PLACEHOLDER.match(tokens[0]):
        problems += [p for p in [_agent_problem(tokens[0], game)] if p]
    if problems or not parse or len(commands) != 1 or any(PLACEHOLDER.match(t) for t in tokens):
        return problems
    if tokens and tokens[-1] in flags(commands[0]) and flags(commands[0])[tokens[-1]].nargs != 0:
        tokens = tokens[:-1]  # `five-towers expert --resume`: the flag named, not used
    args, message = _parse([commands[0], *tokens])
    if args is None and not re.search(r"(?:are|is) required", message):
        problems.append(f"`five-towers {' '.join([commands[0], *tokens])}` does not parse: {message}")
    return problems


def _number_refused(action: argparse.Action, value: str) -> str | None:
    """Why ``action`` refuses a number (``value``, or 1 for a placeholder), or None."""
    if action.nargs == 0:
        return f"{action.option_strings[0]} takes no value"
    sample = value if value.isdigit() else "1"
    try:
        converted = (action.type or str)(sample)
    except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
        return str(exc)
    if action.choices is not None and converted not in action.choices:
        return f"it is one of {', '.join(map(str, action.choices))}"
    return None


def _commands_in(text: str) -> Iterator[tuple[list[str], bool]]:
    """Each ``five-towers ...`` command of a shell line: its tokens after ``five-towers``, and whether
    it parsed as shell words (a line that does not is checked as a fragment)."""
    try:
        words, whole = shlex.split(text, comments=True), True
    except ValueError:
        words, whole = text.split(), False
    for i, word in enumerate(words):
        if word == "five-towers":
            tokens: list[str] = []
            for w in words[i + 1:]:
                if w in OPERATORS:
                    break
                tokens.append(w)
            yield tokens, whole


def check_commands(doc: Doc) -> list[str]:
    """Every ``five-towers ...`` command in the shell blocks and inline code (see _command_problems), and every
    ``python <script>.py ...`` of a script of the repository: its flags are the script's, its agents the game's."""
    problems = []
    for line, text in doc.shell_lines():
        for tokens, whole in _commands_in(text):
            problems += [_where(doc, line, p) for p in _command_problems(tokens, whole)]
        problems += [_where(doc, line, p) for p in _script_problems(doc, text)]
    for line, span in doc.spans():
        m = re.match(r"(?:\$ )?five-towers (.*)", span)
        if m:  # inline: a fragment as often as a command (`five-towers train --resume <path>`)
            problems += [_where(doc, line, p) for p in _command_problems(m.group(1).split(), whole=False)]
        problems += [_where(doc, line, p) for p in _script_problems(doc, span)]
    return problems


@cache
def script_flags(script: Path) -> frozenset[str]:
    """The flags a script of the repository takes: the quoted ``--flag`` strings of its source and of the
    package modules it imports (``training/checkpoint_curve.py`` runs ``five_towers_env.analysis.checkpoint_curve``)."""
    text = script.read_text()
    for module in re.findall(r"^from (five_towers_env[\w.]*) import", text, flags=re.M):
        path = ROOT / (module.replace(".", "/") + ".py")
        text += path.read_text() if path.exists() else ""
    return frozenset(re.findall(r"[\"'](--[a-z][\w-]*)[\"']", text))


def _script_problems(doc: Doc, text: str) -> list[str]:
    """``python <script>.py --flag ...`` (a script of the repository): each flag is one of the script's (in the
    log: was one), and the agents after ``--agents`` are the game's."""
    problems = []
    for m in re.finditer(r"(?:^|&&|;|\|)\s*(?:\S+=\S+\s+)*python3? +(?!-)(\S+\.py)\b([^&;|#]*)", text):
        script = m.group(1)
        if script not in _files():
            continue  # another checkout's copy (/tmp/old/...), or the user's
        tokens = m.group(2).split()
        for flag in (f for t in tokens for f in _flags_in(t)):
            if flag not in script_flags(ROOT / script) and not (doc.name == LOG and _flag_existed(ROOT / script, flag)):
                problems.append(f"python {script} {flag}: the script has no {flag}")
        problems += _listed_agent_problems(tokens, ("--agents",))
    return problems


def _listed_agent_problems(tokens: list[str], options: tuple[str, ...]) -> list[str]:
    """The problems of the agents after ``options`` (``--agents a b``), of the game ``--game`` names."""
    problems = []
    for i, token in enumerate(tokens):
        if token in options:
            for agent in tokens[i + 1:]:
                if agent.startswith("--"):
                    break
                if not PLACEHOLDER.match(agent) and (p := _agent_problem(agent, _game_of(tokens))):
                    problems.append(p)
    return problems


def _script_flags(doc: Doc, line: int, span: str) -> set[str]:
    """The flags of the scripts the span or its paragraph names (``benchmarks/bench.py``, ``bench.py``,
    ``five_towers_env/analysis/checkpoint_curve.py``, "the benchmarks'")."""
    text = span + " " + doc.paragraph(line)
    scripts = {ROOT / s for s in re.findall(r"((?:benchmarks|training|tools|examples|five_towers_env)/[\w/]+\.py)",
                                            text)}
    scripts |= {p for name in re.findall(r"(?<![\w/])(\w+\.py)\b", text)
                for p in ROOT.glob(f"*/{name}") if p.parent.name in ("benchmarks", "training", "tools", "examples")}
    if "the benchmarks'" in text:
        scripts |= set((ROOT / "benchmarks").glob("*.py"))
    out: set[str] = set()
    for script in scripts:
        if script.exists():
            out |= script_flags(script)
            if doc.name == LOG:  # the log's flags may be gone since: the script's history has them
                out |= {f for f in _flags_in(span) if _flag_existed(script, f)}
    return out


@cache
def _flag_existed(script: Path, flag: str) -> bool:
    """Whether the history of ``script`` has ``"flag"`` (True where the history is not at hand)."""
    if not history_at_hand():
        return True
    return bool(_git("log", "-1", "--format=%h", f"-S\"{flag}\"", "--", script.relative_to(ROOT).as_posix()))


def check_flags(doc: Doc) -> list[str]:
    """A ``--flag`` in inline code outside a command (commands: check_commands) is a flag of ``five-towers``
    or of a script the span or line names; see also _fragment_problems (``--game N`` must take a number)."""
    problems = []
    for line, span in doc.spans():
        if re.match(r"(?:\$ )?(?:five-towers|python|pip|pytest|git|cp|ray|PYTHONPATH=)\b", span):
            continue  # a command: five-towers' are checked whole, other programs' flags are theirs
        tokens = span.split()
        named = [f for t in tokens for f in _flags_in(t)]
        if not named:
            continue
        unknown = [f for f in named if not _flag_actions(f)]
        script = _script_flags(doc, line, span) if unknown else set()
        problems += [_where(doc, line, f"{f}: no five-towers subcommand has it") for f in unknown if f not in script]
        if unknown:
            continue  # another program's flags
        commands = [c for c in subcommands() if all(f in flags(c) for f in named)] or list(subcommands())
        problems += [_where(doc, line, p) for p in _fragment_problems(tokens, commands, parse=False)]
    return problems


def _flag_actions(flag: str) -> list[argparse.Action]:
    return [a for c in subcommands() for o, a in flags(c).items() if o == flag]


@cache
def shipped_runs() -> frozenset[str]:
    """The training runs the shipped files come from (the ``name`` in each file's ``meta``)."""
    import numpy as np

    runs = set()
    for name, spec in games().items():
        folder = PACKAGE / "games" / name
        for rel in {*spec.shipped_policies.values(), *spec.shipped_networks.values()}:
            with np.load(folder / rel) as data:
                runs.add(ast.literal_eval(str(data["meta"]))["name"])
    return frozenset(runs)


def check_shipped_runs(doc: Doc) -> list[str]:
    """A ``five-towers train|expert --config`` line credited with a shipped policy or network ("shipped" in its
    comment, or in the paragraph after its block) names a config whose run (its ``name``, or ``--set
    name=``) made a shipped file."""
    import yaml

    problems = []
    lines = doc.text.split("\n")
    for block in doc.blocks:
        if block.lang not in SHELL:
            continue
        after = block.line + block.code.count("\n")  # the closing fence's line (1-based)
        following = doc.paragraph(after + 2) if after + 1 < len(lines) and not lines[after].strip() else ""
        for i, text in enumerate(block.code.split("\n")):
            m = re.search(r"five-towers (?:train|expert) --config (\S+\.yaml)(.*)", text)
            if not m or "shipped" not in m.group(2) + following:
                continue
            config = ROOT / m.group(1)
            named = re.search(r"--set(?: \S+)* name=(\w+)", m.group(2))
            run = named.group(1) if named else None
            if run is None and config.exists():
                run = next((d["name"] for d in yaml.safe_load_all(config.read_text()) if d and "name" in d), None)
            if (run or config.stem) not in shipped_runs():
                problems.append(_where(doc, block.line + i, f"{m.group(1)}: credited with a shipped policy, but no "
                                       f"shipped file comes from its run {run or config.stem!r} (they come from "
                                       f"{', '.join(sorted(shipped_runs()))})"))
    return problems


def check_every_command(doc: Doc) -> list[str]:
    """"every command takes --X" holds for each subcommand; "every command but A and B takes --X" for all
    but exactly A and B; ``five-towers a | b | c`` (the commands, listed) lists every subcommand."""
    problems = []
    for line, span in doc.spans():
        m = re.fullmatch(r"five-towers ([a-z]+(?: \| [a-z]+){2,})", span)
        if m and set(m.group(1).split(" | ")) != set(subcommands()):
            problems.append(_where(doc, line, f"`{span}`, the list of commands, " + _difference(
                set(m.group(1).split(" | ")), set(subcommands()), "the subcommands")))
    pattern = r"every (?:sub)?command(?: but ([a-z]+(?:(?:, | and )[a-z]+)*))? (?:takes|accepts|has) `?(--[a-z][\w-]*)"
    for m in re.finditer(pattern, doc.text):
        flag, but = m.group(2), set(re.split(r", | and ", m.group(1) or "")) - {""}
        lacking = {c for c in subcommands() if flag not in flags(c)}
        if lacking != but:
            said = f"every command but {' and '.join(sorted(but))}" if but else "every command"
            problems.append(_where(doc, doc.line_of(m.start()), f"says {said} takes {flag}, but "
                                   f"{', '.join(sorted(lacking)) or 'none'} lack it"))
    return problems


# -- agents ---------------------------------------------------------------------------------------


@cache
def games() -> dict[str, object]:
    from five_towers_env.core.game import GAMES

    return {name: GAMES[name] for name in GAMES}


def _games_named(text: str) -> list[str]:
    """The games a line names: ``--game X``, else by title (5 Towers, Campanile)."""
    m = re.search(r"--game[ =]([a-z_]+)", text)
    if m:
        return [m.group(1)]
    return [n for n, g in games().items() if g.title in text or n in text.split()]


#: the games a page is about, where it is one game's page
PAGE_GAME = {"docs/campanile.md": "campanile", "docs/rules.md": "five_towers"}

#: an agent with settings in inline code: ``mcts:simulations=400``, ``py:path=file.py:attr,depth=3``
AGENT_SPEC = re.compile(r"(?<![\w/.:=-])([a-z][a-z0-9-]*:[a-z_]\w*=[^\s,`'\")]*(?:,[a-z_]\w*=[^\s,`'\")]*)*)")
#: specs the docs show as errors on purpose (docs/evaluation.md, "Every agent's settings are checked"):
#: each must be rejected
INVALID_ON_PURPOSE = {"mcts:sims=10", "mcts:simulations=abc", "mcts:temperature=0"}


def check_agent_specs(doc: Doc) -> list[str]:
    """``name:key=value`` in inline code is an agent of the game the line names (``--game X``, else the
    default game, or the game the line or page names by title) with settings it accepts."""
    from five_towers_env.core.game import DEFAULT_GAME

    problems = []
    for line, span in doc.spans():
        if re.match(r"(?:\$ )?five-towers ", span):
            continue  # a command: check_commands
        text = doc.line(line)
        for m in AGENT_SPEC.finditer(span):
            spec = m.group(1)
            named = _games_named(text)
            tried = named if "--game" in text else [DEFAULT_GAME, *named, *[PAGE_GAME.get(doc.name, DEFAULT_GAME)]]
            found = [_agent_problem(spec, g) for g in dict.fromkeys(tried)]
            if spec in INVALID_ON_PURPOSE:
                if None in found:
                    problems.append(_where(doc, line, f"{spec}: shown as an error, but it is a valid agent"))
            elif None not in found:
                problems.append(_where(doc, line, found[0]))
    return problems


def _names_in(text: str) -> list[str]:
    return [m.split(":")[0] for m in re.findall(r"`([a-z][a-z0-9-]*)(?::[^`]*)?`", text)]


def _about(doc: Doc) -> list[str]:
    """The games a page is about: its game, for a game's own page; else every game."""
    return [PAGE_GAME[doc.name]] if doc.name in PAGE_GAME else list(games())


def check_agent_lists(doc: Doc) -> list[str]:
    """A game's agents, where the docs list them, are its registry's:

    - "agent names are (then) <Game>'s (`a`, `b`, ...)": the listed names are the game's, all of them;
    - a page's agent tables (``| agent | what it ... |``): their first column names every agent of the
      games the page is about (docs/campanile.md: Campanile's; otherwise every game's), and no other; a
      ``ppo`` row that names shipped policy files names every one of them (or links policies.md);
    - "`name` needs / with ... `path=`": the agent's ``path`` has no default;
    - a line on ``net``'s or ``guided``'s network "shipped for" a setup names the setups
      ``GameSpec.shipped_networks`` has (``2p-base``), not a player count alone.
    """
    from five_towers_env.agents.registry import agent_settings, agents_of

    problems = []
    for m in re.finditer(r"agent\s+names\s+are\s+(?:then\s+)?(\w[\w ]*?)'s\s+\(([^()]*)\)", doc.prose):
        title = m.group(1).strip()
        game = next((n for n, g in games().items() if g.title == title), None)
        line = doc.line_of(m.start(2))
        if game is None:
            problems.append(_where(doc, line, f"agent names of {title!r}: no such game"))
            continue
        listed, registry = set(_names_in(m.group(2))) - {"path"}, set(agents_of(games()[game]))
        if listed != registry:
            problems.append(_where(doc, line, f"{title}'s agents: the docs' list "
                                   + _difference(listed, registry, f"{title}'s agents")))
    about = _about(doc)
    title = " and ".join(games()[g].title for g in about)
    rows: dict[str, int] = {}
    in_table = False
    for i, text in enumerate(doc.prose.split("\n"), 1):
        if re.match(r"\| agent \| what it", text):
            in_table = True
        elif in_table and text.startswith("|"):
            for name in _names_in(text.split("|")[1]):
                rows.setdefault(name, i)
            if text.split("|")[1].strip() == "`ppo`" and "(policies.md)" not in text:
                files = {Path(rel).name for g in about for key, rel in games()[g].shipped_policies.items()
                         if ":" not in key}  # every setup's file (a version key aside)
                named = set(re.findall(r"(\w[\w-]*\.npz)", text))
                if named and named != files:
                    problems.append(_where(doc, i, f"`ppo` plays {len(files)} shipped files of {title} "
                                           f"({', '.join(sorted(files))}); the row names {', '.join(sorted(named))}"))
        else:
            in_table = False
    if rows:
        registry = {a for g in about for a in agents_of(games()[g])}
        if set(rows) != registry:
            problems.append(_where(doc, min(rows.values()), f"the agent tables of {title}'s agents "
                                   + _difference(set(rows), registry, f"{title}'s agents")))
    for m in re.finditer(r"`([a-z][a-z0-9-]*)` (?:needs|requires|with)\b[^`.;()]*`path=`", doc.prose):
        line = doc.line_of(m.start())
        for g in _games_named(doc.line(line)) or about:
            spec = games()[g]
            if m.group(1) in agents_of(spec) and "path" in agent_settings(m.group(1), game=g) \
                    and _has_default(m.group(1), g, "path"):
                problems.append(_where(doc, line, f"says `{m.group(1)}` needs path=, but {spec.title}'s "
                                                  f"{m.group(1)} plays without"))
                break
    shipped = {key for g in about for key in games()[g].shipped_networks}
    for i, text in enumerate(doc.prose.split("\n"), 1):
        if re.search(r"`(?:net|guided)`", text) and re.search(r"\bship(?:s|ped)?,? for `?\d", text):
            named = set(re.findall(r"`(\d+p-\w+)`", text))
            if named != shipped:
                problems.append(_where(doc, i, f"{title} ship networks for {', '.join(sorted(shipped))} "
                                               f"(GameSpec.shipped_networks); the line names "
                                               f"{', '.join(sorted(named)) or 'none of them'}"))
    return problems


def _has_default(name: str, game: str, setting: str) -> bool:
    import inspect

    from five_towers_env.agents.registry import agent_class

    parameter = inspect.signature(agent_class(name, game=game).__init__).parameters.get(setting)
    return parameter is not None and parameter.default is not inspect.Parameter.empty


def _difference(listed: set[str], wanted: set[str], of: str) -> str:
    """"lacks a, b and names c, not one of <of>"."""
    parts = []
    if wanted - listed:
        parts.append(f"lacks {', '.join(sorted(wanted - listed))}")
    if listed - wanted:
        parts.append(f"names {', '.join(sorted(listed - wanted))}, not one of {of}")
    return " and ".join(parts)


def check_setups(doc: Doc) -> list[str]:
    """A setup written ``<players>p-<variant>`` in inline code is one some game has."""
    valid = {f"{n}p-{v}" for g in games().values() for n in range(g.min_players, g.max_players + 1)
             for v in g.variants}
    problems = []
    for line, span in doc.spans():
        for setup in re.findall(r"(?<![\w-])(\d+p-[a-z_]+)(?![\w-])", span):
            if setup not in valid:
                problems.append(_where(doc, line, f"{setup}: no game has this setup"))
    return problems


# -- Python ---------------------------------------------------------------------------------------


@dataclass
class Imports:
    problems: list[str] = field(default_factory=list)
    #: third-party modules the docs import that are not installed: ``module -> [where]``
    skipped: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, module: str, where: str) -> None:
        if where not in self.skipped.setdefault(module, []):
            self.skipped[module].append(where)


def _missing_third_party(exc: ImportError) -> str | None:
    """The module that is not installed, when ``exc`` is about one outside the package (``ray.rllib``), or
    was raised because of one (the OpenSpiel adapter's install hint, raised from pyspiel's error)."""
    cause = exc.__cause__ or exc.__context__
    if not getattr(exc, "name", None) and isinstance(cause, ImportError):
        return _missing_third_party(cause)
    name = getattr(exc, "name", None) or ""
    if not name or name.split(".")[0] == "five_towers_env":
        return None
    try:
        return name if importlib.util.find_spec(name) is None else None
    except (ImportError, ValueError):
        return name


def _resolve(dotted: str) -> str | None:
    """Import the longest module prefix of ``dotted`` and look the rest up; why not, or None (an
    ``ImportError`` of a module the prefix imports propagates)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module.startswith(exc.name) and (exc.name == module or i > 1):
                continue  # this prefix is no module: its last part is an attribute
            raise
        for j, attr in enumerate(parts[i:], i):
            if not hasattr(obj, attr):
                return f"{dotted}: {'.'.join(parts[:j])} has no {attr}"
            obj = getattr(obj, attr)
        return None
    return f"{dotted}: no such module"


def _local_package(module: str) -> bool:
    """A package of the repository outside ``five_towers_env`` (the toy game's ``goofspiel``, imported with its
    folder on ``sys.path``): its folder is checked, it is not imported (importing it registers a game)."""
    path = re.escape(module.replace(".", "/"))
    return _matches(f"(?:.*/)?{path}(?:/__init__)?\\.py")


def _check_name(where: str, dotted: str, out: Imports) -> None:
    try:
        problem = _resolve(dotted)
    except ImportError as exc:
        missing = _missing_third_party(exc)
        if missing:
            out.skip(missing, where)
            return
        problem = f"{dotted}: {exc}"
    if problem:
        out.problems.append(f"{where}: {problem}")


def _check_import(where: str, node: ast.AST, out: Imports) -> None:
    if isinstance(node, ast.Import):
        targets = [(a.name, None) for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        targets = [(node.module, a.name) for a in node.names if a.name != "*"]
    else:
        return
    for module, name in targets:
        top = module.split(".")[0]
        if top != "five_towers_env" and importlib.util.find_spec(top) is None:
            if not _local_package(module):
                out.skip(top, where)
            continue
        if name is not None and importlib.util.find_spec(module) and _is_submodule(module, name):
            _check_name(where, f"{module}.{name}", out)  # from package import submodule
            continue
        _check_name(where, module if name is None else f"{module}.{name}", out)


def _is_submodule(module: str, name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{module}.{name}") is not None
    except ImportError:
        return False


#: a dotted name of the package: ``five_towers_env.evaluation.rate.rate``
DOTTED = re.compile(r"(?<![\w./])five_towers_env(?:\.[A-Za-z_]\w*)+")


def check_imports(doc: Doc) -> Imports:
    """The Python blocks' and inline code's imports import (a third-party module that is not installed
    is skipped and reported as such), and every dotted ``five_towers_env.`` name resolves."""
    out = Imports()
    sources: list[tuple[int, str]] = [(b.line, b.code) for b in doc.blocks if b.lang in ("python", "py")]
    sources += [(line, span) for line, span in doc.spans() if re.match(r"(?:from \S+ )?import \S", span)]
    for first, code in sources:
        try:
            tree = ast.parse(code)
        except SyntaxError as exc:
            out.problems.append(_where(doc, first + (exc.lineno or 1) - 1, f"Python that does not parse: {exc.msg}"))
            continue
        for node in ast.walk(tree):
            _check_import(f"{doc.name}:{first + getattr(node, 'lineno', 1) - 1}", node, out)
    texts = [*doc.spans(), *((b.line + i, text) for b in doc.blocks for i, text in enumerate(b.code.split("\n")))]
    for line, text in texts:
        for m in DOTTED.finditer(text):
            _check_name(f"{doc.name}:{line}", m.group(0), out)
    out.problems = sorted(set(out.problems), key=_order)
    return out


# -- wording --------------------------------------------------------------------------------------

def check_wording(doc: Doc) -> list[str]:
    """No issue numbers or first-person plans ("I will", "I would") outside the experiments log
    (link targets, which may point at the log's headings, aside)."""
    if doc.name == LOG:
        return []
    text = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), doc.text)
    problems = []
    for m in re.finditer(r"\b(?:issues? #?\d+|#\d{2,}\b|I (?:will|would|'ll|'d|plan)\b)", text):
        problems.append(_where(doc, doc.line_of(m.start()), f"{m.group(0)!r}: issue numbers and plans belong "
                                                            f"in {LOG}"))
    return problems


#: every check of a Markdown page
CHECKS = (check_paths, check_links, check_commands, check_flags, check_every_command, check_agent_specs,
          check_agent_lists, check_setups, check_shipped_runs, check_wording)


def problems_of(doc: Doc) -> list[str]:
    """Every check's problems with a page, imports included."""
    return [p for check in CHECKS for p in check(doc)] + check_imports(doc).problems
