"""The ranges of agents' numeric and named settings, as each agent class declares them.

An agent class says what values its settings take in a class attribute ``SETTING_RANGES``, setting name ->
:class:`Range` (a number's bounds) or :class:`OneOf` (a word from a list), for example
``{"simulations": Range(1, 50_000), "temperature": Range(0, 1_000, low_open=True), "bet_rate": PROBABILITY,
"search": OneOf("puct", "rollouts")}``.

A key ``"a*b"`` bounds the product of two counts whose cost multiplies (``simulations*rollouts``: every
simulation plays ``rollouts`` rollouts), each taken at its default where it is not given.

The agent registry (:func:`~five_towers_env.agents.registry.check_agent_settings`) checks every setting
against its class's declaration when the spec is parsed, before anything is built: a value out of range is an
:class:`~five_towers_env.agents.registry.AgentSettingError` (a ``ValueError``), one line naming the agent,
the setting and its range; on the command line a usage error, exit status 2. Whatever the declaration, a
number must be finite (no NaN, no infinity), and ``None`` stays allowed where the setting's type allows it
(it means "none" or "the default"). The bounds of the counts keep one decision within about ten seconds on
the native core at the upper bound (the other settings at their defaults; the agents' modules say what was
measured); the Python backend's searches are much slower, and a ``time_limit`` setting or
``--move-timeout`` bounds those.

This module imports nothing of the package: every agent module may import it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def _number(x: float) -> str:
    """A bound as the messages and the docs show it: ``50,000``, ``0.5``, ``1e-06``."""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:g}"


@dataclass(frozen=True)
class Range:
    """The numbers from ``low`` to ``high`` (``None``: no bound on that side), each end included unless
    ``low_open`` / ``high_open`` says otherwise; ``also``: single values allowed besides, each with what it
    means (``{-1: "a new one per simulation"}``)."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    also: Mapping[float, str] | None = None

    def __contains__(self, value: Any) -> bool:
        if self.also and value in self.also:
            return True
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return not (self.high is not None and (value >= self.high if self.high_open else value > self.high))

    def __str__(self) -> str:
        low, high = self.low, self.high
        if low is not None and high is not None and not (self.low_open or self.high_open):
            text = f"from {_number(low)} to {_number(high)}"
        else:
            parts = []
            if low is not None:
                parts.append(f"{'above' if self.low_open else 'at least'} {_number(low)}")
            if high is not None:
                parts.append(f"{'below' if self.high_open else 'at most'} {_number(high)}")
            text = " and ".join(parts) or "any finite number"
        extra = [f"{_number(v)} ({meaning})" for v, meaning in (self.also or {}).items()]
        return ", or ".join([*extra, text]) if extra else text


@dataclass(frozen=True)
class OneOf:
    """One of the words ``choices``."""

    choices: tuple[str, ...]

    def __init__(self, *choices: str) -> None:
        object.__setattr__(self, "choices", tuple(choices))

    def __contains__(self, value: Any) -> bool:
        return value in self.choices

    def __str__(self) -> str:
        return "one of " + ", ".join(self.choices)


#: what a declaration maps a setting to
SettingRange = Range | OneOf

#: a probability, or a share of something: from 0 to 1
PROBABILITY = Range(0, 1)
#: a weight of a term of an evaluation: not negative, and far above any value that was ever useful
WEIGHT = Range(0, 1_000)


def setting_ranges(cls: type) -> dict[str, SettingRange]:
    """The ranges agent class ``cls`` declares (its ``SETTING_RANGES``; none declared: ``{}``)."""
    return dict(getattr(cls, "SETTING_RANGES", None) or {})


def _shown(value: Any) -> str:
    """A value as a message shows it: an integer too long to read whole by its size."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 100:
        return f"an integer of {len(str(abs(value)))} digits"
    return repr(value) if isinstance(value, str) else str(value)


def range_problem(value: Any, allowed: SettingRange | None, wanted: str) -> str | None:
    """Why ``value`` is not a value of a setting of type ``wanted`` (words: ``"an integer"``) with the range
    ``allowed`` (None: any finite number): ``"must be an integer from 1 to 50,000, got 0"``; None where it is.
    ``None`` is never a problem here (the setting's type says whether it may be None)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(allowed, OneOf):
        return None if value in allowed else f"must be {allowed}, got {_shown(value)}"
    try:
        finite = math.isfinite(value)
    except (TypeError, ValueError):  # not a number: the type check speaks for it
        return None
    except OverflowError:  # an integer past a float's range: finite, and compared exactly below
        finite = True
    if not finite:
        return f"must be a finite number{'' if allowed is None else f' {allowed}'}, got {_shown(value)}"
    if allowed is not None and value not in allowed:
        return f"must be {wanted} {allowed}, got {_shown(value)}"
    return None


def product_settings(key: str) -> tuple[str, str] | None:
    """The two settings a ``"a*b"`` key bounds the product of; None for a plain setting's key."""
    first, star, second = key.partition("*")
    return (first, second) if star else None


__all__ = ["Range", "OneOf", "SettingRange", "PROBABILITY", "WEIGHT", "setting_ranges", "range_problem",
           "product_settings"]
