"""The opponent pool of self-play: baseline agents plus frozen snapshots of the learner.

:class:`OpponentPool` lives in the trainer and decides what is in the pool; it hands the
environments a :class:`PoolSampler`, a small picklable object (it crosses into ``SubprocVecEnv``
workers) that draws the opponents of each game from the environment's own seeded generator.
Both belong to one game (``game=``, default 5 Towers): registry names are built by the environment
with that game's registry, and a snapshot policy of another game is refused when it is loaded.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.atomic import write_text
from five_towers_env.core.game import get_game
from five_towers_env.training.ppo.config import PoolSettings

SNAPSHOT = "snapshot:"


class PoolSampler:
    """Draws ``num_opponents`` opponents: registry names, or snapshot :class:`PolicyAgent`\\ s.

    ``entries`` are ``(label, weight)`` pairs; a label is a registry name or
    ``"snapshot:<path to .npz>"``. Snapshots are loaded once per process and play stochastically
    (sampling from their policy, re-seeded every game by the environment); one trained for another
    game than ``game`` raises ``ValueError`` when loaded."""

    def __init__(self, entries: Sequence[tuple[str, float]], num_opponents: int, per_seat: bool = True, *,
                 game: str) -> None:
        entries = [(label, float(w)) for label, w in entries if w > 0]
        if not entries:
            raise ValueError("the pool has no entry with a positive weight")
        self.labels = [label for label, _ in entries]
        weights = np.array([w for _, w in entries], dtype=float)
        self.probs = weights / weights.sum()
        self.num_opponents = int(num_opponents)
        self.per_seat = bool(per_seat)
        self.game = get_game(game).name
        self._agents: dict[str, PolicyAgent] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_agents"] = {}  # loaded networks stay in their process
        return state

    def _resolve(self, label: str) -> Any:
        if not label.startswith(SNAPSHOT):
            return label
        if label not in self._agents:
            # batch_invariant off: a process's batches of games are fixed by the run's seed and settings, so one
            # pass of matrix products per batch (several times faster) keeps runs reproducible
            self._agents[label] = PolicyAgent(label[len(SNAPSHOT):], deterministic=False, name=label, game=self.game,
                                              batch_invariant=False)
        return self._agents[label]

    def for_players(self, num_players: int) -> PoolSampler:
        """This sampler drawing the opponents of a ``num_players`` game (``SingleAgentGymEnv`` asks,
        so one pool serves a run that trains several player counts)."""
        if num_players - 1 == self.num_opponents:
            return self
        fitted = copy.copy(self)
        fitted.num_opponents = num_players - 1
        return fitted

    def __call__(self, rng: np.random.Generator) -> list[Any]:
        draws = rng.choice(len(self.labels), size=self.num_opponents if self.per_seat else 1, p=self.probs)
        if not self.per_seat:
            draws = np.repeat(draws, self.num_opponents)
        return [self._resolve(self.labels[i]) for i in draws]


class OpponentPool:
    """Which baselines and snapshots the learner meets, with the weights of ``settings``, in ``game``."""

    def __init__(self, settings: PoolSettings, num_players: int, game: str) -> None:
        self.settings = settings
        self.num_players = num_players
        self.game = get_game(game).name
        self.snapshots: list[str] = []  # paths of exported snapshot policies, oldest first

    def entries(self) -> list[tuple[str, float]]:
        """``(label, weight)`` of every member; the snapshots share ``snapshot_weight``."""
        out = [(name, w) for name, w in self.settings.baselines.items()]
        if self.snapshots and self.settings.snapshot_weight > 0:
            raw = np.array([self.settings.recency ** k for k in range(len(self.snapshots))])
            shares = self.settings.snapshot_weight * raw / raw.sum()
            out += [(SNAPSHOT + path, float(s)) for path, s in zip(self.snapshots, shares)]
        return out

    def sampler(self) -> PoolSampler:
        """A picklable sampler of the current pool, for ``SingleAgentGymEnv.set_opponents``."""
        return PoolSampler(self.entries(), self.num_players - 1, self.settings.per_seat, game=self.game)

    def add_snapshot(self, path: str | Path) -> None:
        """Add an exported policy; drop the oldest beyond ``max_snapshots``."""
        self.snapshots.append(str(path))
        del self.snapshots[:-self.settings.max_snapshots]

    def save(self, path: str | Path) -> None:
        """Write the pool's snapshot list (JSON)."""
        write_text(path, json.dumps({"snapshots": self.snapshots}, indent=1))

    def load(self, path: str | Path) -> None:
        """Read a snapshot list written by :meth:`save`."""
        self.snapshots = list(json.loads(Path(path).read_text())["snapshots"])
