"""Seeded, seat-rotated matches between agents, run in parallel, summarised with confidence intervals.

``evaluate(["heuristic", "random"], num_games=1000, num_players=2, seed=0, workers=4)`` plays 1000
games and reports, for each agent, its games, wins, win rate and strict (sole-win) rate with 95%
intervals that account for the correlation of games sharing a deal, mean score, mean score margin
and mean thinking time per move.

Conventions (shared with :mod:`five_towers_env.evaluation.tournament`):

* **Games.** ``game="campanile"`` plays Campanile (default ``"five_towers"``): agent names are
  looked up among that game's agents (:attr:`five_towers_env.core.game.Game.agents`), the setup is
  checked by its rules, ``variant=None`` is its default variant, and the result's ``config``
  names the game.
* **Agent specs.** A registry name (``"random"``), a name with keyword settings
  (``"mcts:simulations=100,c=1.4"``; values are Python literals, else strings), a
  ``(name, kwargs)`` pair, an :class:`AgentSpec`, or a *factory*: any callable returning an
  :class:`~five_towers_env.core.agent.Agent`, called as ``factory(seed=...)`` (or ``factory()``
  if it takes no ``seed``). Agents are rebuilt for every game with a seed derived from the run seed,
  so a factory must be a top-level (picklable) function or class to be used with ``workers > 1``.
* **Seat rotation.** With ``k`` agents and ``p`` seats, game ``i`` puts agent ``(s + i) mod k`` in
  seat ``s``. Over every ``k`` consecutive games each agent sits in each seat exactly once, so seats
  are balanced when ``num_games`` is a multiple of ``k`` (a warning says otherwise). With fewer
  agents than seats the agents are repeated (2 agents, 4 seats: A B A B / B A B A; one agent plays
  itself in every seat), and rates and means are per *seat-game* (an agent sitting twice in a game
  counts twice): a summary row's ``games`` is the number of games the agent played and
  ``n_seat_games`` the number of seats it took over them, the ``n`` of its rates. With more agents
  than seats each game seats ``p`` of them (A B / B C / C A).
* **Seeds and deals.** Game ``i`` plays deal ``i // k`` when ``paired=True`` (the default: the ``k``
  rotations of a cycle replay the same shuffle with the seats swapped, duplicate-bridge style) or
  deal ``i`` when ``paired=False``; the deal seed is derived from ``(seed, deal)`` and the agents'
  seeds from ``(seed, i, seat)``. Every game record carries its ``deal``. Results (everything
  except timings) are therefore identical for any ``workers``. Pairing balances the seats within
  each deal, so every agent meets the same cards from every seat and a reader compares like with
  like; it does not make the games independent: the games of one deal are strongly correlated (in
  2-player games the same agent often wins both seatings), and the intervals account for that.
* **Wins.** The winners are the seats sharing the top score; a ``j``-way shared win counts as
  ``1/j`` of a win for each (``win_rate``), so the wins of a game add up to 1 and a field of equal
  agents has an expected win rate of ``1 / players``. ``strict_win_rate`` counts sole wins only.
* **Intervals.** 95% Wilson intervals at the cluster-adjusted effective sample size, the clusters
  being the deals (each game its own cluster when ``paired=False``): see
  :func:`~five_towers_env.evaluation.stats.cluster_rate` for the exact method.
* **Margin** is own score minus the best score among the other seats (the environment's
  ``reward="margin"``).
* **Seconds per move** is agent thinking time over the decisions it was asked (forced single-choice
  decisions are applied by the environment and not counted).
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import os
import sys
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

import numpy as np

from five_towers_env.agents.registry import (
    agent_class,
    agents_of,
    check_agent_settings,
    make_agent,
    parse_agent_text,
    unknown_agent_message,
)
from five_towers_env.core.agent import Agent, SetupWarning
from five_towers_env.core.game import DEFAULT_GAME, get_game
from five_towers_env.evaluation.report import fmt_ci, text_table, write_csv, write_json, write_text
from five_towers_env.evaluation.stats import ClusteredRate, cluster_rate
from five_towers_env.play import play_game

AgentFactory = Callable[..., Agent]
#: what ``evaluate`` and ``round_robin`` accept for an agent
AgentSpecLike = Union[str, "AgentSpec", tuple, AgentFactory]


# -- agent specs ------------------------------------------------------------------------------

def _call_factory(factory: Callable[..., Agent], seed: int | None, kwargs: dict[str, Any]) -> Agent:
    try:
        params = inspect.signature(factory).parameters.values()
        takes_seed = any(p.name == "seed" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    except (TypeError, ValueError):
        takes_seed = True
    return factory(seed=seed, **kwargs) if takes_seed else factory(**kwargs)


@dataclass(frozen=True)
class AgentSpec:
    """How to build one agent: a registry ``name`` of ``game`` with ``kwargs``, or a ``factory``;
    ``label`` names it in reports."""

    label: str
    name: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    factory: Callable[..., Agent] | None = None
    game: str = DEFAULT_GAME

    def build(self, seed: int | None = None) -> Agent:
        """A fresh agent seeded with ``seed``."""
        if self.factory is not None:
            return _call_factory(self.factory, seed, dict(self.kwargs))
        kwargs = dict(self.kwargs)
        if "name" in kwargs or "game" in kwargs:
            # make_agent's own parameters are called ``name`` and ``game``: build the class directly
            return agent_class(self.name, game=self.game)(seed=seed, **kwargs)
        return make_agent(self.name, seed=seed, game=self.game, **kwargs)

    def for_game(self, game: str) -> "AgentSpec":
        """This spec for ``game``: a registry spec re-checked against that game's agents
        (``ValueError`` if it has no such agent or setting); a factory spec unchanged."""
        game = get_game(game).name
        if self.factory is not None or self.game == game:
            return self
        if self.name not in agents_of(game):
            raise ValueError(unknown_agent_message(self.name, game))
        check_agent_settings(self.name, dict(self.kwargs), game=game)
        return dataclasses.replace(self, game=game)


def parse_agent_spec(text: str, game: str = DEFAULT_GAME) -> AgentSpec:
    """``"name"`` or ``"name:key=value,key=value"`` -> :class:`AgentSpec` of ``game`` (values parsed as
    Python literals); ``ValueError`` naming that game's agents for a name it does not have."""
    game = get_game(game).name
    name, settings = parse_agent_text(text, game=game)  # a bad setting fails here, not in the first game
    return AgentSpec(label=text.strip(), name=name, kwargs=tuple(settings.items()), game=game)


def _factory_label(factory: Any) -> str:
    for attr in ("label", "name", "__name__"):
        value = getattr(factory, attr, None)
        if isinstance(value, str) and value:
            return value
    func = getattr(factory, "func", None)  # functools.partial
    if func is not None:
        return _factory_label(func)
    return type(factory).__name__


def to_spec(spec: Any, game: str = DEFAULT_GAME) -> AgentSpec:
    """Any accepted agent spec (see the module docstring) as an :class:`AgentSpec` of ``game``
    (an :class:`AgentSpec` made for another game is re-checked against this one's agents)."""
    if isinstance(spec, AgentSpec):
        return spec.for_game(game)
    if isinstance(spec, str):
        return parse_agent_spec(spec, game)
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
        name, kwargs = spec
        base = parse_agent_spec(name, game)
        items = tuple(base.kwargs) + tuple(kwargs.items())
        label = base.name + (":" + ",".join(f"{k}={v!r}" for k, v in items) if items else "")
        return AgentSpec(label=label, name=base.name, kwargs=items, game=base.game)
    if callable(spec) and (isinstance(spec, type) or not hasattr(spec, "act")):
        return AgentSpec(label=_factory_label(spec), factory=spec)
    raise TypeError(f"cannot use {spec!r} as an agent spec: give a registry name ('mcts:simulations=100'), "
                    "a (name, kwargs) pair, an AgentSpec or a factory (a callable returning an Agent); "
                    "agent instances are not accepted because every game needs a freshly seeded agent")


def resolve_specs(specs: Iterable[Any], game: str = DEFAULT_GAME) -> list[AgentSpec]:
    """Specs as :class:`AgentSpec` objects of ``game`` with unique labels (repeats get ``#2``, ``#3``...)."""
    out: list[AgentSpec] = []
    seen: dict[str, int] = {}
    for spec in specs:
        s = to_spec(spec, game)
        seen[s.label] = seen.get(s.label, 0) + 1
        if seen[s.label] > 1:
            s = dataclasses.replace(s, label=f"{s.label}#{seen[s.label]}")
        out.append(s)
    if not out:
        raise ValueError("no agents given")
    return out


# -- seeds and seat rotation ------------------------------------------------------------------

def derive_seed(*keys: int) -> int:
    """A 63-bit seed derived deterministically from non-negative integer ``keys``."""
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def seat_lineup(index: int, num_agents: int, num_players: int) -> tuple[int, ...]:
    """Agent index in each seat for game ``index``: seat ``s`` gets agent ``(s + index) mod num_agents``."""
    r = index % num_agents
    return tuple((s + r) % num_agents for s in range(num_players))


@dataclass(frozen=True)
class GameJob:
    """One game to play: which spec sits in each seat and the seeds to use."""

    index: int                     # game number within its group
    group: int                     # group (pairing) number; 0 for a plain evaluation
    lineup: tuple[int, ...]        # spec index per seat
    deal_seed: int
    agent_seeds: tuple[int, ...]   # per seat
    deal: int = 0                  # deal number within its group (index // k when paired, else index)


def make_jobs(agent_ids: Sequence[int], num_games: int, num_players: int, seed: int, key: Sequence[int] = (),
              paired: bool = True, group: int = 0) -> list[GameJob]:
    """Seat-rotated, seeded jobs for ``num_games`` games among the specs ``agent_ids``."""
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    k = len(agent_ids)
    jobs = []
    for i in range(num_games):
        lineup = tuple(agent_ids[j] for j in seat_lineup(i, k, num_players))
        deal = i // k if paired else i
        deal_seed = derive_seed(seed, *key, 0, deal)
        agent_seeds = tuple(derive_seed(seed, *key, 1, i, s) for s in range(num_players))
        jobs.append(GameJob(i, group, lineup, deal_seed, agent_seeds, deal))
    return jobs


# -- playing ----------------------------------------------------------------------------------

class TimedAgent:
    """Wraps an agent, counting its decisions and the seconds it spends choosing."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.moves = 0
        self.seconds = 0.0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        t = time.perf_counter()
        action = self.agent.act(observation, info)
        self.seconds += time.perf_counter() - t
        self.moves += 1
        return action


def play_job(specs: Sequence[AgentSpec], variant: str, job: GameJob, game: str = DEFAULT_GAME) -> dict[str, Any]:
    """Play one job of ``game``; return its record (scores, winners, win shares, margins, steps, timing)."""
    agents = [TimedAgent(specs[a].build(job.agent_seeds[s])) for s, a in enumerate(job.lineup)]
    t0 = time.perf_counter()
    result = play_game(agents, variant=variant, seed=job.deal_seed, game=game)
    wall = time.perf_counter() - t0
    scores = [int(x) for x in result["scores"]]
    winners = [int(w) for w in result["winners"]]
    share = [1.0 / len(winners) if s in winners else 0.0 for s in range(len(scores))]
    margins = [sc - max(scores[:s] + scores[s + 1:]) for s, sc in enumerate(scores)]
    return {"group": job.group, "game": job.index, "deal": job.deal, "deal_seed": job.deal_seed,
            "lineup": list(job.lineup),
            "scores": scores, "winners": winners, "win_share": share, "margins": margins,
            "steps": int(result["steps"]), "moves": [a.moves for a in agents],
            "think_seconds": [a.seconds for a in agents], "wall_seconds": wall}


def _play_chunk(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob],
                game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    # top level, so 'spawn' workers can import it; run_jobs has already said what a worker would
    # repeat about an agent's setup
    warnings.simplefilter("ignore", SetupWarning)
    return [play_job(specs, variant, job, game) for job in jobs]


def check_setups(specs: Sequence[AgentSpec], num_players: int, variant: str) -> None:
    """Let every agent that can tell (a ``check_setup(num_players, variant)`` method) warn, once and in
    this process, if it was not made for this setup (a policy trained for another player count)."""
    for spec in specs:
        check = getattr(spec.build(0), "check_setup", None)
        if callable(check):
            check(num_players, variant)


class _Progress:
    """tqdm when installed, else a plain counter on stderr (at most ~2 updates a second)."""

    def __init__(self, total: int, desc: str, enabled: bool) -> None:
        self.total, self.desc, self.n = total, desc, 0
        self.bar = None
        self.enabled = enabled
        self._last = 0.0
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self._print(force=True)
        else:
            self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)

    def _print(self, force: bool = False) -> None:
        if sys.stderr.isatty():  # one line, rewritten at most twice a second
            now = time.monotonic()
            if force or now - self._last >= 0.5:
                self._last = now
                sys.stderr.write(f"\r{self.desc}: {self.n}/{self.total} games")
                sys.stderr.flush()
        else:  # a log: a line per 10%
            step = self.n * 10 // max(self.total, 1)
            if force or step > self._last:
                self._last = step
                sys.stderr.write(f"{self.desc}: {self.n}/{self.total} games\n")
                sys.stderr.flush()

    def update(self, n: int) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.enabled:
            self._print(force=self.n >= self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and sys.stderr.isatty():
            sys.stderr.write("\n")
            sys.stderr.flush()


def resolve_workers(workers: int | None) -> int:
    """Worker processes to use: ``None`` or 0 means every CPU; a negative count is an error."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)):
        raise TypeError(f"workers must be an integer >= 0 (0: every CPU), got {workers!r}")
    if workers < 0:
        raise ValueError(f"workers must be >= 0 (0: every CPU), got {workers}")
    return int(workers) or (os.cpu_count() or 1)


def run_jobs(specs: Sequence[AgentSpec], variant: str, jobs: Sequence[GameJob], workers: int | None = 1,
             progress: bool = True, desc: str = "games", chunk_size: int | None = None,
             game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    """Play ``jobs`` of ``game`` (in this process when ``workers == 1``, else over a 'spawn' process
    pool); return their records in job order."""
    workers = resolve_workers(workers)
    if jobs:
        check_setups(specs, len(jobs[0].lineup), variant)
    bar = _Progress(len(jobs), desc, progress)
    records: list[dict[str, Any] | None] = [None] * len(jobs)
    try:
        if workers == 1 or len(jobs) <= 1:
            for i, job in enumerate(jobs):
                records[i] = play_job(specs, variant, job, game)
                bar.update(1)
            return records  # type: ignore[return-value]
        if chunk_size is None:
            chunk_size = max(1, min(25, math.ceil(len(jobs) / (workers * 8))))
        chunks = [list(range(i, min(i + chunk_size, len(jobs)))) for i in range(0, len(jobs), chunk_size)]
        specs = list(specs)
        with ProcessPoolExecutor(max_workers=min(workers, len(chunks)), mp_context=get_context("spawn")) as pool:
            pending = {pool.submit(_play_chunk, specs, variant, [jobs[i] for i in c], game): c for c in chunks}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        idx = pending.pop(fut)
                        for i, rec in zip(idx, fut.result()):
                            records[i] = rec
                        bar.update(len(idx))
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise
        return records  # type: ignore[return-value]
    finally:
        bar.close()


# -- summaries --------------------------------------------------------------------------------

#: what the win rates and intervals of :func:`evaluate` mean (also in its config and tables)
WIN_CONVENTION = ("win_rate: a k-way shared win counts 1/k of a win; strict_win_rate: sole wins only; "
                  "rates are per seat-game; 95% intervals: Wilson at the cluster-adjusted effective sample "
                  "size, clusters = deals (each game its own deal when unpaired)")


def deal_cluster(record: dict[str, Any], index: int) -> tuple:
    """The cluster of a game record for the intervals: its deal within its group (a record without
    a ``deal`` is its own cluster)."""
    if "deal" in record:
        return ("deal", record.get("group", 0), record["deal"])
    return ("game", record.get("group", 0), record.get("game", index))


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
    acc = [{"games": 0, "wins": 0.0, "strict_wins": 0, "shared_wins": 0, "score": 0.0, "score_sq": 0.0,
            "margin": 0.0, "moves": 0, "seconds": 0.0, "seat_games": [0] * num_players,
            "seat_wins": [0.0] * num_players, "shares": [], "strict": [], "clusters": []}
           for _ in range(k)]
    for i, r in enumerate(records):
        cluster = deal_cluster(r, i)
        for a in set(r["lineup"]):
            acc[a]["games"] += 1
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
            "mean_score": mean, "score_std": math.sqrt(max(var, 0.0)) if n else math.nan,
            "mean_margin": st["margin"] / n if n else math.nan,
            "moves": st["moves"], "sec_per_move": st["seconds"] / st["moves"] if st["moves"] else math.nan,
            "seat_games": st["seat_games"],
            "seat_win_rate": [w / g if g else math.nan for w, g in zip(st["seat_wins"], st["seat_games"])],
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
                  "mean_score", "score_std", "mean_margin", "moves", "sec_per_move", "seat_games", "seat_win_rate"]
GAME_FIELDS = ["group", "game", "deal", "deal_seed", "agents", "scores", "winners", "win_share", "margins", "steps",
               "moves", "think_seconds", "wall_seconds"]


def counts_seat_games(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether some agent took several seats of a game (its rates are then over more seat-games than games)."""
    return any(r.get("n_seat_games", r["games"]) != r["games"] for r in rows)


def rate_cells(r: dict[str, Any]) -> list[str]:
    """``win rate``, ``95% CI``, ``strict win rate``, ``strict 95% CI`` cells of a summary row."""
    return [f"{r['win_rate']:.3f}", fmt_ci(r["ci_low"], r["ci_high"]),
            f"{r['strict_win_rate']:.3f}", fmt_ci(r["strict_ci_low"], r["strict_ci_high"])]


RATE_HEADERS = ["win rate", "95% CI", "strict win rate", "strict 95% CI"]


def summary_table(rows: Sequence[dict[str, Any]]) -> str:
    """Per-agent summary rows as an aligned terminal table (a ``seat-games`` column when an agent
    took several seats of a game)."""
    seat_col = counts_seat_games(rows)
    headers = ["agent", "games"] + (["seat-games"] if seat_col else []) + ["wins"] + RATE_HEADERS + \
        ["mean score", "mean margin", "s/move"]
    body = [[r["agent"], str(r["games"])] + ([str(r["n_seat_games"])] if seat_col else []) + [f"{r['wins']:g}"]
            + rate_cells(r) + [f"{r['mean_score']:.2f}", f"{r['mean_margin']:+.2f}",
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
        if counts_seat_games(self.agents):
            notes.append("(an agent in several seats of a game: its wins, rates and means are per seat-game"
                         + ("; one agent in every seat plays itself, so its win rate is 1/players by construction"
                            if len(self.labels) == 1 else "") + ")")
        return "\n".join([head, summary_table(self.agents)] + notes)

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


def evaluate(agent_specs: Sequence[Any], num_games: int = 100, num_players: int | None = None,
             variant: str | None = None, seed: int = 0, workers: int | None = 1, progress: bool = True,
             paired: bool = True, game: str = DEFAULT_GAME) -> EvaluationResult:
    """Play ``num_games`` seat-rotated, seeded games between ``agent_specs`` and summarise them.

    Args:
        agent_specs: registry names (``"mcts:simulations=100"``), ``(name, kwargs)`` pairs,
            :class:`AgentSpec` objects or agent factories (see the module docstring).
        num_games: games to play (a multiple of the number of agents keeps the seats balanced).
        num_players: seats per game, 2..5 (default: the number of agents, at least 2).
        variant: one of the game's variants (5 Towers ``"base"`` / ``"great_powers"``, Campanile
            ``"pile"`` / ``"played"``); None: the game's default (the first of those).
        seed: non-negative run seed; every game's deal and agent seeds derive from it.
        workers: processes (1: in this process; ``None`` / 0: every CPU). Results do not depend on it.
        progress: show a progress bar (tqdm if installed, else a counter on stderr).
        paired: replay the same deal for the rotations of each cycle (see the module docstring).
        game: the game to play, a :mod:`five_towers_env.core.game` name.
    """
    g = get_game(game)
    specs = resolve_specs(agent_specs, g.name)
    if num_players is None:
        num_players = max(2, len(specs))
    if variant is None:
        variant = g.default_variant
    g.check(num_players, variant)
    if num_games < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    balanced = num_games % len(specs) == 0
    if not balanced:
        warnings.warn(f"{num_games} games is not a multiple of the {len(specs)}-game seat rotation; "
                      "seats are not exactly balanced", stacklevel=2)
    jobs = make_jobs(list(range(len(specs))), num_games, num_players, seed, paired=paired)
    t0 = time.perf_counter()
    records = run_jobs(specs, variant, jobs, workers=workers, progress=progress, desc="evaluate", game=g.name)
    labels = [s.label for s in specs]
    config = {"game": g.name, "agents": labels, "num_games": num_games, "num_players": num_players, "variant": variant,
              "seed": seed, "workers": resolve_workers(workers), "paired": paired, "balanced": balanced,
              "rotation": len(specs), "wall_seconds": time.perf_counter() - t0,
              "win_convention": WIN_CONVENTION}
    return EvaluationResult(config, labels, summarize(labels, records), seat_summary(records), records)


__all__ = ["AgentSpec", "EvaluationResult", "GameJob", "TimedAgent", "WIN_CONVENTION", "deal_cluster", "derive_seed",
           "evaluate", "make_jobs", "parse_agent_spec", "resolve_specs", "run_jobs", "seat_lineup", "summarize",
           "seat_summary", "summary_table", "to_spec"]
