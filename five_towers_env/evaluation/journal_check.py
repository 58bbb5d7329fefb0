"""What a journal line may say (:mod:`five_towers_env.evaluation.journal`): the schema every line is checked
against before a run trusts it, and the digests that bind a journal to its run.

A line is one JSON object of known keys only, each of its type and in its range (finite numbers, bounded
sizes, at most :data:`MAX_LINE` bytes), its scores, winners, win shares and margins consistent with each
other, and its ``check`` the digest of its content under its run's digest. The check finds a line edited by
mistake or cut by a crash; it proves nothing against someone who can write the file (the digest is no secret:
anyone can compute it again), which no file on your own disk can.
"""
from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from five_towers_env.core.state import shares_of

#: the most bytes a journal line may hold (its newline aside)
MAX_LINE = 64 * 1024
#: the longest agent label and forfeit error message a line may hold (playing.py cuts an error to it)
MAX_TEXT = 4096
#: bounds of a line's integers and seconds
MAX_SEED = 2 ** 64 - 1
MAX_COUNT = 10 ** 9
MAX_SCORE = 10 ** 9
MAX_SECONDS = 10.0 ** 9
#: at most this many agents' file digests in a header
MAX_FINGERPRINTS = 1000

HEADER_KEYS = frozenset({"format", "run", "game", "variant", "num_players", "seed", "paired", "fingerprints",
                         "digest"})
#: a line's keys: always there, and there only for a forfeited game (both or neither)
RECORD_KEYS = ("deal", "deal_seed", "scores", "winners", "win_share", "margins", "steps", "moves",
               "think_seconds", "wall_seconds", "agents", "agent_seeds")
FORFEIT_KEYS = ("forfeit", "error")
CHECK = "check"


class JournalError(ValueError):
    """A journal this run cannot trust: its message is one line, naming the file (and the line)."""


class JournalMismatch(JournalError):
    """The journal at a path was written by another run (another game, variant, seat count, seed or
    pairing), or its header is not a journal's header at all."""


class BadJournalLine(JournalError):
    """A journal line that fails the schema: ``line`` is its number in the file (1 is the header), None
    while it is checked on its own (:func:`check_line`); ``reason`` says what is wrong."""

    def __init__(self, reason: str, path: str | None = None, line: int | None = None) -> None:
        self.reason, self.path, self.line = reason, path, line
        where = f"{path}: line {line}: " if path is not None and line is not None else ""
        super().__init__(where + reason)


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, on one line, cut to ``limit`` characters."""
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def canonical(value: Any) -> str:
    """One JSON text per value: sorted keys, no spaces (what the digests are taken of)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def settings_digest(settings: dict[str, Any]) -> str:
    """The digest of a run's settings (its header without ``fingerprints`` and ``digest``)."""
    return hashlib.sha256(canonical(settings).encode()).hexdigest()


def line_check(digest: str, record: dict[str, Any]) -> str:
    """The ``check`` of a journal line holding ``record`` (without its check) in the run of ``digest``."""
    return hashlib.sha256(f"{digest}\n{canonical(record)}".encode()).hexdigest()[:32]


def _no_constant(text: str) -> Any:
    raise BadJournalLine(f"not a finite number: {text}")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise BadJournalLine(f"the key {short(k)} appears twice")
        out[k] = v
    return out


def parse_object(data: bytes | str) -> dict[str, Any]:
    """A line's JSON object (at most :data:`MAX_LINE` bytes; no NaN, no infinity, no repeated key), or
    :class:`BadJournalLine`."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw.rstrip(b"\r\n")) > MAX_LINE:
        raise BadJournalLine(f"longer than {MAX_LINE} bytes")
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_no_constant, object_pairs_hook=_unique)
    except BadJournalLine:
        raise
    except UnicodeDecodeError:
        raise BadJournalLine("not UTF-8 text") from None
    except RecursionError:
        raise BadJournalLine("nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
        raise BadJournalLine(f"not JSON ({short(str(exc), 80)})") from None
    if not isinstance(value, dict):
        raise BadJournalLine(f"not a JSON object but {type(value).__name__}")
    return value


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadJournalLine(f"{name} must be an integer in [{lo}, {hi}], got {short(value)}")
    return value


def _number(value: Any, name: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not lo <= value <= hi:
        raise BadJournalLine(f"{name} must be a number in [{lo:g}, {hi:g}], got {short(value)}")
    return float(value)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_TEXT:
        raise BadJournalLine(f"{name} must be a non-empty text of at most {MAX_TEXT} characters, got {short(value)}")
    return value


def _list(value: Any, name: str, n: int) -> list[Any]:
    if not isinstance(value, list) or len(value) != n:
        raise BadJournalLine(f"{name} must be a list of {n} (one per seat), got {short(value)}")
    return value


def check_record(record: dict[str, Any], num_players: int) -> None:
    """Refuse (:class:`BadJournalLine`) a record of a ``num_players``-seat game (a line's object without its
    check) that has an unknown or missing key, a value of the wrong type or out of range, or scores, winners,
    win shares and margins that do not agree."""
    n = num_players
    unknown = sorted(set(record) - set(RECORD_KEYS) - set(FORFEIT_KEYS))
    if unknown:
        raise BadJournalLine(f"unknown key {short(unknown[0])} (a line holds only {', '.join(RECORD_KEYS)}, "
                             f"and forfeit and error)")
    missing = [k for k in RECORD_KEYS if k not in record]
    if missing:
        raise BadJournalLine(f"the key {missing[0]!r} is missing")
    if ("forfeit" in record) != ("error" in record):
        raise BadJournalLine("forfeit and error come together or not at all")
    _int(record["deal"], "deal", 0, MAX_SEED)
    _int(record["deal_seed"], "deal_seed", 0, MAX_SEED)
    for s in _list(record["agent_seeds"], "agent_seeds", n):
        _int(s, "agent_seeds", 0, MAX_SEED)
    for a in _list(record["agents"], "agents", n):
        _text(a, "agents")
    scores = [_int(s, "scores", -MAX_SCORE, MAX_SCORE) for s in _list(record["scores"], "scores", n)]
    winners = record["winners"]
    if not isinstance(winners, list) or not 1 <= len(winners) <= n:
        raise BadJournalLine(f"winners must be a list of 1 to {n} seats, got {short(winners)}")
    for w in winners:
        _int(w, "winners", 0, n - 1)
    if winners != sorted(set(winners)):
        raise BadJournalLine(f"winners must be distinct seats in order, got {short(winners)}")
    if "forfeit" in record:
        seat = _int(record["forfeit"], "forfeit", 0, n - 1)
        _text(record["error"], "error")
        expected = [s for s in range(n) if s != seat]
        if winners != expected:
            raise BadJournalLine(f"seat {seat} forfeited, so the winners are {expected}, not {short(winners)}")
    else:
        expected = [s for s, v in enumerate(scores) if v == max(scores)]
        if winners != expected:
            raise BadJournalLine(f"the scores {short(scores)} make the winners {expected}, not {short(winners)}")
    share = [_number(x, "win_share", 0.0, 1.0) for x in _list(record["win_share"], "win_share", n)]
    if share != shares_of(winners, n):
        raise BadJournalLine(f"the winners {winners} make the win shares {shares_of(winners, n)}, "
                             f"not {short(share)}")
    margins = [_int(m, "margins", -2 * MAX_SCORE, 2 * MAX_SCORE) for m in _list(record["margins"], "margins", n)]
    expected = [sc - max(scores[:s] + scores[s + 1:]) for s, sc in enumerate(scores)]
    if margins != expected:
        raise BadJournalLine(f"the scores {short(scores)} make the margins {expected}, not {short(margins)}")
    _int(record["steps"], "steps", 0, MAX_COUNT)
    for m in _list(record["moves"], "moves", n):
        _int(m, "moves", 0, MAX_COUNT)
    for t in _list(record["think_seconds"], "think_seconds", n):
        _number(t, "think_seconds", 0.0, MAX_SECONDS)
    _number(record["wall_seconds"], "wall_seconds", 0.0, MAX_SECONDS)


def check_line(data: bytes | str, num_players: int, digest: str | None) -> dict[str, Any]:
    """The record a journal line holds (its check removed), once it passes :func:`check_record` and, with a
    run's ``digest``, its check (None: a journal of the first format, whose lines had none); else
    :class:`BadJournalLine`."""
    record = parse_object(data)
    check = record.pop(CHECK, None)
    check_record(record, num_players)
    if digest is not None:
        if not isinstance(check, str):
            raise BadJournalLine(f"the key {CHECK!r} is missing" if check is None
                                 else f"{CHECK} must be a text, got {short(check)}")
        if check != line_check(digest, record):
            raise BadJournalLine("its check does not match its content (the line was edited or damaged)")
    elif check is not None:
        raise BadJournalLine(f"unknown key {CHECK!r} in a journal of the first format")
    return record


def check_fingerprints(value: Any) -> dict[str, str]:
    """A header's ``fingerprints`` (agent label -> digest of its files), or :class:`BadJournalLine`."""
    if not isinstance(value, dict) or len(value) > MAX_FINGERPRINTS:
        raise BadJournalLine(f"fingerprints must be an object of at most {MAX_FINGERPRINTS} entries")
    for k, v in value.items():
        _text(k, "a fingerprint's agent")
        _text(v, f"the fingerprint of {short(k)}")
    return value


__all__ = ["BadJournalLine", "CHECK", "FORFEIT_KEYS", "HEADER_KEYS", "JournalError", "JournalMismatch", "MAX_LINE",
           "MAX_TEXT", "RECORD_KEYS", "canonical", "check_fingerprints", "check_line", "check_record",
           "line_check", "parse_object", "settings_digest"]
