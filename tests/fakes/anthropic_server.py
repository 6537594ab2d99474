"""``FakeAnthropicServer``: a scripted Anthropic Messages API on 127.0.0.1 for tests over the real wire.

The real SDK (and the real ``catcode`` binary, via ``ANTHROPIC_BASE_URL``) talks HTTP/1.1 to it: SSE streams
use chunked encoding and JSON answers carry Content-Length, so many requests share one keep-alive connection.
Each ``POST /v1/messages`` is validated like the real API (a broken history gets a 400), then answered by
``server.responder(body)`` if that returns a step, else by the next queued step, else by a loud 400
("fake server: no scripted response"). See tests/fakes/README.md for the step constructors.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

NO_SCRIPT = "fake server: no scripted response"
MESSAGES = "/v1/messages"
"""``requests()``' default: every request routed as a Messages API call (on this server, ``POST /v1/messages``)."""
SECRET_FIELDS = frozenset({"client_secret", "refresh_token", "assertion", "password"})
"""Form fields kept in the journal as digests only (an OAuth token request's)."""
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_ids = itertools.count(1)


@dataclass
class Step:
    """One scripted answer. Build it with ``text``/``tool_use``/``message``/``status``/``error_midstream``/
    ``drop_midstream``; ``gate`` (wait before answering) and ``hold`` (wait after the first text delta)
    let a test pace the response without sleeping."""

    kind: str  # "message", "status", "error_midstream", "drop_midstream"
    blocks: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = "end_turn"
    status: int = 200
    message: str = ""
    error_type: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    gate: threading.Event | None = None
    hold: threading.Event | None = None
    model: str | None = None


def message(
    blocks: list[dict[str, Any]],
    *,
    stop_reason: str | None = None,
    usage: dict[str, int] | None = None,
    gate: threading.Event | None = None,
    hold: threading.Event | None = None,
    model: str | None = None,
) -> Step:
    """A reply made of API-shaped blocks (``{"type": "text", ...}``, ``{"type": "tool_use", ...}``)."""
    has_tool = any(b["type"] == "tool_use" for b in blocks)
    stop = stop_reason or ("tool_use" if has_tool else "end_turn")
    return Step("message", blocks=blocks, stop_reason=stop, usage=usage or {}, gate=gate, hold=hold, model=model)


def text(text: str, **kwargs: Any) -> Step:
    """A plain text reply, streamed in several text_delta chunks (``message`` keywords apply)."""
    return message([{"type": "text", "text": text}], **kwargs)


def tool_use(name: str, input: dict[str, Any], *, id: str | None = None, text_before: str = "", **kwargs: Any) -> Step:
    """A reply calling one tool (optionally after some text); its input streams as input_json_delta chunks."""
    block = {"type": "tool_use", "id": id or f"toolu_fake_{next(_ids):04d}", "name": name, "input": input}
    return message(([{"type": "text", "text": text_before}] if text_before else []) + [block], **kwargs)


def status(
    code: int,
    message: str | None = None,
    *,
    retry_after: float | None = None,
    retry_after_ms: float | None = 2.0,
    error_type: str | None = None,
    gate: threading.Event | None = None,
) -> Step:
    """An HTTP error with the real API's JSON shape. Retryable codes (408, 409, 429, >= 500) carry
    ``retry-after-ms`` (tiny by default, which the SDK honours before its own backoff) and, when given,
    ``retry-after`` in seconds."""
    headers: dict[str, str] = {}
    if code in (408, 409, 429) or code >= 500:
        if retry_after_ms is not None:
            headers["retry-after-ms"] = f"{retry_after_ms:g}"
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
    err_type = error_type or ERROR_TYPES.get(code, "api_error")
    return Step(
        "status",
        status=code,
        message=message or err_type.replace("_", " "),
        error_type=err_type,
        headers=headers,
        gate=gate,
    )


def error_midstream(
    after_text: str = "partial", *, error_type: str = "overloaded_error", message: str = "Overloaded", **kw: Any
) -> Step:
    """A 200 stream that sends ``after_text`` as deltas, then an SSE ``event: error``."""
    return Step(
        "error_midstream", blocks=[{"type": "text", "text": after_text}], error_type=error_type, message=message, **kw
    )


def drop_midstream(after_text: str = "partial", **kw: Any) -> Step:
    """A 200 stream that sends ``after_text`` as deltas, then closes the socket without finishing."""
    return Step("drop_midstream", blocks=[{"type": "text", "text": after_text}], **kw)


def _chunks(s: str, pieces: int = 4, longest: int = 40) -> list[str]:
    """Split ``s`` into several deltas, like the real API does."""
    size = max(1, min(longest, math.ceil(len(s) / pieces)))
    return [s[i : i + size] for i in range(0, len(s), size)] or [""]


def _blocks_of(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


MID_CONVERSATION_SYSTEM = "mid-conversation-system-"
"""The ``anthropic-beta`` (prefix) under which the API takes ``system`` messages between the others (Claude Code
sends them; ``scripts/bench_print_mode.py`` runs it against this server)."""


def validation_error(body: dict[str, Any], betas: str = "") -> str | None:
    """Why the real API would reject this /v1/messages body (None when it would accept it); ``betas``: the
    ``anthropic-beta`` header."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    messages = body.get("messages")
    if MID_CONVERSATION_SYSTEM in betas and isinstance(messages, list):
        messages = [m for i, m in enumerate(messages) if not (i and isinstance(m, dict) and m.get("role") == "system")]
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    previous_tool_uses: set[str] = set()
    for i, msg in enumerate(messages):
        role, blocks = msg.get("role"), _blocks_of(msg.get("content"))
        if role not in ("user", "assistant"):
            return f'messages.{i}.role: Input should be "user" or "assistant"'
        if i and messages[i - 1].get("role") == role:
            return f'messages.{i}: roles must alternate between "user" and "assistant", found two {role!r} in a row'
        if not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        for j, block in enumerate(blocks):
            if block.get("type") == "text" and not str(block.get("text", "")).strip():
                return f"messages.{i}.content.{j}.text: text content blocks must contain non-whitespace text"
        answered = set()
        for j, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                continue
            if block.get("tool_use_id") not in previous_tool_uses:
                return (
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                    "block in the previous message."
                )
            answered.add(block["tool_use_id"])
        if previous_tool_uses - answered:
            return (
                f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(sorted(previous_tool_uses - answered))}. Each `tool_use` block must have a "
                "corresponding `tool_result` block in the next message."
            )
        previous_tool_uses = (
            {b.get("id") for b in blocks if b.get("type") == "tool_use"} if role == "assistant" else set()
        )
    if previous_tool_uses:
        return (
            f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(sorted(previous_tool_uses))}."
        )
    breakpoints = sum(1 for item in _cache_items(body) if "cache_control" in item)
    if breakpoints > 4:
        return f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
    return None


def _cache_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Everything that forms the cached prefix, in the API's order: tools, system, then message blocks."""
    system = body.get("system")
    items = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    items += _blocks_of(system) if system else []
    for msg in body.get("messages") or []:
        items += [{"role": msg.get("role"), **b} for b in _blocks_of(msg.get("content")) if isinstance(b, dict)]
    return items


@dataclass
class RecordedRequest:
    """One request as the server received it. ``status`` is the HTTP status it was answered with
    (200 for streams, even when they later failed); 0 while it is still waiting on a gate."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int = 0
    step: str = ""  # the answering step's kind, "invalid" or "unscripted"
    credentials: dict[str, str] = field(default_factory=dict)
    """``x-api-key``/``authorization`` as a digest (``sha256:<12 hex>``): which credential came, never the value."""
    routed: bool = False
    """It reached a Messages API route (what ``requests()`` lists by default)."""
    model: str = ""
    """The model asked for: the body's, or the URL's on a platform that puts it there (Bedrock, Vertex)."""
    auth: str = ""
    """How a platform fake saw it authenticated (``sigv4``, ``bearer``, ``oauth``, ``none``); "" on this server."""
    route: dict[str, str] = field(default_factory=dict)
    """What a platform fake read from the URL (Bedrock: ``model``, ``action``; Vertex: ``project``, ``region``...)."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` of the body."""
        return list(self.body.get("messages") or [])

    @property
    def system_blocks(self) -> list[dict[str, Any]]:
        """The ``system`` parameter as a list of blocks (a plain string becomes one block)."""
        system = self.body.get("system")
        return _blocks_of(system) if system else []

    @property
    def system_text(self) -> str:
        """All system texts joined by blank lines."""
        return "\n\n".join(b.get("text", "") for b in self.system_blocks)

    @property
    def all_text(self) -> str:
        """System plus every text/tool_result string in the messages: handy for ``in`` checks."""
        parts = [self.system_text]
        for msg in self.messages:
            for b in _blocks_of(msg.get("content")):
                parts.append(str(b.get("text") or b.get("content") or ""))
        return "\n".join(parts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    raw_body: bytes = b""

    def setup(self) -> None:
        super().setup()
        # Each SSE event is its own small write: without NODELAY, Nagle holds it for the client's delayed ACK
        # (~40 ms on a reused connection), which would make the fake look slower than a real server.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:  # the default writes to stderr
        """Quiet: the journal is the record."""

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.raw_body = raw  # what a platform fake verifies a signature over
        if (self.headers.get("content-type") or "").startswith("application/x-www-form-urlencoded"):
            fields = parse_qsl(raw.decode("utf-8", "replace"))
            body: Any = {k: _digest(v) if k in SECRET_FIELDS else v for k, v in fields}
        else:
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
        secret = ("x-api-key", "authorization")
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in secret}
        credentials = {k.lower(): _digest(v) for k, v in self.headers.items() if k.lower() in secret}
        self.server.owner._answer(
            self, RecordedRequest(self.path.split("?")[0], body, headers, credentials=credentials)
        )

    def do_GET(self) -> None:
        self.send_json(404, _error_body("not_found_error", f"fake server: no route GET {self.path}"))

    def send_json(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_fake_{next(_ids):06d}")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self, content_type: str = "text/event-stream") -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_fake_{next(_ids):06d}")
        self.end_headers()

    def sse(self, event: str, data: dict[str, Any]) -> None:
        self.chunk(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())

    def chunk(self, data: bytes) -> None:
        """One piece of a chunked body."""
        self.wfile.write(b"%X\r\n%s\r\n" % (len(data), data))

    def end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: FakeAnthropicServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (Ctrl+C, a closed pool) is normal; anything else is a bug worth printing."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _digest(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:12]


def _error_body(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": f"req_{next(_ids)}"}


class FakeAnthropicServer:
    """A scripted Messages API on 127.0.0.1 (random port), served from a daemon thread.

    ``enqueue(*steps)`` scripts answers; ``responder(body) -> Step | None`` is consulted first; ``journal``
    records every request; ``wait_for_requests(n)`` blocks until n arrived. Use as a context manager."""

    def __init__(self, tls: Any = None) -> None:
        """``tls``: a server-side ``ssl.SSLContext`` to serve HTTPS with (``base_url`` then starts ``https://``)."""
        self.responder: Callable[[dict[str, Any]], Step | None] | None = None
        self.journal: list[RecordedRequest] = []
        self.unscripted: list[RecordedRequest] = []
        self._queue: list[Step] = []
        self._cond = threading.Condition()
        self._cache: set[str] = set()
        self._conns: set[socket.socket] = set()
        self._closing = threading.Event()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self.port: int = self._httpd.server_address[1]
        if tls is not None:  # each connection's handshake happens as it is accepted
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self.base_url = f"{'https' if tls is not None else 'http'}://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def __enter__(self) -> FakeAnthropicServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving, abort waiting gates and cut open keep-alive connections."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._httpd.shutdown()
        with self._cond:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def drop_idle_connections(self) -> int:
        """Cut the kept-alive connections, as a server's idle timeout does; how many there were."""
        with self._cond:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(conns)

    def enqueue(self, *steps: Step) -> None:
        """Append scripted answers, used in order."""
        with self._cond:
            self._queue.extend(steps)

    @property
    def pending(self) -> int:
        """How many queued steps are still unused."""
        with self._cond:
            return len(self._queue)

    def requests(self, path: str | None = MESSAGES) -> list[RecordedRequest]:
        """A snapshot of the journal, filtered by path (None: everything; ``MESSAGES``: the Messages API calls)."""
        with self._cond:  # re-entrant: also called from wait_for_requests under the same lock
            return [r for r in self.journal if path is None or r.path == path or (path == MESSAGES and r.routed)]

    def wait_for_requests(self, n: int, timeout: float = 10, path: str | None = MESSAGES) -> list[RecordedRequest]:
        """Block until at least ``n`` requests to ``path`` arrived; fail loudly after ``timeout`` seconds."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests(path)) >= n, timeout):
                got = [(r.path, r.status, r.step) for r in self.journal]
                raise AssertionError(f"fake server: waited {timeout}s for {n} requests to {path}, got {got}")
            return self.requests(path)

    def assert_complete(self) -> None:
        """Fail if scripted steps were left unused or a request found no script."""
        assert not self.unscripted, f"{len(self.unscripted)} request(s) got '{NO_SCRIPT}'"
        assert not self.pending, f"{self.pending} scripted step(s) were never requested"

    # ---- serving (handler threads) ----

    def _track(self, conn: socket.socket, alive: bool) -> None:
        with self._cond:
            (self._conns.add if alive else self._conns.discard)(conn)

    def _record(self, rec: RecordedRequest) -> None:
        with self._cond:
            self.journal.append(rec)
            self._cond.notify_all()

    def _next_step(self, body: dict[str, Any]) -> Step | None:
        if self.responder is not None:
            step = self.responder(body)
            if step is not None:
                return step
        with self._cond:
            return self._queue.pop(0) if self._queue else None

    def _wait(self, event: threading.Event | None) -> bool:
        """Wait for a test's gate; False when the server is closing (the answer is abandoned)."""
        while event is not None and not event.wait(0.05):
            if self._closing.is_set():
                return False
        return True

    def _answer(self, h: _Handler, rec: RecordedRequest) -> None:
        self._record(rec)
        body = self._messages_body(h, rec)
        if body is None:
            rec.status, rec.step = 404, "invalid"
            return self._send_error(h, 404, "not_found_error", f"fake server: no route POST {rec.path}")
        rec.routed, rec.model = True, str(body.get("model") or "")
        refused = self._refusal(h, rec)
        if refused is not None:
            rec.status, rec.step = refused[0], "refused"
            return self._send_error(h, *refused)
        problem = validation_error(body, rec.headers.get("anthropic-beta", ""))
        if problem:
            rec.status, rec.step = 400, "invalid"
            return self._send_error(h, 400, "invalid_request_error", problem)
        try:
            step = self._next_step(body)
        except Exception as err:  # a broken responder must fail the test, not hang it
            step = status(400, f"fake server: responder raised {err!r}")
        if step is None:
            rec.status, rec.step = 400, "unscripted"
            with self._cond:
                self.unscripted.append(rec)
            return self._send_error(h, 400, "invalid_request_error", NO_SCRIPT)
        rec.step = step.kind
        if not self._wait(step.gate):
            h.close_connection = True
            return None
        rec.status = step.status
        try:
            self._respond(h, body, step)
        except OSError:  # the client went away (e.g. Ctrl+C closed the stream)
            h.close_connection = True
        return None

    # ---- the wire: what a platform fake (tests/fakes/bedrock_server.py, vertex_server.py) speaks differently ----

    def _messages_body(self, h: _Handler, rec: RecordedRequest) -> dict[str, Any] | None:
        """The request as a Messages API body (``model`` and ``stream`` in it), or None when no route takes it."""
        return rec.body if rec.path == MESSAGES else None

    def _refusal(self, h: _Handler, rec: RecordedRequest) -> tuple[int, str, str] | None:
        """``(status, error type, message)`` when the platform refuses the request before reading it (its
        authentication, its own rules for the body); None to go on."""
        return None

    def _send_error(
        self, h: _Handler, code: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        """An error answer in the platform's shape."""
        h.send_json(code, _error_body(error_type, message), headers)

    def _start_stream(self, h: _Handler) -> None:
        h.start_sse()

    def _event(self, h: _Handler, event: str, data: dict[str, Any]) -> None:
        h.sse(event, data)

    def _stream_error(self, h: _Handler, step: Step) -> None:
        """An error within a 200 stream (the Messages API's ``event: error``)."""
        h.sse("error", _error_body(step.error_type, step.message))

    def _respond(self, h: _Handler, body: dict[str, Any], step: Step) -> None:
        if step.kind == "status":
            return self._send_error(h, step.status, step.error_type, step.message, step.headers)
        if not body.get("stream"):
            if step.kind == "drop_midstream":
                h.close_connection = True
                return h.connection.shutdown(socket.SHUT_RDWR)
            if step.kind == "error_midstream":
                return self._send_error(h, 529, step.error_type, step.message, {"retry-after-ms": "2"})
            return h.send_json(200, self._message_json(body, step))
        return self._stream(h, body, step)

    def _message_json(self, body: dict[str, Any], step: Step) -> dict[str, Any]:
        out = sum(len(json.dumps(b)) for b in step.blocks) // 4 + 1
        return {
            "id": f"msg_fake_{next(_ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": step.model or body.get("model"),
            "content": step.blocks,
            "stop_reason": step.stop_reason,
            "stop_sequence": None,
            "usage": {**self._usage(body), "output_tokens": out, **step.usage},
        }

    def _stream(self, h: _Handler, body: dict[str, Any], step: Step) -> None:
        final = self._message_json(body, step)
        usage = final["usage"]
        start = {**final, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        self._start_stream(h)
        self._event(h, "message_start", {"type": "message_start", "message": start})
        self._event(h, "ping", {"type": "ping"})
        held = False
        for index, block in enumerate(step.blocks):
            empty = {**block, "text": ""} if block["type"] == "text" else {**block, "input": {}}
            self._event(
                h, "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
            )
            if block["type"] == "text":
                deltas = [{"type": "text_delta", "text": c} for c in _chunks(block["text"])]
            else:
                raw = json.dumps(block["input"])
                deltas = [{"type": "input_json_delta", "partial_json": c} for c in _chunks(raw, 5, 16)]
            for delta in deltas:
                self._event(h, "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                if step.hold is not None and not held and delta["type"] == "text_delta":
                    held = True
                    if not self._wait(step.hold):
                        h.close_connection = True
                        return None
            if step.kind == "drop_midstream":
                h.close_connection = True
                return h.connection.shutdown(socket.SHUT_RDWR)
            if step.kind == "error_midstream":
                self._stream_error(h, step)
                return h.end_sse()
            self._event(h, "content_block_stop", {"type": "content_block_stop", "index": index})
        delta_usage = {
            k: usage[k]
            for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        }
        self._event(
            h,
            "message_delta",
            {
                "type": "message_delta",
                "usage": delta_usage,
                "delta": {"stop_reason": step.stop_reason, "stop_sequence": None},
            },
        )
        self._event(h, "message_stop", {"type": "message_stop"})
        return h.end_sse()

    def _usage(self, body: dict[str, Any]) -> dict[str, int]:
        """Token figures estimated from the request (~4 chars a token), with prompt caching simulated:
        the longest breakpoint prefix seen before is a cache read, the rest up to the last breakpoint a write."""
        total, breakpoints = _prefix_sizes(body)
        read = 0
        with self._cond:
            for key, upto in breakpoints:
                read = upto if key in self._cache else read
            self._cache.update(key for key, _ in breakpoints)
        written = breakpoints[-1][1] - read if breakpoints else 0
        return {
            "input_tokens": max(1, (total - read - written) // 4),
            "output_tokens": 0,
            "cache_read_input_tokens": read // 4,
            "cache_creation_input_tokens": written // 4,
        }


def _prefix_sizes(body: dict[str, Any]) -> tuple[int, list[tuple[str, int]]]:
    """Total size of the prompt, and (hash of the prefix, size of the prefix) at each cache breakpoint."""
    total, digest, breakpoints = 0, hashlib.sha256(), []
    for item in _cache_items(body):
        piece = json.dumps({k: v for k, v in item.items() if k != "cache_control"}, sort_keys=True)
        digest.update(piece.encode())
        total += len(piece)
        if "cache_control" in item:
            breakpoints.append((digest.hexdigest(), total))
    return total, breakpoints
