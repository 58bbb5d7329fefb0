"""Drives the environment through a SPEC §9 rules case and checks every step."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from five_towers_env.engine import IllegalActionError, PositionError
from five_towers_env.environment import raw_env

REPO = Path(__file__).resolve().parent.parent
#: the reference cases of the specification, found beside a clone when they are there (CI has them)
SHARED_CASES = REPO.parent / "shared" / "rules-cases"
OWN_CASES = Path(__file__).resolve().parent / "rules_cases"
OFFERED_VARIANTS = ("base", "great_powers")


def case_dirs() -> list[Path]:
    """SPEC §9 case folders: the reference ones, this suite's own, and every folder in FIVE_TOWERS_CASES."""
    dirs = [SHARED_CASES, OWN_CASES]
    dirs += [Path(d) for d in os.environ.get("FIVE_TOWERS_CASES", "").split(":") if d]
    return dirs


def case_files() -> list[Path]:
    """Every ``*.json`` case in the case folders, sorted per folder."""
    files: list[Path] = []
    for d in case_dirs():
        files += sorted(d.glob("*.json")) if d.is_dir() else []
    return files


def _multiset(items) -> Counter:
    return Counter(map(str, items))


def _compare(expected: dict, actual: dict, where: str) -> None:
    for key, want in expected.items():
        assert key in actual, f"{where}: position has no key {key!r}"
        got = actual[key]
        if key == "players":
            assert len(want) == len(got), f"{where}: players: expected {len(want)} seats, got {len(got)}"
            for s, (w, g) in enumerate(zip(want, got)):
                for k, v in w.items():
                    if k == "towers":
                        assert v == g["towers"], f"{where}: players[{s}].towers: expected {v}, got {g['towers']}"
                    elif k == "teardown":
                        assert _multiset(v) == _multiset(g["teardown"]), \
                            f"{where}: players[{s}].teardown: expected {sorted(v)}, got {sorted(g['teardown'])}"
                    else:
                        assert v == g.get(k), f"{where}: players[{s}].{k}: expected {v}, got {g.get(k)}"
        elif key in ("display", "hand", "discard"):
            assert _multiset(want) == _multiset(got), f"{where}: {key}: expected {sorted(want)}, got {sorted(got)}"
        else:
            assert want == got, f"{where}: {key}: expected {want!r}, got {got!r}"


def run_case(path: Path) -> None:
    """Run one case file; a failure names the file and the step."""
    case = json.loads(path.read_text())
    pos = case["position"]
    variant = pos.get("variant", "base")
    if variant not in OFFERED_VARIANTS:
        pytest.skip(f"{path.name}: variant {variant!r} is not offered")
    seed = case.get("seed", 0)
    n = pos.get("num_players", 2)
    env = raw_env(num_players=n if isinstance(n, int) and 2 <= n <= 5 else 2, variant=variant, explicit=True)
    if case.get("rejected"):
        with pytest.raises(PositionError) as err:
            env.reset(seed=seed, options={"position": pos})
        assert str(err.value), f"{path.name}: the rejection gives no message"
        return
    env.reset(seed=seed, options={"position": pos})
    for i, step in enumerate(case["steps"]):
        where = f"{path.name} step {i} {json.dumps(step)}"
        ((kind, value),) = step.items()
        if kind == "to_act":
            assert env.game.current_player == value, f"{where}: seat {env.game.current_player} is to act"
        elif kind == "legal":
            got = env.legal_action_names()
            assert sorted(got) == sorted(value), f"{where}: legal actions are {sorted(got)}"
        elif kind == "act":
            legal = env.legal_action_names()
            assert value in legal, f"{where}: {value!r} is not legal; legal: {legal}"
            env.step(env.action_from_name(value))
        elif kind == "illegal":
            before = (env.position(), env.legal_action_names(), env.game.current_player)
            with pytest.raises(IllegalActionError) as err:
                env.step(env.action_from_name(value))
            assert value in str(err.value), f"{where}: the error does not name the action: {err.value}"
            after = (env.position(), env.legal_action_names(), env.game.current_player)
            assert before == after, f"{where}: the illegal action changed the game"
        elif kind == "expect":
            _compare(value, env.position(), where)
        elif kind == "scores":
            assert env.scores() == value, f"{where}: scores are {env.scores()}"
        elif kind == "done":
            assert env.game.is_terminal() == value, f"{where}: done is {env.game.is_terminal()}"
        elif kind == "winners":
            assert env.game.is_terminal(), f"{where}: winners asked before the game is over"
            assert sorted(env.winners()) == sorted(value), f"{where}: winners are {env.winners()}"
        else:
            raise AssertionError(f"{where}: unknown step kind {kind!r}")
