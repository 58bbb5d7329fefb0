"""Where does a trained policy lose? Phase ablation against a teacher.

A :class:`PhaseMixAgent` lets the policy decide only in some phases (``bid``, ``take``,
``teardown``, ``build``, ``recover``: 5 Towers' phases) and a teacher agent (by default the game's) in the
others. Playing the mixes against one opponent (by default the teacher too) shows which
kind of decision costs the policy its games: with the teacher everywhere the win rate is the
teacher's own (about 0.5 against itself); a phase whose hand-over to the policy drops it most
is where the policy falls short of the teacher.

    python training/diagnose_phases.py --policy five_towers_env/games/five_towers/policies/ppo_2p_base.npz
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from five_towers_env.agents.policy import PolicyAgent
from five_towers_env.agents.registry import make_agent
from five_towers_env.games.five_towers import SPEC
from five_towers_env.training.ppo.eval_games import play_games

BUILDER_PHASES = frozenset({"teardown", "build", "recover"})
#: the mixes reported by default: teacher only, policy in one kind of decision, policy everywhere
DEFAULT_MIXES: tuple[frozenset[str], ...] = (
    frozenset(), frozenset({"bid"}), frozenset({"take"}), BUILDER_PHASES,
    frozenset({"take"}) | BUILDER_PHASES, frozenset({"bid", "take"}) | BUILDER_PHASES,
)


class PhaseMixAgent:
    """Plays ``policy`` in ``phases`` and ``teacher`` in every other phase."""

    def __init__(self, policy: Any, teacher: Any, phases: Iterable[str]) -> None:
        self.policy, self.teacher, self.phases = policy, teacher, frozenset(phases)
        self.name = f"mix({'+'.join(sorted(self.phases)) or 'teacher only'})"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The policy's action in its phases, else the teacher's."""
        agent = self.policy if info["phase"] in self.phases else self.teacher
        return int(agent.act(observation, info))


def mix_label(phases: frozenset[str]) -> str:
    """A short name for a set of phases: ``teacher only``, ``bid``, ``builder``, ``all`` ..."""
    if not phases:
        return "teacher only"
    if phases >= {"bid", "take"} | BUILDER_PHASES:
        return "all (policy alone)"
    names = sorted(phases - BUILDER_PHASES) + (["teardown/build/recover"] if phases >= BUILDER_PHASES else [])
    return " + ".join(names)


def play_mix(agent: Any, opponent: str, games: int, seed: int, num_players: int = 2,
             variant: str = "base") -> float:
    """Win rate (shared wins count) of ``agent`` in random seats over ``games`` seeded games
    against ``num_players - 1`` copies of the ``opponent`` registry agent."""
    return play_games(agent, num_players, variant, opponent, games, seed, game=SPEC.name)["win_rate"]


def phase_ablation(policy: str | Path | None = None, teacher: str | None = None, opponent: str | None = None,
                   games: int = 200, seed: int = 0, num_players: int = 2, variant: str = "base",
                   mixes: Sequence[frozenset[str]] = DEFAULT_MIXES) -> list[dict[str, Any]]:
    """One row per mix: which phases the policy decides and the mix's win rate against ``opponent``
    (``teacher`` and ``opponent`` by default the game's teacher, ``GameSpec.teacher``).

    Every mix plays the same seeded games, so the rows differ only by who decides what."""
    teacher = teacher or SPEC.teacher
    opponent = opponent or teacher
    net = PolicyAgent(policy)
    rows = []
    for phases in mixes:
        agent = PhaseMixAgent(net, make_agent(teacher, seed=seed), phases)
        rows.append({"policy decides": mix_label(phases), "win_rate": play_mix(agent, opponent, games, seed,
                                                                                num_players, variant),
                     "games": games})
    return rows


__all__ = ["PhaseMixAgent", "phase_ablation", "play_mix", "mix_label", "DEFAULT_MIXES"]
