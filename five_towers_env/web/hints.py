"""A search agent's view of a decision, for the hints of ``five-towers serve --hint AGENT``.

The hint agent is asked the person's decision as any agent would be (their observation and ``info``: public
information only) and then read for what it found. Agents say so in one of two ways, both read here without
naming any agent:

* ``last_values``: a mapping from each candidate it searched to its value (about 0 to 1: the expected share of
  the win); a candidate is an action id, or a tuple of action ids of which the first is played now (a search
  over whole turns), so a move's value is the best of the candidates it begins;
* ``last``: a search result with ``actions``, ``values`` and ``visits`` (one entry per action searched), as
  the network-guided search keeps; the moves are ranked by visits, as that search chooses.

An agent with neither cannot give hints: ``serve`` refuses it before the server starts (:func:`gives_values`).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: the moves a hint lists, best first
TOP_MOVES = 5


def gives_values(agent: Any) -> bool:
    """Whether ``agent`` keeps the values of its last search (see the module docstring)."""
    return hasattr(agent, "last_values") or hasattr(agent, "last")


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None  # NaN and infinities: no value


def candidate_values(agent: Any, legal: Sequence[int]) -> list[tuple[int, float, int | None]]:
    """``(action, value, visits)`` of each legal move the agent's last search valued, its best first (visits
    ``None`` where the agent counts none); empty where it kept no values (it did not search this decision)."""
    allowed = {int(a) for a in legal}
    last = getattr(agent, "last", None)
    actions, values, visits = (getattr(last, key, None) for key in ("actions", "values", "visits"))
    if actions is not None and values is not None and visits is not None:
        rows = []
        for a, v, n in zip(list(actions), list(values), list(visits)):
            value = _number(v)
            if int(a) in allowed and value is not None and int(n) > 0:
                rows.append((int(a), value, int(n)))
        return sorted(rows, key=lambda r: (-(r[2] or 0), -r[1], r[0]))
    found: dict[int, float] = {}
    table: Any = getattr(agent, "last_values", None)
    for key, v in (table.items() if hasattr(table, "items") else ()):
        first = key[0] if isinstance(key, tuple) and key else key
        value = _number(v)
        try:
            action = int(first)
        except (TypeError, ValueError):
            continue
        if action in allowed and value is not None:
            found[action] = max(value, found.get(action, value))
    return sorted(((a, v, None) for a, v in found.items()), key=lambda r: (-r[1], r[0]))


def hint_rows(agent: Any, chosen: int, legal: Sequence[int], name_of: Any,
              top: int = TOP_MOVES) -> list[dict[str, Any]]:
    """The hint's moves for the page: the agent's ``top`` best (its ``chosen`` move among them, marked), each
    with its name, value and visits; the chosen move alone, without a value, where it searched nothing."""
    # the chosen move first among moves the search could not tell apart (a search over round ends values every
    # move that ends the round alike)
    rows: list[tuple[int, float | None, int | None]] = sorted(
        candidate_values(agent, legal), key=lambda r: (-(r[2] or 0), -(r[1] or 0.0), r[0] != chosen))
    shown = rows[:top]
    if chosen not in {a for a, _, _ in shown}:
        extra = [r for r in rows if r[0] == chosen] or [(chosen, None, None)]
        shown = shown[:max(0, top - 1)] + extra
    return [{"action": a, "name": name_of(a), "value": None if v is None else round(v, 4), "visits": n,
             "chosen": a == chosen} for a, v, n in shown]


__all__ = ["TOP_MOVES", "candidate_values", "gives_values", "hint_rows"]
