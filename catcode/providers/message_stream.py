"""The Messages API's streamed answer, read by the lean client: server-sent events (``sse_events``) and the reply
they add up to (``MessageStream``), accumulated as the SDK's ``MessageStream`` accumulates them — text deltas
joined, a tool call's input parsed from its JSON chunks, usage from ``message_start`` overwritten by the totals of
``message_delta`` — and kept to what catcode uses: text and tool_use blocks, the stop reason, usage and model."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from catcode.conversation.messages import ContentBlock, TextBlock, ToolUseBlock
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.failures import ApiStatusFailure, status_detail

# Any: server-sent events carry Messages API JSON.

USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def sse_events(lines: Iterable[bytes]) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` for each event of a ``text/event-stream`` given line by line (the WHATWG rules: ``data``
    lines joined by newlines, comments and unknown fields skipped, an event dispatched at a blank line)."""
    event: str | None = None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if event is not None or data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if event is not None or data:
        yield event, "\n".join(data)


class MessageStream:
    """Feeds on the stream's events (``feed``); ``response()`` once ``done`` (``message_stop`` was seen)."""

    def __init__(self, model: str, on_text: Callable[[str], None] | None) -> None:
        self.model = model
        self.on_text = on_text
        self.done = False
        self.started = False
        self.stop_reason: str | None = None
        self.usage: dict[str, int | None] = dict.fromkeys(USAGE_FIELDS, 0)
        self.blocks: list[dict[str, Any]] = []
        self._json: dict[int, str] = {}

    def feed(self, event: str | None, data: str) -> None:
        """One event. ``event: error`` raises ``ApiStatusFailure`` (``began``); unknown events are skipped."""
        if event is None or event == "ping":
            return
        if event == "error":
            detail, kind = status_detail(200, data or "Error code: 200")
            raise ApiStatusFailure(200, detail, error_type=kind, began=True)
        if not data:
            return
        payload = json.loads(data)
        kind = payload.get("type", event)
        if kind == "message_start":
            message = payload.get("message") or {}
            self.started = True
            self.model = message.get("model") or self.model
            self.usage.update({k: v for k, v in (message.get("usage") or {}).items() if k in USAGE_FIELDS})
        elif not self.started:
            raise RuntimeError(f'Unexpected event order, got {kind} before "message_start"')
        elif kind == "content_block_start":
            self.blocks.append(dict(payload.get("content_block") or {}))
        elif kind == "content_block_delta":
            self._delta(payload.get("index", 0), payload.get("delta") or {})
        elif kind == "message_delta":
            self.stop_reason = (payload.get("delta") or {}).get("stop_reason")
            usage = payload.get("usage") or {}
            self.usage["output_tokens"] = usage.get("output_tokens")
            # cumulative totals: they overwrite, and an optional one left out keeps message_start's value
            self.usage.update({k: v for k, v in usage.items() if k in USAGE_FIELDS and v is not None})
        elif kind == "message_stop":
            self.done = True

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks[index]
        if delta.get("type") == "text_delta" and block.get("type") == "text":
            text = delta.get("text") or ""
            block["text"] = (block.get("text") or "") + text
            if text and self.on_text is not None:
                self.on_text(text)
        elif delta.get("type") == "input_json_delta" and block.get("type") == "tool_use":
            self._json[index] = self._json.get(index, "") + (delta.get("partial_json") or "")

    def response(self) -> ChatResponse:
        """The whole reply: text and tool_use blocks (an empty text block would make the next request invalid)."""
        content: list[ContentBlock] = []
        for index, block in enumerate(self.blocks):
            if block.get("type") == "text" and block.get("text"):
                content.append(TextBlock(text=block["text"]))
            elif block.get("type") == "tool_use":
                content.append(ToolUseBlock(id=block["id"], name=block["name"], input=self._input(index, block)))
        usage = Usage(**{k: int(self.usage.get(k) or 0) for k in USAGE_FIELDS})
        return ChatResponse(content, self.stop_reason, usage, str(self.model))

    def _input(self, index: int, block: dict[str, Any]) -> dict[str, Any]:
        raw = self._json.get(index, "")
        if not raw:
            return dict(block.get("input") or {})
        try:
            value = json.loads(raw)
        except ValueError as err:
            raise ValueError(
                f"Unable to parse tool parameter JSON from model. Please retry your request or adjust your prompt. "
                f"Error: {err}. JSON: {raw}"
            ) from err
        return dict(value or {})
