"""``LeanClient``: one streamed Messages API request over the standard library's ``http.client``.

Why: importing the ``anthropic`` SDK costs seconds (thousands of type modules) before a byte is sent; this client
costs a few milliseconds, so ``catcode -p`` answers about as soon as Claude Code does. It sends what the SDK sends
for the same call (the same JSON body; ``anthropic-version``; the key as the SDK sends it, ``Authorization:
Bearer``; ``ANTHROPIC_CUSTOM_HEADERS``; the retry count) — the wire tests hold both clients to the same requests and
the same results against ``tests/fakes`` — and leaves out the SDK's platform telemetry headers.

It carries a request only where it does all the SDK would (``covers``): an ``http``/``https`` base URL without
credentials or query in it, and no proxy variable that applies to it. Anything else (a proxy, an injected HTTP
client, ``api_client: sdk``) goes through the SDK (``sdk_client.py``), and so does every request once one was
redirected (``NotCovered``: the SDK follows redirects). TLS is verified as the SDK's HTTP library
verifies it: ``SSL_CERT_FILE``/``SSL_CERT_DIR`` when set, else the system's store (``truststore`` on macOS and
Windows). Kept-alive connections are pooled for the threads that share the client (memory work runs in the
background); a pooled connection the server closed meanwhile is replaced once, silently, before anything was sent."""

from __future__ import annotations

import http.client
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import socket

from catcode import __version__
from catcode.log import WIRE
from catcode.providers.base import ChatResponse
from catcode.providers.failures import (
    CLAUDE_API,
    ApiConnectionFailure,
    ApiFailure,
    ApiStatusFailure,
    NotCovered,
    StreamFailure,
    status_detail,
)
from catcode.providers.message_stream import MessageStream, sse_events

# Any: request bodies are Messages API JSON; the TLS context and HTTP response come from ssl/http.client.

ANTHROPIC_VERSION = "2026-10-21"
"""The API version the installed SDK sends (``anthropic._constants.ANTHROPIC_API_VERSION``; a test keeps them equal)."""
DEFAULT_BASE_URL = "https://api.anthropic.com"
MAX_IDLE = 4  # pooled connections kept for later requests
_wire = logging.getLogger(WIRE)
_STALE = (ConnectionResetError, BrokenPipeError, ConnectionAbortedError, http.client.BadStatusLine)


def covers(base_url: str | None, env: Mapping[str, str]) -> bool:
    """Can the lean client carry requests to ``base_url`` as the SDK would (no proxy applies, a plain URL)?"""
    parts = urlsplit(base_url or DEFAULT_BASE_URL)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.query:
        return False
    return not _proxied(parts.scheme, parts.hostname, env)


def _proxied(scheme: str, host: str, env: Mapping[str, str]) -> bool:
    """Would the SDK's HTTP library send this through a proxy (``HTTPS_PROXY``, ``ALL_PROXY``..., less
    ``NO_PROXY``)? Any such variable that might apply counts: the SDK then carries the request."""
    names = {name.lower() for name, value in env.items() if value}
    if not names & {f"{scheme}_proxy", "all_proxy"}:
        return False
    no_proxy = next((env[n] for n in env if n.lower() == "no_proxy" and env[n]), "")
    hosts = [h.strip().lstrip(".").lower() for h in no_proxy.split(",") if h.strip()]
    return not ("*" in hosts or any(host == h or host.endswith("." + h) for h in hosts))


def custom_headers(env: Mapping[str, str]) -> dict[str, str]:
    """``ANTHROPIC_CUSTOM_HEADERS`` (``Name: value`` lines), read as the SDK reads it."""
    parsed: dict[str, str] = {}
    for line in (env.get("ANTHROPIC_CUSTOM_HEADERS") or "").split("\n"):
        colon = line.find(":")
        if colon >= 0:
            parsed[line[:colon].strip()] = line[colon + 1 :].strip()
    return parsed


class LeanClient:
    """Streams Messages API requests to ``base_url``; thread-safe."""

    hints = CLAUDE_API

    def __init__(
        self, *, api_key: str | None, base_url: str | None, timeout: float, env: Mapping[str, str] | None = None
    ) -> None:
        env = os.environ if env is None else env
        self.where = base_url or DEFAULT_BASE_URL
        parts = urlsplit(self.where)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path.rstrip("/") + "/v1/messages"
        self._read_timeout = timeout
        self._connect_timeout = min(10.0, timeout)
        self._headers = {
            "accept": "application/json",
            "content-type": "application/json",
            "user-agent": f"catcode/{__version__} (Python {sys.version_info.major}.{sys.version_info.minor})",
            "anthropic-version": ANTHROPIC_VERSION,
            **({"authorization": f"Bearer {api_key}"} if api_key is not None else {}),
            **custom_headers(env),
        }
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._tls: Any = None

    def warm_up(self, model: str = "") -> None:
        """Start opening a connection (DNS, TCP and TLS off the first request's path) and return at once: a
        request made meanwhile opens its own; a failure is left for the request to meet and report."""

        def connect() -> None:
            try:
                conn = self._connect()
            except (OSError, http.client.HTTPException):
                return
            self._release(conn)

        threading.Thread(target=connect, name="api-connect", daemon=True).start()

    def stream(self, body: dict[str, Any], attempt: int, on_text: Callable[[str], None] | None) -> ChatResponse:
        """Send one streaming request (``body`` as the API takes it); the whole reply. Raises ``ApiFailure``;
        anything ``on_text`` raises (Ctrl+C) propagates, the connection closed."""
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()  # as the SDK
        headers = {**self._headers, "x-stainless-retry-count": str(attempt)}
        if _wire.isEnabledFor(logging.DEBUG):  # --debug: the request on the terminal, as the SDK shows it
            options = {"method": "post", "url": self._path, "headers": {"x-stainless-retry-count": str(attempt)}}
            _wire.debug("Request options: %s", {**options, "json_data": body})
        conn, response = self._send(data, headers)
        reply = MessageStream(str(body.get("model", "")), on_text)
        try:
            if 300 <= response.status < 400:  # the SDK follows redirects; nothing was answered yet
                raise NotCovered(f"redirected ({response.status}) to {response.getheader('location')}")
            if response.status != 200:
                text = response.read().decode("utf-8", "replace")
                detail, kind = status_detail(response.status, text)
                raise ApiStatusFailure(response.status, detail, error_type=kind, headers=dict(response.getheaders()))
            try:
                for event, payload in sse_events(_lines(response)):
                    reply.feed(event, payload)
            except TimeoutError as err:
                raise ApiConnectionFailure(str(err) or "timed out", timed_out=True, began=True) from err
            except (OSError, http.client.HTTPException) as err:
                raise ApiConnectionFailure(f"{type(err).__name__}: {err}", began=True) from err
            except ApiFailure:
                raise
            except Exception as err:  # a broken event, or whatever on_text raised: the stream had begun
                raise StreamFailure(err) from err
        except BaseException:
            conn.close()
            raise
        if response.will_close:
            conn.close()
        else:
            self._release(conn)
        if not reply.done:  # a clean end of the body before message_stop: the reply is incomplete
            raise ApiConnectionFailure("the stream ended before message_stop", began=True)
        return reply.response()

    def _send(self, data: bytes, headers: dict[str, str]) -> tuple[http.client.HTTPConnection, Any]:
        """The connection and its response's head; a kept-alive connection that turns out closed is replaced once."""
        while True:
            conn, reused = self._take()
            try:
                if conn.sock is None:
                    conn.connect()
                    cast("socket.socket", conn.sock).settimeout(self._read_timeout)  # set by connect()
                conn.request("POST", self._path, body=data, headers=headers)
                return conn, conn.getresponse()
            except _STALE as err:
                conn.close()
                if not reused:
                    raise ApiConnectionFailure(f"{type(err).__name__}: {err}") from err
            except TimeoutError as err:
                conn.close()
                raise ApiConnectionFailure(str(err) or "timed out", timed_out=True) from err
            except (OSError, http.client.HTTPException) as err:
                conn.close()
                raise ApiConnectionFailure(f"{type(err).__name__}: {err}") from err
            except BaseException:
                conn.close()
                raise

    def _take(self) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._new(), False

    def _connect(self) -> http.client.HTTPConnection:
        conn = self._new()
        conn.connect()
        assert conn.sock is not None
        conn.sock.settimeout(self._read_timeout)
        return conn

    def _release(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def _new(self) -> http.client.HTTPConnection:
        if not self._https:
            return http.client.HTTPConnection(self._host, self._port, timeout=self._connect_timeout)
        if self._tls is None:
            self._tls = tls_context(os.environ)
        return http.client.HTTPSConnection(self._host, self._port, timeout=self._connect_timeout, context=self._tls)

    def close(self) -> None:
        """Close the pooled connections."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def tls_context(env: Mapping[str, str]) -> Any:
    """Certificates as the SDK's HTTP library trusts them: ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else the system's."""
    import ssl

    if env.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=env["SSL_CERT_FILE"])
    if env.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=env["SSL_CERT_DIR"])
    if sys.platform in ("darwin", "win32"):
        import truststore

        return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return ssl.create_default_context()


def _lines(response: Any) -> Iterator[bytes]:
    """The body line by line as it arrives (``readline`` returns what one chunk holds, without waiting for more)."""
    while line := response.readline():
        yield line
