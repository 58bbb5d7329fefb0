#!/usr/bin/env python
"""Throughput benchmark: five_towers_env against PettingZoo classic environments, each in its own process.

Every row runs in a fresh Python process of its own, which imports only that row's package. An
environment row is driven by the random-play loop of the PettingZoo documentation, with one
seeded ``numpy.random.Generator``:

    env.reset(seed=seed)                      # first game; later games: env.reset()
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)

whole games, after a warm-up, until ``--seconds`` of the loop's CPU time have passed. Engine
rows play the bare rules engine (``legal_actions``, ``apply_action``). Every row gets one process
per round; the rounds alternate the order of the rows, and ratios are taken within a round.
Reported: the median over the rounds of agent-steps (decisions: steps with a real action) and
games per CPU second, and the median and range of the per-round ratios to ``connect_four_v3`` (or
its ``raw_env``). See benchmarks/README.md.

    python benchmarks/bench.py                                  # every row, 5 rounds of 3 s (about 8 min)
    python benchmarks/bench.py --seconds 1 --rounds 2           # quicker, noisier
    python benchmarks/bench.py --only "5T 2p base" --only connect_four_v3 --json runs/bench.json
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # speed_table, beside this script
import speed_table

C4 = "connect_four_v3"
C4_RAW = "connect_four_v3 raw_env"
FT_ENV, FT_RAW = "five_towers_env.games.five_towers:env", "five_towers_env.games.five_towers:raw_env"
CAMPANILE_ENV, CAMPANILE_RAW = "five_towers_env.games.campanile:env", "five_towers_env.games.campanile:raw_env"
LEDUC = "leduc_holdem_v4"
#: rate fields of a sample, whose medians the results hold
RATES = ("seconds", "steps_per_s", "games_per_s", "steps_per_game", "cpu_share")
COUNTS = ("steps", "games")


@dataclass
class Row:
    """One benchmark row: what its process builds and how it is played and compared."""

    name: str
    make: str                   # "module:callable"; ":callable" names a function of this script
    kwargs: dict = field(default_factory=dict)
    kind: str = "env"           # "env": the AEC loop above; "engine": ``make`` returns a new-game factory
    ref: str = C4               # the row this one is compared with
    headline: bool = False      # in the short table (speed_table.py --headline)
    extra: bool = False         # a what-if or informational row
    count_forced: bool = True   # engine rows: count single-choice decisions (False: apply them uncounted)


def _ft(name: str, make: str, players: int, variant: str, **kw) -> Row:
    return Row(name, make, {"num_players": players, "variant": variant}, **kw)


ROWS: tuple[Row, ...] = (
    _ft("5T 2p base", FT_ENV, 2, "base", headline=True),
    _ft("5T 4p base", FT_ENV, 4, "base"),
    _ft("5T 2p great_powers", FT_ENV, 2, "great_powers", headline=True),
    _ft("5T 4p great_powers", FT_ENV, 4, "great_powers", headline=True),
    Row("5T 2p base explicit", FT_ENV, {"num_players": 2, "variant": "base", "explicit": True},
        extra=True),
    Row("Campanile 2p", CAMPANILE_ENV, {"num_players": 2}, headline=True),
    _ft("5T 2p base raw_env", FT_RAW, 2, "base", ref=C4_RAW, headline=True),
    _ft("5T 2p great_powers raw_env", FT_RAW, 2, "great_powers", ref=C4_RAW, headline=True),
    Row("Campanile 2p raw_env", CAMPANILE_RAW, {"num_players": 2}, ref=C4_RAW, headline=True),
    _ft("engine 5T 2p base", ":engine_game", 2, "base", kind="engine", headline=True),
    _ft("engine 5T 4p base", ":engine_game", 4, "base", kind="engine"),
    _ft("engine 5T 2p great_powers", ":engine_game", 2, "great_powers", kind="engine"),
    _ft("engine 5T 4p great_powers", ":engine_game", 4, "great_powers", kind="engine"),
    Row("engine Campanile 2p", ":campanile_game", {"num_players": 2}, kind="engine"),
    # what-if rows: where a raw_env step's time goes, against the same reference
    _ft("5T 2p base raw_env, observation stubbed", ":observation_stubbed", 2, "base", ref=C4_RAW, extra=True),
    _ft("engine 5T 2p base, forced applied", ":engine_game", 2, "base", kind="engine", ref=C4_RAW, extra=True,
        count_forced=False),
    Row(C4, "pettingzoo.classic.connect_four_v3:env", headline=True),
    Row(C4_RAW, "pettingzoo.classic.connect_four_v3:raw_env", ref=C4_RAW, headline=True),
    Row(LEDUC, "pettingzoo.classic.leduc_holdem_v4:env"),
)

#: (row, minimum ratio to the row's reference) the project set itself against the earlier,
#: interleaved benchmark; printed for information
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


# ---- what a row's process builds --------------------------------------------------------------

def engine_game(num_players: int, variant: str) -> Callable[[np.random.Generator], object]:
    """A factory of new 5 Towers engine games dealt with the given generator."""
    from five_towers_env.games.five_towers import GameState
    return lambda rng: GameState.new_game(num_players, variant, rng)


def campanile_game(num_players: int) -> Callable[[np.random.Generator], object]:
    """A factory of new Campanile engine games dealt with the given generator."""
    from five_towers_env.games.campanile import CampanileState
    return lambda rng: CampanileState.new_game(num_players, "pile", rng)


class ConstantObservation:
    """Stands in for ``raw_env``'s observation encoder and hands out a copy of one zero vector: the
    what-if row ``... observation stubbed`` measures the environment without the cost of its
    observation (the mask, rewards, infos and rules are untouched)."""

    def __init__(self, size: int) -> None:
        self.zeros = np.zeros(size, dtype=np.float32)

    def encode(self, state: object, observer: int) -> np.ndarray:
        """A fresh zero vector, whatever the state."""
        return self.zeros.copy()


def observation_stubbed(num_players: int, variant: str):
    """The 5 Towers ``raw_env`` with its observation encoder replaced by ``ConstantObservation`` (the Python
    engine's encoder: run with ``FIVE_TOWERS_ENGINE=python``, as ``bench.py`` does by default)."""
    from five_towers_env.games.five_towers import raw_env
    from five_towers_env.games.five_towers.observation import OBS_SIZE
    env = raw_env(num_players=num_players, variant=variant)
    env._seat_cache = ConstantObservation(OBS_SIZE)  # raw_env passes its encoder to observation.encode
    return env


def build(row: Row) -> object:
    """What ``row.make`` names, called with ``row.kwargs`` (imports the row's package only)."""
    module, name = row.make.split(":")
    owner = importlib.import_module(module) if module else sys.modules[__name__]
    return getattr(owner, name)(**row.kwargs)


# ---- the loops ---------------------------------------------------------------------------------

def play_env(env, rng: np.random.Generator, seed: int | None, seconds: float) -> tuple[int, int]:
    """The docs' random-play loop over whole games until ``seconds`` of CPU time have passed:
    (decisions, games). The first game is reset with ``seed`` (None: not reseeded)."""
    decisions = games = 0
    deadline = time.thread_time() + seconds
    env.reset(seed=seed)
    while True:
        for agent in env.agent_iter():  # noqa: B007 - the PettingZoo docs' loop, as written
            obs, rew, term, trunc, info = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            decisions += action is not None
        games += 1
        if time.thread_time() >= deadline:
            return decisions, games
        env.reset()  # reseeding would rebuild leduc_holdem's rlcard game, which dominates its short games


def play_engine(new_game: Callable[[np.random.Generator], object], rng: np.random.Generator, seconds: float,
                count_forced: bool = True) -> tuple[int, int]:
    """Uniform random legal play on the bare engine, whole games until ``seconds`` of CPU time have
    passed: (decisions, games). With ``count_forced=False`` a single legal action is applied uncounted, as
    ``raw_env`` does."""
    decisions = games = 0
    deadline = time.thread_time() + seconds
    while True:
        state = new_game(rng)
        while not state.is_terminal():
            legal = state.legal_actions()
            n = len(legal)
            if n == 1 and not count_forced:
                state.apply_action(legal[0])
                continue
            # rng.choice would turn the list into an array first, several microseconds that are numpy's
            state.apply_action(legal[rng.integers(n)])
            decisions += 1
        games += 1
        if time.thread_time() >= deadline:
            return decisions, games


def play(row: Row, made: object, rng: np.random.Generator, seed: int | None, seconds: float) -> tuple[int, int]:
    """The row's loop: (decisions, games)."""
    if row.kind == "engine":
        return play_engine(made, rng, seconds, row.count_forced)
    return play_env(made, rng, seed, seconds)


def gc_collections() -> list[int]:
    """Collections so far, per garbage-collector generation."""
    return [s["collections"] for s in gc.get_stats()]


def sample(row: Row, seconds: float, warmup: float, seed: int) -> dict:
    """Build the row, warm it up, then measure it: one sample, as this process sees it."""
    made = build(row)
    rng = np.random.default_rng(seed)
    if warmup > 0:  # fills the engine's memos; a long training run sees them full
        play(row, made, rng, seed + 1_000_003, warmup)
    gc0, cpu0, t0 = gc_collections(), time.thread_time(), time.perf_counter()
    steps, games = play(row, made, rng, seed, seconds)
    # rates per second of the loop thread's CPU time: the same as wall time on a quiet machine, and on
    # a shared one they leave out the time the process waited for a core (the process's CPU time would
    # count numpy's BLAS helper thread, which spins for a while after start-up)
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - t0
    return {"name": row.name, "kind": row.kind, "ref": row.ref, "seconds": cpu, "wall_seconds": wall,
            "steps": steps, "games": games, "steps_per_s": steps / cpu, "games_per_s": games / cpu,
            "steps_per_game": steps / games, "cpu_share": cpu / wall,
            "gc_collections": [b - a for a, b in zip(gc0, gc_collections())], **process_facts()}


def process_facts() -> dict:
    """What tells this process apart: its id, the machine's load, and whether five_towers_env is loaded
    (the process imports only its row's package, so a reference row never loads it)."""
    return {"load1": os.getloadavg()[0], "pid": os.getpid(), "five_towers_env_loaded": "five_towers_env" in sys.modules}


# ---- the parent: rounds of fresh processes -----------------------------------------------------

def in_fresh_process(row: Row, seconds: float, warmup: float, seed: int) -> dict:
    """``sample`` run in a new Python process (on the engine ``FIVE_TOWERS_ENGINE`` names: ``--engine``)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", row.name, "--seconds", repr(seconds),
           "--warmup", repr(warmup), "--seed", str(seed)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{row.name}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def measure(rows: list[Row], seconds: float, warmup: float, seed: int, rounds: int) -> list[list[dict]]:
    """Every row once per round, each in a fresh process; odd rounds run the rows in reverse order, so
    that a slow drift of the machine hits the first and the last rows alike. Per round, the samples
    in ``rows`` order."""
    runs = []
    for r in range(rounds):
        order = list(range(len(rows)))[::-1 if r % 2 else 1]
        got: dict[int, dict] = {}
        for k, i in enumerate(order):
            print(f"  round {r + 1}/{rounds}, {k + 1}/{len(rows)}: {rows[i].name}", file=sys.stderr, flush=True)
            got[i] = in_fresh_process(rows[i], seconds, warmup, seed)
        runs.append([got[i] for i in range(len(rows))])
    return runs


def medians(runs: list[list[dict]], rows: list[Row]) -> list[dict]:
    """Per row, the median of every rate and count over the rounds, and what the row is."""
    out = []
    for row, samples in zip(rows, zip(*runs)):
        med = {f: statistics.median(s[f] for s in samples) for f in RATES}
        med.update({f: int(statistics.median(s[f] for s in samples)) for f in COUNTS})
        out.append({"name": row.name, "kind": row.kind, "ref": row.ref, "headline": row.headline,
                    "extra": row.extra, "constructor": f"{row.make}(**{row.kwargs})", **med})
    return out


def env_info() -> dict:
    """Versions and machine, as the header and the JSON file name them."""
    from importlib.metadata import version
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "pettingzoo": version("pettingzoo"),
        "five_towers_env": version("five_towers_env"),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }


def samples_table(runs: list[list[dict]]) -> str:
    """Markdown: per row, the range of its rates over the processes, games per process, the lowest
    CPU/wall and the garbage collector's full (generation 2) collections per process."""
    lines = ["| row | agent-steps/s, lowest-highest | games per process | CPU/wall, lowest | full GCs per process |",
             "|---|---:|---:|---:|---:|"]
    for samples in zip(*runs):
        rates = [s["steps_per_s"] for s in samples]
        full = statistics.median(s["gc_collections"][2] for s in samples)
        lines.append(f"| {samples[0]['name']} | {min(rates):,.0f}-{max(rates):,.0f} | "
                     f"{statistics.median(s['games'] for s in samples):,.0f} | "
                     f"{min(s['cpu_share'] for s in samples):.2f} | {full:g} |")
    return "\n".join(lines)


def goal_table(data: dict) -> str | None:
    """Markdown: the rows with a goal, their median ratio and whether it reaches the goal."""
    per_run = [speed_table.run_ratios(run) for run in data["runs"]]
    lines = ["| row | median ratio | goal |", "|---|---:|---|"]
    for name, goal in GOALS:
        values = [q[name] for q in per_run if name in q]
        if values:
            q = statistics.median(values)
            lines.append(f"| {name} | {q:.2f}x | >= {goal:g}x: {'reached' if q >= goal else 'not reached'} |")
    return "\n".join(lines) if len(lines) > 2 else None


def select(names: list[str] | None) -> list[Row]:
    """The rows named (an exact name picks that row, anything else every row containing it); all if none."""
    if not names:
        return list(ROWS)
    wanted: set[str] = set()
    for o in names:
        exact = [r.name for r in ROWS if r.name == o]
        wanted.update(exact or [r.name for r in ROWS if o in r.name])
    return [r for r in ROWS if r.name in wanted]


def report(data: dict) -> None:
    """Print the header, the tables and the goals."""
    info, args = data["info"], data["args"]
    print(f"Python {info['python']} ({info['implementation']}), numpy {info['numpy']}, "
          f"pettingzoo {info['pettingzoo']}, five_towers_env {info['five_towers_env']}")
    print(f"{info['platform']}, {info['processor']}, CPUs: {info['cpu_count']} (usable: {info['affinity_cpus']})")
    print(f"each row in its own fresh process: {args['warmup']:g} s warm-up, then {args['seconds']:g} s of whole "
          f"games (CPU time); {args['rounds']} rounds (odd rounds in reverse order), seed {args['seed']}; "
          "medians over the rounds, ratios within a round\n")
    print(speed_table.speed_table(data))
    print("\nPer process:\n\n" + samples_table(data["runs"]))
    low = min(s["cpu_share"] for run in data["runs"] for s in run)
    if low < 0.9:
        print(f"\nWarning: CPU/wall down to {low:.2f}: other processes competed for the CPU; the absolute rates "
              "are low and noisy, the ratios within a round less so.")
    goals = goal_table(data)
    if goals:
        print("\nGoals (informational):\n\n" + goals)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (or, with the hidden ``--child``, one sample) and print it."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=3.0, help="measured CPU time per process (default 3)")
    p.add_argument("--warmup", type=float, default=1.0, help="warm-up CPU time per process (default 1)")
    p.add_argument("--rounds", "--repeats", type=int, default=5,
                   help="rounds: every row once per round, each time in a fresh process (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first reset and of the action generator")
    p.add_argument("--json", metavar="PATH", help="also write every sample and the medians as JSON to PATH")
    p.add_argument("--only", action="append", metavar="NAME",
                   help="run only the row named NAME, or else rows whose name contains NAME (repeatable)")
    p.add_argument("--engine", choices=("python", "native"), default="python",
                   help="the rules engine of the five_towers_env rows (default python: the published table; "
                        "benchmarks/native_speed.py compares the two)")
    p.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)  # one sample of one row, as JSON
    args = p.parse_args(argv)
    os.environ["FIVE_TOWERS_ENGINE"] = args.engine  # this process's rows and every child's
    if args.child:
        print(json.dumps(sample(select([args.child])[0], args.seconds, args.warmup, args.seed)))
        return 0
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    rows = select(args.only)
    if not rows:
        p.error(f"--only matched none of: {', '.join(r.name for r in ROWS)}")

    runs = measure(rows, args.seconds, args.warmup, args.seed, args.rounds)
    data = {"info": env_info(), "method": "fresh-process",
            "args": {k: v for k, v in vars(args).items() if k != "child"}, "results": medians(runs, rows), "runs": runs}
    report(data)
    if args.json:
        save_json(data, args.json)
    return 0


def save_json(data: dict, path: str) -> None:
    """Write a result file (indented, with a final newline; whole or not at all) and say so."""
    from five_towers_env.atomic import write_json  # here: a row's process imports only its row's package
    from five_towers_env.provenance import write_provenance

    write_json(path, data, indent=2)
    write_provenance(os.path.dirname(path) or ".")  # provenance.json beside it
    print(f"\nwrote {path}")


if __name__ == "__main__":
    sys.exit(main())
