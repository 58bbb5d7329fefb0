"""Rate any agent: place it on a setup's shipped ladder (:mod:`~five_towers_env.evaluation.ladder`).

``rate("sb3:path=model.zip", game="campanile")`` plays the agent against every agent of the setup's ladder
(the reference panel), the same number of games each, seat-rotated over paired deals; with more than two
players the agent sits with ``n - 1`` copies of one panel agent at a time. Its rating is the one that makes
its results most likely under the ladder's model, the panel held at its calibrated ratings. The 95% interval
is a percentile bootstrap that resamples the agent's deals (within each opponent) and draws the panel's
ratings from the ladder's own bootstrap refits, so it carries the ladder's uncertainty as well as the
agent's. Ratings are on the ladder's fixed scale (``random`` = 0): two people's ratings of the same setup
compare directly, and a gap of ``d`` points predicts finishing ahead ``1 / (1 + 10^(-d/400))`` of the time.
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.evaluation.jobs import derive_seed, group_key, make_jobs
from five_towers_env.evaluation.journal import Journal
from five_towers_env.evaluation.ladder import Ladder, shipped_ladder
from five_towers_env.evaluation.outcomes import comparisons
from five_towers_env.evaluation.playing import PlayOptions
from five_towers_env.evaluation.ratings import ELO, PRIOR, expected_score
from five_towers_env.evaluation.report import fmt_ci, text_table, write_json, write_text
from five_towers_env.evaluation.runner import run_jobs
from five_towers_env.evaluation.specs import AgentSpec, resolve_specs, to_spec

#: games against each panel agent by default: 9 panel agents x 40 = 360 two-player games, a few minutes here
DEFAULT_GAMES = 360


def fit_one(wins: np.ndarray, against: np.ndarray, prior: float = PRIOR) -> float:
    """The rating (Elo points) of one agent whose results against opponents rated ``against`` are
    ``wins[:, 0]`` (finished ahead, ties half) out of ``wins[:, 0] + wins[:, 1]``; Newton's method."""
    w = wins[:, 0] + prior * (wins.sum(axis=1) > 0)
    n = wins.sum(axis=1) + 2 * prior * (wins.sum(axis=1) > 0)
    b = np.asarray(against) / ELO
    theta = float(np.average(b, weights=n)) if n.sum() else 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(b - theta))
        grad = float((w - n * p).sum())
        info = float((n * p * (1.0 - p)).sum())
        if info <= 0:
            break
        step = max(-2.0, min(2.0, grad / info))
        theta += step
        if abs(step) < 1e-10:
            break
    return theta * ELO


@dataclass
class RateResult:
    """What :func:`rate` returns: the agent's rating, its interval, the ladder it sits on and its games."""

    agent: str
    rating: float
    ci_low: float
    ci_high: float
    ladder: Ladder
    opponents: list[dict[str, Any]]
    config: dict[str, Any]
    records: list[dict[str, Any]] = field(repr=False)

    def neighbours(self, k: int = 2) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ``k`` ladder agents just above the rating and the ``k`` just below."""
        ranked = self.ladder.ranked()
        above = [a for a in ranked if a["rating"] > self.rating][-k:]
        below = [a for a in ranked if a["rating"] <= self.rating][:k]
        return above, below

    def table(self) -> str:
        """What ``five-towers rate`` prints."""
        lad, c = self.ladder, self.config
        above, below = self.neighbours()
        near = ", ".join(f"{a['agent']} {a['rating']:.0f}" for a in above + below)
        lines = [f"{get_game(lad.game).title} {lad.setup}: {self.agent} rates {self.rating:.0f} "
                 f"{fmt_ci(self.ci_low, self.ci_high, digits=0)} (95% interval), on the ladder where {lad.anchor} = 0",
                 f"nearest on the ladder: {near}",
                 f"games: {c['num_games']} ({len(self.opponents)} opponents x {c['games_per_opponent']}), seed "
                 f"{c['seed']}, {c['wall_seconds']:.0f} s; forfeits: {c['forfeits']}", ""]
        rows = [[o["opponent"], f"{o['rating']:.0f}", str(o["games"]), f"{o['score']:.3f}", f"{o['expected']:.3f}"]
                for o in self.opponents]
        lines.append(text_table(["opponent", "its rating", "games", "score", "expected"], rows))
        lines.append("(score: how often the agent finished ahead of that opponent, a tie counting half; expected: "
                     "the same under the agent's rating)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the rating and interval, the opponents, and the ladder it was placed on."""
        return {"agent": self.agent, "rating": self.rating, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "game": self.ladder.game, "setup": self.ladder.setup, "config": self.config,
                "opponents": self.opponents,
                "ladder": [{"agent": a["agent"], "rating": a["rating"], "ci_low": a["ci_low"],
                            "ci_high": a["ci_high"]} for a in self.ladder.ranked()]}

    def save(self, out_dir: str | Path) -> dict[str, Path]:
        """``rate.json`` and ``rate.txt`` in ``out_dir``."""
        out = Path(out_dir)
        return {"json": write_json(out / "rate.json", self.to_dict()), "table": write_text(out / "rate.txt",
                                                                                            self.table())}


def _label(agent: Any, panel: Sequence[str], game: str) -> AgentSpec:
    spec = to_spec(agent, game)
    if spec.label in panel:  # the agent is a ladder agent itself: tell them apart
        spec = AgentSpec(label=f"{spec.label} (rated)", name=spec.name, kwargs=spec.kwargs, factory=spec.factory,
                         game=spec.game)
    return spec


def rate(agent: Any, game: str = DEFAULT_GAME, num_players: int = 2, variant: str | None = None,
         games: int = DEFAULT_GAMES, seed: int = 0, workers: int | None = 1, progress: bool = True,
         ray: str | None = None, on_agent_error: str = "stop", move_timeout: float | None = None,
         journal: str | Path | None = None, discard_bad_journal_lines: bool = False) -> RateResult:
    """Play ``agent`` (any agent spec of :mod:`~five_towers_env.evaluation.specs`) against the setup's ladder
    panel, about ``games`` games in all, and rate it on the ladder's scale (see the module docstring).
    ``workers``, ``ray``, ``on_agent_error``, ``move_timeout``, ``journal`` and ``discard_bad_journal_lines`` are
    as for
    :func:`~five_towers_env.evaluation.match.evaluate`."""
    g = get_game(game)
    variant = variant or g.default_variant
    g.check(num_players, variant)
    lad = shipped_ladder(g.name, num_players, variant)
    panel = lad.labels
    me = _label(agent, panel, g.name)
    specs = [me] + resolve_specs(panel, g.name)
    per = max(num_players, -(-games // (len(panel) * num_players)) * num_players)
    jobs = []
    for o, label in enumerate(panel, start=1):
        ids = [0] + [o] * (num_players - 1)
        jobs += make_jobs(ids, per, num_players, seed, key=(group_key([me.label, label]),), group=o)
    run_journal = None if journal is None else Journal(journal, {"run": "rate", "game": g.name, "variant": variant,
                                                                 "num_players": num_players, "seed": seed,
                                                                 "paired": True},
                                                         discard_bad_lines=discard_bad_journal_lines)
    t0 = time.perf_counter()
    records = run_jobs(specs, variant, jobs, workers=workers, progress=progress, desc="rate", game=g.name,
                       options=PlayOptions(on_agent_error, move_timeout), journal=run_journal, ray=ray)
    wall = time.perf_counter() - t0
    wins, groups = comparisons(records, len(specs))
    per_opp = np.stack([wins[:, 0, 1:].T, wins[:, 1:, 0].T], axis=-1)  # [opponent, cluster, (ahead, behind)]
    point = np.array([lad.rating(p) for p in panel])
    rating = fit_one(per_opp.sum(axis=1), point)
    replicates = np.asarray(lad.replicates)[:, [lad.labels.index(p) for p in panel]]
    rng = np.random.default_rng(derive_seed(seed, 2))
    draws = []
    members = [np.flatnonzero(np.asarray(groups) == o + 1) for o in range(len(panel))]
    for b in range(len(replicates)):
        resampled = np.stack([per_opp[o, rng.choice(m, size=len(m))].sum(axis=0) if len(m) else np.zeros(2)
                              for o, m in enumerate(members)])
        draws.append(fit_one(resampled, replicates[b]))
    lo, hi = np.percentile(draws, [2.5, 97.5])
    opponents = []
    for o, label in enumerate(panel):
        ahead, behind = per_opp[o].sum(axis=0)
        n = ahead + behind
        opponents.append({"opponent": label, "rating": float(point[o]), "games": per,
                          "comparisons": float(n), "score": float(ahead / n) if n else math.nan,
                          "expected": expected_score(rating - point[o])})
    config = {"game": g.name, "variant": variant, "num_players": num_players, "seed": seed,
              "games_per_opponent": per, "num_games": len(records), "ladder_seed": lad.seed,
              "bootstrap": len(replicates), "wall_seconds": wall, "ray": ray, "on_agent_error": on_agent_error,
              "move_timeout": move_timeout, "forfeits": sum("forfeit" in r for r in records)}
    return RateResult(me.label, round(rating, 1), round(float(lo), 1), round(float(hi), 1), lad, opponents, config,
                      records)


__all__ = ["DEFAULT_GAMES", "RateResult", "fit_one", "rate"]
