"""The games of ``five-towers serve``: a :class:`Table` per game a page plays, kept by :class:`Tables` under ids
nobody can guess. No web library is imported here: :mod:`five_towers_env.web.app` turns requests into the calls
below, and every request that may not change a game is refused here with a :class:`RequestError` before it
changes anything.

A table's game is a :class:`~five_towers_env.play.LiveGame`, the steps of :func:`~five_towers_env.play.play_game`,
with the agents, seeds and seat rotation of ``five-towers play``: game ``N`` of a server deals and seats as
``five-towers play --game-index N --seed S --unpaired`` with the same ``--agents``, where ``S`` is the server's
``--seed`` if it was given one, else a seed drawn from the operating system for that game alone.

**The deal is secret while a person plays.** Those two numbers rebuild the deck's order and every hand, so
where the server seats a person (a ``human`` agent), nothing a table answers before the game's end holds its
seed, its number or its record (which names both, and the hidden cards): the page gets them at the end. With
``--seed`` given, anyone who knows it can rebuild the deals (the page says so).

The seats of an interactive agent (``human``) are the page's; the others' agents are asked by the server, one
move each time the page asks for it (so the page sets the pace), under the guard of an evaluation
(:class:`~five_towers_env.evaluation.guard.GuardedAgent`: an exception, an illegal or malformed answer is one
line on the page).
"""
from __future__ import annotations

import math
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from five_towers_env.agents.registry import is_interactive
from five_towers_env.core.game import get_game
from five_towers_env.core.gameui import get_ui
from five_towers_env.evaluation.jobs import derive_seed
from five_towers_env.evaluation.specs import AgentSpec, resolve_specs
from five_towers_env.limits import DEFAULT_TABLES, MAX_GAME_INDEX, MAX_TABLES, play_agents
from five_towers_env.play import GameWatcher, LiveGame, Move
from five_towers_env.replay import GameRecorder, dumps_record, result_line
from five_towers_env.web.hints import hint_rows

#: a game id: 24 characters of ``secrets.token_urlsafe`` (144 random bits)
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{24}")
#: bits of the seed drawn for each game of a server started without ``--seed``
GAME_SEED_BITS = 63


class RequestError(Exception):
    """A request refused, and why: ``status`` is its HTTP status (4xx: the request's fault), the message one line
    that the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Setup:
    """What every game of a server is: the command line's game, seats and agents (never the page's).

    Attributes:
        game, variant, num_players: the setup.
        agents: the ``--agents`` texts, as ``five-towers play`` takes them (agents repeat to fill the seats).
        seed: the run seed (game ``N`` of the server is ``play --game-index N --seed seed --unpaired``), or None:
            each game's own seed drawn from the operating system.
        move_timeout: seconds an agent (or the hint agent) may think about one decision.
        hint: the agent whose top moves the page may show for a person's decision, or None.
        max_tables: the games kept at once (1 to :data:`~five_towers_env.limits.MAX_TABLES`).
    """

    game: str
    variant: str
    num_players: int
    agents: tuple[str, ...]
    seed: int | None = None
    move_timeout: float = 60.0
    hint: str | None = None
    max_tables: int = DEFAULT_TABLES

    def __post_init__(self) -> None:
        if self.seed is not None and (type(self.seed) is not int or self.seed < 0):
            raise ValueError(f"seed must be an integer >= 0 or None, got {self.seed!r:.40}")
        if isinstance(self.move_timeout, bool) or not isinstance(self.move_timeout, (int, float)) \
                or not (math.isfinite(self.move_timeout) and self.move_timeout > 0):
            raise ValueError(f"move_timeout must be a finite number of seconds > 0, got {self.move_timeout!r:.40}")
        if type(self.max_tables) is not int or not 1 <= self.max_tables <= MAX_TABLES:
            raise ValueError(f"max_tables must be an integer from 1 to {MAX_TABLES:,}, got {self.max_tables!r:.40}")


class PageLog(GameWatcher):
    """The move list a page shows: a line opening each round (or turn) and one per move."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.labels = list(labels)
        self.entries: list[dict[str, Any]] = []
        self._round: int | None = None

    def start(self, game: Any, spec: Any) -> None:
        """Open the first round."""
        self.ui = get_ui(spec.name)
        self._open(game)

    def _open(self, game: Any) -> None:
        self._round = self.ui.round_index(game)
        self.entries.append({"kind": "round", "text": self.ui.round_summary(game)})

    def move(self, move: Move) -> None:
        """One entry per move, forced ones marked; a new round's opening line where the move began one."""
        self.entries.append({"kind": "forced" if move.forced else "move", "number": move.number, "seat": move.seat,
                             "action": move.action})
        if not move.game.is_terminal() and self.ui.round_index(move.game) != self._round:
            self._open(move.game)

    def lines(self, spec: Any, over: bool) -> list[dict[str, str]]:
        """The entries as the page shows them; during the game a move a game keeps secret when it is made is
        named as the table sees it (``GameUI.public_move_name``)."""
        secret = None if over else self.ui.public_move_name
        out = []
        for e in self.entries:
            if e["kind"] == "round":
                out.append({"kind": "round", "text": e["text"]})
                continue
            name = secret(e["action"]) if secret else spec.action_name(e["action"])
            label = self.labels[e["seat"]] if e["seat"] < len(self.labels) else ""
            text = f"{e['number']}. seat {e['seat']}" + (f" ({label})" if label else "") + f": {name}"
            out.append({"kind": e["kind"], "text": text + ("  (forced)" if e["kind"] == "forced" else "")})
        return out


def _copy(observation: Any) -> Any:
    """The observation's arrays copied: a thread reading them must not see the environment reuse its buffers."""
    if isinstance(observation, dict):
        return {k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v for k, v in observation.items()}
    return observation


class Table:
    """One game a page plays (see the module docstring): ``table_id`` is its unguessable id, ``index`` its game
    number on the server, ``seed`` the run seed it is game ``index`` of; ``keep_secret``: whether the server
    seats a person, so that those numbers and the record wait for the game's end (:attr:`secret`)."""

    def __init__(self, setup: Setup, specs: Sequence[AgentSpec], hint: AgentSpec | None, index: int,
                 table_id: str, seed: int, keep_secret: bool = True) -> None:
        self.setup, self.index, self.id, self.seed = setup, index, table_id, seed
        self.keep_secret = keep_secret
        self.spec, self.ui = get_game(setup.game), get_ui(setup.game)
        job, labels, agents = play_agents(specs, index, setup.num_players, seed, False)
        self.labels, self.agents = list(labels), list(agents)
        self.people = {s for s, a in enumerate(agents) if getattr(a, "interactive", False)}
        self.recorder = GameRecorder(labels, {"variant": setup.variant, "num_players": setup.num_players,
                                              "seed": seed, "game_index": index, "deal_seed": job.deal_seed,
                                              "paired": False, "agents": list(setup.agents)})
        self.log = PageLog(labels)
        self.live = LiveGame(setup.game, setup.num_players, setup.variant, seed=job.deal_seed,
                             watchers=[self.recorder, self.log])
        self.hint_agent = hint.build(derive_seed(seed, 2, index)) if hint is not None else None
        self.hint_label = hint.label if hint is not None else None
        self.hint: dict[str, Any] | None = None  # the last hint: for which move, its rows or its error
        self.hint_busy = False
        self.thinking: tuple[int, float] | None = None  # (seat, since) while an agent works on a move
        self.error: str | None = None  # why the game stopped before its end
        self.touched = time.monotonic()
        self._person = min(self.people) if self.people else None  # the seat whose view the page shows

    # -- where the game stands -----------------------------------------------------------------

    @property
    def waiting(self) -> str:
        """What the game waits for: ``person`` (a human seat's decision), ``agent``, ``forced`` (a forced move,
        applied when the page asks), ``over``, or ``stopped`` (an agent failed)."""
        if self.live.over:
            return "over"
        if self.error is not None:
            return "stopped"
        if self.live.forced:
            return "forced"
        return "person" if self.live.seat in self.people else "agent"

    def _seat_text(self, seat: int) -> str:
        return f"seat {seat} ({self.labels[seat]})"

    def check_at(self, at: int) -> None:
        """Refuse a request made for another position than the one on the table (an old page, a second tab)."""
        if at != self.live.moves:
            raise RequestError(409, f"the page showed move {at:,}, but the game is at move {self.live.moves:,}: "
                                    "reload to see where it stands")

    def _check_live(self) -> None:
        if self.live.over:
            raise RequestError(409, "the game is over: start a new game")
        if self.error is not None:
            raise RequestError(409, "the game was stopped (an agent failed): start a new game")
        if self.thinking is not None:
            raise RequestError(409, f"{self._seat_text(self.thinking[0])} is thinking: wait for its move")

    # -- moves ---------------------------------------------------------------------------------

    def person_move(self, action: int, at: int) -> None:
        """A person's move: applied only if it is a human seat's decision, the page saw this position and the
        action is legal; otherwise a :class:`RequestError` and the game is unchanged."""
        self._check_live()
        self.check_at(at)
        if self.live.seat not in self.people:
            raise RequestError(409, f"it is {self._seat_text(self.live.seat)}'s move, not a person's")
        legal = self.live.legal()
        if self.live.forced:
            raise RequestError(409, f"{self._seat_text(self.live.seat)} has one legal move, "
                                    f"{self.spec.action_name(legal[0])}: it is made for you")
        if action not in legal:
            raise RequestError(422, self._illegal(action, legal))
        self.live.apply(action)
        self._person = self.live.seat if self.live.seat in self.people else self._person

    def _illegal(self, action: int, legal: list[int]) -> str:
        if not 0 <= action < self.spec.num_actions:
            what = f"action {action} is no action of {self.spec.title} (0 to {self.spec.num_actions - 1})"
        else:
            what = f"action {action} ({self.spec.action_name(action)}) is not a legal move now"
        names = ", ".join(self.spec.action_name(a) for a in legal[:12]) + (", ..." if len(legal) > 12 else "")
        return f"{what}; the legal moves: {names}"

    def forced_move(self, at: int) -> None:
        """Apply the forced move on the table (the page's pace decides when)."""
        self._check_live()
        self.check_at(at)
        if not self.live.forced:
            raise RequestError(409, "no forced move is on the table")
        self.live.apply(self.live.legal()[0])

    def agent_question(self, at: int) -> tuple[Any, tuple[Any, Any]]:
        """The agent on move and what it is asked (its observation copied); marks the table as thinking, which
        :meth:`agent_answer` or :meth:`agent_failed` ends."""
        self._check_live()
        self.check_at(at)
        if self.live.forced or self.live.seat in self.people:
            raise RequestError(409, "no agent is on move" + (": it is a person's move" if not self.live.forced
                                                              else ": the move on the table is forced"))
        observation, info = self.live.ask()
        self.thinking = (self.live.seat, time.monotonic())
        return self.agents[self.live.seat], (_copy(observation), info)

    @property
    def thinking_text(self) -> str:
        """The seat whose agent is thinking, as the page names it (``seat 1 (random)``); empty when none is."""
        return "" if self.thinking is None else self._seat_text(self.thinking[0])

    def agent_withdrawn(self) -> None:
        """The question of :meth:`agent_question` was not asked after all (no thread to think in): the same
        move may be asked for again."""
        self.thinking = None

    def agent_answer(self, action: int) -> None:
        """The agent's move (checked legal by its guard), applied."""
        self.thinking = None
        self.live.apply(action)

    def agent_failed(self, message: str) -> None:
        """The agent failed its decision: the game stops with the message on the page."""
        self.thinking = None
        self.error = " ".join(message.split())[:1000]

    # -- hints ---------------------------------------------------------------------------------

    def hint_question(self, at: int) -> tuple[Any, tuple[Any, Any]] | None:
        """The hint agent and the person's decision to ask it about; None where the hint for this position is
        already known. Marks the hint agent busy until :meth:`hint_done`."""
        if self.hint_agent is None:
            raise RequestError(404, "this server gives no hints: start it with --hint AGENT (a search agent)")
        if self.live.over or self.error is not None:
            raise RequestError(409, "the game is over: there is no decision to hint at")
        self.check_at(at)
        if self.live.seat not in self.people or self.live.forced:
            raise RequestError(409, "hints are for a person's decision, and it is not a person's decision now")
        if self.hint is not None and self.hint["at"] == at and "error" not in self.hint:
            return None
        if self.hint_busy:
            raise RequestError(409, f"{self.hint_label} is still working on a hint: wait for it")
        observation, info = self.live.ask()
        self.hint_busy = True
        return self.hint_agent, (_copy(observation), info)

    def hint_done(self) -> None:
        """The hint agent is free again: its decision ended (or was never started)."""
        self.hint_busy = False

    def hint_answer(self, at: int, chosen: Any) -> None:
        """Keep what the hint agent found for the position at move ``at``."""
        legal = [int(a) for a in self.live.legal()] if at == self.live.moves else []
        if not legal:
            return  # the person moved on meanwhile: that hint is for a position gone by
        try:
            action = int(chosen)
        except (TypeError, ValueError):
            self.hint_failed(at, f"{self.hint_label} returned {chosen!r:.60}, not an action")
            return
        if action not in legal:
            self.hint_failed(at, f"{self.hint_label} chose action {action}, which is not legal")
            return
        self.hint = {"at": at, "agent": self.hint_label,
                     "moves": hint_rows(self.hint_agent, action, legal, self.spec.action_name)}

    def hint_failed(self, at: int, message: str) -> None:
        """The hint agent failed (or took too long): the page says so beside the moves."""
        self.hint = {"at": at, "agent": self.hint_label, "error": " ".join(message.split())[:500]}

    # -- what the page shows -------------------------------------------------------------------

    @property
    def secret(self) -> bool:
        """Whether the game's seed, number and record are kept from the page now: where the server seats a
        person, until the game is over (or stopped: it goes no further)."""
        return self.keep_secret and not self.live.over and self.error is None

    @property
    def record_allowed(self) -> bool:
        """Whether the record may be downloaded: it names the hidden cards (a deck's order, the hands) and the
        seeds, so not while the game is :attr:`secret`."""
        return not self.secret

    def record_text(self) -> str:
        """The game's record (``five-towers replay`` opens it), as ``play --record`` writes it."""
        if not self.record_allowed:
            raise RequestError(409, "the record names the hidden cards: it can be downloaded once the game is over")
        return dumps_record(self.recorder.record())

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows of the game (public information only, and a person's own hand)."""
        live, state, waiting = self.live, self.live.state, self.waiting
        over = waiting == "over"
        to_move = None if over else live.seat
        person = to_move if to_move is not None and to_move in self.people else self._person
        deciding = waiting == "person"
        view = state.public_view(person) if person is not None and not over else None
        scores = [int(s) for s in state.scores()]
        out: dict[str, Any] = {
            "id": self.id, "game": self.spec.name, "title": self.spec.title, "variant": self.setup.variant,
            "players": self.setup.num_players, "index": None if self.secret else self.index,
            "seed": None if self.secret else self.seed, "fixed_seed": self.setup.seed is not None,
            "seats": [{"seat": s, "label": self.labels[s], "person": s in self.people, "score": scores[s]}
                      for s in range(self.setup.num_players)],
            "moves": live.moves, "to_move": to_move, "waiting": waiting, "phase": state.phase_name,
            "legal": [{"action": int(a), "name": self.spec.action_name(int(a))} for a in live.legal()]
            if deciding else [],
            "help": self.ui.phase_help(view) if deciding and view is not None else "",
            "view_seat": person if view is not None else None,
            "text": self.ui.text_view(view, person) if view is not None else self.ui.text_view(state, None),
            "svg": self.ui.svg(state, self.labels), "summary": self.ui.round_summary(state),
            "legend": self.ui.legend, "log": self.log.lines(self.spec, over), "error": self.error,
            "thinking": None, "hint_agent": self.hint_label, "hint": None, "record": self.record_allowed,
            "result": None,
        }
        if self.thinking is not None:
            seat, since = self.thinking
            out["thinking"] = {"seat": seat, "label": self.labels[seat], "seconds": round(time.monotonic() - since, 1)}
        if self.hint is not None and self.hint["at"] == live.moves and deciding:
            out["hint"] = self.hint
        if over:
            out["result"] = {"scores": scores, "winners": [int(w) for w in state.winners()],
                             "line": result_line(self.recorder.record())}
        return out


class Tables:
    """The games of one server by id: made on a page's request, forgotten (the one left alone longest first)
    past :attr:`Setup.max_tables`."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.specs = resolve_specs(setup.agents, setup.game)
        self.hint = resolve_specs([setup.hint], setup.game)[0] if setup.hint else None
        self.tables: OrderedDict[str, Table] = OrderedDict()
        self.made = 0
        # a person at any table: every table keeps its deal secret until its end (the seats rotate, so a table of
        # agents alone may sit beside one where a person plays)
        self.seats_people = any(is_interactive(text, game=setup.game) for text in setup.agents)

    def new(self) -> Table:
        """A new game, the server's next (its own deal and seating; its own seed, drawn from the operating
        system, unless the server has a run seed)."""
        index = self.made % (MAX_GAME_INDEX + 1)  # game N of an evaluation: play --game-index takes it
        seed = self.setup.seed if self.setup.seed is not None else secrets.randbits(GAME_SEED_BITS)
        table = Table(self.setup, self.specs, self.hint, index, secrets.token_urlsafe(18), seed,
                      keep_secret=self.seats_people)
        self.made += 1
        self.tables[table.id] = table
        idle = [t for t, tab in self.tables.items()
                if tab is not table and tab.thinking is None and not tab.hint_busy]
        while len(self.tables) > self.setup.max_tables and idle:
            del self.tables[idle.pop(0)]
        return table

    def get(self, table_id: str) -> Table:
        """The game of ``table_id``; a 404 :class:`RequestError` for an id the server does not hold."""
        table = self.tables.get(table_id) if ID_PATTERN.fullmatch(table_id) else None
        if table is None:
            raise RequestError(404, "no game with this id here (the server forgot it or restarted): start a new "
                                    "game")
        self.tables.move_to_end(table_id)
        table.touched = time.monotonic()
        return table


__all__ = ["GAME_SEED_BITS", "ID_PATTERN", "PageLog", "RequestError", "Setup", "Table", "Tables"]
