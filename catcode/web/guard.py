"""``Guard``: the ASGI middleware in front of every request of the web view.

- The ``Host`` header must name the address the server listens on (``127.0.0.1:PORT`` or ``localhost:PORT``):
  a page of another site whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name and is refused.
  A server on every interface (``--host 0.0.0.0``) also takes any IP address and this machine's own names, but
  still no other DNS name.
- The token must come with every request, as the ``token`` query parameter or an ``Authorization: Bearer``
  header, compared in constant time; a wrong or missing one gets 401. Or a session cookie: ``--open`` hands the
  browser a one-time code (``/?code=…``, never the token: a browser's command line is visible to every local
  user), exchanged once for an ``HttpOnly; SameSite=Strict`` cookie and a redirect to ``/``; a code used twice
  or unknown gets 401.
- A request that changes something and says it comes from another origin is refused (no CORS: no
  ``Access-Control-*`` header is ever sent, so other sites cannot read any answer either).
- Every answer is ``no-store``, ``nosniff``, never framed, and sends no referrer (the token is in the URL).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

# Any: ASGI scopes and messages are dictionaries of the ASGI spec.

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SECURITY_HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
_SAFE_METHODS = {"GET", "HEAD"}
COOKIE = "catcode_session"


class Guard:
    """Checks the Host header, the token and the origin of every HTTP request before ``app`` sees it."""

    def __init__(self, app: ASGIApp, *, token: str, hosts: set[str] | None, any_address: bool = False) -> None:
        """``hosts``: the accepted ``Host`` header values (None accepts any); ``any_address``: also accept a
        ``Host`` that names an IP address rather than a DNS name (a server on all interfaces, which the person
        was warned about: its addresses cannot all be known, and DNS rebinding needs a name)."""
        self.app, self.token, self.hosts, self.any_address = app, token, hosts, any_address
        self._codes: set[str] = set()
        self._sessions: set[str] = set()

    def one_time_code(self) -> str:
        """A new code that ``/?code=…`` exchanges once for a session cookie."""
        code = secrets.token_urlsafe(24)
        self._codes.add(code)
        return code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host", "")
        refusal = None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if not self._host_ok(host):
            refusal = (400, f"Unexpected Host header {host!r}: open the address catcode memory serve printed.")
        elif "code" in query and scope["method"] == "GET" and scope.get("path") == "/":
            await self._exchange(send, (query.get("code") or [""])[0], headers.get("sec-fetch-site", ""))
            return
        elif not self._token_ok(scope, headers):
            refusal = (401, "Missing or wrong token: open the address catcode memory serve printed (with ?token=…).")
        elif scope["method"] not in _SAFE_METHODS and not self._same_origin(headers, scope):
            refusal = (403, "Refused a change requested by another site.")
        if refusal is not None:
            await _refuse(send, *refusal)
            return
        await self.app(scope, receive, _with_headers(send))

    def _host_ok(self, host: str) -> bool:
        if self.hosts is None or host.lower() in self.hosts:
            return True
        return self.any_address and names_an_address(host)

    async def _exchange(self, send: Send, code: str, fetch_site: str = "") -> None:
        """A one-time code for a session cookie (then the code is gone), and a redirect that drops it from the
        address bar. The browser came from ``--open``'s private page (``opener.py``, a file: ``fetch_site`` says
        cross-site), a browser keeps a SameSite=Strict cookie from every request of that chain of redirects: so it
        is sent on from a page of this origin instead, and the cookie goes with that request."""
        if not any(hmac.compare_digest(code.encode("utf-8", "replace"), c.encode()) for c in self._codes):
            used = "This one-time link was already used: open the address catcode memory serve printed."
            await _refuse(send, 401, used)
            return
        self._codes.discard(code)
        session = secrets.token_urlsafe(32)
        self._sessions.add(session)
        cookie = f"{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/".encode()
        if fetch_site == "cross-site":
            body = _ONWARD
            headers = [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode())]
            status = 200
        else:
            body, headers, status = b"", [(b"location", b"/"), (b"content-length", b"0")], 303
        headers.append((b"set-cookie", cookie))
        await send({"type": "http.response.start", "status": status, "headers": [*headers, *SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": body})

    def _token_ok(self, scope: Scope, headers: dict[str, str]) -> bool:
        given = ""
        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            given = auth[7:].strip()
        else:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = (query.get("token") or [""])[0]
        if hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode("utf-8")):
            return True
        session = _cookie(headers.get("cookie", ""), COOKIE)
        return bool(session) and any(hmac.compare_digest(session.encode(), s.encode()) for s in self._sessions)

    @staticmethod
    def _same_origin(headers: dict[str, str], scope: Scope) -> bool:
        origin = headers.get("origin")
        if origin is None:  # not sent by a browser's cross-site request (scripts and curl send none)
            return True
        return origin == f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"


_ONWARD = (
    b'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/">'
    b'<title>catcode memory</title><a href="/">Open your memory</a>'
)
"""The page that sends a browser on to ``/`` from this origin (see ``Guard._exchange``)."""


def _cookie(header: str, name: str) -> str:
    """The value of cookie ``name`` in a ``Cookie`` header ("" when absent)."""
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


def names_an_address(host: str) -> bool:
    """True when a ``Host`` header names an IP address (``10.0.0.5:8765``, ``[fe80::1]:8765``), not a DNS name."""
    if host.startswith("["):
        name = host[1 : host.find("]")] if "]" in host else ""
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            present = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return wrapped


async def _refuse(send: Send, status: int, text: str) -> None:
    body = json.dumps({"error": text}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="catcode"'))
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})
