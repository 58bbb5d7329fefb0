"""Round-robin tournaments: a win-rate matrix with confidence intervals, Elo and OpenSkill ratings.

``round_robin(["random", "greedy", "heuristic"], games=1000, num_players=2)`` plays every pair
``games`` seat-rotated games (see :mod:`five_towers_env.evaluation.match` for the seat rotation,
seeding and win conventions). With ``num_players > 2`` every combination of ``num_players`` agents
is a group that plays ``games`` seat-rotated games; with fewer agents than seats there is one
group, the agents repeated to fill the seats.

* **Win-rate matrix.** Cell ``(row, col)`` is how often ``row`` finished ahead of ``col`` in the
  games where both sat, a tie counting 1/2 (in 2-player games this is exactly the row's win rate
  against the column, shared wins counting 1/2); its ``strict_win_rate`` counts only finishing
  strictly ahead. When an agent sits several times in one game (fewer agents than seats) every
  pair of seats is one comparison. Intervals: 95% Wilson at the cluster-adjusted effective sample
  size, the clusters being the deals (:func:`~five_towers_env.evaluation.stats.cluster_rate`), so
  the correlated comparisons of one deal (its seat rotations, and in games of 3+ players the
  several pairs of seats of a game) are not counted as independent.
* **Ratings table.** The per-agent rows of :func:`~five_towers_env.evaluation.summary.summarize`
  (win rate with shared wins counting 1/k, strict win rate, cluster intervals) with the ratings.
* **Elo.** A Bradley-Terry maximum-likelihood fit (deterministic MM iterations, half a virtual win
  each way per pair) of those pairwise results, on the Elo scale with mean 1500. For 2 players it is
  the usual head-to-head Elo; for more it rates pairwise finishing order.
* **OpenSkill** (only when the optional ``openskill`` package is installed): Plackett-Luce ratings
  updated game by game from the full finishing order, games taken round by round across groups;
  ``ordinal = mu - 3 sigma``.
* Each group's seeds derive from the run seed and the group's agent labels, so adding an agent to
  a tournament does not change the games of the existing pairs.
"""
from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from five_towers_env.atomic import save_figure
from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.evaluation.jobs import group_key, make_jobs
from five_towers_env.evaluation.journal import Journal
from five_towers_env.evaluation.outcomes import pairwise_counts, pairwise_outcomes
from five_towers_env.evaluation.playing import PlayOptions
from five_towers_env.evaluation.report import fmt_ci, markdown_table, text_table, write_csv, write_json, write_text
from five_towers_env.evaluation.runner import resolve_workers, run_jobs
from five_towers_env.evaluation.specs import resolve_specs
from five_towers_env.evaluation.stats import cluster_rate, elo_ratings
from five_towers_env.evaluation.summary import (
    GAME_FIELDS,
    RATE_HEADERS,
    SUMMARY_FIELDS,
    counts_seat_games,
    game_rows,
    rate_cells,
    summarize,
)


def tournament_groups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The groups that play each other: all ``num_players``-combinations of the agents (all pairs for
    2 players), or one group of every agent when there are fewer agents than seats."""
    if num_agents < 2:
        raise ValueError("a tournament needs at least 2 agents")
    if num_agents <= num_players:
        return [tuple(range(num_agents))]
    return list(itertools.combinations(range(num_agents), num_players))


def openskill_ratings(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]] | None:
    """Plackett-Luce ratings from ``records`` (in order), or None when ``openskill`` is not installed."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    state = {i: (model.rating().mu, model.rating().sigma) for i in range(len(labels))}
    for r in records:
        teams = [[model.rating(mu=state[a][0], sigma=state[a][1], name=labels[a])] for a in r["lineup"]]
        new = model.rate(teams, scores=[float(x) for x in r["scores"]])
        upd: dict[int, list[tuple[float, float]]] = {}
        for a, team in zip(r["lineup"], new):
            upd.setdefault(a, []).append((team[0].mu, team[0].sigma))
        for a, vals in upd.items():  # an agent in several seats: average its updates
            state[a] = (sum(v[0] for v in vals) / len(vals), sum(v[1] for v in vals) / len(vals))
    return {labels[i]: {"mu": mu, "sigma": sigma, "ordinal": mu - 3.0 * sigma} for i, (mu, sigma) in state.items()}


@dataclass
class TournamentResult:
    """What :func:`round_robin` returns."""

    config: dict[str, Any]
    labels: list[str]
    groups: list[list[str]]
    wins: list[list[float]]          # pairwise wins, row over column
    counts: list[list[int]]          # pairwise comparisons
    overall: list[dict[str, Any]]    # per-agent summary (summary.summarize), with elo / openskill added
    openskill: dict[str, dict[str, float]] | None
    records: list[dict[str, Any]] = field(repr=False)

    @cached_property
    def _outcomes(self) -> dict[tuple[int, int], tuple[list[float], list[Any]]]:
        return pairwise_outcomes(self.records)

    def cell(self, i: int, j: int) -> dict[str, Any]:
        """Matrix cell: row ``i`` against column ``j`` (rates NaN on the diagonal / pairs that never met);
        ``games`` counts comparisons, ``deals`` the deals they came from (the clusters of the intervals)."""
        n, w = self.counts[i][j], self.wins[i][j]
        values, clusters = self._outcomes.get((i, j), ([], [])) if i != j else ([], [])
        rate = cluster_rate(values, clusters)
        strict_values = [1.0 if v >= 1.0 else 0.0 for v in values]
        strict = cluster_rate(strict_values, clusters)
        return {"agent": self.labels[i], "opponent": self.labels[j], "games": n, "deals": rate.clusters, "wins": w,
                "win_rate": w / n if n else math.nan, "ci_low": rate.ci_low, "ci_high": rate.ci_high,
                "strict_wins": int(sum(strict_values)), "strict_win_rate": strict.rate,
                "strict_ci_low": strict.ci_low, "strict_ci_high": strict.ci_high}

    def matrix(self) -> list[list[float]]:
        """Win rates, row against column (NaN where undefined)."""
        k = len(self.labels)
        return [[self.cell(i, j)["win_rate"] for j in range(k)] for i in range(k)]

    def pairs(self) -> list[dict[str, Any]]:
        """Every ordered pair that met, as matrix cells."""
        k = len(self.labels)
        return [self.cell(i, j) for i in range(k) for j in range(k) if i != j and self.counts[i][j]]

    def ranking(self) -> list[dict[str, Any]]:
        """Per-agent rows sorted by Elo, best first."""
        return sorted(self.overall, key=lambda r: (-r["elo"], r["agent"]))

    # -- formatting -------------------------------------------------------------------------

    def _matrix_cells(self, with_ci: bool) -> list[list[str]]:
        k = len(self.labels)
        rows = []
        for i in range(k):
            row = [self.labels[i]]
            for j in range(k):
                c = self.cell(i, j)
                if i == j or not c["games"]:
                    row.append("-")
                elif with_ci:
                    row.append(f"{c['win_rate']:.3f} {fmt_ci(c['ci_low'], c['ci_high'])}")
                else:
                    row.append(f"{c['win_rate']:.3f}")
            rows.append(row)
        return rows

    def _rating_rows(self) -> tuple[list[str], list[list[str]]]:
        seat_col = counts_seat_games(self.overall)
        n = int(self.config["num_players"])  # more than two: the win rate over the equal share 1/n too
        headers = ["agent", "games"] + (["seat-games"] if seat_col else []) + RATE_HEADERS + \
            ([f"x 1/{n}"] if n > 2 else []) + ["mean score", "mean margin", "s/move", "Elo"]
        if self.openskill is not None:
            headers += ["OpenSkill mu", "sigma", "ordinal"]
        rows = []
        for r in self.ranking():
            row = ([r["agent"], str(r["games"])] + ([str(r["n_seat_games"])] if seat_col else []) + rate_cells(r)
                   + ([f"{r['win_rate'] * n:.2f}"] if n > 2 else [])
                   + [f"{r['mean_score']:.2f}", f"{r['mean_margin']:+.2f}",
                      "-" if math.isnan(r["sec_per_move"]) else f"{r['sec_per_move']:.2e}", f"{r['elo']:.0f}"])
            if self.openskill is not None:
                o = self.openskill[r["agent"]]
                row += [f"{o['mu']:.2f}", f"{o['sigma']:.2f}", f"{o['ordinal']:.2f}"]
            rows.append(row)
        return headers, rows

    def _header(self) -> str:
        c = self.config
        # the default game's header names no game; other games name themselves
        title = "" if c.get("game", DEFAULT_GAME) == DEFAULT_GAME else f" ({get_game(c['game']).title})"
        return (f"round robin{title}: {len(self.labels)} agents, {len(self.groups)} groups x "
                f"{c['games_per_group']} games, "
                f"{c['num_players']} players, variant {c['variant']}, seed {c['seed']}")

    def table(self) -> str:
        """Terminal text: the win-rate matrix (row vs column) and the ratings."""
        headers, rows = self._rating_rows()
        note = "" if self.openskill is not None else "\n(OpenSkill ratings skipped: pip install openskill)"
        return (f"{self._header()}\nwin rate, row vs column:\n"
                f"{text_table(['agent'] + self.labels, self._matrix_cells(with_ci=False))}\n\n"
                f"{text_table(headers, rows)}\n({self.config['win_convention']}){note}")

    def markdown(self) -> str:
        """Markdown: the matrix with 95% intervals and the ratings table."""
        headers, rows = self._rating_rows()
        return (f"# {self._header()}\n\n"
                "## Win rate, row vs column (95% Wilson interval at the cluster-adjusted sample size, "
                "clusters = deals)\n\n"
                f"{markdown_table(['agent'] + self.labels, self._matrix_cells(with_ci=True))}\n\n"
                f"## Ratings\n\n{markdown_table(headers, rows)}\n\n{self.config['win_convention']}\n")

    def to_dict(self, include_games: bool = True) -> dict[str, Any]:
        """JSON-ready dict."""
        d: dict[str, Any] = {"config": self.config, "agents": self.labels, "groups": self.groups,
                             "matrix": self.matrix(), "pairs": self.pairs(), "ratings": self.ranking(),
                             "openskill": self.openskill}
        if include_games:
            d["games"] = game_rows(self.labels, self.records)
        return d

    def plot(self, path: str | Path) -> Path | None:
        """PNG heat map of the win-rate matrix; None (with a warning) when matplotlib is missing."""
        return plot_matrix(self, path)

    def save(self, out_dir: str | Path, prefix: str = "tournament", plot: bool = True) -> dict[str, Path]:
        """Write the matrix (CSV, Markdown, PNG), the pairs, ratings and games (CSV) and everything as JSON."""
        out = Path(out_dir)
        k = len(self.labels)
        m = self.matrix()
        wide = [{"agent": self.labels[i], **{self.labels[j]: m[i][j] for j in range(k)}} for i in range(k)]
        rating_fields = ["agent", "elo"] + (["openskill_mu", "openskill_sigma", "openskill_ordinal"]
                                             if self.openskill is not None else []) + SUMMARY_FIELDS[1:]
        ratings = []
        for r in self.ranking():
            row = dict(r)
            if self.openskill is not None:
                o = self.openskill[r["agent"]]
                row.update(openskill_mu=o["mu"], openskill_sigma=o["sigma"], openskill_ordinal=o["ordinal"])
            ratings.append(row)
        paths = {
            "matrix_csv": write_csv(out / f"{prefix}_matrix.csv", wide, ["agent"] + self.labels),
            "pairs_csv": write_csv(out / f"{prefix}_pairs.csv", self.pairs(),
                                   PAIR_FIELDS),
            "ratings_csv": write_csv(out / f"{prefix}_ratings.csv", ratings, rating_fields),
            "games_csv": write_csv(out / f"{prefix}_games.csv.gz", game_rows(self.labels, self.records), GAME_FIELDS),
            "json": write_json(out / f"{prefix}.json", self.to_dict(include_games=False)),  # games: the CSV
            "markdown": write_text(out / f"{prefix}.md", self.markdown()),
        }
        if plot:
            png = self.plot(out / f"{prefix}_matrix.png")
            if png is not None:
                paths["png"] = png
        return paths


PAIR_FIELDS = ["agent", "opponent", "games", "deals", "wins", "win_rate", "ci_low", "ci_high", "strict_wins",
               "strict_win_rate", "strict_ci_low", "strict_ci_high"]

#: what the rates and intervals of :func:`round_robin` mean (also in its config and tables)
WIN_CONVENTION = ("matrix / pairs: win_rate = row finished ahead of column, a tie counts 1/2; strict_win_rate: "
                  "strictly ahead only; ratings rows: win_rate with a k-way shared win counting 1/k, "
                  "strict_win_rate: sole wins only, per seat-game; 95% intervals: Wilson at the cluster-adjusted "
                  "effective sample size, clusters = deals (each game its own deal when unpaired)")


def plot_matrix(result: TournamentResult, path: str | Path) -> Path | None:
    """Draw ``result``'s win-rate matrix as a PNG heat map (matplotlib optional: warn and skip without it)."""
    try:
        from matplotlib.figure import Figure  # no pyplot: leaves the global backend alone
    except ImportError:
        warnings.warn("matplotlib is not installed; skipping the win-rate matrix plot "
                      "(pip install matplotlib)", stacklevel=2)
        return None
    import numpy as np

    labels = result.labels
    k = len(labels)
    m = np.array(result.matrix(), dtype=float)
    size = max(4.0, 1.3 * k + 2.0)
    fig = Figure(figsize=(size, size * 0.85))
    ax = fig.subplots()
    im = ax.imshow(np.ma.masked_invalid(m), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(k), labels=labels, rotation=30, ha="right")
    ax.set_yticks(range(k), labels=labels)
    ax.set_xlabel("opponent (column)")
    ax.set_ylabel("agent (row)")
    for i in range(k):
        for j in range(k):
            c = result.cell(i, j)
            if i != j and c["games"]:
                ax.text(j, i, f"{c['win_rate']:.2f}\n[{c['ci_low']:.2f}, {c['ci_high']:.2f}]",
                        ha="center", va="center", fontsize=8)
    cfg = result.config
    ax.set_title(f"win rate, row vs column ({cfg['num_players']}p {cfg['variant']}, "
                 f"{cfg['games_per_group']} games/group)", fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return save_figure(fig, path, dpi=120)


def round_robin(agent_specs: Sequence[Any], games: int = 100, num_players: int = 2, variant: str | None = None,
                seed: int = 0, workers: int | None = 1, progress: bool = True, paired: bool = True,
                game: str = DEFAULT_GAME, on_agent_error: str = "stop", move_timeout: float | None = None,
                journal: str | Path | None = None, ray: str | None = None,
                discard_bad_journal_lines: bool = False) -> TournamentResult:
    """Play every group of ``num_players`` agents ``games`` seat-rotated games of ``game``; see the
    module docstring.

    ``agent_specs`` are as for :func:`~five_towers_env.evaluation.match.evaluate` (names of
    ``game``'s agents); ``variant`` None is the game's default variant; all groups' games share one
    process pool (``workers``) or Ray cluster (``ray``), and results do not depend on either.
    ``on_agent_error``, ``move_timeout``, ``journal`` and ``discard_bad_journal_lines`` are as for
    :func:`~five_towers_env.evaluation.match.evaluate`: the journal also serves a tournament with more
    agents, whose new groups alone are played.
    """
    the_game = get_game(game)  # not ``g``: the loop below numbers the groups with it
    specs = resolve_specs(agent_specs, the_game.name)
    if variant is None:
        variant = the_game.default_variant
    the_game.check(num_players, variant)
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    labels = [s.label for s in specs]
    groups = tournament_groups(len(specs), num_players)
    rotation = len(groups[0])
    balanced = games % rotation == 0
    if not balanced:
        warnings.warn(f"{games} games per group is not a multiple of the {rotation}-game seat rotation; "
                      "seats are not exactly balanced", stacklevel=2)
    jobs = []
    for g, members in enumerate(groups):
        key = group_key([labels[a] for a in members])
        jobs += make_jobs(list(members), games, num_players, seed, key=(key,), paired=paired, group=g)
    t0 = time.perf_counter()
    run_journal = None if journal is None else Journal(journal, {"run": "tournament", "game": the_game.name,
                                                                 "variant": variant, "num_players": num_players,
                                                                 "seed": seed, "paired": paired},
                                                         discard_bad_lines=discard_bad_journal_lines)
    records = run_jobs(specs, variant, jobs, workers=workers, progress=progress, desc="tournament",
                       game=the_game.name, options=PlayOptions(on_agent_error, move_timeout), journal=run_journal,
                       ray=ray)
    wall = time.perf_counter() - t0
    wins, counts = pairwise_counts(len(specs), records)
    overall = summarize(labels, records)
    for row, elo in zip(overall, elo_ratings(wins)):
        row["elo"] = elo
    # rate round by round across groups, so no group's games all come last
    interleaved = sorted(records, key=lambda r: (r["game"], r["group"]))
    skill = openskill_ratings(labels, interleaved)
    config = {"game": the_game.name, "agents": labels, "games_per_group": games, "num_games": len(records),
              "num_players": num_players,
              "variant": variant, "seed": seed, "workers": resolve_workers(workers), "paired": paired,
              "balanced": balanced, "rotation": rotation, "wall_seconds": wall,
              "elo_basis": "head-to-head games" if num_players == 2 else "pairwise finishing order",
              "openskill": skill is not None, "ray": ray, "on_agent_error": on_agent_error,
              "move_timeout": move_timeout, "forfeits": sum("forfeit" in r for r in records),
              "win_convention": WIN_CONVENTION}
    return TournamentResult(config, labels, [[labels[a] for a in g] for g in groups], wins, counts, overall,
                            skill, records)


__all__ = ["TournamentResult", "round_robin", "plot_matrix", "openskill_ratings", "tournament_groups"]
