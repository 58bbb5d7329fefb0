"""Drives the environment through a SPEC §9 rules case and checks every step.

A case plays 5 Towers unless it (or its position) says ``"game": "campanile"``: then it runs
against ``five_towers_env.games.campanile`` with the SPEC C7 position and the C8 comparisons
(docs/campanile.md).
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from five_towers_env.games.five_towers import IllegalActionError, PositionError, raw_env

REPO = Path(__file__).resolve().parent.parent
#: the reference cases of the specification, found beside a clone when they are there (CI has them)
SHARED_CASES = REPO.parent / "shared" / "rules-cases"
OWN_CASES = Path(__file__).resolve().parent / "games" / "five_towers" / "rules_cases"
#: this suite's own Campanile cases (docs/campanile.md C8)
OWN_CAMPANILE_CASES = Path(__file__).resolve().parent / "games" / "campanile" / "rules_cases"
OFFERED_VARIANTS = ("base", "great_powers")
CAMPANILE_VARIANTS = ("pile", "played")


def case_dirs() -> list[Path]:
    """SPEC §9 case folders: the reference ones, this suite's own, and every folder in FIVE_TOWERS_CASES."""
    dirs = [SHARED_CASES, OWN_CASES, OWN_CAMPANILE_CASES]
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


def case_game(case: dict) -> str:
    """The game a case plays: its own ``"game"``, else its position's, else ``five_towers``."""
    pos = case.get("position")
    inner = pos.get("game", "five_towers") if isinstance(pos, dict) else "five_towers"
    return case.get("game", inner)


def _compare_campanile(expected: dict, actual: dict, where: str) -> None:
    """SPEC C8: the named keys of ``position()``; ``hands`` as multisets per player, ``bets`` only
    for the towers named (each tower's list in order); the optional keys at their defaults."""
    defaults = {"done": False, "bet_chip": "at_least"}
    for key, want in expected.items():
        assert key in actual or key in defaults, f"{where}: position has no key {key!r}"
        got = actual.get(key, defaults.get(key))
        if key == "hands":
            assert len(want) == len(got), f"{where}: hands: expected {len(want)} seats, got {len(got)}"
            for s, (w, g) in enumerate(zip(want, got)):
                assert _multiset(w) == _multiset(g), f"{where}: hands[{s}]: expected {sorted(w)}, got {sorted(g)}"
        elif key == "bets":
            for tower, chips in want.items():
                assert tower in got, f"{where}: bets has no tower {tower!r}"
                assert chips == got[tower], f"{where}: bets.{tower}: expected {chips}, got {got[tower]}"
        else:
            assert want == got, f"{where}: {key}: expected {want!r}, got {got!r}"


def _campanile_env(path: Path, pos: dict):
    """A Campanile environment set up as the case's position is (the loader judges the rest)."""
    from five_towers_env.games.campanile import raw_env as campanile_env

    variant = pos.get("variant", "pile")
    if variant not in CAMPANILE_VARIANTS:
        pytest.skip(f"{path.name}: Campanile variant {variant!r} is not offered")
    n = pos.get("num_players", 2)
    bet_chip = pos.get("bet_chip", "at_least")
    return campanile_env(num_players=n if isinstance(n, int) and 2 <= n <= 5 else 2, variant=variant,
                         bet_chip=bet_chip if bet_chip in ("at_least", "exact") else "at_least")


def run_case(path: Path) -> None:
    """Run one case file; a failure names the file and the step."""
    case = json.loads(path.read_text())
    pos = case["position"]
    game = case_game(case)
    if game == "campanile":
        run_steps(path, case, _campanile_env(path, pos), _compare_campanile)
        return
    if game != "five_towers":
        pytest.skip(f"{path.name}: game {game!r} is not offered")
    variant = pos.get("variant", "base")
    if variant not in OFFERED_VARIANTS:
        pytest.skip(f"{path.name}: variant {variant!r} is not offered")
    n = pos.get("num_players", 2)
    env = raw_env(num_players=n if isinstance(n, int) and 2 <= n <= 5 else 2, variant=variant, explicit=True)
    run_steps(path, case, env, _compare)


def run_steps(path: Path, case: dict, env, compare) -> None:
    """Load the case's position into ``env`` (or check it is rejected) and check every step;
    ``compare(expected, position, where)`` judges an ``expect`` step."""
    pos = case["position"]
    seed = case.get("seed", 0)
    if case.get("rejected"):
        with pytest.raises(PositionError) as err:
            env.reset(seed=seed, options={"position": pos})
        assert str(err.value), f"{path.name}: the rejection gives no message"
        return
    env.reset(seed=seed, options={"position": pos})
    forced = os.environ.get("FIVE_TOWERS_ENGINE")
    assert forced is None or env.game.backend == forced, f"{path.name}: ran on {env.game.backend}, not {forced}"
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
            compare(value, env.position(), where)
        elif kind == "scores":
            assert env.scores() == value, f"{where}: scores are {env.scores()}"
        elif kind == "done":
            assert env.game.is_terminal() == value, f"{where}: done is {env.game.is_terminal()}"
        elif kind == "winners":
            assert env.game.is_terminal(), f"{where}: winners asked before the game is over"
            assert sorted(env.winners()) == sorted(value), f"{where}: winners are {env.winners()}"
        else:
            raise AssertionError(f"{where}: unknown step kind {kind!r}")
