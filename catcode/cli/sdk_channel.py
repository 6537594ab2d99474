"""The two-way channel of ``--input-format stream-json``: the Claude Agent SDK's control protocol over stdin and
stdout (its source is the contract: ``_internal/query.py`` of the Python SDK).

stdin carries JSON lines: ``user`` messages (one turn each), ``control_request`` (the SDK asks something of
catcode: ``initialize``, ``interrupt``, ``set_permission_mode``...) and ``control_response`` (the SDK's answer to a
request of catcode's: ``can_use_tool``, ``hook_callback``, ``mcp_message``). A reader thread reads them as they
come, so a request arriving mid-turn (``interrupt``) is answered at once; user messages wait in a queue for the
turn loop. stdout carries the events (``StreamWriter``) and the control frames, one writer at a time.

``ask`` sends a request and blocks until the SDK answers it (or stdin closes: then it raises ``ChannelClosed``,
and whoever asked — a permission, a hook — refuses rather than runs unchecked)."""

from __future__ import annotations

import queue
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from catcode.app.stdin_input import cut_note
from catcode.app.stream_input import StreamLine, read_lines, user_text
from catcode.cli.print_events import StreamWriter
from catcode.log import get_logger

# Any: the protocol's frames are JSON objects.

log = get_logger(__name__)

Handler = Callable[[dict[str, Any]], dict[str, Any]]
"""Answers one control request from the SDK: its ``response`` object, or raises ``ControlError``."""


class ControlError(Exception):
    """A control request that cannot be done: the SDK receives ``{"subtype": "error", "error": str(exc)}``."""


class ChannelClosed(Exception):
    """stdin closed (or the SDK answered with an error) before the answer to a request of catcode's came."""


@dataclass
class UserMessage:
    """One ``user`` line: its text (text blocks joined) and the images it carries as API blocks."""

    text: str
    raw: Any = None


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] | None = None
    error: str | None = None


class SdkChannel:
    """Reads stdin on a thread of its own; routes each line (see the module docstring)."""

    def __init__(self, stdin: IO[str], writer: StreamWriter, *, prompt: str | None = None) -> None:
        self.stdin = stdin
        self.writer = writer
        self.handlers: dict[str, Handler] = {}
        self.messages: queue.Queue[UserMessage | None] = queue.Queue()
        self._pending: dict[str, _Pending] = {}
        self._lock = threading.Lock()
        self.closed = False
        self.bad_lines: list[str] = []
        if prompt and prompt.strip():
            self.messages.put(UserMessage(prompt))
        self._thread = threading.Thread(target=self._read, name="sdk-channel", daemon=True)

    def start(self) -> None:
        """Start reading stdin."""
        self._thread.start()

    def next_message(self) -> UserMessage | None:
        """The next user message; None once stdin is closed and none is left."""
        return self.messages.get()

    def ask(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """Send a control request to the SDK and wait for its answer (``ChannelClosed`` when none can come)."""
        request_id = str(uuid.uuid4())
        pending = _Pending()
        with self._lock:
            if self.closed:
                raise ChannelClosed("stdin is closed: the SDK cannot answer")
            self._pending[request_id] = pending
        request = {"subtype": subtype, **fields}
        try:
            self.writer.write({"type": "control_request", "request_id": request_id, "request": request})
            pending.done.wait()
        finally:  # an interrupt (Ctrl+C, the SDK's) abandons the request
            with self._lock:
                self._pending.pop(request_id, None)
        if pending.error is not None or pending.answer is None:
            raise ChannelClosed(pending.error or "no answer")
        return pending.answer

    def _read(self) -> None:
        try:
            for line in read_lines(self.stdin):  # each line bounded as piped text is (``app/stream_input.py``)
                self._route(line)
        except (OSError, ValueError) as exc:  # stdin closed under the reader
            log.info("sdk_channel_read_ended", error=str(exc))
        finally:
            with self._lock:
                self.closed = True
                pending = list(self._pending.values())
            for item in pending:
                item.error = "stdin closed before the SDK answered"
                item.done.set()
            self.messages.put(None)

    def _route(self, line: StreamLine) -> None:
        data = line.data
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "control_request":
            self._answer(data)
        elif kind == "control_response":
            self._deliver(as_object(data.get("response")))
        elif kind not in ("control_cancel_request", "keep_alive"):
            self._user(line)

    def _user(self, line: StreamLine) -> None:
        found = user_text(line.data)
        if found is None:
            self.bad_lines.append(f"stdin line {line.number}: not a user message in stream-json, skipped")
            return
        text, cut = found
        if cut or line.cut:
            note = cut_note(f"stdin line {line.number}")
            self.bad_lines.append(note)
            text = f"{text}\n{note}"
        self.messages.put(UserMessage(text, line.data))

    def _answer(self, frame: dict[str, Any]) -> None:
        request_id = frame.get("request_id")
        request = as_object(frame.get("request"))
        subtype = str(request.get("subtype", ""))
        handler = self.handlers.get(subtype)
        response: dict[str, Any]
        try:
            if handler is None:
                raise ControlError(f"catcode does not support the control request {subtype!r}")
            response = {"subtype": "success", "request_id": request_id, "response": handler(request)}
        except ControlError as exc:
            response = {"subtype": "error", "request_id": request_id, "error": str(exc)}
        except Exception as exc:  # a handler's own failure is the SDK's error, never the reader's end
            log.warning("sdk_control_failed", subtype=subtype, exc_info=True)
            response = {"subtype": "error", "request_id": request_id, "error": f"{subtype} failed: {exc}"}
        self.writer.write({"type": "control_response", "response": response})

    def _deliver(self, response: dict[str, Any]) -> None:
        with self._lock:
            pending = self._pending.get(str(response.get("request_id")))
        if pending is None:
            return
        if response.get("subtype") == "error":
            pending.error = str(response.get("error") or "the SDK answered with an error")
        else:
            answer = response.get("response")
            pending.answer = answer if isinstance(answer, dict) else {}
        pending.done.set()


def as_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}
