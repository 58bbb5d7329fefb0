#!/usr/bin/env python
"""Throughput benchmark: five_towers_env against PettingZoo classic environments.

Every environment is driven identically through the standard PettingZoo AEC loop with
uniform random masked play (one shared ``numpy.random.Generator`` per environment):

    env.reset(seed=seed)                      # first game; later games: env.reset()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else <uniform random legal action from obs["action_mask"]>
        env.step(action)

Each environment runs for a fixed wall time (``--seconds``, split into ``--rounds`` slices run
round-robin over the environments, games continuing across slices) after a short warm-up. Reported:
agent-steps/s (only steps with a real action, i.e. decisions), completed games/s and mean
decisions per completed game, then the ratio of every five_towers row to connect_four_v3 and
leduc_holdem_v4. See benchmarks/README.md.

    python benchmarks/bench.py                       # all rows, ~5 s each
    python benchmarks/bench.py --seconds 2 --json out.json
    python benchmarks/bench.py --only "5T 2p base"   # a single row (e.g. under cProfile)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # speed_table, beside this script

import pettingzoo
from pettingzoo.classic import connect_four_v3, leduc_holdem_v4

import five_towers_env
from five_towers_env import campanile
from five_towers_env.engine import GameState
from five_towers_env.environment.observation import OBS_SIZE

import speed_table

C4 = "connect_four_v3"
LEDUC = "leduc_holdem_v4"


C4_RAW = "connect_four_v3 raw_env"


@dataclass
class Case:
    name: str
    make: Callable[[], object]
    five_towers: bool
    extra: bool = False  # informational row, not part of the goal
    kind: str = "env"    # "env": an AEC env driven by the loop above; "engine": a game-state factory
    ref: str = C4        # the row this one is compared with
    count_forced: bool = True  # engine rows: count forced single-choice decisions (False: apply them uncounted)


def _engine(num_players: int, variant: str) -> Callable[[np.random.Generator], GameState]:
    return lambda rng: GameState.new_game(num_players, variant, rng)


class ConstantObservation:
    """Stands in for ``raw_env``'s observation encoder and hands out a copy of one zero vector: the
    what-if row ``... observation stubbed`` measures the environment without the cost of its
    observation (the mask, rewards, infos and rules are untouched)."""

    def __init__(self) -> None:
        self.zeros = np.zeros(OBS_SIZE, dtype=np.float32)

    def encode(self, state: object, observer: int) -> np.ndarray:
        """A fresh zero vector, whatever the state."""
        return self.zeros.copy()


def _observation_stubbed(env):
    env._seat_cache = ConstantObservation()  # raw_env passes its encoder to observation.encode
    return env


def cases() -> list[Case]:
    ft = five_towers_env.env
    return [
        Case("5T 2p base", lambda: ft(num_players=2, variant="base"), True),
        Case("5T 4p base", lambda: ft(num_players=4, variant="base"), True),
        Case("5T 2p great_powers", lambda: ft(num_players=2, variant="great_powers"), True),
        Case("5T 4p great_powers", lambda: ft(num_players=4, variant="great_powers"), True),
        Case("5T 2p base explicit", lambda: ft(num_players=2, variant="base", explicit=True), True, extra=True),
        Case("Campanile 2p", lambda: campanile.env(num_players=2), True),
        Case("5T 2p base raw_env", lambda: five_towers_env.raw_env(num_players=2, variant="base"), True, ref=C4_RAW),
        Case("5T 2p great_powers raw_env", lambda: five_towers_env.raw_env(num_players=2, variant="great_powers"), True,
             ref=C4_RAW),
        # what-if rows (not goals): where the raw_env row's time goes, against the same reference
        Case("5T 2p base raw_env, observation stubbed",
             lambda: _observation_stubbed(five_towers_env.raw_env(num_players=2, variant="base")), True, extra=True,
             ref=C4_RAW),
        Case("engine 5T 2p base, forced applied", lambda: _engine(2, "base"), True, extra=True, kind="engine",
             ref=C4_RAW, count_forced=False),
        Case("engine 5T 2p base", lambda: _engine(2, "base"), True, kind="engine"),
        Case("engine 5T 4p base", lambda: _engine(4, "base"), True, kind="engine"),
        Case("engine 5T 2p great_powers", lambda: _engine(2, "great_powers"), True, kind="engine"),
        Case("engine 5T 4p great_powers", lambda: _engine(4, "great_powers"), True, kind="engine"),
        Case("Campanile 2p raw_env", lambda: campanile.raw_env(num_players=2), True, ref=C4_RAW),
        Case("engine Campanile 2p", lambda: (lambda rng: campanile.CampanileState.new_game(2, "pile", rng)), True,
             kind="engine"),
        Case(C4, connect_four_v3.env, False),
        Case(C4_RAW, connect_four_v3.raw_env, False, ref=C4_RAW),
        Case(LEDUC, leduc_holdem_v4.env, False),
    ]


@dataclass
class Result:
    name: str
    seconds: float          # measured wall time
    steps: int              # decisions (env.step with a non-None action), partial last game included
    games: int              # completed games
    game_steps: int         # decisions inside completed games
    steps_per_s: float
    games_per_s: float
    steps_per_game: float
    cpu_share: float        # process CPU time / wall time; well below 1 means the machine was contended
    kind: str = "env"       # env (agent-steps through the AEC loop) or engine (decisions through the game state)
    ref: str = C4           # the row whose steps/s this one is compared with


class Uniform:
    """Uniform random choices from a seeded generator, drawn 4,096 at a time: one
    ``Generator.integers`` call costs about 1.7 us, a tenth of an engine decision, and would be
    measured as the engine's time."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.block = rng.random(4096).tolist()
        self.i = 0

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1``."""
        if self.i == 4096:
            self.block = self.rng.random(4096).tolist()
            self.i = 0
        u = self.block[self.i]
        self.i += 1
        return int(u * n)


class Runner:
    """Plays random masked games on one environment; ``run(seconds)`` resumes where the last call stopped,
    so a game may span several time slices and none is lost at a slice boundary."""

    def __init__(self, env, seed: int) -> None:
        self.env = env
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.uniform = Uniform(self.rng)
        self.it = None           # agent_iter of the game in progress
        self.first = True
        self.n = 0               # decisions in the game in progress
        self.steps = self.games = self.game_steps = 0
        self.elapsed = 0.0
        self.cpu = 0.0           # process CPU time over the same slices (contention check)

    def run(self, seconds: float) -> None:
        env = self.env
        perf = time.perf_counter
        flatnonzero = np.flatnonzero
        below = self.uniform.below
        cpu0 = time.process_time()
        start = perf()
        deadline = start + seconds
        while True:
            if self.it is None:
                if self.first:
                    env.reset(seed=self.seed)
                    self.first = False
                else:
                    env.reset()
                self.it = iter(env.agent_iter())
                self.n = 0
            for _agent in self.it:
                obs, _rew, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = flatnonzero(obs["action_mask"])
                    action = int(legal[below(legal.size)])
                    self.n += 1
                    self.steps += 1
                env.step(action)
                if perf() >= deadline:
                    self.elapsed += perf() - start
                    self.cpu += time.process_time() - cpu0
                    return
            # agent_iter is exhausted: every agent is done, the game is complete
            self.games += 1
            self.game_steps += self.n
            self.it = None


class EngineRunner(Runner):
    """Plays random games on the bare rules engine: ``legal_actions`` then ``apply_action`` with a
    uniform random legal action, every decision counted (the engine applies no forced move itself);
    with ``count_forced=False`` a single legal action is applied uncounted, as ``raw_env`` does."""

    def __init__(self, new_game: Callable[[np.random.Generator], object], seed: int, count_forced: bool = True) -> None:
        super().__init__(None, seed)
        self.new_game = new_game
        self.state = None
        self.count_forced = count_forced

    def run(self, seconds: float) -> None:
        perf = time.perf_counter
        below = self.uniform.below
        cpu0 = time.process_time()
        start = perf()
        deadline = start + seconds
        while True:
            if self.state is None:
                self.state = self.new_game(np.random.default_rng(self.seed + self.games))
                self.n = 0
            state = self.state
            while not state.is_terminal():
                legal = state.legal_actions()
                if len(legal) == 1 and not self.count_forced:
                    state.apply_action(legal[0])
                    continue
                state.apply_action(legal[below(len(legal))])
                self.n += 1
                self.steps += 1
                if perf() >= deadline:
                    self.elapsed += perf() - start
                    self.cpu += time.process_time() - cpu0
                    return
            self.games += 1
            self.game_steps += self.n
            self.state = None


def _runner(case: Case, made: object, seed: int) -> Runner:
    return EngineRunner(made, seed, case.count_forced) if case.kind == "engine" else Runner(made, seed)


def bench(selected: list[Case], seconds: float, warmup: float, seed: int, rounds: int) -> list[Result]:
    """Warm every environment up, then give each ``seconds`` in ``rounds`` interleaved slices
    (round-robin), so that slow drifts of the machine's speed hit every row alike."""
    runners = []
    for c in selected:
        env = c.make()
        if warmup > 0:
            _runner(c, env, seed + 1_000_003).run(warmup)  # fills caches; its unfinished game is dropped
        runners.append(_runner(c, env, seed))
    for r in range(rounds):
        print(f"  round {r + 1}/{rounds}", file=sys.stderr, flush=True)
        for run in runners:
            run.run(seconds / rounds)
    out = []
    for c, run in zip(selected, runners):
        if run.env is not None:
            run.env.close()
        t = run.elapsed
        out.append(Result(c.name, t, run.steps, run.games, run.game_steps, run.steps / t, run.games / t,
                          run.game_steps / run.games if run.games else float("nan"), run.cpu / t, c.kind, c.ref))
    return out


def env_info() -> dict:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "five_towers_env": getattr(five_towers_env, "__version__", "?"),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }


def markdown(results: list[Result], extras: set[str]) -> str:
    rows = ["| environment | agent-steps/s | games/s | steps/game | games played | CPU/wall |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in results:
        name = r.name + (" *(extra)*" if r.name in extras else "")
        rows.append(f"| {name} | {r.steps_per_s:,.0f} | {r.games_per_s:,.1f} | {r.steps_per_game:,.1f} | {r.games:,} "
                    f"| {r.cpu_share:.2f} |")
    return "\n".join(rows)


#: (row, minimum ratio to the row's reference) the project holds itself to
GOALS: tuple[tuple[str, float], ...] = (
    ("5T 2p base", 1.0),
    ("5T 2p great_powers", 0.8),
    ("5T 4p great_powers", 0.8),
    ("5T 2p base raw_env", 2.0),
    ("engine 5T 2p base", 10.0),
    ("engine 5T 2p great_powers", 3.0),
    ("Campanile 2p", 2.0),
    ("Campanile 2p raw_env", 2.0),
)


def run_ratios(results: list[Result]) -> dict[str, float]:
    """Each row's agent-steps/s over its reference row's in the same run (rows whose reference ran)."""
    return speed_table.run_ratios([asdict(r) for r in results])


def ratio_table(results: list[Result], ft_names: list[str], runs: list[list[Result]] | None = None) -> str | None:
    """Each five_towers row's agent-steps/s over its reference row's. With ``runs`` (repeated runs),
    the median of the per-run ratios and their range; the goal is judged on the median."""
    per_run = [run_ratios(rs) for rs in (runs or [results])]
    wide = len(per_run) > 1
    rows = ["| row | compared with | steps/s ratio |" + (" range over runs |" if wide else "") + " goal |",
            "|---|---|---:|" + ("---|" if wide else "") + "---|"]
    goals = dict(GOALS)
    refs = {r.name: r.ref for r in results}
    for name in ft_names:
        values = [q[name] for q in per_run if name in q]
        if not values:
            continue
        q = statistics.median(values)
        goal = goals.get(name)
        verdict = "" if goal is None else f">= {goal:g}×: {'met' if q >= goal else 'NOT MET'}"
        spread = f" {min(values):.2f}–{max(values):.2f}× |" if wide else ""
        rows.append(f"| {name} | {refs[name]} | {q:.2f}× |{spread} {verdict} |")
    return "\n".join(rows) if len(rows) > 2 else None


def median_results(runs: list[list[Result]]) -> list[Result]:
    """Per row, the median of every rate over the runs (counts: the median too)."""
    out = []
    for rows in zip(*runs):
        first = rows[0]
        med = {f: statistics.median(getattr(r, f) for r in rows)
               for f in ("seconds", "steps_per_s", "games_per_s", "steps_per_game", "cpu_share")}
        counts = {f: int(statistics.median(getattr(r, f) for r in rows)) for f in ("steps", "games", "game_steps")}
        out.append(Result(first.name, kind=first.kind, ref=first.ref, **med, **counts))
    return out


def repeated(argv: list[str], repeats: int) -> list[list[Result]]:
    """Run this script ``repeats`` times, each in a fresh process (its memos, caches and heap start
    empty, so the runs are independent samples of the machine's noise); their rows."""
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats):
            path = os.path.join(tmp, f"run{i}.json")
            print(f"run {i + 1}/{repeats} (fresh process)", flush=True)
            subprocess.run([sys.executable, os.path.abspath(__file__), *argv, "--repeats", "1", "--json", path,
                            "--quiet"], check=True)
            with open(path) as f:
                runs.append([Result(**r) for r in json.load(f)["results"]])
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="measured wall time per environment (default 5)")
    p.add_argument("--warmup", type=float, default=0.5, help="warm-up wall time per environment (default 0.5)")
    p.add_argument("--rounds", type=int, default=5,
                   help="split each environment's time into this many slices, run round-robin (default 5)")
    p.add_argument("--repeats", type=int, default=1,
                   help="independent runs, each in a fresh process; rates and ratios are their medians (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first reset and of the action generator")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only the row named NAME, or else rows whose name contains NAME (repeatable)")
    p.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)  # a repeat's child process
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error("--repeats must be at least 1")

    all_cases = cases()
    wanted: set[str] = set()
    for o in args.only or []:  # an exact name picks that row only, otherwise a substring
        exact = [c.name for c in all_cases if c.name == o]
        wanted.update(exact or [c.name for c in all_cases if o in c.name])
    selected = [c for c in all_cases if not args.only or c.name in wanted]
    if not selected:
        p.error(f"--only matched none of: {', '.join(c.name for c in all_cases)}")

    info = env_info()
    say = (lambda *a, **k: None) if args.quiet else print
    say(f"Python {info['python']} ({info['implementation']}), numpy {info['numpy']}, "
        f"pettingzoo {info['pettingzoo']}, five_towers_env {info['five_towers_env']}")
    say(f"{info['platform']}, {info['processor']}, CPUs: {info['cpu_count']} "
        f"(usable: {info['affinity_cpus']}); single process, single thread")
    say(f"{args.seconds:g} s per environment ({args.rounds} interleaved slices) after {args.warmup:g} s "
        f"warm-up, seed {args.seed}" + (f"; {args.repeats} runs, medians shown" if args.repeats > 1 else "") + "\n")

    if args.repeats > 1:
        forward = ["--seconds", str(args.seconds), "--warmup", str(args.warmup), "--rounds", str(args.rounds),
                   "--seed", str(args.seed)]
        for o in args.only or []:
            forward += ["--only", o]
        runs = repeated(forward, args.repeats)
        results = median_results(runs)
    else:
        results = bench(selected, args.seconds, args.warmup, args.seed, max(1, args.rounds))
        runs = [results]

    extras = {c.name for c in selected if c.extra}
    say("\n" + markdown(results, extras))
    low = min(r.cpu_share for run in runs for r in run)
    if low < 0.9:
        say(f"\nWarning: CPU/wall down to {low:.2f}: other processes competed for the CPU, absolute rates are "
            "low and noisy; the ratios (interleaved slices) are the more trustworthy numbers.")
    ratios = ratio_table(results, [c.name for c in selected if c.five_towers], runs)
    if ratios:
        say("\nRatios (> 1 means five_towers is faster" + ("; median of the runs" if len(runs) > 1 else "") + "):\n")
        say(ratios)

    if args.json:
        out = {"info": info, "args": {k: v for k, v in vars(args).items() if k != "quiet"},
               "results": [asdict(r) for r in results]}
        if len(runs) > 1:
            out["runs"] = [[asdict(r) for r in run] for run in runs]
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        say(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
