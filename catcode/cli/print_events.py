"""What ``catcode -p`` prints, in Claude Code's shapes, so a script written for ``claude -p`` reads it unchanged.

``--output-format json``: one ``result`` object at the end (with ``--verbose``: the JSON array of every message, as
Claude Code prints it). ``--output-format stream-json``: one JSON object per line — ``{"type": "system", "subtype":
"init", ...}`` at the start of each turn, then ``{"type": "assistant", "message": {...}}`` for each content block
of a reply (text, tool_use: one event each, sharing the reply's message id, as Claude Code streams them),
``{"type": "user", "message": {...}, "tool_use_result": ..., "timestamp": ...}`` for each tool result, and
``{"type": "result", ...}`` at the end of each turn; ``--include-partial-messages`` adds the API's streaming
events as ``stream_event`` lines. Field names and types follow Claude Code's (``tests/data/claude_code/`` holds the
samples recorded from it that the tests compare against).

``StreamWriter.emit(type, subtype=..., **fields)`` is the one way an event is written (it adds ``session_id`` and
``uuid``): a new kind of event — catcode's notices (``system``/``notice``), recalled memories, a todo list — is one
call. Readers that follow Claude Code's format skip types and subtypes they do not know."""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from catcode.conversation.messages import ToolUseBlock
from catcode.providers.base import ChatResponse, Usage
from catcode.session.agent import AgentEvents, TurnResult
from catcode.session.attached import Recalled
from catcode.settings.claude_settings import CLAUDE_MODE_NAMES
from catcode.text import is_terminal, visible
from catcode.tools.base import ToolResult

if TYPE_CHECKING:
    from catcode.session.session import Session

# Any: the events' JSON fields, and the tool input the approver refused (the model's JSON).


class StreamWriter:
    """Writes one JSON object per line to ``out`` (nothing when ``enabled`` is false), one writer at a time: the
    SDK channel's control frames come from another thread. ``kept`` collects the events instead
    (``--output-format json --verbose``)."""

    def __init__(self, out: TextIO, *, enabled: bool, keep: bool = False) -> None:
        self.out = out
        self.enabled = enabled
        self.session_id = ""
        self.kept: list[dict[str, Any]] | None = [] if keep else None
        self._lock = threading.Lock()

    def emit(self, kind: str, subtype: str | None = None, **fields: Any) -> None:
        """Write ``{"type": kind, "subtype": subtype, ...fields, "session_id", "uuid"}`` as one line."""
        if not self.enabled and self.kept is None:
            return
        event: dict[str, Any] = {"type": kind}
        if subtype is not None:
            event["subtype"] = subtype
        event.update(fields)
        event.setdefault("session_id", self.session_id)
        event.setdefault("uuid", str(uuid.uuid4()))
        if self.kept is not None:
            self.kept.append(event)
        if self.enabled:
            self.write(event)

    def write(self, frame: dict[str, Any]) -> None:
        """One JSON line, whole (another thread's line never lands inside it)."""
        line = json.dumps(frame, ensure_ascii=False) + "\n"
        with self._lock:
            self.out.write(line)
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
    """Prints the answer to stdout (``text``) or Claude Code's events (``stream-json``, or kept for ``json
    --verbose``); notices go to stderr. ``partial``: also the API's streaming events (``stream_event``)."""

    def __init__(
        self,
        output_format: str = "text",
        out: TextIO | None = None,
        err: TextIO | None = None,
        *,
        verbose: bool = False,
        partial: bool = False,
    ) -> None:
        self.format = output_format
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        keep = output_format == "json" and verbose
        self.stream = StreamWriter(self.out, enabled=output_format == "stream-json", keep=keep)
        self._terminal = is_terminal(self.out)
        self.clock = RunClock()
        self.model = ""
        self.stop_reason: str | None = None
        self.permission_denials: list[dict[str, Any]] = []
        self.partial = partial and output_format == "stream-json"
        self._streaming = False  # a partial message is open (``stream_event``)

    def emit(self, kind: str, subtype: str | None = None, **fields: Any) -> None:
        """One event line (``stream-json`` only); see ``StreamWriter.emit``."""
        self.stream.emit(kind, subtype, **fields)

    def on_request(self) -> None:
        """Time the request."""
        self.clock.request()

    def answer(self, text: str) -> None:
        """``text``: the turn's answer (the ``result``: the last reply's text, as Claude Code prints it — not the
        replies before a tool call or a Stop hook's continuation), on a line of its own; to a terminal made visible
        (an escape sequence in the reply is shown, not obeyed), to a file or a pipe as the model wrote it."""
        if self.format == "text" and text:
            self.out.write((visible(text) if self._terminal else text) + "\n")
            self.out.flush()

    def on_text(self, text: str) -> None:
        """With ``--include-partial-messages``, each delta as a ``stream_event`` line as it arrives (stream-json
        carries whole blocks as ``assistant`` events); ``text`` prints only the answer (``answer``)."""
        if self.partial:
            if not self._streaming:
                self._streaming = True
                self._partial({"type": "message_start", "message": self._message([], None, Usage())})
                self._partial(
                    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
                )
            self._partial({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})

    def on_response(self, response: ChatResponse) -> None:
        """One ``assistant`` event per content block of the reply (text, tool_use), as the API returned them; with
        ``--include-partial-messages`` each block's streaming events around it, in Claude Code's order."""
        self.clock.response()
        self.model = response.model or self.model
        self.stop_reason = response.stop_reason
        message_id = f"msg_{uuid.uuid4().hex[:24]}"
        if self.partial and not self._streaming:
            self._partial({"type": "message_start", "message": self._message([], None, Usage())})
        for index, block in enumerate(block.model_dump() for block in response.content):
            if self.partial and block.get("type") == "tool_use":
                start = {**block, "input": {}}
                self._partial({"type": "content_block_start", "index": index, "content_block": start})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}
                self._partial({"type": "content_block_delta", "index": index, "delta": delta})
            message = self._message([block], response.stop_reason, response.usage, message_id)
            self.emit("assistant", message=message, parent_tool_use_id=None, timestamp=now())
            if self.partial:
                self._partial({"type": "content_block_stop", "index": index})
        if self.partial:
            usage = {"output_tokens": response.usage.output_tokens}
            self._partial({"type": "message_delta", "delta": {"stop_reason": response.stop_reason}, "usage": usage})
            self._partial({"type": "message_stop"})
            self._streaming = False

    def _message(
        self, content: list[dict[str, Any]], stop_reason: str | None, usage: Usage, message_id: str | None = None
    ) -> dict[str, Any]:
        return {
            "id": message_id or f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage_fields(usage),
        }

    def _partial(self, event: dict[str, Any]) -> None:
        self.emit("stream_event", event=event, parent_tool_use_id=None)

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A ``user`` event carrying the tool_result block, and what the tool returned (``tool_use_result``)."""
        block = {"type": "tool_result", "tool_use_id": call.id, "content": result.text, "is_error": result.is_error}
        self.emit(
            "user",
            message={"role": "user", "content": [block]},
            parent_tool_use_id=None,
            timestamp=now(),
            tool_use_result=tool_use_result(call, result),
        )

    def on_denied(self, call: ToolUseBlock, reason: str) -> None:
        """A call refused by a rule, the mode or the person (or nobody to ask): in ``permission_denials``."""
        self.permission_denials.append({"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input})

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

    def turn_started(self) -> None:
        """A new turn: its own time, stop reason and denials (``--input-format stream-json`` runs several)."""
        self.clock.restart()
        self.stop_reason = None
        self.permission_denials = []


def now() -> str:
    """An event's ``timestamp``, as Claude Code writes it (``2025-06-01T12:00:00.000Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{datetime.now(UTC).microsecond // 1000:03d}Z"


def tool_use_result(call: ToolUseBlock, result: ToolResult) -> Any:
    """What a ``user`` event's ``tool_use_result`` holds: Claude Code's shape for ``Bash`` (``stdout``, ``stderr``,
    ``interrupted``, ``isImage``), ``"Error: ..."`` for a failed call, the result's text otherwise."""
    if result.is_error:
        return f"Error: {result.text}"
    if call.name == "Bash":
        return {"stdout": result.text, "stderr": "", "interrupted": False, "isImage": False}
    return result.text


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


PROTOCOL_VERSION = "2.1.0"
"""The Claude Code release whose headless output and SDK control protocol catcode speaks: the init message's
``claude_code_version`` (the Agent SDK reads it to tell whether the CLI is recent enough); catcode's own version is
``catcode_version``."""


def init_fields(
    session: Session, cwd: str, api_key_source: str, sdk_servers: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The ``system``/``init`` event's fields: the tools offered, the model, the permission mode, the MCP servers
    (``sdk_servers``: the SDK's in-process ones, with their status)."""
    from catcode import __version__

    servers = sorted(spec.name for spec in session.extensions.servers) if session.extensions is not None else []
    mode = session.policy.mode.value
    agents = getattr(getattr(session, "subagents", None), "agents", None)
    return {
        "cwd": cwd,
        "tools": [name for name in session.tools.names() if not session.policy.denies_whole(name)],
        "mcp_servers": [{"name": name, "status": "pending"} for name in servers] + list(sdk_servers or []),
        "model": session.provider.model,
        "permissionMode": CLAUDE_MODE_NAMES.get(mode, mode),
        "slash_commands": [],  # print mode runs no slash command
        "apiKeySource": api_key_source,
        "claude_code_version": PROTOCOL_VERSION,
        "catcode_version": __version__,
        "output_style": "default",
        "agents": agents.names() if agents is not None and hasattr(agents, "names") else [],
        "skills": [],
        "plugins": [],
    }


TERMINAL_REASONS = {"success": "completed", "error_max_turns": "max_turns"}


def result_fields(
    session: Session,
    result: TurnResult,
    events: PrintEvents,
    *,
    limit_hit: bool,
    usage_by_model: dict[str, Usage],
    structured: Any = None,
) -> dict[str, Any]:
    """The ``result`` object (Claude Code's fields first; catcode's own names kept after them). A turn stopped by
    ``--max-turns`` has ``result`` null and counts the turn it was refused as Claude Code does (``num_turns`` one
    past the limit); ``structured``: the answer to ``--json-schema`` (``structured_output``)."""
    from catcode.providers.pricing import cost_of, price_of

    error = result.error or ("interrupted" if result.interrupted else None)
    subtype = "error_max_turns" if limit_hit else "error_during_execution" if error is not None else "success"
    total, unknown = cost_of(usage_by_model)
    cost = None if total is None else round(total, 6)
    terminal = TERMINAL_REASONS.get(subtype, "aborted" if result.interrupted else "error")
    # with --json-schema the answer is the structured value, as compact JSON (Claude Code's ``result``)
    answer = result.text if structured is None else json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    fields: dict[str, Any] = {
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": int((time.monotonic() - events.clock.started) * 1000),
        "duration_api_ms": int(events.clock.api_seconds * 1000),
        "num_turns": result.rounds + 1 if limit_hit else result.rounds,
        "result": None if limit_hit else answer if error is None else error,
        "stop_reason": events.stop_reason,
        "session_id": session.session_id,
        "total_cost_usd": cost,
        "usage": usage_fields(result.usage),
        "modelUsage": {
            model: model_usage(usage, price.cost(usage) if (price := price_of(model)) is not None else None)
            for model, usage in usage_by_model.items()
        },
        "permission_denials": list(events.permission_denials),
        "terminal_reason": terminal,
    }
    if structured is not None:
        fields["structured_output"] = structured
    if limit_hit:
        fields["errors"] = [f"Reached maximum number of turns ({result.rounds})"]
    elif error is not None:
        fields["errors"] = [error]
    return {
        **fields,
        # catcode's earlier names, kept for scripts written against them
        "model": session.provider.model,
        "num_rounds": result.rounds,
        "cost_usd": cost,
        "cost_unknown_models": unknown,
        "error": error,
    }


def model_usage(usage: Usage, cost: float | None) -> dict[str, Any]:
    """One model's entry of ``modelUsage``, in Claude Code's camelCase (``costUSD`` null without a price)."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadInputTokens": usage.cache_read_input_tokens,
        "cacheCreationInputTokens": usage.cache_creation_input_tokens,
        "webSearchRequests": 0,
        "costUSD": None if cost is None else round(cost, 6),
    }
