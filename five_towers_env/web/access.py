"""Who may use a ``five-towers serve`` server: the ``Host`` check, the token of a server open to the network, and
the security headers on every answer (an ASGI wrapper around the application, :class:`Access`).

* **On a loopback address** (the default, ``127.0.0.1``) the server answers only requests whose ``Host`` is one
  of its own names, compared exactly (``LOCALHOST`` is ``localhost``, but ``127.0.0.1 `` with a space, a name
  with a trailing dot or two ``Host`` headers are refused, 421): a page of another site reached through a name
  that resolves here (DNS rebinding) is refused.
* **On any other address** (``--allow-remote``) the server has a random token, printed in its address
  (``http://host:port/?token=...``, as Jupyter does). Every request must carry it, in the address or in the
  cookie the first such request sets (``HttpOnly``, ``SameSite=Strict``); any other is refused (403), so a
  page that does not know the token, a rebinding one included, can drive nothing.
"""
from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import cookie_parser
from starlette.responses import JSONResponse

#: the page may load its own files and nothing else, and no other site may frame it
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store")]
#: the names a server listening on a loopback address answers to
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: a ``Host`` header: a name or an IPv4 address, or an IPv6 address in brackets; then an optional port
HOST_PATTERN = re.compile(r"(?:\[(?P<ip6>[0-9a-fA-F:.]+)\]|(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?))"
                          r"(?::[0-9]{1,5})?")
#: the query parameter (and the start of the cookie's name) that carries a server's token
TOKEN_PARAMETER = "token"


def is_loopback(host: str) -> bool:
    """Whether the listening address ``host`` is this machine's own only (``localhost``, ``127.x.y.z``, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A server's token: 192 random bits."""
    return secrets.token_urlsafe(24)


def host_name(scope: dict) -> str | None:
    """The request's ``Host`` name without its port, lower case (``[::1]:8765`` -> ``::1``); None where the
    request has no ``Host``, several, or one that is not exactly a name and a port."""
    values = [v for k, v in scope.get("headers", []) if k == b"host"]
    if len(values) != 1:
        return None
    match = HOST_PATTERN.fullmatch(values[0].decode("latin-1"))
    if match is None:
        return None
    return (match["ip6"] or match["name"]).lower()


class Access:
    """Around the application: the security headers on every answer, the ``Host`` check (``hosts``: the names
    the server answers to, None for any) and the token check (``token``: None where none is needed); see the
    module docstring."""

    def __init__(self, app: Any, hosts: Iterable[str] | None = None, token: str | None = None) -> None:
        self.app = app
        self.hosts = None if hosts is None else {h.lower() for h in hosts}
        self.token = token
        self.state = app.state

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None and host_name(scope) not in self.hosts:
            await self._refuse(scope, receive, send, 421, "this server answers only to its own address")
            return
        cookie = None
        if self.token is not None:
            given, from_address = self._token_given(scope)
            if given is None or not secrets.compare_digest(given.encode(), self.token.encode()):
                await self._refuse(scope, receive, send, 403, "this server needs its token: open the address it "
                                                              "printed when it started (.../?token=...)")
                return
            if from_address:  # kept for the page's own requests, which name no token
                cookie = (f"{self._cookie_name(scope)}={self.token}; Path=/; HttpOnly; SameSite=Strict").encode()
        await self.app(scope, receive, self._with_headers(send, cookie))

    async def _refuse(self, scope: dict, receive: Any, send: Any, status: int, message: str) -> None:
        response = JSONResponse({"error": message}, status_code=status)
        await response(scope, receive, self._with_headers(send, None))

    @staticmethod
    def _cookie_name(scope: dict) -> str:
        # cookies do not tell ports apart: the port in the name keeps two servers on one machine apart
        server = scope.get("server")
        return f"five_towers_{TOKEN_PARAMETER}_{server[1] if server else 0}"

    def _token_given(self, scope: dict) -> tuple[str | None, bool]:
        """The token the request carries, and whether it came in the address (else the cookie)."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if TOKEN_PARAMETER in query:
            return query[TOKEN_PARAMETER][0], True
        cookies = b"; ".join(v for k, v in scope.get("headers", []) if k == b"cookie").decode("latin-1")
        return cookie_parser(cookies).get(self._cookie_name(scope)), False

    @staticmethod
    def _with_headers(send: Any, cookie: bytes | None) -> Any:
        extra = SECURITY_HEADERS + ([(b"set-cookie", cookie)] if cookie is not None else [])

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + extra}
            await send(message)
        return sending


__all__ = ["Access", "HOST_PATTERN", "LOOPBACK_NAMES", "SECURITY_HEADERS", "TOKEN_PARAMETER", "host_name",
           "is_loopback", "new_token"]
