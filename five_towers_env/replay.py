"""Game records (``five-towers play --record game.json``) and the HTML replay built from them
(``five-towers replay game.json --html replay.html``).

A **record** is JSON: the game's positions in the game's own position format plus the moves by
name, so a person can read it and any later version of the rules engine can check it::

    {"format": "five_towers_env.record", "version": 1, "game": "five_towers",
     "seats": ["human", "ppo"], "info": {"variant": "base", "seed": 0, ...},
     "segments": [{"round": 0, "position": {...rules §8 position...},
                   "moves": [{"seat": 0, "move": "bid 2"}, {"seat": 1, "move": "pass", "forced": true}, ...]},
                  {"round": 1, "position": {...}, "moves": [...]}, ...],
     "finished": true, "scores": [31, 25], "winners": [0]}

A segment holds one position the game's :class:`~five_towers_env.core.gameui.GameUI` can load (for 5
Towers each round start) and the moves played from it until the next one. Replaying applies the
moves with the rules engine, so an illegal or out-of-turn move in a file is an error naming it,
and the next segment's position must agree with where the moves led.

The **HTML replay** is one self-contained file: every frame an inline SVG drawing (the game's
``svg`` hook), the moves by name, a slider, buttons and the arrow keys; no script, font or
style from anywhere else, so it opens from disk in any browser without a network. ``#57`` at
the end of its address opens it at frame 57.
"""
from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from five_towers_env.atomic import write_text
from five_towers_env.core.game import DEFAULT_GAME, GameSpec, get_game
from five_towers_env.core.gameui import GameUI, get_ui
from five_towers_env.play import GameWatcher, Move

RECORD_FORMAT = "five_towers_env.record"
RECORD_VERSION = 1


class RecordError(ValueError):
    """A record file that is malformed, or whose moves do not replay; the message says where."""


# -- recording --------------------------------------------------------------------------------

class GameRecorder(GameWatcher):
    """Records a game played through :func:`five_towers_env.play.play_game` (pass it in ``watchers``).

    ``labels`` names the seats (the agents); ``info`` is free JSON-able metadata kept in the record
    (variant, seeds, the command). :meth:`record` works mid-game too (``"finished": false``), so a
    game a person quits can still be saved.
    """

    def __init__(self, labels: Sequence[str] | None = None, info: dict[str, Any] | None = None) -> None:
        self.labels = list(labels or [])
        self.info = dict(info or {})
        self.segments: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.spec: GameSpec | None = None
        self.ui: GameUI | None = None

    def _started(self) -> tuple[GameSpec, GameUI]:
        """The game's spec and UI, once :meth:`start` has run."""
        if self.spec is None or self.ui is None:
            raise RuntimeError("nothing recorded yet: pass the recorder to play_game(watchers=[...])")
        return self.spec, self.ui

    def _segment(self, game: Any) -> dict[str, Any]:
        spec, ui = self._started()
        return {"round": int(ui.round_index(game)), "position": spec.position_of(game), "moves": []}

    def start(self, game: Any, spec: GameSpec) -> None:
        """Keep the starting position."""
        self.spec, self.ui = spec, get_ui(spec.name)
        self.segments = [self._segment(game)]
        self.result = None

    def move(self, move: Move) -> None:
        """Keep the move by name; keep a new position when the game reaches one (a new round)."""
        entry: dict[str, Any] = {"seat": int(move.seat), "move": move.name}
        if move.forced:
            entry["forced"] = True
        self.segments[-1]["moves"].append(entry)
        game = move.game
        if not game.is_terminal() and self._started()[1].round_index(game) != self.segments[-1]["round"]:
            self.segments.append(self._segment(game))

    def end(self, result: dict[str, Any]) -> None:
        """Keep the final scores and winners."""
        self.result = result

    def record(self) -> dict[str, Any]:
        """The record so far as a JSON-able dict (see the module docstring)."""
        out: dict[str, Any] = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "game": self._started()[0].name,
                               "seats": self.labels, "info": self.info, "segments": self.segments,
                               "finished": self.result is not None}
        if self.result is not None:
            out["scores"] = [int(s) for s in self.result["scores"]]
            out["winners"] = [int(w) for w in self.result["winners"]]
        return out

    def save(self, path: str | Path) -> Path:
        """Write :meth:`record` to ``path`` (folders made as needed); return the path."""
        return write_record(self.record(), path)


def dumps_record(record: dict[str, Any]) -> str:
    """A record as JSON text laid out for people: one line per position and per move."""
    parts = []
    for key, value in record.items():
        if key != "segments":
            parts.append(f"  {json.dumps(key)}: {json.dumps(value)}")
            continue
        segments = []
        for seg in value:
            moves = ",\n      ".join(json.dumps(m) for m in seg["moves"])
            segments.append(f'    {{"round": {json.dumps(seg["round"])},'
                            f'\n     "position": {json.dumps(seg["position"])},'
                            f'\n     "moves": [' + (f"\n      {moves}" if moves else "") + "]}")
        parts.append('  "segments": [\n' + ",\n".join(segments) + "]")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_record(record: dict[str, Any], path: str | Path) -> Path:
    """Write ``record`` to ``path`` (folders made as needed); return the path."""
    return write_text(path, dumps_record(record))


# -- reading and replaying ---------------------------------------------------------------------

#: how deeply a record's JSON may nest (positions need a handful of levels); deeper is refused
MAX_DEPTH = 32


def _is_int(value: Any) -> bool:
    """An integer and not a bool (JSON ``true`` is no seat number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _depth_problem(record: Any) -> str | None:
    """Where ``record`` nests deeper than :data:`MAX_DEPTH` (checked without recursion), or None."""
    stack = [(record, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the record nests deeper than {MAX_DEPTH} levels"
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return None


def game_of(record: dict[str, Any]) -> str:
    """The game a record is of (records from before ``game`` was written are 5 Towers games)."""
    return str(record.get("game", DEFAULT_GAME))


def check_record(record: Any) -> dict[str, Any]:
    """Raise :class:`RecordError` unless ``record`` has a record's shape; return it.

    Only the shape: whether the moves replay, and whether the final scores and winners are the
    ones they lead to, :func:`replay` checks."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a game record: 'format' is {record.get('format')!r:.80}, expected "
                          f"{RECORD_FORMAT!r} (records are written by five-towers play --record)")
    if record.get("version") != RECORD_VERSION or not _is_int(record.get("version")):
        raise RecordError(f"record version {record.get('version')!r:.80} is not supported (this version reads "
                          f"{RECORD_VERSION})")
    problem = _depth_problem(record)
    if problem:
        raise RecordError(problem)
    game = record.get("game", DEFAULT_GAME)
    if not isinstance(game, str):
        raise RecordError(f"'game' must be a game's name, got {type(game).__name__}")
    try:
        get_ui(game)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    segments = record.get("segments")
    if not isinstance(segments, list) or not segments:
        raise RecordError("'segments' must be a non-empty list")
    for k, seg in enumerate(segments):
        if not isinstance(seg, dict) or not isinstance(seg.get("position"), dict) \
                or not isinstance(seg.get("moves"), list) or not _is_int(seg.get("round")) or seg["round"] < 0:
            raise RecordError(f"segments[{k}] must be an object with 'round' (an integer, 0 or more), "
                              "'position' (an object) and 'moves' (a list)")
        for i, m in enumerate(seg["moves"]):
            if not isinstance(m, dict) or not isinstance(m.get("move"), str) or not _is_int(m.get("seat")) \
                    or not isinstance(m.get("forced", False), bool):
                raise RecordError(f"segments[{k}].moves[{i}] must be an object with 'seat' (an integer), "
                                  f"'move' (a move's name) and maybe 'forced' (true or false), got {m!r:.200}")
        if k < len(segments) - 1 and not seg["moves"]:
            raise RecordError(f"segments[{k}] has no moves but is not the last segment")
    seats = record.get("seats", [])
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RecordError("'seats' must be a list of names")
    if not isinstance(record.get("info", {}), dict):
        raise RecordError("'info' must be an object")
    finished = record.get("finished", False)
    if not isinstance(finished, bool):
        raise RecordError(f"'finished' must be true or false, got {finished!r:.80}")
    for key in ("scores", "winners"):
        if not finished and key in record:
            raise RecordError(f"the record says the game did not finish, yet it has {key!r}")
        value = record.get(key)
        if finished and (not isinstance(value, list) or not all(_is_int(v) for v in value)):
            raise RecordError(f"a finished game's record has {key!r}, a list of integers, got {value!r:.80}")
    return record


def read_record(path: str | Path) -> dict[str, Any]:
    """Load and check a record file; :class:`RecordError` (or ``OSError``) says what is wrong."""
    return loads_record(Path(path).read_bytes(), str(path))


def loads_record(data: bytes | str, name: str = "the record") -> dict[str, Any]:
    """A record from the bytes (or text) of a record file, shape checked (:func:`check_record`);
    :class:`RecordError` for text that is not UTF-8, not JSON, or not a record."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        raise RecordError(f"{name} is not UTF-8 text: {exc}") from None
    try:
        record = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{name} is not JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{name} nests too deeply to be a game record") from None
    except ValueError as exc:  # an integer of more digits than Python reads
        raise RecordError(f"{name} holds a number no game record holds: {exc}") from None
    return check_record(record)


def _no_constant(name: str) -> Any:
    raise RecordError(f"{name} is not a number a game record holds")


def replay(record: dict[str, Any]) -> Iterator[tuple[Any, Move | None]]:
    """Step through a record: yield ``(state, None)`` for the start, then ``(state, move)`` after
    each move, ``state`` being the live game (read it before the next step). Raises
    :class:`RecordError` for a move that is not legal, out of turn, wrongly marked forced, or leads
    elsewhere than the record's next position, for a variant other than the positions', and, once
    the moves are done, for a game that did not end where the record says it did or final scores
    and winners other than the ones the moves lead to."""
    record = check_record(record)
    spec, ui = get_game(game_of(record)), get_ui(game_of(record))
    segments = record["segments"]
    variant = record.get("info", {}).get("variant")

    def load(k: int) -> Any:
        try:
            state = ui.load_position(segments[k]["position"], segments[k]["round"])
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
            # a position the game's loader could not take: PositionError, or whatever a malformed part raised
            raise RecordError(f"segments[{k}].position: {type(exc).__name__}: {exc}"[:500]) from None
        if variant is not None and getattr(state, "variant", variant) != variant:
            raise RecordError(f"segments[{k}].position is of variant {state.variant!r}, but the record's info "
                              f"says {variant!r:.80}")
        return state

    state = load(0)
    yield state, None
    number = 0
    for k, seg in enumerate(segments):
        last = len(seg["moves"]) - 1
        for i, m in enumerate(seg["moves"]):
            number += 1
            where = f"move {number} (segments[{k}].moves[{i}], seat {m['seat']}: {m['move']!r:.80})"
            if state.is_terminal():
                raise RecordError(f"{where}: the game is already over")
            if m["seat"] != state.current_player:
                raise RecordError(f"{where}: it is seat {state.current_player}'s turn")
            forced = bool(spec.explicit and len(state.legal_actions()) == 1)
            if m.get("forced", False) != forced:
                raise RecordError(f"{where}: the record marks it {'' if m.get('forced') else 'not '}forced, "
                                  f"but it {'is' if forced else 'is not'} the only legal move")
            try:
                action = spec.action_from_name(m["move"])
                state.apply_action(action)
            except ValueError as exc:
                raise RecordError(f"{where}: {exc}") from None
            if i == last and k + 1 < len(segments):
                # the segment's last move must reach the next recorded position; its state (not the
                # one just reached, whose random parts differ) is where the game really went on
                nxt = segments[k + 1]
                if state.is_terminal() or ui.round_index(state) != nxt["round"]:
                    raise RecordError(f"{where}: the moves of segments[{k}] do not lead to the next "
                                      f"segment's position (round {nxt['round']})")
                problem = ui.check_continuation(state, nxt["position"]) if ui.check_continuation else None
                if problem:
                    raise RecordError(f"{where}: {problem}"[:500])
                state = load(k + 1)
            yield state, Move(number, int(m["seat"]), int(action), spec.action_name(action), forced, state)
    _check_end(record, state)


def _check_end(record: dict[str, Any], state: Any) -> None:
    """The end of a replay: the record's ``finished``, ``scores`` and ``winners`` must be what its moves lead to."""
    if not record.get("finished"):
        if state.is_terminal():
            raise RecordError("the moves finish the game, but the record says it did not finish")
        return
    if not state.is_terminal():
        raise RecordError("the record says the game finished, but its moves stop before the end")
    scores, winners = [int(s) for s in state.scores()], [int(w) for w in state.winners()]
    if scores != record["scores"]:
        raise RecordError(f"the moves score {scores}, but the record says {record['scores']}"[:500])
    if winners != record["winners"]:
        raise RecordError(f"the scores {scores} make the winner{'s' if len(winners) > 1 else ''} "
                          f"{', '.join(f'seat {w}' for w in winners)}, but the record says "
                          f"{record['winners']}"[:500])
    labels = record.get("seats", [])
    if len(labels) > state.num_players:
        raise RecordError(f"the record names {len(labels)} seats for a game of {state.num_players} players")


def check_replay(record: Any) -> dict[str, Any]:
    """Replay the whole of ``record`` (every check of :func:`replay`, the end's included); return it."""
    for _ in replay(record):
        pass
    return record


def _seat(labels: Sequence[str], seat: int) -> str:
    return f"seat {seat}" + (f" ({labels[seat]})" if seat < len(labels) and labels[seat] else "")


def result_line(record: dict[str, Any]) -> str:
    """The final scores and winners of a finished record in one line (``""`` for an unfinished one)."""
    if not record.get("finished") or "scores" not in record:
        return ""
    labels = record.get("seats", [])
    winners = record.get("winners", [])
    return ("final scores: " + ", ".join(f"{_seat(labels, s)} {sc}" for s, sc in enumerate(record["scores"]))
            + f"; winner{'s' if len(winners) > 1 else ''}: " + ", ".join(_seat(labels, w) for w in winners))


def frame_count(record: dict[str, Any]) -> int:
    """The number of moves in ``record``: its frames are 0 (the start) to this."""
    return sum(len(s["moves"]) for s in check_record(record)["segments"])


def frame_state(record: dict[str, Any], frame: int = -1) -> Any:
    """The state after ``frame`` moves of ``record`` (0: the start; -1: the end of the record).
    ``IndexError`` for a frame beyond the game; :class:`RecordError` for a record that does not
    replay, the whole of it: a picture of one frame runs every check the other outputs run."""
    count = frame_count(record)
    target = count if frame == -1 else frame
    if not 0 <= target <= count:
        raise IndexError(f"frame {frame} is outside the game's frames 0..{count}")
    found = None
    for i, (state, _) in enumerate(replay(record)):
        if i == target:
            found = state.clone()  # the live state changes with the moves that follow
    return found


# -- the HTML replay ---------------------------------------------------------------------------

_PIECE = re.compile(r"(?=<g[ >])")


def replay_data(record: dict[str, Any]) -> dict[str, Any]:
    """Everything the HTML page shows, frame by frame.

    A frame's SVG is split before each ``<g`` and every distinct piece is stored once: from one
    move to the next most of the table (other seats' panels) does not change, which keeps a
    five-player replay to a few hundred kilobytes instead of megabytes.
    """
    ui = get_ui(game_of(record))
    labels = list(record.get("seats", []))
    pieces: list[str] = []
    index: dict[str, int] = {}
    frames: list[list[int]] = []
    captions: list[str] = []
    entries: list[dict[str, Any]] = []
    rnd = None
    num_players = 0
    for state, move in replay(record):
        num_players = state.num_players
        svg = ui.svg(state, labels)
        ids = []
        for piece in _PIECE.split(svg):
            if piece not in index:
                index[piece] = len(pieces)
                pieces.append(piece)
            ids.append(index[piece])
        frames.append(ids)
        f = len(frames) - 1
        if move is None:
            captions.append("start - " + ui.round_summary(state))
        else:
            text = f"{_seat(labels, move.seat)}: {move.name}" + ("  (forced)" if move.forced else "")
            captions.append(f"move {move.number}: {text}")
            entries.append({"frame": f, "text": f"{move.number}. {text}", "forced": move.forced})
        if not state.is_terminal() and ui.round_index(state) != rnd:
            rnd = ui.round_index(state)
            entries.append({"frame": f, "text": ui.round_summary(state), "round": True})
    result = result_line(record)
    if result:
        captions[-1] += " - game over"
        entries.append({"frame": len(frames) - 1, "text": result, "round": True})
    return {"pieces": pieces, "frames": frames, "captions": captions, "entries": entries, "result": result,
            "num_players": num_players}


#: the page's template, shipped as package data; __TITLE__, __SUB__, __LEGEND__ and __DATA__ are filled in
PAGE_TEMPLATE = "replay_page.html"
_PLACEHOLDER = re.compile(r"__(TITLE|SUB|LEGEND|DATA)__")


def _page() -> str:
    """The HTML replay page's template (``five_towers_env/replay_page.html``)."""
    return resources.files("five_towers_env").joinpath(PAGE_TEMPLATE).read_text(encoding="utf-8")


def build_html(record: dict[str, Any], title: str | None = None) -> str:
    """The self-contained HTML replay of ``record`` (see the module docstring)."""
    data = replay_data(record)
    ui = get_ui(game_of(record))
    labels = list(record.get("seats", []))
    info = record.get("info", {})
    facts = [", ".join(_seat(labels, s) for s in range(data["num_players"]))]
    if isinstance(info, dict) and isinstance(info.get("variant"), str) and info["variant"]:
        facts.append(f"variant {info['variant']}")
    facts.append(f"{len(data['frames']) - 1} moves")
    facts.append(data["result"] or "game not finished")
    title = title or f"{get_game(game_of(record)).title} replay"
    # JSON in a <script>: escape "<" so no string in it can close the script element
    blob = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    fill = {"TITLE": escape(title), "SUB": escape(" - ".join(facts)), "LEGEND": escape(ui.legend), "DATA": blob}
    # one pass over the template: what a value holds (a seat label "__DATA__") is never expanded again
    return _PLACEHOLDER.sub(lambda m: fill[m.group(1)], _page())


def provenance_taken(folder: str | Path) -> str | None:
    """Why ``five-towers replay`` must leave ``folder/provenance.json`` alone, or None where it may write it.

    A replay's file goes into a folder the user picks, which may hold their own ``provenance.json`` or
    another command's (an evaluation's ``--out``): only a file that an earlier replay wrote is replaced."""
    from five_towers_env.provenance import FILENAME, read_provenance

    path = Path(folder) / FILENAME
    if not path.exists() and not path.is_symlink():
        return None
    data = read_provenance(folder)
    command = data.get("command") if data else None
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        words = []
    if words[:2] == ["five-towers", "replay"] and isinstance(data, dict) and "written" in data:
        return None
    return f"{path} was not written by five-towers replay; left as it is (no provenance written for this file)"


def write_html(record: dict[str, Any], path: str | Path, title: str | None = None) -> Path:
    """Write :func:`build_html` of ``record`` to ``path`` (folders made as needed); return the path."""
    return write_text(path, build_html(record, title))


__all__ = ["GameRecorder", "RecordError", "RECORD_FORMAT", "RECORD_VERSION", "MAX_DEPTH", "dumps_record",
           "write_record", "game_of", "check_record", "read_record", "loads_record", "replay", "check_replay",
           "frame_count", "frame_state", "result_line", "replay_data", "build_html", "provenance_taken",
           "write_html"]
