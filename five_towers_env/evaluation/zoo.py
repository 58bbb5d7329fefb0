"""The policy zoo: every policy a game ships, one per setup, and the table of how each one fares.

:func:`shipped` lists the setups a game ships a ``ppo`` policy for (``GameSpec.shipped_policies``) with
the file and what its training recorded. :func:`zoo_table` plays, in each setup, the shipped policy in one
seat against ``n - 1`` copies of each opponent (the ``field`` of
:func:`~five_towers_env.evaluation.match.evaluate`: seats rotated over paired deals) and gathers one row per
setup and opponent: the win share (a k-way shared win counts 1/k) with its 95% interval, the strict rate,
and the share over the equal share ``1/n``. ``five-towers zoo`` prints the list, and with ``--games`` the
table (``table.json`` / ``table.md`` plus each evaluation's files under ``--out``).

Game-neutral: it reads a game's setups and files from its spec only.
"""
from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from five_towers_env.core.game import get_game, parse_setup_key, setup_key
from five_towers_env.evaluation.report import fmt_ci, markdown_table, text_table, write_json, write_text


@dataclass(frozen=True)
class ShippedPolicy:
    """One shipped policy: the setup it plays, its file and its training ``meta``."""

    game: str
    num_players: int
    variant: str
    path: Path
    meta: dict[str, Any]

    @property
    def setup(self) -> str:
        """``"<players>p-<variant>"``."""
        return setup_key(self.num_players, self.variant)


def shipped(game: str) -> list[ShippedPolicy]:
    """The policy ``ppo`` plays in each setup ``game`` ships one for, in player-count then variant order."""
    from five_towers_env.agents.policy import PolicyAgent

    spec = get_game(game)
    out = []
    for key in spec.shipped_policies:
        if ":" in key:  # an earlier version of a setup's policy, not the one ppo plays
            continue
        players, variant = parse_setup_key(key)
        path = spec.policy_path(players, variant)
        assert path is not None
        out.append(ShippedPolicy(spec.name, players, variant, path, PolicyAgent(path, game=spec.name).meta))
    order = {v: i for i, v in enumerate(spec.variants)}
    return sorted(out, key=lambda p: (order.get(p.variant, len(order)), p.num_players))


def training_record(policy: ShippedPolicy, runs: str | Path | None) -> dict[str, Any]:
    """What the policy's training run logged: ``timesteps`` (from its meta) and ``wall_s`` (the last row of
    ``<runs>/<meta name>/eval_log.csv``, if that file exists; training from its start, warm start included)."""
    record: dict[str, Any] = {"run": policy.meta.get("name"), "timesteps": policy.meta.get("timesteps"),
                              "wall_s": None}
    if runs is not None and record["run"]:
        log = Path(runs) / str(record["run"]) / "eval_log.csv"
        if log.is_file():
            try:
                with open(log, newline="", encoding="utf-8") as f:
                    rows = list(csv.DictReader(f))
                wall = float(rows[-1]["wall_s"]) if rows and rows[-1].get("wall_s") else None
            except (OSError, UnicodeDecodeError, csv.Error, ValueError) as exc:
                raise ValueError(f"--runs: {log} is not a training run's log: {exc}") from None
            if wall is not None and not 0 <= wall < 1e12:
                raise ValueError(f"--runs: {log}: wall_s {wall} is not a run's seconds")
            record["wall_s"] = wall
    return record


def zoo_table(game: str, games: int, seed: int, out: str | Path | None = None, workers: int | None = 1,
              opponents: tuple[str, ...] | None = None, runs: str | Path | None = None,
              progress: bool = False, setups: list[str] | None = None, ray: str | None = None,
              on_agent_error: str = "stop", move_timeout: float | None = None,
              discard_bad_journal_lines: bool = False) -> list[dict[str, Any]]:
    """One row per shipped setup (or those of ``setups``) and opponent: the shipped policy against ``n - 1``
    copies of the opponent, ``games`` games on ``seed``, rounded up to a multiple of ``n`` so that the policy
    sits in every seat of every deal equally often (1,000 games of 3 players: 1,002). Each evaluation's files go to
    ``<out>/<setup>/vs_<opponent>*``; ``table.json`` and ``table.md`` to ``out``. ``opponents`` are any agent
    specs (default: the game's rule-based opponents, strongest first); ``ray``, ``on_agent_error``,
    ``move_timeout`` and ``discard_bad_journal_lines`` are as for
    :func:`~five_towers_env.evaluation.match.evaluate`, and with ``out`` each evaluation is journalled there
    until its files are written."""
    from five_towers_env.evaluation.match import evaluate

    if opponents is None:
        opponents = tuple(reversed(get_game(game).opponents))
    rows = []
    for policy in shipped(game):
        if setups is not None and policy.setup not in setups:
            continue
        training = training_record(policy, runs)
        played = -(-games // policy.num_players) * policy.num_players
        for opponent in opponents:
            name = f"vs_{file_label(opponent)}"
            journal = Path(out) / policy.setup / f"{name}_journal.jsonl" if out is not None else None
            result = evaluate([("ppo", {"path": str(policy.path)})], num_games=played, num_players=policy.num_players,
                              variant=policy.variant, seed=seed, workers=workers, progress=progress, game=game,
                              field=opponent, ray=ray, on_agent_error=on_agent_error, move_timeout=move_timeout,
                              journal=journal, discard_bad_journal_lines=discard_bad_journal_lines)
            if out is not None and journal is not None:
                result.save(Path(out) / policy.setup, prefix=name)
                journal.unlink(missing_ok=True)
            me = result.agents[0]
            rows.append({"game": policy.game, "setup": policy.setup, "num_players": policy.num_players,
                         "variant": policy.variant, "policy": policy.path.name, "opponent": opponent,
                         "games": played, "seed": seed, "equal_share": 1.0 / policy.num_players,
                         **{k: me[k] for k in ("win_rate", "ci_low", "ci_high", "strict_win_rate", "strict_ci_low",
                                               "strict_ci_high", "vs_equal_share", "mean_score", "mean_margin",
                                               "deals")},
                         "train_timesteps": training["timesteps"], "train_wall_s": training["wall_s"],
                         "train_run": training["run"]})
    if out is not None:
        write_json(Path(out) / "table.json", {"game": game, "games": games, "seed": seed, "opponents": list(opponents),
                                              "rows": rows})
        write_text(Path(out) / "table.md", zoo_markdown(rows) + "\n")
    return rows


def file_label(agent: str) -> str:
    """An agent spec as a piece of a file name (``sb3:path=a/b.zip`` -> ``sb3_path_a_b.zip``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", agent).strip("_") or "agent"


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)) else f"{seconds / 60:.0f} min"


def zoo_markdown(rows: list[dict[str, Any]]) -> str:
    """The zoo table in Markdown: one line per setup, the opponents side by side."""
    setups = list(dict.fromkeys(r["setup"] for r in rows))
    opponents = list(dict.fromkeys(r["opponent"] for r in rows))
    first = opponents[0]
    headers = ["setup", "policy", f"vs {first}: win share [95% CI]", "strict", "x 1/n"] + \
        [f"vs {o}" for o in opponents[1:]] + ["games", "seed", "training"]
    body = []
    for setup in setups:
        by = {r["opponent"]: r for r in rows if r["setup"] == setup}
        r = by[first]
        steps = r["train_timesteps"]
        training = _minutes(r["train_wall_s"]) + (f", {steps / 1e6:.1f}M steps" if steps else "")
        body.append([setup, f"`{r['policy']}`", f"{r['win_rate']:.3f} {fmt_ci(r['ci_low'], r['ci_high'])}",
                     f"{r['strict_win_rate']:.3f}", f"{r['vs_equal_share']:.2f}"]
                    + [f"{by[o]['win_rate']:.3f}" for o in opponents[1:]] + [str(r["games"]), str(r["seed"]), training])
    return markdown_table(headers, body)


def shipped_listing(game: str) -> str:
    """The shipped policies of ``game`` as a terminal table."""
    rows = [[p.setup, str(p.path.name), str(p.meta.get("name", "-")), str(p.meta.get("timesteps", "-")),
             ", ".join(p.meta.get("setups", [])) or f"{p.meta.get('num_players')}p-{p.meta.get('variant')}"]
            for p in shipped(game)]
    return text_table(["setup", "file", "training run", "timesteps", "trained in"], rows)


__all__ = ["ShippedPolicy", "shipped", "shipped_listing", "training_record", "zoo_markdown", "zoo_table"]
