#!/usr/bin/env python
"""The native core against the Python engines, side by side in one run (docs/speed.md, "Native core").

Every row runs in a fresh process of its own, once per round; the rounds alternate the order of the
rows, and each ratio divides a row's rate by its reference row's rate in the same round. Rates are per
CPU second of the measured loop (after a warm-up), medians over the rounds; ratios are the median and
range of the per-round ratios. The rows:

- ``engine <setup> python`` / ``native``: bare engine decisions/s with uniform random legal moves. The
  Python row is the reference engine in a Python loop; the native row is the C++ loop of the core
  (``random_playouts``: no Python per decision); ``native, Python loop`` drives the native state from
  Python (``legal_actions`` / ``apply_action`` per decision), what a Python search pays per decision.
- ``vector <setup>``: the batched vector environment (``VectorGameEnv``, 256 games, one core), every
  seat's decisions with observations and masks written, random moves drawn natively: agent-steps/s.
- ``pettingzoo <setup> python`` / ``native``: the wrapped PettingZoo AEC environment under the random
  loop of PettingZoo's documentation; ``connect_four_v3`` the same loop on PettingZoo's classic game.
- ``gym <setup> python``: the single-agent Gymnasium env on Python with a ``random`` opponent, the learner
  picking uniformly from ``info["action_mask"]``; ``gym vector <setup>``: ``gymnasium.make_vec`` of the same
  id (256 games, native ``random`` opponents): learner steps/s.
- ``memory 4096``: the resident memory a ``VectorGameEnv`` of 4,096 5 Towers games adds (MB).
- ``agent <name> <setup> python`` / ``native``: the rule-based opponents' decisions/s (``greedy``, ``heuristic``;
  Campanile and 5 Towers, each game's own), the agent's ``act`` on the seat's public view at positions of seeded
  games with a choice, on each backend (the native one decides in C++, the view converted); ``native, batched``:
  the compiled agent on the native games themselves, all the positions in one call (``greedy_actions`` /
  ``heuristic_actions``, the GIL released).
- ``gym vector <setup> <opponent> per game`` / ``batched``: ``GymVectorEnv`` of 64 games against ``heuristic``
  or ``ppo`` opponents, random legal learner actions: learner steps/s. ``per game`` asks every opponent's
  ``act`` one game at a time on its public view (``batch_opponents=False``); ``batched`` lets each agent class
  decide for all the games waiting on it in one call (``act_group``: one ``act_batch`` for the network, one
  compiled call for Campanile's rule-based agents; an agent without a batched hook, the default, is asked
  game by game there too). The same moves either way (tests/test_gym_vector_opponents.py).

    python benchmarks/native_speed.py --seconds 2 --rounds 3 --json results/native_speed/native_speed.json
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

SETUPS = {"5T 2p base": ("five_towers", 2, "base"), "5T 2p great_powers": ("five_towers", 2, "great_powers"),
          "5T 4p great_powers": ("five_towers", 4, "great_powers"), "Campanile 2p": ("campanile", 2, "pile")}
VECTOR_ENVS = 256


def _timed(step: Callable[[], int], seconds: float, warmup: float) -> dict:
    """Call ``step`` (returning the decisions it made) for ``warmup``, then ``seconds`` of CPU time."""
    end = time.process_time() + warmup
    while time.process_time() < end:
        step()
    count, start = 0, time.process_time()
    while True:
        count += step()
        spent = time.process_time() - start
        if spent >= seconds:
            return {"steps": count, "seconds": spent, "rate": count / spent}


def engine_python(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = "python"
    return _engine_loop(game, n, variant, seconds, warmup)


def engine_native_loop(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = "native"
    return _engine_loop(game, n, variant, seconds, warmup)


def _engine_loop(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    from five_towers_env.core.game import get_game

    spec = get_game(game)
    rng = np.random.default_rng(0)
    seeds = iter(range(10**9))

    def one_game() -> int:
        state = spec.new_state(n, variant, seed=next(seeds))
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
        return steps

    return _timed(one_game, seconds, warmup)


def engine_native(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    from five_towers_env.core.game import get_game, load

    spec = get_game(game)
    module = load(spec.native_engine.partition(":")[0] + ":core_module")
    template = load(spec.native_engine.replace(":new_game", ":new_core"))(n, variant, np.random.default_rng(0))
    seeds = iter(range(0, 10**12, 1000))
    return _timed(lambda: module.random_playouts(template, 20, next(seeds)), seconds, warmup)


def vector(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    from five_towers_env.core.vector_env import RANDOM, VectorGameEnv

    env = VectorGameEnv(game, VECTOR_ENVS, n, variant)
    env.reset(seed=0)
    acts = np.full(VECTOR_ENVS, RANDOM, dtype=np.int64)

    def steps() -> int:
        for _ in range(10):
            env.step(acts)
        return 10 * VECTOR_ENVS

    return _timed(steps, seconds, warmup)


def pettingzoo_env(game: str, n: int, variant: str, seconds: float, warmup: float, backend: str) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = backend
    from five_towers_env.core.game import get_game

    env = get_game(game).make_env(num_players=n, variant=variant)
    return _aec_loop(env, seconds, warmup)


def connect_four(seconds: float, warmup: float) -> dict:
    from pettingzoo.classic import connect_four_v3

    return _aec_loop(connect_four_v3.env(), seconds, warmup)


def _aec_loop(env: object, seconds: float, warmup: float) -> dict:
    rng = np.random.default_rng(0)
    env.reset(seed=0)  # type: ignore[attr-defined]

    def one_game() -> int:
        steps = 0
        for _agent in env.agent_iter():  # type: ignore[attr-defined]
            obs, _, term, trunc, _ = env.last()  # type: ignore[attr-defined]
            if term or trunc:
                env.step(None)  # type: ignore[attr-defined]
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # type: ignore[attr-defined]
            steps += 1
        env.reset()  # type: ignore[attr-defined]
        return steps

    return _timed(one_game, seconds, warmup)


def gym_single(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = "python"
    import gymnasium

    import five_towers_env  # noqa: F401  (registers the ids)
    from five_towers_env.core.game import get_game

    env = gymnasium.make(get_game(game).gymnasium_id, num_players=n, variant=variant, opponents="random")
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)

    def steps() -> int:
        nonlocal info
        for _ in range(100):
            _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if term or trunc:
                _, info = env.reset()
        return 100

    return _timed(steps, seconds, warmup)


def gym_vector(game: str, n: int, variant: str, seconds: float, warmup: float) -> dict:
    import gymnasium

    import five_towers_env  # noqa: F401  (registers the ids)
    from five_towers_env.core.game import get_game

    env = gymnasium.make_vec(get_game(game).gymnasium_id, num_envs=VECTOR_ENVS, vectorization_mode="vector_entry_point",
                             num_players=n, variant=variant)
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)

    def pick(mask: np.ndarray) -> np.ndarray:  # a uniform legal action per row
        noise = rng.random(mask.shape) * mask
        return noise.argmax(axis=1)

    def steps() -> int:
        nonlocal infos
        for _ in range(10):
            _, _, _, _, infos = env.step(pick(infos["action_mask"]))
        return 10 * VECTOR_ENVS

    return _timed(steps, seconds, warmup)


OPPONENT_ENVS = 64
OPPONENTS = ("heuristic", "ppo")
OPPONENT_SETUPS = ("5T 2p base", "Campanile 2p")


def gym_vector_opponents(game: str, n: int, variant: str, opponent: str, batch: bool, seconds: float,
                         warmup: float) -> dict:
    from five_towers_env.wrappers.gym_vector import GymVectorEnv

    env = GymVectorEnv(OPPONENT_ENVS, game=game, num_players=n, variant=variant, opponents=opponent,
                       batch_opponents=batch)
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)

    def steps() -> int:
        nonlocal infos
        for _ in range(5):
            noise = rng.random(infos["action_mask"].shape) * infos["action_mask"]  # a uniform legal action per row
            _, _, _, _, infos = env.step(noise.argmax(axis=1))
        return 5 * OPPONENT_ENVS

    return _timed(steps, seconds, warmup)


def memory(seconds: float, warmup: float) -> dict:
    import resource

    from five_towers_env.core.vector_env import VectorGameEnv

    def rss_mb() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    before = rss_mb()
    env = VectorGameEnv("five_towers", 4096, 2, "base")
    env.reset(seed=0)
    for _ in range(200):  # games in play, some dealt again
        env.step(np.full(4096, -1))
    after = rss_mb()
    del resource
    return {"steps": 4096, "seconds": 0.0, "rate": after - before, "rss_mb": after}


AGENTS = ("greedy", "heuristic")
AGENT_SETUPS = ("Campanile 2p", "5T 2p base", "5T 2p great_powers")
AGENT_POSITIONS = 400


def _agent_positions(game: str, n: int, variant: str) -> list:
    """The states at the first positions with a choice of seeded games with random moves."""
    from five_towers_env.core.game import get_game

    spec = get_game(game)
    rng = np.random.default_rng(0)
    out = []
    for seed in range(10**6):
        state = spec.new_state(n, variant, seed=seed)
        while not state.is_terminal() and len(out) < AGENT_POSITIONS:
            legal = state.legal_actions()
            if len(legal) > 1:
                out.append(state.clone())
            state.apply_action(legal[int(rng.integers(len(legal)))])
        if len(out) >= AGENT_POSITIONS:
            return out
    return out


def agent(game: str, n: int, variant: str, name: str, backend: str, seconds: float, warmup: float) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = backend
    from five_towers_env.core.game import get_game, load

    spec = get_game(game)
    player = load(spec.agents[name])(seed=0)
    infos = [spec.agent_info(s, s.current_player) for s in _agent_positions(game, n, variant)]

    def decisions() -> int:
        for info in infos:
            player.act(None, info)
        return len(infos)

    return _timed(decisions, seconds, warmup)


def agent_batched(game: str, n: int, variant: str, name: str, seconds: float, warmup: float) -> dict:
    os.environ["FIVE_TOWERS_ENGINE"] = "native"
    from five_towers_env.core.game import get_game, load
    from five_towers_env.core.native import words_of_generator

    module = load(get_game(game).native_engine.partition(":")[0] + ":core_module")
    cores = [s.core for s in _agent_positions(game, n, variant)]
    words = [words_of_generator(np.random.default_rng(i)) for i in range(len(cores))]
    if name == "greedy":
        return _timed(lambda: len(module.greedy_actions(cores, words)[0]), seconds, warmup)
    return _timed(lambda: len(module.heuristic_actions(cores)), seconds, warmup)


def rows() -> dict[str, Callable[[float, float], dict]]:
    out: dict[str, Callable[[float, float], dict]] = {}
    for label, (game, n, variant) in SETUPS.items():
        out[f"engine {label} python"] = lambda s, w, g=game, n=n, v=variant: engine_python(g, n, v, s, w)
        out[f"engine {label} native"] = lambda s, w, g=game, n=n, v=variant: engine_native(g, n, v, s, w)
        out[f"engine {label} native, Python loop"] = (
            lambda s, w, g=game, n=n, v=variant: engine_native_loop(g, n, v, s, w))
    for label in ("5T 2p base", "Campanile 2p"):
        game, n, variant = SETUPS[label]
        out[f"vector {label}"] = lambda s, w, g=game, n=n, v=variant: vector(g, n, v, s, w)
        for backend in ("python", "native"):
            out[f"pettingzoo {label} {backend}"] = (
                lambda s, w, g=game, n=n, v=variant, b=backend: pettingzoo_env(g, n, v, s, w, b))
        out[f"gym {label} python"] = lambda s, w, g=game, n=n, v=variant: gym_single(g, n, v, s, w)
        out[f"gym vector {label}"] = lambda s, w, g=game, n=n, v=variant: gym_vector(g, n, v, s, w)
    for label in OPPONENT_SETUPS:
        game, n, variant = SETUPS[label]
        for opponent in OPPONENTS:
            for kind, batch in (("per game", False), ("batched", True)):
                out[f"gym vector {label} {opponent} {kind}"] = (
                    lambda s, w, g=game, n=n, v=variant, o=opponent, b=batch: gym_vector_opponents(g, n, v, o, b, s, w))
    out["connect_four_v3"] = connect_four
    out["memory 4096"] = memory
    for label in AGENT_SETUPS:
        game, n, variant = SETUPS[label]
        for name in AGENTS:
            for backend in ("python", "native"):
                out[f"agent {name} {label} {backend}"] = (
                    lambda s, w, g=game, n=n, v=variant, a=name, b=backend: agent(g, n, v, a, b, s, w))
            out[f"agent {name} {label} native, batched"] = (
                lambda s, w, g=game, n=n, v=variant, a=name: agent_batched(g, n, v, a, s, w))
    return out


#: row -> (the row it is divided by, what the ratio means)
RATIOS = {
    **{f"engine {label} native": f"engine {label} python" for label in SETUPS},
    **{f"engine {label} native, Python loop": f"engine {label} python" for label in SETUPS},
    **{f"vector {label}": f"pettingzoo {label} python" for label in ("5T 2p base", "Campanile 2p")},
    **{f"pettingzoo {label} native": "connect_four_v3" for label in ("5T 2p base", "Campanile 2p")},
    **{f"pettingzoo {label} python": "connect_four_v3" for label in ("5T 2p base", "Campanile 2p")},
    **{f"gym vector {label}": f"gym {label} python" for label in ("5T 2p base", "Campanile 2p")},
    **{f"agent {name} {label} {kind}": f"agent {name} {label} python"
       for label in AGENT_SETUPS for name in AGENTS for kind in ("native", "native, batched")},
    **{f"gym vector {label} {opponent} batched": f"gym vector {label} {opponent} per game"
       for label in OPPONENT_SETUPS for opponent in OPPONENTS},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds measured per row and round")
    parser.add_argument("--warmup", type=float, default=0.5, help="CPU seconds of warm-up per row and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (each row once per round, in a fresh process)")
    parser.add_argument("--only", action="append", default=[], help="run only this row (repeatable)")
    parser.add_argument("--json", help="write the samples and the summary here")
    parser.add_argument("--row", help=argparse.SUPPRESS)  # the child process: run one row, print its JSON
    args = parser.parse_args()
    table = rows()
    if args.row:
        print(json.dumps(table[args.row](args.seconds, args.warmup)))
        return
    names = [n for n in table if not args.only or n in args.only]
    unknown = sorted(set(args.only) - set(table))
    if unknown:
        sys.exit(f"native_speed.py: unknown row(s) {unknown}; rows: {list(table)}")
    if not 1 <= args.rounds <= 50 or not 0 < args.seconds <= 600 or not 0 <= args.warmup <= 60:
        sys.exit("native_speed.py: --rounds 1..50, --seconds in (0, 600], --warmup 0..60")
    samples: dict[str, list[dict]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            out = subprocess.run([sys.executable, __file__, "--row", name, "--seconds", str(args.seconds),
                                  "--warmup", str(args.warmup)], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"row {name!r} failed:\n{out.stderr}")
            samples[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1} {name}: {samples[name][-1]['rate']:,.1f}", file=sys.stderr)
    summary = {}
    for name in names:
        rates = [s["rate"] for s in samples[name]]
        entry: dict = {"rate": statistics.median(rates), "min": min(rates), "max": max(rates)}
        ref = RATIOS.get(name)
        if ref in samples:
            ratios = [a["rate"] / b["rate"] for a, b in zip(samples[name], samples[ref])]
            entry.update(ratio=statistics.median(ratios), ratio_min=min(ratios), ratio_max=max(ratios), reference=ref)
        summary[name] = entry
    print("| row | rate | range | ratio | range | divided by |\n|---|---:|---:|---:|---:|---|")
    for name, e in summary.items():
        unit = " MB" if name.startswith("memory") else "/s"
        ratio = f"{e['ratio']:,.1f}x | {e['ratio_min']:,.1f}-{e['ratio_max']:,.1f}x | {e['reference']}" \
            if "ratio" in e else "- | - |"
        print(f"| {name} | {e['rate']:,.0f}{unit} | {e['min']:,.0f}-{e['max']:,.0f} | {ratio} |")
    if args.json:
        from five_towers_env.atomic import write_json
        from five_towers_env.provenance import write_provenance

        doc = {"command": " ".join(["python", "benchmarks/native_speed.py", *sys.argv[1:]]),
               "machine": {"python": platform.python_version(), "platform": platform.platform(),
                           "processor": platform.processor(), "cpus": os.cpu_count()},
               "rounds": args.rounds, "seconds": args.seconds, "summary": summary, "samples": samples}
        write_json(args.json, doc, indent=1)  # whole or not at all
        write_provenance(os.path.dirname(args.json) or ".")  # provenance.json beside it


if __name__ == "__main__":
    main()
