"""How the type-shared policy network reads the observation and writes the action logits.

The five tower types play the same role in the rules (the Great Powers only add a power per
type), so the ``typed`` network (``ppo.architecture: typed``) runs one shared encoder over each
type's slice of the observation and one shared head that writes that type's action logits.
This module holds the index tables, derived from the observation's named pieces and the action
offsets, as the :class:`~five_towers_env.core.typed_net.TypedLayout` :data:`LAYOUT` the spec names; it
needs numpy only: training (torch) and :class:`~five_towers_env.agents.policy.PolicyAgent` (numpy) read it.

* ``TYPE_INDEX[t]``: observation positions of type ``t``: its 16 entries of every per-card piece
  (display, hand, discard, unseen, each seat's teardown pile) and every seat's tower block of that
  type, in layout order. A one-hot of ``t`` is appended to each slice by the network.
* ``GLOBAL_INDEX``: every other position (phase, bids, ceilings, scores, round state, ...).
* The network's output is ``GLOBAL_SLOTS`` logits (bids, pass, stop, no teardown, no recover)
  followed by ``TYPE_SLOTS`` logits per type (take, teardown, build, build bottom, recover,
  recover bottom by value); ``ACTION_ORDER[a]`` is the position of action id ``a`` in it (the
  "bottom" slots of types other than sand are computed and never read).
"""
from __future__ import annotations

import numpy as np

from five_towers_env.core.typed_net import TypedLayout
from five_towers_env.games.five_towers import actions as A
from five_towers_env.games.five_towers.cards import NUM_CARD_IDS, NUM_TYPES, NUM_VALUES, SAND, TYPES
from five_towers_env.games.five_towers.observation import OBS_SIZE, OFFSETS


def _starts(sizes: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """First slot of each named block of a head, the blocks laid out in order."""
    out, pos = {}, 0
    for name, size in sizes:
        out[name], pos = pos, pos + size
    return out


# each type's head, then the global head: (block, slots) in output order
_TYPE_HEAD_SIZES = (("take", NUM_VALUES), ("teardown", 1), ("build", NUM_VALUES), ("build_bottom", NUM_VALUES),
                    ("recover", NUM_VALUES), ("recover_bottom", NUM_VALUES))
_GLOBAL_HEAD_SIZES = (("bid", A.MAX_BID + 1), ("pass", 1), ("stop", 1), ("no_teardown", 1), ("no_recover", 1))
_TYPE_HEAD, _GLOBAL_HEAD = _starts(_TYPE_HEAD_SIZES), _starts(_GLOBAL_HEAD_SIZES)
TYPE_SLOTS = sum(size for _, size in _TYPE_HEAD_SIZES)
GLOBAL_SLOTS = sum(size for _, size in _GLOBAL_HEAD_SIZES)

def _indices() -> tuple[np.ndarray, np.ndarray]:
    per_type: list[list[int]] = [[] for _ in range(NUM_TYPES)]
    glob: list[int] = []
    for name, (start, size) in OFFSETS.items():
        parts = name.split(".")
        if size == NUM_CARD_IDS:  # counts by card id: split into the types' 16 values
            for t in range(NUM_TYPES):
                per_type[t].extend(range(start + t * NUM_VALUES, start + (t + 1) * NUM_VALUES))
        elif len(parts) == 3 and parts[1] in TYPES:  # seatS.TYPE.piece: a tower block
            per_type[TYPES.index(parts[1])].extend(range(start, start + size))
        else:
            glob.extend(range(start, start + size))
    return np.array(per_type, dtype=np.int64), np.array(glob, dtype=np.int64)


def _action_order() -> np.ndarray:
    order = np.full(A.NUM_ACTIONS, -1, dtype=np.int64)

    def slot(t: int, head: str, k: int) -> int:
        return GLOBAL_SLOTS + t * TYPE_SLOTS + _TYPE_HEAD[head] + k

    for b in range(A.MAX_BID + 1):
        order[A.BID + b] = _GLOBAL_HEAD["bid"] + b
    for a, head in ((A.PASS, "pass"), (A.STOP, "stop"), (A.NO_TEARDOWN, "no_teardown"), (A.NO_RECOVER, "no_recover")):
        order[a] = _GLOBAL_HEAD[head]
    for t in range(NUM_TYPES):
        order[A.TEARDOWN + t] = slot(t, "teardown", 0)
        for v in range(NUM_VALUES):
            card = t * NUM_VALUES + v
            order[A.TAKE + card] = slot(t, "take", v)
            order[A.BUILD + card] = slot(t, "build", v)
            order[A.RECOVER + card] = slot(t, "recover", v)
    for v in range(NUM_VALUES):
        order[A.BUILD_BOTTOM + v] = slot(SAND, "build_bottom", v)
        order[A.RECOVER_BOTTOM + v] = slot(SAND, "recover_bottom", v)
    return order


TYPE_INDEX, GLOBAL_INDEX = _indices()
ACTION_ORDER = _action_order()
TYPE_INPUT = TYPE_INDEX.shape[1] + NUM_TYPES  # a type's slice plus its one-hot
OUTPUT_SIZE = GLOBAL_SLOTS + NUM_TYPES * TYPE_SLOTS

assert sorted(np.concatenate([TYPE_INDEX.ravel(), GLOBAL_INDEX]).tolist()) == list(range(OBS_SIZE))
assert len(set(ACTION_ORDER.tolist())) == A.NUM_ACTIONS and ACTION_ORDER.min() >= 0

#: the layout 5 Towers declares for the ``typed`` network (``SPEC.architectures["typed"]``)
LAYOUT = TypedLayout(type_index=TYPE_INDEX, global_index=GLOBAL_INDEX, action_order=ACTION_ORDER,
                     global_slots=GLOBAL_SLOTS, type_slots=TYPE_SLOTS)
assert LAYOUT.output_size == OUTPUT_SIZE and LAYOUT.type_input == TYPE_INPUT
