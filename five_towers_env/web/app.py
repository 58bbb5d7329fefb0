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
* ``GET /api/games/{id}/record``: the game's record for ``five-towers replay`` (once the game is over, where a
  person plays: it names the hidden cards).

Agents think in threads of their own, never on the server's event loop, at most :data:`MAX_THINKING` at once
and each for at most the setup's ``move_timeout`` seconds: a slow or failing agent stops its game, with the
reason on the page, and nothing else. A POST must be ``application/json`` (so that another site's form cannot
send one) and at most :data:`MAX_BODY` bytes.
"""
from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from five_towers_env.web.tables import RequestError, Setup, Table, Tables

#: the largest request body read (the page's requests are a few dozen bytes)
MAX_BODY = 1024
#: agents (and hint agents) thinking at once; a request past that is refused (503) until one is done
MAX_THINKING = 8
#: the page's files: path -> (file in five_towers_env/web/static, media type)
PAGE_FILES = {"/": ("index.html", "text/html; charset=utf-8"),
              "/table.js": ("table.js", "text/javascript; charset=utf-8"),
              "/table.css": ("table.css", "text/css; charset=utf-8")}
#: the page may load its own files and nothing else, and no other site may frame it
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store")]


class Thinkers:
    """Runs agents' decisions in threads of their own (daemon threads: one that never returns does not keep the
    server from stopping) and waits for them without blocking the event loop."""

    def __init__(self, limit: int = MAX_THINKING) -> None:
        self._free = threading.BoundedSemaphore(limit)
        self.limit = limit

    async def run(self, work: Callable[[], Any], timeout: float, done: Callable[[], None] | None = None) -> Any:
        """``work()``'s result, or its exception; ``asyncio.TimeoutError`` after ``timeout`` seconds (the thread
        runs on, and ``done`` is called on the event loop whenever it ends)."""
        if not self._free.acquire(blocking=False):
            raise RequestError(503, f"{self.limit} agents are thinking already: try again in a moment")
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()

        def settle(outcome: tuple[Any, BaseException | None]) -> None:
            if done is not None:
                done()
            if not future.done():
                future.set_result(outcome)

        def think() -> None:
            try:
                outcome: tuple[Any, BaseException | None] = (work(), None)
            except BaseException as exc:  # whatever the agent raised is reported on the loop, not here
                outcome = (None, exc)
            finally:
                self._free.release()
            try:
                loop.call_soon_threadsafe(settle, outcome)
            except RuntimeError:  # the server stopped meanwhile: nobody waits for the answer
                pass

        threading.Thread(target=think, name="five-towers-agent", daemon=True).start()
        result, error = await asyncio.wait_for(asyncio.shield(future), timeout)
        if isinstance(error, Exception):
            raise error
        if error is not None:  # an exit or an interrupt raised inside an agent stops that decision, not the server
            raise RuntimeError(_reason(error))
        return result


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


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
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(413, f"the request body is over {MAX_BODY} bytes")
    try:
        data = json.loads(body.decode("utf-8") or "{}", parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise RequestError(400, f"the request body is not JSON: {_reason(exc)}"[:300]) from None
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


def create_app(setup: Setup, tables: Tables | None = None, allowed_hosts: Iterable[str] | None = None) -> Any:
    """The server's ASGI application for ``setup`` (``tables``: its games, made here unless given;
    ``allowed_hosts``: the ``Host`` names it answers, None for any)."""
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
            raise RequestError(500, f"the agents could not be seated: {_reason(exc)}"[:500]) from None
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
        try:
            action = await thinkers.run(lambda: agent.act(observation, info), setup.move_timeout)
            table.agent_answer(action)
        except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11 on
            seat = info.get("seat")
            table.agent_failed(f"seat {seat} ({table.labels[seat]}) made no move within {setup.move_timeout:g} s "
                               "(--move-timeout): the game is stopped")
        except RequestError:
            table.thinking = None
            raise
        except Exception as exc:  # the agent's own failure (its guard's one line), shown on the page
            table.agent_failed(f"{str(exc) or _reason(exc)} (the game is stopped)")
        return JSONResponse(table.snapshot())

    async def hint(request: Request) -> Response:
        table = table_of(request)
        at = (await read_json(request, ("at",)))["at"]
        question = table.hint_question(at)
        if question is not None:
            agent, (observation, info) = question

            def done() -> None:
                table.hint_busy = False

            try:
                chosen = await thinkers.run(lambda: agent.act(observation, info), setup.move_timeout, done)
                table.hint_answer(at, chosen)
            except asyncio.TimeoutError:
                table.hint_failed(at, f"{table.hint_label} gave no hint within {setup.move_timeout:g} s")
            except RequestError:
                table.hint_busy = False
                raise
            except Exception as exc:
                table.hint_failed(at, f"{table.hint_label} failed: {_reason(exc)}")
        return JSONResponse(table.snapshot())

    async def record(request: Request) -> Response:
        table = table_of(request)
        name = f"{table.spec.name}-game-{table.index}.json"
        return Response(table.record_text(), media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="{name}"'})

    async def refused(request: Request, exc: Exception) -> Response:
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
    return _Guard(app, None if allowed_hosts is None else {h.lower() for h in allowed_hosts})


class _Guard:
    """Around the application: the security headers on every answer, and a ``Host`` other than the server's own
    names refused (a page of another site reached through a name that resolves here: DNS rebinding)."""

    def __init__(self, app: Any, hosts: set[str] | None) -> None:
        self.app, self.hosts = app, hosts
        self.state = app.state

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None and _host(scope) not in self.hosts:
            response = JSONResponse({"error": "this server answers only to its own address"}, status_code=421)
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send))

    @staticmethod
    def _with_headers(send: Any) -> Any:
        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + SECURITY_HEADERS}
            await send(message)
        return sending


def _host(scope: dict) -> str:
    """The request's ``Host`` name without its port (``[::1]:8765`` -> ``::1``)."""
    host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "").strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rpartition(":")[0] if host.count(":") == 1 else host


#: the names a server listening on a loopback address answers to
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def serve(setup: Setup, host: str, port: int, announce: Callable[[str], None] = print) -> None:
    """Listen on ``host``:``port`` (0: a free port), ``announce`` the address, and serve ``setup``'s games until
    interrupted; ``OSError`` where the address cannot be listened on."""
    import uvicorn

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
    loopback = host in LOOPBACK_NAMES or host.startswith("127.")
    hosts = ({*LOOPBACK_NAMES, host} if loopback else None)
    app = create_app(setup, allowed_hosts=hosts)
    shown = f"[{host}]" if ":" in host else host
    announce(f"http://{shown}:{bound}/")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2)
    uvicorn.Server(config).run(sockets=[sock])


__all__ = ["LOOPBACK_NAMES", "MAX_BODY", "MAX_THINKING", "PAGE_FILES", "Thinkers", "create_app", "read_json",
           "serve"]
