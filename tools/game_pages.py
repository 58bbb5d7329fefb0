"""Write the documentation site's page of each built-in game, in the PettingZoo style, from the code.

One page per game, ``docs/games/<name>.md``: its picture (the game's own SVG renderer), how a game plays (a
paragraph from its rules page, ``HOW_IT_PLAYS`` below), the facts table (from the game's ``GameSpec`` and its
environment's spaces), the environment's arguments (``raw_env``'s signature and docstring), the action
table (the game's action codec), the observation table (the game's ``layout_table()``), the rewards
(``raw_env``'s docstring), the agents (``agents_of(game)`` of the agent registry, one line each from the
classes' docstrings),
links to the rules pages (the ``docs/*.md`` files the game's package docstring names) and the version
history. Nothing else on a page is typed by hand, so a change to the code changes the page:
``tests/test_game_pages.py`` fails until the pages are written again.

    python tools/game_pages.py            # write docs/games/<name>.md (whole files)
    python tools/game_pages.py --check    # exit 1, naming them, if committed pages differ from the code's
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere: the package is the repository's
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # generated_files.py, beside this script

from generated_files import write_or_check  # noqa: E402

from five_towers_env.core import env as core_env  # noqa: E402
from five_towers_env.core.game import BUILTIN_GAMES, GameSpec, get_game, load  # noqa: E402

DOCS = ROOT / "docs"
OUT = DOCS / "games"
SCRIPT = "tools/game_pages.py"

#: what changed in each version of a game's environment after the first, (game, version) -> text; a new
#: version (the ``-v<k>`` of its ids) without its line here stops the script
VERSION_NOTES: dict[tuple[str, int], str] = {}

#: each game's "How a game plays" paragraph, under its picture: the game in a few sentences, written from its
#: rules page (docs/rules.md, docs/campanile.md), which the page links after it; a built-in game without one
#: stops the script
HOW_IT_PLAYS: dict[str, str] = {
    "five_towers": (
        "Each player builds up to five towers of their own, one per card type (`candy`, `scary`, `tree`, "
        "`scrap`, `sand`), from cards worth 0 to 15. Every round five cards are laid out face up and the "
        "players bid, in turn, how many of them they will take; only the highest bidder takes cards, may tear "
        "down the top card of one tower, and must build every card taken. A card goes only on a higher one, "
        "except that an 8 accepts anything and a 9 goes on anything; a 0 crowns a tower, closes it and doubles "
        "its cards' worth. The environment offers only the actions after which the round can still be "
        "finished. When the deck runs out for the second time the game ends: each card in a tower scores 1 "
        "(2 under a 0), the tallest tower scores its height once more, the torn-down cards cost 1 + 2 + ... "
        "points, and the highest total wins. The variant `great_powers` gives each card type a power."
    ),
    "campanile": (
        "All players build on the same five towers, `A` to `E`, and bet on which will be tallest when the game "
        "stops. Each player holds 3 cards. On a turn they play one card on its tower and raise that tower by "
        "1, 2 or 3 storeys; may slide one of their nine power chips (worth 1, 2 or 3) under a tower, the chip "
        "worth at least the storeys just built (variant `pile`, the default: under a tower that a face-up pile "
        "card shows; variant `played`: under the tower just built on); and then draw, without a decision, the "
        "face-up card of pile 1, 2 or 3, the one numbered by the storeys built. The game stops as soon as a "
        "draw empties its pile. The four tallest towers carry flags worth 8/4, 6/3, 4/2 and 2/1: under each, "
        "the largest stake of chips scores the first number and the second largest the second, and the "
        "highest total wins. The hands and the piles below their face-up cards are hidden; the rest is public."
    ),
}


# -- text from docstrings ------------------------------------------------------------------------

_ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj):`(~?)([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def markdown(text: str) -> str:
    """Docstring text as Markdown: ````x```` literals and ``:class:`~a.B``` roles become code spans
    (``~``: the last name only)."""
    text = _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)
    return _LITERAL.sub(r"`\1`", text)


def cell(text: str) -> str:
    """Text for one Markdown table cell: one line, no bare ``|``."""
    return " ".join(markdown(text).split()).replace("|", "\\|")


def paragraphs(doc: str | None) -> list[str]:
    """A docstring's paragraphs, each on one line."""
    text = inspect.cleandoc(doc or "")
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def summary(obj: Any) -> str:
    """The first sentence of ``obj``'s docstring (its whole first paragraph if it has no full stop); a first
    paragraph that introduces a list (``one of two kinds (``search``):``) ends with the list's terms."""
    parts = paragraphs(inspect.getdoc(obj)) or [""]
    first = parts[0]
    match = re.match(r"(.+?\.)(\s|$)", first)
    if match:
        return match.group(1)
    terms = re.findall(r"(?:^|\s)[*-] (``[^`]+``)", parts[1]) if first.endswith(":") and len(parts) > 1 else []
    if terms:
        return f"{first} {', '.join(terms[:-1])}{' or ' if len(terms) > 1 else ''}{terms[-1]}."
    return first


def docstring_args(obj: Any) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring: name -> its text, on one line."""
    lines = inspect.cleandoc(obj.__doc__ or "").splitlines()
    if "Args:" not in lines:
        return {}
    found: dict[str, str] = {}
    name = None
    for line in lines[lines.index("Args:") + 1:]:
        if not line.strip() or not line.startswith(" "):
            break
        entry = re.match(r"^ {4}(\w+): (.*)$", line)
        if entry:
            name = entry.group(1)
            found[name] = entry.group(2)
        elif name is not None:
            found[name] += " " + line.strip()
    return found


def module_text(module: str) -> list[str]:
    """The paragraphs of a module's docstring."""
    return paragraphs(importlib.import_module(module).__doc__)


# -- the facts --------------------------------------------------------------------------------

def _version(spec: GameSpec) -> int:
    match = re.search(r"-v(\d+)$", spec.pettingzoo_id)
    if not match:
        raise SystemExit(f"{SCRIPT}: {spec.name}'s PettingZoo id {spec.pettingzoo_id!r} has no -v<k> version")
    return int(match.group(1))


def _code_list(names: Any) -> str:
    return ", ".join(f"`{n}`" for n in names)


def _setups(mapping: Any) -> list[str]:
    """The setups a ``shipped_policies`` / ``shipped_networks`` mapping covers (numbered versions left out)."""
    return [key for key in mapping if ":" not in key]


def _openspiel_name(spec: GameSpec) -> str:
    """The pyspiel name the OpenSpiel adapter registers the game under, read from its source (importing
    the adapter needs ``open_spiel``, which the docs do not)."""
    import five_towers_env.integrations as integrations

    tree = ast.parse((Path(integrations.__file__).parent / "openspiel" / "game.py").read_text())
    prefix = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                  and [getattr(t, "id", None) for t in node.targets] == ["PREFIX"]
                  and isinstance(node.value, ast.Constant))
    return f"{prefix}{spec.name}"


def _ladder_setups(spec: GameSpec) -> list[str]:
    folder = spec.package_file(spec.ladder)
    return sorted(p.stem for p in folder.glob("*p-*.json"))


def _space(box: Any) -> str:
    """A ``Box`` as dtype, shape and value range, in a form that does not depend on gymnasium's version."""
    low, high = float(box.low.min()), float(box.high.max())
    return f"`{box.dtype.name}`, shape `{tuple(box.shape)}`, values in [{low:g}, {high:g}]"


def facts(spec: GameSpec, raw: Any) -> list[tuple[str, str]]:
    """The facts table's rows: (what, value)."""
    package, short = spec.module.rsplit(".", 1)
    agent = raw.possible_agents[0]
    observation = raw.observation_space(agent)
    variants = [f"`{v}`" + (" (default)" if v == spec.default_variant else "") for v in spec.variants]
    name = raw.metadata["name"]
    rows = [
        ("Import", f"`from {package} import {short}`"),
        ("Make", f"`{short}.env(num_players={spec.min_players})`, or `{short}.raw_env(...)` unwrapped"),
        ("Actions", f"`Discrete({spec.num_actions})`, one space for every phase and variant"),
        ("Players", f"{spec.min_players}-{spec.max_players}"),
        ("Agents", f"`player_0` ... `player_<n-1>`, n = `num_players` (`{'`, `'.join(raw.possible_agents)}` "
                   f"with {len(raw.possible_agents)} players)"),
        ("Variants", ", ".join(variants)),
        ("Observation", "`observation[\"observation\"]`: " + _space(observation["observation"])),
        ("Action mask", f"`observation[\"action_mask\"]`: {_space(observation['action_mask'])}; "
                        "1 for each legal action of the agent on move, all zeros for the others"),
    ]
    if spec.observations:
        rows.append(("Other observations", _code_list(spec.observations)
                     + " (`SingleAgentGymEnv(observation=...)`, `raw_env(observation=...)`)"))
    rows += [
        ("Parallel API", "Yes" if raw.metadata.get("is_parallelizable") else "No (AEC)"),
        ("Render modes", _code_list(raw.metadata["render_modes"])),
        ("Perfect information", "Yes: only the order of what chance draws next is hidden" if spec.perfect_information
         else "No: seats hold cards the others cannot see"),
        ("PettingZoo id", f"`pettingzoo.make(\"aec\", \"{spec.pettingzoo_id}\")` (after `import five_towers_env`)"),
        ("Gymnasium id", f"`gymnasium.make(\"{spec.gymnasium_id}\")`: one learner seat against opponent agents"),
        ("Environment name", f"`{name}` (`metadata[\"name\"]`)"),
        ("Registry name", f"`{spec.name}` (`--game {spec.name}`, `get_game(\"{spec.name}\")`)"),
    ]
    if spec.chance:
        rows.append(("OpenSpiel", f"`{_openspiel_name(spec)}` (`five_towers_env.integrations.openspiel`)"))
    if spec.shipped_policies:
        rows.append(("Shipped policies (`ppo`)", _code_list(_setups(spec.shipped_policies))))
    if spec.shipped_networks:
        rows.append(("Shipped networks (`net`, `guided`)", _code_list(_setups(spec.shipped_networks))))
    if spec.ladder:
        setups = _ladder_setups(spec)
        rows.append(("Rating ladder", f"`five-towers rate --game {spec.name}`: "
                     + (_code_list(setups) if setups else "no setup calibrated yet")))
    return rows


# -- the sections -------------------------------------------------------------------------------

def arguments(spec: GameSpec, raw_class: Any) -> list[str]:
    """The environment's keyword arguments: name, default and the docstring's text."""
    docs = docstring_args(raw_class)
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    for name, parameter in inspect.signature(raw_class.__init__).parameters.items():
        if name == "self" or parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            continue
        default = "" if parameter.default is parameter.empty else f"`{parameter.default!r}`"
        rows.append(f"| `{name}` | {default} | {cell(docs.get(name, ''))} |")
    return rows


def action_rows(spec: GameSpec) -> list[str]:
    """The action table: one row per block of the codec (``BLOCKS``), else per run of ids whose names
    share their first word."""
    codec = spec.actions
    blocks = getattr(codec, "BLOCKS", None)
    if blocks is None:
        blocks, first = [], 0
        for a in range(1, spec.num_actions + 1):
            if a == spec.num_actions or spec.action_name(a).split()[0] != spec.action_name(first).split()[0]:
                blocks.append((first, a - first, spec.action_name(first).split()[0]))
                first = a
    rows = ["| ids | count | action | names |", "|---|---:|---|---|"]
    for first, size, name in blocks:
        last = first + size - 1
        ids = f"{first}-{last}" if size > 1 else f"{first}"
        names = (f"`{spec.action_name(first)}`" if size == 1 else
                 f"`{spec.action_name(first)}`, `{spec.action_name(first + 1)}`"
                 + (f", ... `{spec.action_name(last)}`" if size > 2 else ""))
        rows.append(f"| {ids} | {size} | {name} | {names} |")
    rows.append(f"| | **{spec.num_actions}** | | total |")
    return rows


def api_entries() -> dict[str, str]:
    """Each object the API reference documents by name (``::: five_towers_env.agents.policy.PolicyAgent``
    on a page of ``docs/api/``) -> its page and anchor, relative to ``docs/``."""
    entries = {}
    for page in sorted((DOCS / "api").glob("*.md")):
        for name in re.findall(r"^::: ([\w.]+)", page.read_text(), flags=re.M):
            entries[name] = f"api/{page.name}#{name}"
    return entries


def api_link(full: str) -> str | None:
    """The API reference's entry of the object named ``full`` (a module's path and its name), relative to
    ``docs/``."""
    entries = api_entries()
    if full in entries:
        return entries[full]
    module = full.rsplit(".", 1)[0]  # a class documented with its module, as one of the module's names
    return f"{entries[module]}.{full.rsplit('.', 1)[1]}" if module in entries else None


def agent_rows(spec: GameSpec) -> list[str]:
    rows = ["| name | class | what it plays |", "|---|---|---|"]
    from five_towers_env.agents.registry import agents_of

    for name, target in agents_of(spec).items():
        cls = load(target)
        line = summary(cls).replace("the module docstring", f"`{cls.__module__}`'s docstring")
        full = f"{cls.__module__}.{cls.__qualname__}"
        where = api_link(f"{target.split(':')[0]}.{cls.__qualname__}") or api_link(full)
        shown = f"[`{full}`](../{where})" if where else f"`{full}`"
        rows.append(f"| `{name}` | {shown} | {cell(line)} |")
    return rows


def setting_rows(spec: GameSpec) -> list[str]:
    """The agents' settings with a range (their classes' ``SETTING_RANGES``, which the registry checks), in the
    order of ``agents_of``: agent, setting, default, range; a product bound as ``a`` × ``b``."""
    from five_towers_env.agents.registry import agent_setting_defaults, agent_setting_ranges, agents_of
    from five_towers_env.core.setting_ranges import product_settings

    rows = ["| agent | setting | default | range |", "|---|---|---|---|"]
    for name in agents_of(spec):
        defaults = agent_setting_defaults(name, game=spec)
        for key, allowed in agent_setting_ranges(name, game=spec).items():
            pair = product_settings(key)
            setting = f"`{pair[0]}` × `{pair[1]}`" if pair else f"`{key}`"
            default = "" if pair or key not in defaults else f"`{defaults[key]!r}`"
            rows.append(f"| `{name}` | {setting} | {default} | {cell(str(allowed))} |")
    return rows


def rules_links(spec: GameSpec) -> list[str]:
    """The docs pages the game's package docstring names (its rules first), as links from docs/games/."""
    doc = importlib.import_module(spec.module).__doc__ or ""
    rules_row = next((line for line in doc.splitlines() if line.startswith("| rules |")), "")
    named = re.findall(r"docs/([\w.-]+\.md)", rules_row) + re.findall(r"docs/([\w.-]+\.md)", doc)
    links = ["\"SPEC\" in the docstrings quoted on this page names a section of the first of these pages.", ""]
    for page in dict.fromkeys(named):
        path = DOCS / page
        if not path.is_file():
            raise SystemExit(f"{SCRIPT}: {spec.module}'s docstring names docs/{page}, which does not exist")
        title = path.read_text().splitlines()[0].lstrip("# ").strip()
        links.append(f"- [{title}](../{page})")
    if not named:
        raise SystemExit(f"{SCRIPT}: {spec.module}'s docstring names no rules page (a '| rules | docs/...md |' row)")
    return links


#: the game pages' pictures: 3 players, a seeded game played this far by a fixed rule (the ``k``-th decision
#: takes legal action ``7 k mod (number of legal actions)``), about halfway through
PICTURE_PLAYERS, PICTURE_SEED = 3, 58
PICTURE_DECISIONS = {"five_towers": 80, "campanile": 50}


def picture(name: str) -> str | None:
    """The SVG at the top of the game's page, drawn by the game's own ``svg.render_svg`` (public information
    only) from a seeded position; None for a game without an SVG drawing. The same on both engines."""
    spec = get_game(name)
    try:
        svg = importlib.import_module(f"{spec.module}.svg")
    except ImportError:
        return None
    env = importlib.import_module(spec.module).env(num_players=PICTURE_PLAYERS)
    env.reset(seed=PICTURE_SEED)
    decisions = 0
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation or decisions == PICTURE_DECISIONS.get(name, 40):
            break
        legal = observation["action_mask"].nonzero()[0]
        env.step(int(legal[(7 * decisions) % len(legal)]))
        decisions += 1
    text = svg.render_svg(env.unwrapped.game)
    env.close()
    return text if text.endswith("\n") else text + "\n"


def pictures() -> dict[Path, str]:
    """Every built-in game's picture that has one: ``docs/games/img/<name>.svg`` -> its text."""
    drawn = {name: picture(name) for name in BUILTIN_GAMES}
    return {OUT / "img" / f"{name}.svg": text for name, text in drawn.items() if text is not None}


#: games measured for the "Episodes" section's typical length, per player count: seeds 0 .. LENGTH_GAMES - 1
LENGTH_GAMES = 20


def episode_lengths(name: str, num_players: int) -> list[int]:
    """Decisions (``step`` calls with an action) of ``LENGTH_GAMES`` seeded games of uniformly random
    players (seed ``s`` deals the game and draws its moves); the same on both engines."""
    import numpy as np

    spec = get_game(name)
    lengths = []
    for seed in range(LENGTH_GAMES):
        env = importlib.import_module(spec.module).env(num_players=num_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        decisions = 0
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(observation["action_mask"].nonzero()[0])))
            decisions += 1
        env.close()
        lengths.append(decisions)
    return lengths


def episode_rows(spec: GameSpec) -> list[str]:
    """The "Episodes" section: start, end, truncation, typical length, and playing it yourself."""
    rules = rules_links(spec)[2].split("](", 1)[1].rstrip(")")
    rows = ["| players | decisions per game (mean) | fewest | most |", "|---:|---:|---:|---:|"]
    for n in range(spec.min_players, spec.max_players + 1):
        lengths = episode_lengths(spec.name, n)
        rows.append(f"| {n} | {sum(lengths) / len(lengths):.0f} | {min(lengths)} | {max(lengths)} |")
    return [
        f"An episode is one game of the default variant or the one asked for: `reset(seed=...)` deals it "
        f"(the same seed, the same deal), and it ends when the game does, by [its rules]({rules}): "
        "every agent is then terminated, with its reward. Episodes are never truncated: the environment sets "
        "no step limit (`truncations` stay `False`; wrap it in a time limit if you need one), since every game "
        "ends. Typical length, in decisions of all seats together (the `step` calls that take an action), over "
        f"{LENGTH_GAMES} seeded games of uniformly random players (`python {SCRIPT}` measures it):", "",
        *rows, "",
        f"**Play it yourself**: `five-towers play --game {spec.name} --agents human heuristic` seats you against "
        "the heuristic in the terminal (type a move's number or name, `?` for help), and "
        f"`five-towers serve --game {spec.name} --agents human heuristic` in the browser.",
    ]


def how_it_plays(spec: GameSpec) -> str:
    """The "How a game plays" paragraph: ``HOW_IT_PLAYS`` and a link to the game's rules page."""
    if spec.name not in HOW_IT_PLAYS:
        raise SystemExit(f"{SCRIPT}: write {spec.name}'s \"How a game plays\" paragraph in HOW_IT_PLAYS")
    rules = rules_links(spec)[2]
    return f"**How a game plays.** {HOW_IT_PLAYS[spec.name]} The rules in full: {rules[2:]}."


def game_page(name: str) -> str:
    """The Markdown of ``docs/games/<name>.md``."""
    spec = get_game(name)
    raw_class = load(spec.raw_env)
    raw = spec.make_raw_env()
    version = _version(spec)
    observe_module = spec.observe.partition(":")[0]
    layout = getattr(importlib.import_module(observe_module), "layout_table", None) if observe_module else None
    reward = docstring_args(raw_class).get("reward")
    env_short = spec.module.rsplit(".", 1)[1]

    lines = [f"<!-- Written by {SCRIPT} from the code: do not edit by hand; run `python {SCRIPT}` after a change "
             f"(tests/test_game_pages.py checks this page). -->", "", f"# {spec.title}", "",
             markdown(module_text(spec.module)[0]), "",
             *([f"![{spec.title}, {PICTURE_PLAYERS} players, halfway through a seeded game](img/{name}.svg)", "",
                f"*{PICTURE_PLAYERS} players halfway through a game, drawn by `{spec.module}.svg.render_svg` "
                f"(what a spectator sees; `render_mode=\"rgb_array\"` gives the table as an image array)."
                f"*", ""] if picture(name) is not None else []),
             how_it_plays(spec), "",
             "| fact | value |", "|---|---|", *(f"| {what} | {value} |" for what, value in facts(spec, raw)), "",
             "```python",
             f"from {spec.module.rsplit('.', 1)[0]} import {env_short}", "",
             f"env = {env_short}.env(num_players={spec.min_players}, variant=\"{spec.default_variant}\")",
             "env.reset(seed=42)",
             "for agent in env.agent_iter():",
             "    observation, reward, termination, truncation, info = env.last()",
             "    if termination or truncation:",
             "        action = None",
             "    else:",
             "        action = int(observation[\"action_mask\"].nonzero()[0][0])  # your policy here",
             "    env.step(action)",
             "env.close()",
             "```", "",
             "## Arguments", "",
             f"`{env_short}.env(...)` and `{env_short}.raw_env(...)` take these keywords "
             f"(`{raw_class.__module__}.{raw_class.__qualname__}`):", "",
             *arguments(spec, raw_class), "",
             "## Actions", "",
             *(markdown(p) + "\n" for p in module_text(spec.codec)),
             f"`env.unwrapped.action_name(a)` and `action_from_name(name)` convert ids and names "
             f"(`{spec.codec}`).", "",
             *action_rows(spec), "",
             "## Observation", "",
             *(markdown(p) + "\n" for p in (module_text(observe_module) if observe_module else [])),
             ]
    if layout is not None:
        lines += [layout().strip(), ""]
    lines += ["## Episodes", "", *episode_rows(spec), "", "## Rewards", ""]
    if reward:
        lines += [f"`reward=` {markdown(reward)}", ""]
    wrapped = " ".join(paragraphs(core_env.wrap_env.__doc__)).rstrip(".")
    lines += [markdown(wrapped.replace("``raw`` wrapped", f"`{env_short}.env()` is `raw_env` wrapped", 1))
              + " (`five_towers_env.core.env.wrap_env`).", "",
              "## Built-in agents", "",
              f"The agents every tool seats by name in this game (`make_agent(name, game=\"{spec.name}\")`, "
              f"`--agents`), from `agents_of(\"{spec.name}\")` (`five_towers_env.agents.registry`):", "",
              *agent_rows(spec), "",
              "Their settings' ranges (each class's `SETTING_RANGES`, `five_towers_env.core.setting_ranges`): "
              "the registry checks them when an agent spec is parsed, and refuses a value outside its range, or a "
              "number that is not finite, in one line (`AgentSettingError`, a `ValueError`; exit status 2 on "
              "the command line). `None`, where a setting takes it, is always allowed. The counts' upper bounds "
              "keep one decision within about ten seconds on the native core (the other settings at their "
              "defaults); the Python engine's searches are much slower, and `time_limit` or `--move-timeout` "
              "bound those.", "",
              *setting_rows(spec), "",
              "## Rules", "",
              *rules_links(spec), "",
              "## Version history", "",
              ]
    for k in range(version + 1):
        if k == 0:
            note = "the first version."
        elif (spec.name, k) in VERSION_NOTES:
            note = VERSION_NOTES[(spec.name, k)]
        else:
            raise SystemExit(f"{SCRIPT}: {spec.name} is at version {version}: "
                             f"add what changed in v{k} to VERSION_NOTES")
        lines.append(f"- v{k} (`{spec.pettingzoo_id.rsplit('-v', 1)[0]}-v{k}`, "
                     f"`{raw.metadata['name'].rsplit('_v', 1)[0]}_v{k}`): {note}")
    raw.close()
    return "\n".join(lines).rstrip() + "\n"


def pages() -> dict[Path, str]:
    """Every built-in game's page: path -> its text."""
    return {OUT / f"{name}.md": game_page(name) for name in BUILTIN_GAMES}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a committed page is stale")
    args = parser.parse_args(argv)
    return write_or_check({**pages(), **pictures()}, args.check, SCRIPT, "the game pages")


if __name__ == "__main__":
    sys.exit(main())
