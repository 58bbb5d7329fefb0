"""The web server of ``five-towers serve``: a Starlette application over :mod:`five_towers_env.web.tables`, and
:func:`serve`, which runs it with uvicorn (the ``web`` extra; imported only by this command).

What it answers (every answer JSON but the page and its two files; every refusal ``{"error": "..."}`` with a
4xx status, the game unchanged):

* ``GET /``, ``/table.js``, ``/table.css``: the page, shipped in the package (nothing is fetched from elsewhere);
* ``POST /api/games``: a new game (the server's setup: a request names nothing of it);
* ``GET /api/games/{id}``: where the game stands;
* ``POST /api/games/{id}/move`` ``{"action": id, "at": moves}``: a person's move, for the position after
  ``at`` moves (the one the page shows);
* ``POST /api/games/{id}/advance`` ``{"at": moves}``: the next agent's (or forced) move, when the page's pace
  asks for it;
* ``POST /api/games/{id}/hint`` ``{"at": moves}``: the hint agent's top moves for a person's decision;
* ``GET /api/games/{id}/record``: the game's record for ``five-towers replay`` (once the game is over, where the
  server seats a person: it names the hidden cards, and the seeds that deal them).

Agents think in threads of their own (:mod:`five_towers_env.web.thinkers`), never on the server's event loop,
each for at most the setup's ``move_timeout`` seconds: a slow or failing agent stops its game, with the reason
on the page, and nothing else. A POST must be ``application/json`` (so that another site's form cannot send
one) and at most :data:`MAX_BODY` bytes; a client that leaves before its body is read is one line in the
server's log. Who may ask at all (the ``Host`` check, the token of a server open to the network):
:mod:`five_towers_env.web.access`.
"""
from __future__ import annotations

import asyncio
import json
import logging
import signal
import socket
import threading
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from five_towers_env.web.access import LOOPBACK_NAMES, TOKEN_PARAMETER, Access, is_loopback, new_token
from five_towers_env.web.tables import RequestError, Setup, Table, Tables
from five_towers_env.web.thinkers import Thinkers, decide, log, reason

#: the largest request body read (the page's requests are a few dozen bytes)
MAX_BODY = 1024
#: the page's files: path -> (file in five_towers_env/web/static, media type)
PAGE_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
              "/table.js": ("table.js", "text/javascript; charset=utf-8"),
              "/table.css": ("table.css", "text/css; charset=utf-8")}


class ClientLeft(RequestError):
    """The client closed the connection before its request body was read: one line in the server's log."""

    def __init__(self, request: Request) -> None:
        super().__init__(400, "the client left before its request was read")
        self.what = f"{request.method} {request.url.path}"


async def read_json(request: Request, fields: Iterable[str]) -> dict[str, int]:
    """The request's JSON object, holding exactly ``fields``, each an integer of 0 or more but ``action`` (any
    integer); a :class:`RequestError` for any other body."""
    fields = tuple(fields)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(415, "send the request as JSON (Content-Type: application/json)")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the request body is over {MAX_BODY} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise RequestError(413, f"the request body is over {MAX_BODY} bytes")
    except ClientDisconnect:
        raise ClientLeft(request) from None
    try:
        data = json.loads(body.decode("utf-8") or "{}", parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise RequestError(400, f"the request body is not JSON: {reason(exc)}"[:300]) from None
    if not isinstance(data, dict):
        raise RequestError(422, f"the request body must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        what = f"{unknown[0]!r:.40}" if len(unknown) == 1 else f"{len(unknown)} fields"
        raise RequestError(422, f"unknown field {what}: " + (f"send only {', '.join(fields)}" if fields else
                                                             "a new game takes no settings (the server's command "
                                                             "line sets the game, seats and agents)"))
    for name in fields:
        if name not in data:
            raise RequestError(422, f"the field {name!r} is missing")
        value = data[name]
        if type(value) is not int or (name != "action" and value < 0):
            raise RequestError(422, f"{name} must be an integer" + ("" if name == "action" else " of 0 or more")
                               + f", got {json.dumps(value)[:40]}")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a request holds")


def create_app(setup: Setup, tables: Tables | None = None, allowed_hosts: Iterable[str] | None = None,
               token: str | None = None) -> Any:
    """The server's ASGI application for ``setup`` (``tables``: its games, made here unless given;
    ``allowed_hosts``: the ``Host`` names it answers, None for any; ``token``: the token every request must
    carry, None for none; see :mod:`five_towers_env.web.access`)."""
    tables = tables if tables is not None else Tables(setup)
    thinkers = Thinkers()
    static = resources.files("five_towers_env.web").joinpath("static")
    files = {path: (static.joinpath(name).read_bytes(), kind) for path, (name, kind) in PAGE_FILES.items()}

    async def page(request: Request) -> Response:
        body, kind = files[request.url.path]
        return Response(body, media_type=kind)

    async def new_game(request: Request) -> Response:
        await read_json(request, ())
        try:
            table = tables.new()
        except (ValueError, TypeError, ImportError, OSError, RuntimeError) as exc:  # an agent that cannot be built
            raise RequestError(500, f"the agents could not be seated: {reason(exc)}"[:500]) from None
        return JSONResponse(table.snapshot(), status_code=201)

    def table_of(request: Request) -> Table:
        return tables.get(request.path_params["table"])

    async def show(request: Request) -> Response:
        return JSONResponse(table_of(request).snapshot())

    async def move(request: Request) -> Response:
        table = table_of(request)
        body = await read_json(request, ("action", "at"))
        table.person_move(body["action"], body["at"])
        return JSONResponse(table.snapshot())

    async def advance(request: Request) -> Response:
        table = table_of(request)
        at = (await read_json(request, ("at",)))["at"]
        if table.waiting == "forced":
            table.forced_move(at)
            return JSONResponse(table.snapshot())
        agent, (observation, info) = table.agent_question(at)
        what = table.thinking_text
        try:
            action = await thinkers.run(lambda: decide(agent, observation, info, setup.move_timeout),
                                        setup.move_timeout, what=what)
            table.agent_answer(action)
        except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11 on
            table.agent_failed(f"{what} made no move within {setup.move_timeout:g} s (--move-timeout): the game "
                               "is stopped")
        except RequestError:  # no slot to think in: the question was not asked
            table.agent_withdrawn()
            raise
        except Exception as exc:  # the agent's own failure (its guard's one line), shown on the page
            table.agent_failed(f"{str(exc) or reason(exc)} (the game is stopped)")
        return JSONResponse(table.snapshot())

    async def hint(request: Request) -> Response:
        table = table_of(request)
        at = (await read_json(request, ("at",)))["at"]
        question = table.hint_question(at)
        if question is not None:
            agent, (observation, info) = question
            try:
                chosen = await thinkers.run(lambda: decide(agent, observation, info, setup.move_timeout),
                                            setup.move_timeout, table.hint_done, what=f"hint {table.hint_label}")
                table.hint_answer(at, chosen)
            except asyncio.TimeoutError:  # the hint agent stays busy until its thread ends (hint_done)
                table.hint_failed(at, f"{table.hint_label} gave no hint within {setup.move_timeout:g} s")
            except RequestError:
                table.hint_done()
                raise
            except Exception as exc:
                table.hint_failed(at, f"{table.hint_label} failed: {reason(exc)}")
        return JSONResponse(table.snapshot())

    async def record(request: Request) -> Response:
        table = table_of(request)
        text = table.record_text()  # refused while the game keeps its deal secret
        name = f"{table.spec.name}-game-{table.index}.json"
        return Response(text, media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="{name}"'})

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, ClientLeft):
            log.warning("a client left before its request was read (%s)", exc.what)
        if isinstance(exc, RequestError):
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        assert isinstance(exc, HTTPException)
        message = {404: "no such page here", 405: f"{request.method} is not allowed here"}.get(exc.status_code,
                                                                                                 str(exc.detail))
        return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)

    routes = [Route(path, page, methods=["GET"]) for path in PAGE_FILES] + [
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{table}", show, methods=["GET"]),
        Route("/api/games/{table}/move", move, methods=["POST"]),
        Route("/api/games/{table}/advance", advance, methods=["POST"]),
        Route("/api/games/{table}/hint", hint, methods=["POST"]),
        Route("/api/games/{table}/record", record, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={RequestError: refused, HTTPException: refused})
    app.state.tables = tables
    app.state.thinkers = thinkers
    return Access(app, allowed_hosts, token)


def serve(setup: Setup, host: str, port: int, announce: Callable[[str], None] = print,
          allow_remote: bool = False) -> None:
    """Listen on ``host``:``port`` (0: a free port), ``announce`` the address, and serve ``setup``'s games until
    interrupted; ``OSError`` where the address cannot be listened on. A ``host`` other than a loopback address
    needs ``allow_remote`` (else ``ValueError``), and the server then needs the token in the address it
    announces (:mod:`five_towers_env.web.access`)."""
    import uvicorn

    loopback = is_loopback(host)
    if not loopback and not allow_remote:
        raise ValueError(f"{host} is not a loopback address: anyone who reaches it could play; allow_remote=True "
                         "opens it, behind a token")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle's algorithm off only on sockets that say they are TCP, and with it on
    # every answer waited for the browser's delayed acknowledgement (40 ms a move)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.setblocking(False)
    bound = sock.getsockname()[1]
    token = None if loopback else new_token()
    app = create_app(setup, allowed_hosts={*LOOPBACK_NAMES, host} if loopback else None, token=token)
    if not log.handlers:  # the server's own lines (an agent abandoned, a client gone) on stderr, one each
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("five-towers serve: %(message)s"))
        log.addHandler(handler)
        log.propagate = False
    shown = f"[{host}]" if ":" in host else host
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    # a Ctrl-C between the address shown and uvicorn listening for it stops the server as one after (uvicorn's
    # own handler, installed early), not with a KeyboardInterrupt wherever the start-up happens to be
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, server.handle_exit) if main else None
    try:
        announce(f"http://{shown}:{bound}/" + ("" if token is None else f"?{TOKEN_PARAMETER}={token}"))
        server.run(sockets=[sock])
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


__all__ = ["ClientLeft", "MAX_BODY", "PAGE_FILES", "create_app", "read_json", "serve"]
