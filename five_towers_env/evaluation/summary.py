"""Summaries of played games: per-agent and per-seat win rates with cluster-adjusted intervals,
their tables, and the :class:`EvaluationResult` that :func:`~five_towers_env.evaluation.match.evaluate`
returns (see :mod:`five_towers_env.evaluation.match` for the conventions).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.evaluation.outcomes import deal_cluster
from five_towers_env.evaluation.report import fmt_ci, text_table, write_csv, write_json, write_text
from five_towers_env.evaluation.stats import ClusteredRate, cluster_rate

#: what the win rates and intervals of :func:`evaluate` mean (also in its config and tables)
WIN_CONVENTION = ("win_rate: a k-way shared win counts 1/k of a win; strict_win_rate: sole wins only; "
                  "rates are per seat-game; 95% intervals: Wilson at the cluster-adjusted effective sample "
                  "size, clusters = deals (each game its own deal when unpaired)")


def is_sole_win(share: float) -> bool:
    """Whether a seat's win share is a sole win (not shared)."""
    return share >= 1.0


def _rate_fields(prefix: str, r: ClusteredRate) -> dict[str, Any]:
    return {f"{prefix}win_rate": r.rate, f"{prefix}ci_low": r.ci_low, f"{prefix}ci_high": r.ci_high}


def summarize(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-agent statistics over ``records`` (see the module docstring for the conventions).

    ``games`` counts the games an agent played, ``n_seat_games`` the seats it took in them (more
    when it fills several seats of a game); rates, means and intervals are over the seat-games,
    clustered by deal (``deals``: the number of clusters; ``design_effect``: the variance
    inflation of ``win_rate`` from that clustering)."""
    k = len(labels)
    num_players = max((len(r["lineup"]) for r in records), default=0)
    acc: list[dict[str, Any]] = [
        {"games": 0, "wins": 0.0, "strict_wins": 0, "shared_wins": 0, "score": 0.0, "score_sq": 0.0,
         "margin": 0.0, "moves": 0, "seconds": 0.0, "seat_games": [0] * num_players,
         "seat_wins": [0.0] * num_players, "shares": [], "strict": [], "clusters": [], "forfeits": 0}
        for _ in range(k)]
    for i, r in enumerate(records):
        cluster = deal_cluster(r, i)
        for a in set(r["lineup"]):
            acc[a]["games"] += 1
        if r.get("forfeit") is not None:
            acc[r["lineup"][r["forfeit"]]]["forfeits"] += 1
        for s, a in enumerate(r["lineup"]):
            st = acc[a]
            share = r["win_share"][s]
            st["wins"] += share
            st["strict_wins"] += int(is_sole_win(share))
            st["shared_wins"] += int(0 < share < 1)
            st["score"] += r["scores"][s]
            st["score_sq"] += r["scores"][s] ** 2
            st["margin"] += r["margins"][s]
            st["moves"] += r["moves"][s]
            st["seconds"] += r["think_seconds"][s]
            st["seat_games"][s] += 1
            st["seat_wins"][s] += share
            st["shares"].append(share)
            st["strict"].append(1.0 if is_sole_win(share) else 0.0)
            st["clusters"].append(cluster)
    out = []
    for label, st in zip(labels, acc):
        n = len(st["shares"])
        rate = cluster_rate(st["shares"], st["clusters"])
        strict = cluster_rate(st["strict"], st["clusters"])
        mean = st["score"] / n if n else math.nan
        var = st["score_sq"] / n - mean * mean if n else math.nan
        out.append({
            "agent": label, "games": st["games"], "n_seat_games": n, "deals": rate.clusters,
            "wins": st["wins"], "strict_wins": st["strict_wins"], "shared_wins": st["shared_wins"],
            **_rate_fields("", rate), **_rate_fields("strict_", strict), "design_effect": rate.design_effect,
            "vs_equal_share": rate.rate * num_players if n else math.nan,
            "mean_score": mean, "score_std": math.sqrt(max(var, 0.0)) if n else math.nan,
            "mean_margin": st["margin"] / n if n else math.nan,
            "moves": st["moves"], "sec_per_move": st["seconds"] / st["moves"] if st["moves"] else math.nan,
            "seat_games": st["seat_games"],
            "seat_win_rate": [w / g if g else math.nan for w, g in zip(st["seat_wins"], st["seat_games"])],
            "forfeits": st["forfeits"],
        })
    return out


def seat_summary(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Win rates (with cluster intervals, as :func:`summarize`) and mean score per seat, whoever sat
    there (seat 0 starts the game)."""
    num_players = max((len(r["lineup"]) for r in records), default=0)
    out = []
    for s in range(num_players):
        rs = [(i, r) for i, r in enumerate(records) if len(r["lineup"]) > s]
        shares = [r["win_share"][s] for _, r in rs]
        clusters = [deal_cluster(r, i) for i, r in rs]
        rate = cluster_rate(shares, clusters)
        strict = cluster_rate([1.0 if is_sole_win(x) else 0.0 for x in shares], clusters)
        out.append({"seat": s, "games": len(rs), "wins": sum(shares), **_rate_fields("", rate),
                    **_rate_fields("strict_", strict),
                    "mean_score": sum(r["scores"][s] for _, r in rs) / len(rs) if rs else math.nan})
    return out


SUMMARY_FIELDS = ["agent", "games", "n_seat_games", "deals", "wins", "strict_wins", "shared_wins", "win_rate",
                  "ci_low", "ci_high", "strict_win_rate", "strict_ci_low", "strict_ci_high", "design_effect",
                  "vs_equal_share", "mean_score", "score_std", "mean_margin", "moves", "sec_per_move", "seat_games",
                  "seat_win_rate", "forfeits"]
GAME_FIELDS = ["group", "game", "deal", "deal_seed", "agents", "scores", "winners", "win_share", "margins", "steps",
               "moves", "think_seconds", "wall_seconds", "forfeit", "error"]


def counts_seat_games(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether some agent took several seats of a game (its rates are then over more seat-games than games)."""
    return any(r.get("n_seat_games", r["games"]) != r["games"] for r in rows)


def rate_cells(r: dict[str, Any]) -> list[str]:
    """``win rate``, ``95% CI``, ``strict win rate``, ``strict 95% CI`` cells of a summary row."""
    return [f"{r['win_rate']:.3f}", fmt_ci(r["ci_low"], r["ci_high"]),
            f"{r['strict_win_rate']:.3f}", fmt_ci(r["strict_ci_low"], r["strict_ci_high"])]


RATE_HEADERS = ["win rate", "95% CI", "strict win rate", "strict 95% CI"]


def summary_table(rows: Sequence[dict[str, Any]], num_players: int = 2) -> str:
    """Per-agent summary rows as an aligned terminal table (a ``seat-games`` column when an agent
    took several seats of a game; with more than two players, the win rate over the equal share ``1/n``)."""
    seat_col = counts_seat_games(rows)
    equal_col = num_players > 2
    headers = ["agent", "games"] + (["seat-games"] if seat_col else []) + ["wins"] + RATE_HEADERS + \
        ([f"x 1/{num_players}"] if equal_col else []) + ["mean score", "mean margin", "s/move"]
    body = [[r["agent"], str(r["games"])] + ([str(r["n_seat_games"])] if seat_col else []) + [f"{r['wins']:g}"]
            + rate_cells(r) + ([f"{r['win_rate'] * num_players:.2f}"] if equal_col else [])
            + [f"{r['mean_score']:.2f}", f"{r['mean_margin']:+.2f}",
               "-" if math.isnan(r["sec_per_move"]) else f"{r['sec_per_move']:.2e}"] for r in rows]
    return text_table(headers, body)


def game_rows(labels: Sequence[str], records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Game records with the seat lineup as agent labels (for CSV / JSON)."""
    return [{**{k: v for k, v in r.items() if k != "lineup"}, "agents": [labels[a] for a in r["lineup"]]}
            for r in records]


@dataclass
class EvaluationResult:
    """What :func:`evaluate` returns: the configuration, per-agent and per-seat summaries and every game."""

    config: dict[str, Any]
    labels: list[str]
    agents: list[dict[str, Any]]
    seats: list[dict[str, Any]]
    records: list[dict[str, Any]] = field(repr=False)

    def table(self) -> str:
        """The per-agent summary as a terminal table (with a line per seat below)."""
        c = self.config
        title = "" if c.get("game", DEFAULT_GAME) == DEFAULT_GAME else f"{get_game(c['game']).title}: "
        head = (f"{title}{c['num_games']} games, {c['num_players']} players, variant {c['variant']}, seed {c['seed']}"
                f"{'' if c['balanced'] else ' (seats not balanced: games not a multiple of the rotation)'}")
        seats = "  ".join(f"seat {s['seat']}: {s['win_rate']:.3f} {fmt_ci(s['ci_low'], s['ci_high'])}"
                          for s in self.seats)
        notes = [f"win rate by seat  {seats}", f"({c['win_convention']})"]
        if c.get("forfeits"):
            lost = ", ".join(f"{r['agent']} {r['forfeits']}" for r in self.agents if r.get("forfeits"))
            notes.append(f"({c['forfeits']} game(s) forfeited by an agent's failed decision, counted as lost by "
                         f"its seat: {lost}; each game's error is in its record)")
        if c["num_players"] > 2:
            notes.append(f"(x 1/{c['num_players']}: the win rate over the equal share 1/{c['num_players']} of "
                         f"{c['num_players']} equal players; above 1 is better than equal)")
        if counts_seat_games(self.agents):
            notes.append("(an agent in several seats of a game: its wins, rates and means are per seat-game"
                         + ("; one agent in every seat plays itself, so its win rate is 1/players by construction"
                            if len(self.labels) == 1 else "") + ")")
        return "\n".join([head, summary_table(self.agents, c["num_players"])] + notes)

    def to_dict(self, include_games: bool = True) -> dict[str, Any]:
        """JSON-ready dict (``games`` holds every game record unless ``include_games=False``)."""
        d: dict[str, Any] = {"config": self.config, "agents": self.agents, "seats": self.seats}
        if include_games:
            d["games"] = game_rows(self.labels, self.records)
        return d

    def save(self, out_dir: str | Path, prefix: str = "evaluate") -> dict[str, Path]:
        """Write ``{prefix}_summary.csv``, ``{prefix}_games.csv.gz``, ``{prefix}.json`` and ``{prefix}.txt``."""
        out = Path(out_dir)
        return {
            "summary_csv": write_csv(out / f"{prefix}_summary.csv", self.agents, SUMMARY_FIELDS),
            "games_csv": write_csv(out / f"{prefix}_games.csv.gz", game_rows(self.labels, self.records), GAME_FIELDS),
            "json": write_json(out / f"{prefix}.json", self.to_dict(include_games=False)),  # games: the CSV
            "table": write_text(out / f"{prefix}.txt", self.table()),
        }


__all__ = ["EvaluationResult", "GAME_FIELDS", "RATE_HEADERS", "SUMMARY_FIELDS", "WIN_CONVENTION", "counts_seat_games",
           "game_rows", "is_sole_win", "rate_cells", "seat_summary", "summarize", "summary_table"]
