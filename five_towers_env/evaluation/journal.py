"""The journal of a run: every game's record appended as it finishes, so that a stopped run keeps what it
played and the same command, run again, plays only the rest.

A journal is a JSON-lines file: a header line naming the run (game, variant, seats, seed, pairing) and the
digest of those settings, then one record per line, each with the check that binds it to that digest
(:mod:`~five_towers_env.evaluation.journal_check`). A game is found again by what decides it, its deal
seed, its agents' seeds and the labels of the agents in its seats, not by its position in the run, so a
run with more agents or more games reuses every game it shares with the one that wrote the journal (a
ladder extended with a new agent plays only the new agent's games).

Nothing in the file is trusted: a header that is not this run's is refused (:class:`JournalMismatch`), and
so is the first line that fails the schema or its check (:class:`BadJournalLine`, naming the line), unless
the journal is opened with ``discard_bad_lines``: then such lines are dropped with one warning naming them,
and their games are played again.

Lines are appended and flushed one at a time, the exception to writing files whole
(:mod:`five_towers_env.atomic`): a line cut off by a crash is the last one, and reading drops it.
:meth:`Journal.rewrite` publishes the records whole, in job order, when a run finishes.
"""
from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from five_towers_env import atomic
from five_towers_env.evaluation.journal_check import (
    CHECK,
    HEADER_KEYS,
    MAX_LINE,
    BadJournalLine,
    JournalError,
    JournalMismatch,
    check_fingerprints,
    check_line,
    line_check,
    parse_object,
    settings_digest,
    short,
)
from five_towers_env.evaluation.report import jsonable

FORMAT = "five_towers_env journal 2"
#: journals written before lines had checks (the committed ladder journals): their lines are checked
#: against the schema alone, and the file is written again in today's format
LEGACY_FORMAT = "five_towers_env journal 1"
GameKey = tuple[int, tuple[int, ...], tuple[str, ...]]
FINGERPRINTS = "fingerprints"
DIGEST = "digest"
#: how many bad lines one warning names
NAMED = 5


def game_key(deal_seed: int, agent_seeds: Sequence[int], seat_labels: Sequence[str]) -> GameKey:
    """What decides a game: its deal seed, its agents' seeds and the labels of the agents in its seats."""
    return (int(deal_seed), tuple(int(s) for s in agent_seeds), tuple(seat_labels))


def _lines(path: Path) -> Iterator[tuple[int, bytes | None, bool]]:
    """``(number, bytes, ended)`` of each line of ``path``, read a line at a time: bytes None for a line
    longer than :data:`MAX_LINE` (skipped, never held whole); ``ended``: it has its newline."""
    with open(path, "rb") as f:
        number = 0
        while True:
            piece = f.readline(MAX_LINE + 2)
            if not piece:
                return
            number += 1
            if len(piece.rstrip(b"\r\n")) <= MAX_LINE:
                yield number, piece, piece.endswith(b"\n")
                continue
            while not piece.endswith(b"\n"):  # the rest of an over-long line
                piece = f.readline(1 << 20)
                if not piece:
                    break
            yield number, None, piece.endswith(b"\n")


class Journal:
    """Records of one run's games, read from and appended to ``path`` (see the module docstring)."""

    def __init__(self, path: str | Path, header: dict[str, Any], fingerprints: dict[str, str] | None = None,
                 discard_bad_lines: bool = False) -> None:
        self.path = Path(path)
        settings = {"format": FORMAT, **{k: v for k, v in jsonable(header).items()
                                         if k not in ("format", FINGERPRINTS, DIGEST)}}
        self.digest = settings_digest(settings)
        self.header = dict(settings)
        if fingerprints:
            self.header[FINGERPRINTS] = dict(sorted(fingerprints.items()))
        self.header[DIGEST] = self.digest
        self.num_players = int(settings.get("num_players", 0))
        self.discard_bad_lines = discard_bad_lines
        self.records: dict[GameKey, dict[str, Any]] = {}
        self.line_of: dict[GameKey, int] = {}  # where each record was read
        self.changed: dict[str, int] = {}  # label -> games dropped on reading, its fingerprint having changed
        self.dropped: list[tuple[int, str]] = []  # (line, why) of the bad lines dropped
        self._file: IO[str] | None = None
        linked = atomic.link_problem(self.path)
        if linked:  # its lines would go wherever the link points
            raise JournalError(f"journal {linked}")
        if self.path.exists():
            self._read()

    # -- reading ----------------------------------------------------------------------------------

    def _refuse(self, reason: str) -> JournalMismatch:
        return JournalMismatch(f"{self.path}: line 1: {reason}; use another --out or delete that file")

    def _check_header(self, data: bytes) -> tuple[dict[str, str], bool]:
        """The fingerprints of a header that is this run's, and whether it is of the first format."""
        try:
            header = parse_object(data)
        except BadJournalLine as exc:
            raise self._refuse(f"the header is not a journal's header ({exc.reason})") from None
        unknown = sorted(set(header) - HEADER_KEYS)
        if unknown:
            raise self._refuse(f"the header is not a journal's header (unknown key {short(unknown[0])})")
        legacy = header.get("format") == LEGACY_FORMAT
        if header.get("format") not in (FORMAT, LEGACY_FORMAT):
            raise self._refuse(f"not a journal of this version (format {short(header.get('format'))}, "
                               f"expected {FORMAT!r})")
        try:
            old_prints = check_fingerprints(header.pop(FINGERPRINTS, {}))
        except BadJournalLine as exc:
            raise self._refuse(f"the header's {exc.reason}") from None
        digest = header.pop(DIGEST, None)
        mine = {k: v for k, v in self.header.items() if k not in (FINGERPRINTS, DIGEST)}
        theirs = {**header, "format": FORMAT}
        if theirs != mine:
            differ = sorted(k for k in set(theirs) | set(mine) if theirs.get(k) != mine.get(k))
            values = ", ".join(f"{k}={short(theirs.get(k))} (this run: {short(mine.get(k))})" for k in differ)
            raise self._refuse(f"holds the games of another run ({', '.join(differ)} differ: {values})")
        if legacy and digest is not None:
            raise self._refuse("the header is not a journal's header (a digest in the first format)")
        if not legacy and digest != self.digest:
            raise self._refuse(f"the header's digest {short(digest)} is not that of its settings "
                               f"(the header was edited or damaged)")
        return old_prints, legacy

    def _bad(self, number: int, reason: str) -> None:
        """A bad line: refused, or dropped when the journal was opened with ``discard_bad_lines``."""
        if not self.discard_bad_lines:
            raise BadJournalLine(f"{reason}; fix or delete that line, or run again with "
                                 f"--discard-bad-journal-lines to play its game again", str(self.path), number)
        self.dropped.append((number, reason))

    def _read(self) -> None:
        header: tuple[dict[str, str], bool] | None = None
        bodies: list[tuple[int, bytes]] = []
        for number, data, ended in _lines(self.path):
            if data is None:
                if header is None:
                    raise self._refuse(f"the header is not a journal's header (longer than {MAX_LINE} bytes)")
                self._bad(number, f"longer than {MAX_LINE} bytes")
            elif not ended:  # the last line, cut off by a crash: dropped
                break
            elif not data.strip():
                continue
            elif header is None:
                header = self._check_header(data)
            else:
                bodies.append((number, data))
        if header is None:
            return
        old_prints, legacy = header
        new_prints = self.header.get(FINGERPRINTS, {})
        stale = {k for k in set(old_prints) | set(new_prints) if old_prints.get(k) != new_prints.get(k)}
        for number, data in bodies:
            try:
                record = check_line(data, self.num_players, None if legacy else self.digest)
            except BadJournalLine as exc:
                self._bad(number, exc.reason)
                continue
            key = self.key_of(record)
            if key in self.records and self.records[key] != record:
                self._bad(number, f"a second, different record of the game of line {self.line_of[key]}")
                continue
            gone = stale.intersection(record["agents"])
            for label in gone:
                self.changed[label] = self.changed.get(label, 0) + 1
            if not gone:
                self.records[key] = record
                self.line_of.setdefault(key, number)
        if self.dropped:
            named = "; ".join(f"line {n}: {why}" for n, why in self.dropped[:NAMED])
            more = f"; and {len(self.dropped) - NAMED} more" if len(self.dropped) > NAMED else ""
            warnings.warn(f"{self.path}: dropped {len(self.dropped)} bad line(s), whose games are played again "
                          f"({named}{more})", stacklevel=3)
        if stale or self.dropped or legacy:  # the file must say what it now holds before more is appended
            self.rewrite(list(self.records.values()))

    @staticmethod
    def key_of(record: dict[str, Any]) -> GameKey:
        """The :func:`game_key` of a journal record."""
        return game_key(record["deal_seed"], record["agent_seeds"], record["agents"])

    def get(self, key: GameKey) -> dict[str, Any] | None:
        """The record of the game ``key``, if the journal holds it."""
        return self.records.get(key)

    def reject(self, key: GameKey, reason: str) -> None:
        """Refuse the record of ``key`` that does not fit the game this run would play (:class:`BadJournalLine`),
        or forget it, with a warning, when the journal was opened with ``discard_bad_lines``."""
        number = self.line_of.get(key, 0)
        self._bad(number, reason)
        self.records.pop(key, None)
        warnings.warn(f"{self.path}: dropped line {number} ({reason}); its game is played again", stacklevel=3)
        self.rewrite(list(self.records.values()))

    # -- writing ----------------------------------------------------------------------------------

    def dumps(self, record: dict[str, Any]) -> str:
        """A record as its journal line (with its check), without the newline."""
        plain = {k: v for k, v in jsonable(record).items() if k != CHECK}
        return json.dumps({**plain, CHECK: line_check(self.digest, plain)})

    def append(self, record: dict[str, Any]) -> None:
        """Add a finished game's record (with its ``agents`` labels and ``agent_seeds``) and flush it to disk."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            if not fresh and not self._ends_with_newline():  # a crash cut the last line: drop it
                self.rewrite(list(self.records.values()))
            try:
                self._file = atomic.open_append(self.path)
            except atomic.LinkRefused as exc:
                raise JournalError(f"journal {exc}") from None
            if fresh:
                self._file.write(json.dumps(self.header) + "\n")
        line = self.dumps(record)
        self._file.write(line + "\n")
        self._file.flush()
        self.records[self.key_of(record)] = record

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, 2)
            return f.read(1) == b"\n"

    def close(self) -> None:
        """Close the file (reopened by the next :meth:`append`)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def lines(self, records: Sequence[dict[str, Any]]) -> list[str]:
        """The header and ``records``, as the journal's lines (without newlines)."""
        return [json.dumps(self.header)] + [self.dumps(r) for r in records]

    def rewrite(self, records: Sequence[dict[str, Any]]) -> Path:
        """Replace the file, whole, by the header and ``records`` in the order given."""
        self.close()
        return atomic.write_text(self.path, "\n".join(self.lines(records)) + "\n")

    def remove(self) -> None:
        """Delete the file (its run has written its results)."""
        self.close()
        self.path.unlink(missing_ok=True)


__all__ = ["FORMAT", "LEGACY_FORMAT", "Journal", "game_key"]
