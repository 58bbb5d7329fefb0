"""The journal of a run: every game's record appended as it finishes, so that a stopped run keeps what it
played and the same command, run again, plays only the rest.

A journal is a JSON-lines file: a header line naming the run (game, variant, seats, pairing), then one
record per line. A game is found again by what decides it, its deal seed, its agents' seeds and the
labels of the agents in its seats, not by its position in the run, so a run with more agents or more
games reuses every game it shares with the one that wrote the journal (a ladder extended with a new
agent plays only the new agent's games).

Lines are appended and flushed one at a time, the exception to writing files whole
(:mod:`five_towers_env.atomic`): a line cut off by a crash is the last one, and reading drops it.
:meth:`Journal.rewrite` publishes the records whole, in job order, when a run finishes.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from five_towers_env import atomic
from five_towers_env.evaluation.report import jsonable

FORMAT = "five_towers_env journal 1"
GameKey = tuple[int, tuple[int, ...], tuple[str, ...]]


def game_key(deal_seed: int, agent_seeds: Sequence[int], seat_labels: Sequence[str]) -> GameKey:
    """What decides a game: its deal seed, its agents' seeds and the labels of the agents in its seats."""
    return (int(deal_seed), tuple(int(s) for s in agent_seeds), tuple(seat_labels))


class JournalMismatch(ValueError):
    """The journal at a path was written by a run of another game, variant, seat count or pairing."""


FINGERPRINTS = "fingerprints"


class Journal:
    """Records of one run's games, read from and appended to ``path`` (see the module docstring)."""

    def __init__(self, path: str | Path, header: dict[str, Any], fingerprints: dict[str, str] | None = None) -> None:
        self.path = Path(path)
        self.header = {"format": FORMAT, **jsonable(header)}
        if fingerprints:
            self.header[FINGERPRINTS] = dict(sorted(fingerprints.items()))
        self.records: dict[GameKey, dict[str, Any]] = {}
        self.changed: dict[str, int] = {}  # label -> games dropped on reading, its fingerprint having changed
        self._file: IO[str] | None = None
        if self.path.exists():
            self._read()

    def _read(self) -> None:
        with open(self.path) as f:
            lines = f.read().split("\n")
        complete = [line for line in lines[:-1] if line.strip()]  # the last piece lacks its newline: cut off
        if not complete:
            return
        header = json.loads(complete[0])
        old_prints, new_prints = header.pop(FINGERPRINTS, {}), self.header.get(FINGERPRINTS, {})
        run = {k: v for k, v in self.header.items() if k != FINGERPRINTS}
        if header != run:
            differ = sorted(k for k in set(header) | set(run) if header.get(k) != run.get(k))
            raise JournalMismatch(f"{self.path} holds the games of another run ({', '.join(differ)} differ: "
                                  f"{', '.join(f'{k}={header.get(k)!r}' for k in differ)}); use another --out "
                                  f"or delete that file")
        stale = {k for k in set(old_prints) | set(new_prints) if old_prints.get(k) != new_prints.get(k)}
        for line in complete[1:]:
            record = json.loads(line)
            gone = stale.intersection(record["agents"])
            for label in gone:
                self.changed[label] = self.changed.get(label, 0) + 1
            if not gone:
                self.records[self.key_of(record)] = record
        if stale:  # the file on disk must say whose games it now holds before more are appended
            self.rewrite(list(self.records.values()))

    @staticmethod
    def key_of(record: dict[str, Any]) -> GameKey:
        """The :func:`game_key` of a journal record."""
        return game_key(record["deal_seed"], record["agent_seeds"], record["agents"])

    def get(self, key: GameKey) -> dict[str, Any] | None:
        """The record of the game ``key``, if the journal holds it."""
        return self.records.get(key)

    def append(self, record: dict[str, Any]) -> None:
        """Add a finished game's record (with its ``agents`` labels and ``agent_seeds``) and flush it to disk."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = not self.path.exists() or self.path.stat().st_size == 0
            self._file = open(self.path, "a")
            if fresh:
                self._file.write(json.dumps(self.header) + "\n")
            elif not self.path.read_text().endswith("\n"):  # a crash cut the last line: drop it
                self._file.close()
                self.rewrite(list(self.records.values()))
                self._file = open(self.path, "a")
        line = json.dumps(jsonable(record))
        self._file.write(line + "\n")
        self._file.flush()
        self.records[self.key_of(record)] = record

    def close(self) -> None:
        """Close the file (reopened by the next :meth:`append`)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def rewrite(self, records: Sequence[dict[str, Any]]) -> Path:
        """Replace the file, whole, by the header and ``records`` in the order given."""
        self.close()
        lines = [json.dumps(self.header)] + [json.dumps(jsonable(r)) for r in records]
        return atomic.write_text(self.path, "\n".join(lines) + "\n")

    def remove(self) -> None:
        """Delete the file (its run has written its results)."""
        self.close()
        self.path.unlink(missing_ok=True)


__all__ = ["FORMAT", "Journal", "JournalMismatch", "game_key"]
