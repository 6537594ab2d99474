"""What ``catcode -p`` prints, in Claude Code's shapes, so a script written for ``claude -p`` reads it unchanged.

``--output-format json``: one ``result`` object at the end. ``--output-format stream-json``: one JSON object per
line — ``{"type": "system", "subtype": "init", ...}`` first, then ``{"type": "assistant", "message": {...}}`` for
each reply (the API's content blocks: text, tool_use), ``{"type": "user", "message": {...}}`` for each tool result,
and ``{"type": "result", ...}`` at the end of each turn. Field names and types follow Claude Code's headless
documentation (``tests/data/claude_code/stream.jsonl`` is the recorded sample the tests compare against).

``StreamWriter.emit(type, subtype=..., **fields)`` is the one way an event is written (it adds ``session_id`` and
``uuid``): a new kind of event — catcode's notices (``system``/``notice``), recalled memories, a todo list — is one
call. Readers that follow Claude Code's format skip types and subtypes they do not know."""

from __future__ import annotations

import json
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from catcode.conversation.messages import ToolUseBlock
from catcode.providers.base import ChatResponse, Usage
from catcode.session.agent_events import AgentEvents, TurnResult
from catcode.session.loop_seams import Recalled
from catcode.text import is_terminal, visible
from catcode.tools.base import ToolResult

if TYPE_CHECKING:
    from catcode.session.session import Session

# Any: the events' JSON fields, and the tool input the approver refused (the model's JSON).

CLAUDE_MODES = {"default": "default", "accept-edits": "acceptEdits", "bypass": "bypassPermissions", "plan": "plan"}
"""catcode's permission modes as Claude Code spells them (``read-only`` has no Claude Code name and stays as is)."""


class StreamWriter:
    """Writes one JSON object per line to ``out`` (nothing when ``enabled`` is false)."""

    def __init__(self, out: TextIO, *, enabled: bool) -> None:
        self.out = out
        self.enabled = enabled
        self.session_id = ""

    def emit(self, kind: str, subtype: str | None = None, **fields: Any) -> None:
        """Write ``{"type": kind, "subtype": subtype, ...fields, "session_id", "uuid"}`` as one line."""
        if not self.enabled:
            return
        event: dict[str, Any] = {"type": kind}
        if subtype is not None:
            event["subtype"] = subtype
        event.update(fields)
        event.setdefault("session_id", self.session_id)
        event.setdefault("uuid", str(uuid.uuid4()))
        self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.out.flush()


@dataclass
class RunClock:
    """Wall time of the run and time spent waiting for the API (``duration_ms``, ``duration_api_ms``)."""

    started: float = field(default_factory=time.monotonic)
    api_seconds: float = 0.0
    _request: float | None = None

    def request(self) -> None:
        """A request is sent."""
        self._request = time.monotonic()

    def response(self) -> None:
        """Its reply arrived."""
        if self._request is not None:
            self.api_seconds += time.monotonic() - self._request
            self._request = None

    def restart(self) -> None:
        """A new turn begins (``--input-format stream-json``: each turn's result counts its own time)."""
        self.started, self.api_seconds, self._request = time.monotonic(), 0.0, None


class PrintEvents(AgentEvents):
    """Streams the answer to stdout (``text``) or Claude Code's events (``stream-json``); notices go to stderr."""

    def __init__(self, output_format: str = "text", out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.format = output_format
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.wrote = False
        self.stream = StreamWriter(self.out, enabled=output_format == "stream-json")
        self._terminal = is_terminal(self.out)
        self.clock = RunClock()
        self.model = ""
        self.denied: list[tuple[str, dict[str, Any]]] = []  # refused by the approver, waiting for their call's id
        self.permission_denials: list[dict[str, Any]] = []

    def emit(self, kind: str, subtype: str | None = None, **fields: Any) -> None:
        """One event line (``stream-json`` only); see ``StreamWriter.emit``."""
        self.stream.emit(kind, subtype, **fields)

    def on_request(self) -> None:
        """Time the request."""
        self.clock.request()

    def on_text(self, text: str) -> None:
        """``text``: write each delta as it arrives (stream-json carries whole replies as ``assistant`` events);
        to a terminal, made visible (an escape sequence in the reply is shown, not obeyed), to a file or a pipe as
        the model wrote it."""
        self.wrote = True
        if self.format == "text":
            self.out.write(visible(text) if self._terminal else text)
            self.out.flush()

    def on_response(self, response: ChatResponse) -> None:
        """An ``assistant`` event with the reply's content blocks (text and tool_use), as the API returned them."""
        self.clock.response()
        self.model = response.model or self.model
        message = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": response.model or self.model,
            "content": [block.model_dump() for block in response.content],
            "stop_reason": response.stop_reason,
            "stop_sequence": None,
            "usage": usage_fields(response.usage),
        }
        self.emit("assistant", message=message, parent_tool_use_id=None)

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A ``user`` event carrying the tool_result block; a call the approver refused joins
        ``permission_denials``."""
        if result.is_error and (call.name, call.input) in self.denied:
            self.denied.remove((call.name, call.input))
            self.permission_denials.append({"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input})
        block = {"type": "tool_result", "tool_use_id": call.id, "content": result.text, "is_error": result.is_error}
        self.emit("user", message={"role": "user", "content": [block]}, parent_tool_use_id=None)

    def on_notice(self, text: str) -> None:
        """One line on stderr (and a ``system``/``notice`` event)."""
        self.err.write(f"catcode: {visible(text)}\n")
        self.err.flush()
        self.emit("system", "notice", text=text)

    def on_recall(self, recalled: Recalled) -> None:
        """A ``system``/``recall`` event for each message: what per-turn recall attached, or why it was skipped
        (``recall_fields``); with the other formats a skip is one line on stderr."""
        self.emit("system", "recall", **recall_fields(recalled))
        if recalled.skipped and self.format != "stream-json":
            self.err.write(f"catcode: {recalled.line}\n")
            self.err.flush()

    def refused(self, tool_name: str, tool_input: dict[str, Any]) -> None:
        """The approver refused a call (nobody to ask): reported in the result's ``permission_denials``."""
        self.denied.append((tool_name, tool_input))


def recall_fields(recalled: Recalled) -> dict[str, Any]:
    """The fields of the ``system``/``recall`` event (``memory.auto_recall.Recalled``): each item's name, kind
    (memory or turn), scope, score and the (redacted) text sent; the characters attached; the milliseconds from the
    message to the answer; ``skipped`` and, when nothing was attached, ``reason`` ("slow: …", "failed: …",
    "busy: …", or "nothing matched")."""
    reason = recalled.skipped or (None if recalled.items else "nothing matched")
    return {
        "items": [item.as_dict() for item in recalled.items],
        "chars": len(recalled.text),
        "elapsed_ms": round(recalled.elapsed_ms, 1),
        "skipped": bool(recalled.skipped),
        "reason": reason,
    }


def usage_fields(usage: Usage) -> dict[str, int]:
    """The API's usage object."""
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": usage.output_tokens,
    }


def init_fields(session: Session, cwd: str, api_key_source: str) -> dict[str, Any]:
    """The ``system``/``init`` event's fields: the tools offered, the model, the permission mode, the MCP servers."""
    servers = sorted(spec.name for spec in session.extensions.servers) if session.extensions is not None else []
    mode = session.policy.mode.value
    return {
        "cwd": cwd,
        "tools": [name for name in session.tools.names() if not session.policy.denies_whole(name)],
        "mcp_servers": [{"name": name, "status": "pending"} for name in servers],
        "model": session.provider.model,
        "permissionMode": CLAUDE_MODES.get(mode, mode),
        "slash_commands": [],  # print mode runs no slash command
        "apiKeySource": api_key_source,
        "output_style": "default",
    }


def result_fields(
    session: Session, result: TurnResult, events: PrintEvents, *, limit_hit: bool, usage_by_model: dict[str, Usage]
) -> dict[str, Any]:
    """The ``result`` object (Claude Code's fields first; catcode's own names kept after them)."""
    from catcode.providers.pricing import cost_of

    error = result.error or ("interrupted" if result.interrupted else None)
    subtype = "error_max_turns" if limit_hit else "error_during_execution" if error is not None else "success"
    total, unknown = cost_of(usage_by_model)
    cost = None if total is None else round(total, 6)
    return {
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": int((time.monotonic() - events.clock.started) * 1000),
        "duration_api_ms": int(events.clock.api_seconds * 1000),
        "num_turns": result.rounds,
        "result": result.text if error is None or limit_hit else error,
        "session_id": session.session_id,
        "total_cost_usd": cost,
        "usage": usage_fields(result.usage),
        "permission_denials": list(events.permission_denials),
        # catcode's earlier names, kept for scripts written against them
        "model": session.provider.model,
        "num_rounds": result.rounds,
        "cost_usd": cost,
        "cost_unknown_models": unknown,
        "error": error,
    }
