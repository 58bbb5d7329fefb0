"""The rating ladder: each setup's built-in agents on one fixed scale, calibrated once and shipped.

A game's ladder lives in its package (``GameSpec.ladder``, a folder): ``plan.json``, the calibration plan,
and one ``<players>p-<variant>.json`` per calibrated setup. The plan names the agents, the games each group
of them plays, the seed and the bootstrap size:

    {"seed": 2026112701, "anchor": "random", "agents": ["random", "greedy", ...],
     "games": {"2": 400, "3": 120, ...}, "extra": [[["random", "greedy"], 8000], ...], "bootstrap": 400,
     "players": {"mcts:simulations=2000": [2]}}

``players`` (optional) seats an agent only in setups with those numbers of players (an agent too slow to
calibrate in the others, or not needed there); the other agents sit in every setup.

:func:`calibrate` plays every group of ``num_players`` panel agents (a round robin: every pair for two
players) its games, seat-rotated over paired deals, the groups listed in ``extra`` (all of whose members are
named there, exactly) that many games instead, and fits the ratings of :mod:`~five_towers_env.evaluation.ratings`:
``random`` at 0, 95% bootstrap intervals. Each group's seeds derive from the seed and its agents' labels, and
every game is journalled, so a calibration stopped midway resumes, and one with an agent added plays only
that agent's groups. An agent the setup cannot seat (a ``ppo`` version, ``net`` or ``guided`` without a file
shipped for it) is left out of that setup's panel.
"""
from __future__ import annotations

import dataclasses
import gzip
import hashlib
import itertools
import json
import shutil
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env import atomic
from five_towers_env.core.game import GameSpec, get_game, setup_key
from five_towers_env.evaluation.jobs import derive_seed, group_key, make_jobs
from five_towers_env.evaluation.journal import Journal
from five_towers_env.evaluation.outcomes import comparisons
from five_towers_env.evaluation.playing import PlayOptions
from five_towers_env.evaluation.ratings import PRIOR, bootstrap, fit, interval
from five_towers_env.evaluation.report import fmt_ci, markdown_table, text_table, write_json, write_text
from five_towers_env.evaluation.runner import journal_line, run_jobs
from five_towers_env.evaluation.specs import resolve_specs

FORMAT = "five_towers_env ladder 1"
MODEL = ("Bradley-Terry on the Elo scale: an agent r points above another finishes ahead of it with probability "
         "1 / (1 + 10^(-r/400)); a tie counts half; 2 players: one comparison per game; 3-5 players: every pair "
         "of seats of a game (the pairwise finishing order); half a virtual win each way per pair that met; "
         "95% intervals: percentile bootstrap over deals, resampled within each group of agents")


@dataclass(frozen=True)
class LadderPlan:
    """How a game's ladders are calibrated (``plan.json``; see the module docstring)."""

    seed: int
    agents: tuple[str, ...]
    games: dict[int, int]
    extra: tuple[tuple[frozenset[str], int], ...] = ()
    anchor: str = "random"
    bootstrap: int = 400
    players: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """The player counts an agent is seated at, for the agents limited to some (the others: every count)."""

    def __post_init__(self) -> None:
        for agent, counts in self.players.items():
            if agent not in self.agents or not counts:
                raise ValueError(f"ladder plan: players names {agent!r}, which is not among its agents or has no "
                                 "player counts")
            if agent == self.anchor:
                raise ValueError(f"ladder plan: the anchor {agent!r} must sit in every setup")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LadderPlan:
        """The plan of a ``plan.json``."""
        return cls(seed=int(d["seed"]), agents=tuple(d["agents"]),
                   games={int(k): int(v) for k, v in d["games"].items()},
                   extra=tuple((frozenset(names), int(n)) for names, n in d.get("extra", ())),
                   anchor=d.get("anchor", "random"), bootstrap=int(d.get("bootstrap", 400)),
                   players={str(k): tuple(int(n) for n in v) for k, v in d.get("players", {}).items()})

    def to_dict(self) -> dict[str, Any]:
        """As ``plan.json`` holds it."""
        return {"seed": self.seed, "anchor": self.anchor, "agents": list(self.agents),
                "games": {str(k): v for k, v in self.games.items()},
                "extra": [[sorted(names), n] for names, n in self.extra], "bootstrap": self.bootstrap,
                **({"players": {k: list(v) for k, v in self.players.items()}} if self.players else {})}

    def panel(self, num_players: int) -> tuple[str, ...]:
        """The agents seated at ``num_players`` (see ``players``)."""
        return tuple(a for a in self.agents if num_players in self.players.get(a, (num_players,)))

    def games_for(self, members: Sequence[str], num_players: int) -> int:
        """The games the group ``members`` plays (a multiple of its seat rotation)."""
        n = self.games[num_players]
        for names, games in self.extra:
            if set(members) == names:
                n = games
        rotation = len(members)
        return -(-n // rotation) * rotation


def ladder_folder(game: str | GameSpec) -> Path:
    """The folder of ``game``'s shipped ladder (``ValueError`` if it ships none)."""
    spec = get_game(game)
    if not spec.ladder:
        raise ValueError(f"{spec.title} ships no rating ladder (GameSpec.ladder)")
    return spec.package_file(spec.ladder)


def load_plan(game: str | GameSpec) -> LadderPlan:
    """``game``'s calibration plan."""
    return LadderPlan.from_dict(json.loads((ladder_folder(game) / "plan.json").read_text()))


def agent_files(game: str | GameSpec, text: str, num_players: int, variant: str) -> list[Path] | None:
    """The files the agent ``text`` plays from in the setup (``[]``: none; None: it needs one the game does
    not ship for the setup), as its class declares them
    (:func:`~five_towers_env.agents.registry.files_played_from`)."""
    from five_towers_env.agents.registry import files_played_from

    return files_played_from(text, num_players, variant, game=game)


def playable_agents(game: str | GameSpec, agents: Sequence[str], num_players: int, variant: str) -> list[str]:
    """The ``agents`` that can play the setup: a ``ppo`` version, ``net`` or ``guided`` needs its file shipped."""
    return [text for text in agents if agent_files(game, text, num_players, variant) is not None]


def fingerprints(game: str | GameSpec, labels: Sequence[str], num_players: int, variant: str) -> dict[str, str]:
    """A digest of the files each of ``labels`` plays from (agents without files are left out): a journalled
    game of an agent whose files changed is played again."""
    out = {}
    for label in labels:
        paths = agent_files(game, label, num_players, variant) or []
        if paths:
            digest = hashlib.sha256()
            for path in paths:
                digest.update(path.read_bytes())
            out[label] = digest.hexdigest()[:16]
    return out


@dataclass
class Ladder:
    """One setup's calibrated ladder: every agent's rating with its interval, the bootstrap refits and the
    pairwise results they come from."""

    game: str
    num_players: int
    variant: str
    seed: int
    anchor: str
    agents: list[dict[str, Any]]
    replicates: list[list[float]] = field(repr=False)
    pairs: list[dict[str, Any]] = field(default_factory=list, repr=False)
    plan: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def setup(self) -> str:
        """``"<players>p-<variant>"``."""
        return setup_key(self.num_players, self.variant)

    @property
    def labels(self) -> list[str]:
        """The agents, in the plan's order."""
        return [a["agent"] for a in self.agents]

    def rating(self, label: str) -> float:
        """The rating of agent ``label``."""
        return next(a["rating"] for a in self.agents if a["agent"] == label)

    def ranked(self) -> list[dict[str, Any]]:
        """The agents, strongest first."""
        return sorted(self.agents, key=lambda a: -a["rating"])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as the shipped file holds it."""
        return {"format": FORMAT, "game": self.game, "setup": self.setup, "num_players": self.num_players,
                "variant": self.variant, "seed": self.seed, "anchor": self.anchor, "model": MODEL,
                "agents": self.agents, "pairs": self.pairs, "plan": self.plan, "replicates": self.replicates}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ladder:
        """The ladder of a ladder file."""
        if d.get("format") != FORMAT:
            raise ValueError(f"not a ladder file of format {FORMAT!r}")
        return cls(d["game"], int(d["num_players"]), d["variant"], int(d["seed"]), d["anchor"], d["agents"],
                   d["replicates"], d.get("pairs", []), d.get("plan", {}))

    def rows(self) -> list[list[str]]:
        """Table rows: agent, rating, 95% interval, ± half-width, games."""
        return [[a["agent"], f"{a['rating']:.0f}", fmt_ci(a["ci_low"], a["ci_high"], digits=0),
                 f"±{a['half_width']:.0f}", str(a["games"])] for a in self.ranked()]

    HEADERS = ["agent", "rating", "95% interval", "±", "games"]

    def table(self) -> str:
        """The ladder as a terminal table."""
        title = get_game(self.game).title
        return (f"{title} {self.setup} ladder (seed {self.seed}; {self.anchor} = 0)\n"
                + text_table(self.HEADERS, self.rows()))

    def markdown(self) -> str:
        """The ladder as a Markdown table."""
        return markdown_table(self.HEADERS, self.rows())

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """``ladder.json``, ``ladder.md`` and ``ladder.png`` (matplotlib permitting) in ``out_dir``."""
        out = Path(out_dir)
        paths = {"json": write_json(out / "ladder.json", self.to_dict()),
                 "markdown": write_text(out / "ladder.md", self.table() + "\n\n" + self.markdown())}
        png = plot_ladder(self, out / "ladder.png")
        if png is not None:
            paths["png"] = png
        return paths


def shipped_ladder(game: str | GameSpec, num_players: int, variant: str) -> Ladder:
    """The calibrated ladder ``game`` ships for the setup (``ValueError`` naming the setups it has otherwise)."""
    folder = ladder_folder(game)
    path = folder / f"{setup_key(num_players, variant)}.json"
    if not path.is_file():
        have = sorted(p.stem for p in folder.glob("*p-*.json"))
        raise ValueError(f"{get_game(game).title} ships no ladder for {setup_key(num_players, variant)}; "
                         f"calibrated: {', '.join(have) or 'none'}")
    return Ladder.from_dict(json.loads(path.read_text()))


def summary_table(ladders: Sequence[Ladder]) -> str:
    """Several setups' ladders side by side as one Markdown table: a row per agent (strongest in the first
    ladder first), a column per setup, each cell the rating and its 95% interval (``-``: not on that ladder)."""
    order: list[str] = []
    for lad in ladders:
        order += [a["agent"] for a in lad.ranked() if a["agent"] not in order]
    heads = [f"{get_game(lad.game).title} {lad.setup}" for lad in ladders]
    rows = []
    for label in order:
        cells = []
        for lad in ladders:
            entry = next((a for a in lad.agents if a["agent"] == label), None)
            cells.append("-" if entry is None else
                         f"{entry['rating']:.0f} {fmt_ci(entry['ci_low'], entry['ci_high'], digits=0)}")
        rows.append([f"`{label}`", *cells])
    return markdown_table(["agent", *heads], rows)


def groups_of(labels: Sequence[str], num_players: int) -> list[tuple[int, ...]]:
    """Every group of ``num_players`` distinct agents (all pairs for two players)."""
    return list(itertools.combinations(range(len(labels)), num_players))


def pair_rows(labels: Sequence[str], wins: np.ndarray) -> list[dict[str, Any]]:
    """Each pair that met: comparisons and the first agent's score (ties half)."""
    total = wins.sum(axis=0)
    rows = []
    for a, b in itertools.combinations(range(len(labels)), 2):
        n = total[a, b] + total[b, a]
        if n:
            rows.append({"agent": labels[a], "opponent": labels[b], "comparisons": float(n),
                         "score": float(total[a, b] / n)})
    return rows


def fit_ladder(game: str, num_players: int, variant: str, labels: Sequence[str], records: Sequence[dict[str, Any]],
               plan: LadderPlan) -> Ladder:
    """The ladder of ``records`` (games among ``labels``): ratings, bootstrap intervals, pairwise results."""
    anchor = labels.index(plan.anchor)
    wins, groups = comparisons(records, len(labels))
    ratings = fit(wins.sum(axis=0), anchor)
    rng = np.random.default_rng(derive_seed(plan.seed, num_players, 1))
    draws = bootstrap(wins, groups, anchor, plan.bootstrap, rng)
    games = [sum(1 for r in records if i in r["lineup"]) for i in range(len(labels))]
    agents = []
    for i, label in enumerate(labels):
        lo, hi = interval(draws[:, i])
        agents.append({"agent": label, "rating": round(float(ratings[i]), 1), "ci_low": round(lo, 1),
                       "ci_high": round(hi, 1), "half_width": round(max(ratings[i] - lo, hi - ratings[i]), 1),
                       "games": games[i]})
    return Ladder(game, num_players, variant, plan.seed, plan.anchor, agents,
                  np.round(draws, 1).tolist(), pair_rows(labels, wins), {**plan.to_dict(), "prior": PRIOR})


def calibrate(game: str, num_players: int, variant: str, out: str | Path, plan: LadderPlan | None = None,
              workers: int | None = 1, progress: bool = True, ray: str | None = None,
              seed: int | None = None, discard_bad_journal_lines: bool = False) -> Ladder:
    """Play the plan's round robin for the setup and fit its ladder; games are journalled in
    ``<out>/journal.jsonl`` (kept as ``journal.jsonl.gz`` when done) and the ladder written to ``out``.
    ``plan`` None is the game's; ``seed`` None is the plan's; ``discard_bad_journal_lines`` as for
    :func:`~five_towers_env.evaluation.match.evaluate`."""
    spec = get_game(game)
    plan = plan or load_plan(spec)
    if seed is not None:
        plan = dataclasses.replace(plan, seed=seed)
    spec.check(num_players, variant)
    labels = playable_agents(spec, plan.panel(num_players), num_players, variant)
    if plan.anchor not in labels:
        raise ValueError(f"the plan's anchor {plan.anchor!r} is not among its agents")
    specs = resolve_specs(labels, spec.name)
    jobs = []
    for g, members in enumerate(groups_of(labels, num_players)):
        names = [labels[a] for a in members]
        jobs += make_jobs(list(members), plan.games_for(names, num_players), num_players, plan.seed,
                          key=(group_key(names),), group=g)
    out = Path(out)
    journal_path, archive = out / "journal.jsonl", out / "journal.jsonl.gz"
    if archive.is_file() and not journal_path.exists():  # an earlier calibration's games: reuse them
        with gzip.open(archive, "rb") as src, open(journal_path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    journal = Journal(journal_path, {"run": "ladder", "game": spec.name, "variant": variant,
                                     "num_players": num_players, "seed": plan.seed, "paired": True},
                      fingerprints=fingerprints(spec, labels, num_players, variant),
                      discard_bad_lines=discard_bad_journal_lines)
    for label, dropped in sorted(journal.changed.items()):
        warnings.warn(f"{label}: its files changed since the journal was written; its {dropped} games are "
                      "played again", stacklevel=2)
    records = run_jobs(specs, variant, jobs, workers=workers, progress=progress,
                       desc=f"ladder {setup_key(num_players, variant)}", game=spec.name, options=PlayOptions(),
                       journal=journal, ray=ray)
    ladder = fit_ladder(spec.name, num_players, variant, labels, records, plan)
    ladder.save(out)
    # the games, in job order, compressed: what a later calibration of this setup starts from
    lines = journal.lines([journal_line(r, job, labels) for r, job in zip(records, jobs)])
    atomic.write_bytes(archive, gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    journal.remove()
    return ladder


def plot_ladder(ladder: Ladder, path: str | Path) -> Path | None:
    """The ladder as a picture: each agent's rating with its 95% interval (None without matplotlib)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    from five_towers_env.atomic import save_figure

    rows = ladder.ranked()[::-1]
    fig = Figure(figsize=(7.0, 0.45 * len(rows) + 1.2))
    ax = fig.subplots()
    ys = range(len(rows))
    ratings = [r["rating"] for r in rows]
    err = [[r["rating"] - r["ci_low"] for r in rows], [r["ci_high"] - r["rating"] for r in rows]]
    ax.errorbar(ratings, ys, xerr=err, fmt="o", capsize=3)
    ax.set_yticks(list(ys), labels=[r["agent"] for r in rows])
    ax.set_xlabel(f"rating (Elo scale, {ladder.anchor} = 0), 95% interval")
    ax.set_title(f"{get_game(ladder.game).title} {ladder.setup} ladder (seed {ladder.seed})", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


__all__ = ["FORMAT", "MODEL", "Ladder", "LadderPlan", "calibrate", "fit_ladder", "groups_of", "ladder_folder",
           "load_plan", "playable_agents", "plot_ladder", "shipped_ladder", "summary_table"]
