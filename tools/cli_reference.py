"""Write the documentation site's command-line reference, ``docs/cli.md``, from the ``five-towers`` parser.

The page is made from ``five_towers_env.cli.main``'s parser (``build_parser``): the command line's own
description, then one section per subcommand, in the order ``--help`` lists them, with its one-line help,
its description and a table of its arguments (each argument's names, metavar, choices and help, with
``%(default)s`` filled in as ``--help`` fills it). The table is built from the parser's actions, not from
``format_help()``, so the page does not depend on the terminal's width or on the Python version's help
layout. Nothing on the page is typed by hand: ``tests/test_cli_reference.py`` fails until it is written again.

    python tools/cli_reference.py            # write docs/cli.md
    python tools/cli_reference.py --check    # exit 1 if the committed page differs from the parser's
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

from five_towers_env.cli.main import build_parser  # noqa: E402

OUT = ROOT / "docs" / "cli.md"
SCRIPT = "tools/cli_reference.py"


def _rst(text: str) -> str:
    """The parser's text as Markdown: ````x```` literals become code spans."""
    return text.replace("``", "`")


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, no bare ``|``."""
    return " ".join(text.split()).replace("|", "\\|")


def _help(action: argparse.Action, prog: str) -> str:
    """An argument's help as ``--help`` shows it (``%(default)s`` and the like filled in)."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    params = {**vars(action), "prog": prog}
    for name in list(params):
        if hasattr(params[name], "__name__"):
            params[name] = params[name].__name__
    if params.get("choices") is not None:
        params["choices"] = ", ".join(str(c) for c in params["choices"])
    return action.help % params


def _names(action: argparse.Action) -> str:
    """An argument's names with its metavar, as code: ``--games GAMES``, ``AGENT``, ``--agents AGENT`` (one or
    more)."""
    if not action.option_strings:
        metavar = action.metavar or action.dest
        text = metavar if isinstance(metavar, str) else " ".join(metavar)
        return f"`{text}`{_many(action)}"
    if action.nargs == 0:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    if action.metavar is not None:
        metavar = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None:
        metavar = "{" + ",".join(str(c) for c in action.choices) + "}"
    else:
        metavar = action.dest.upper()
    if isinstance(action.nargs, int) and action.nargs > 1:
        metavar = " ".join([metavar] * action.nargs)
    return ", ".join(f"`{o} {metavar}`" for o in action.option_strings) + _many(action)


def _many(action: argparse.Action) -> str:
    """How many values an argument takes, when not one: ``--agents AGENT`` takes one or more."""
    return {"+": " (one or more)", "*": " (any number)", "?": " (optional)"}.get(str(action.nargs), "")


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the order ``--help`` lists them."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    return [(name, helps.get(name, ""), p) for name, p in sub.choices.items()]


def page() -> str:
    """The text of docs/cli.md."""
    parser = build_parser()
    commands = _subcommands(parser)
    lines = [
        f"<!-- Written by {SCRIPT} from the command line's parser: do not edit by hand; run "
        f"`python {SCRIPT}` after a change (tests/test_cli_reference.py checks this page). -->",
        "",
        "# The command line",
        "",
        "`five-towers` (or `python -m five_towers_env.cli`) is installed with the package. Each section "
        "below is one of its subcommands, which comes first on the command line, before its arguments; "
        "`--help` after a subcommand prints the same arguments in the terminal. A usage error exits with "
        "status 2 and one line naming it. An argument that takes several values (one or more) takes "
        "them separated by spaces.",
        "",
        "```text",
        *_rst(parser.description or "").strip().splitlines(),
        "```",
        "",
        "| command | what it does |",
        "|---|---|",
        *(f"| [`{name}`](#{name}) | {_cell(_rst(text % {}))} |" for name, text, _ in commands),
        "",
    ]
    for name, text, sub in commands:
        lines += [f"## {name}", "", f"`five-towers {name}`: {_rst(text % {})}.", ""]
        if sub.description and sub.description.strip() != (text % {}).strip():
            lines += ["```text", *_rst(sub.description).strip().splitlines(), "```", ""]
        lines += ["| argument | meaning |", "|---|---|"]
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue
            lines.append(f"| {_names(action)} | {_cell(_rst(_help(action, sub.prog)))} |")
        if sub.epilog:
            lines += ["", "```text", *_rst(sub.epilog).strip().splitlines(), "```"]
        lines.append("")
    return "\n".join(lines)


def pages() -> dict[Path, str]:
    """The generated page: path -> its text."""
    return {OUT: page()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the committed page is stale")
    args = parser.parse_args(argv)
    return write_or_check(pages(), args.check, SCRIPT, "the sections of docs/cli.md")


if __name__ == "__main__":
    sys.exit(main())
