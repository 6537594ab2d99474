"""``ScriptedProvider``: replays queued responses and records every request. The unit-test seam."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from catcode.conversation.messages import ContentBlock, Message, TextBlock, ToolUseBlock
from catcode.providers.base import ChatOptions, ChatResponse, OnText, ToolSpec, Usage

# Any: a tool call's input is the model's JSON object.


@dataclass
class RecordedRequest:
    """One call as the provider saw it (copies, so later mutation of history does not change it)."""

    messages: list[Message]
    system: str
    tools: list[ToolSpec]
    options: ChatOptions

    @property
    def system_messages(self) -> list[str]:
        """Texts of the per-request system messages appended by hooks."""
        return [m.text for m in self.messages if m.role == "system"]


Scripted = ChatResponse | BaseException | Callable[[RecordedRequest], "ChatResponse"]


class UnexpectedCall(AssertionError):
    """The code under test called the provider more times than the test scripted."""


class ScriptedProvider:
    """Answers each ``chat`` with the next queued item: a ``ChatResponse``, an exception to raise, or a
    callable computing the response from the request. Thread-safe (memory runs in the background)."""

    def __init__(self, *items: Scripted, model: str = "scripted-model") -> None:
        self.model = model
        self._queue: list[Scripted] = list(items)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()

    def queue(self, *items: Scripted) -> None:
        """Append more scripted answers."""
        with self._lock:
            self._queue.extend(items)

    def chat(
        self, messages: list[Message], system: str, tools: list[ToolSpec], options: ChatOptions, on_text: OnText = None
    ) -> ChatResponse:
        """Record the request and play the next scripted item."""
        request = RecordedRequest([m.model_copy(deep=True) for m in messages], system, list(tools), options)
        with self._lock:
            self.requests.append(request)
            if not self._queue:
                raise UnexpectedCall(f"unexpected provider call #{len(self.requests)} (purpose={options.purpose})")
            item = self._queue.pop(0)
        if isinstance(item, BaseException):
            raise item
        response = item(request) if callable(item) else item
        if on_text:
            for block in response.content:
                if isinstance(block, TextBlock) and block.text:
                    on_text(block.text)
        return response

    def assert_complete(self) -> None:
        """Fail if scripted answers were left unused."""
        assert not self._queue, f"{len(self._queue)} scripted responses were never requested"


def text_response(text: str, *, input_tokens: int = 10, output_tokens: int = 5) -> ChatResponse:
    """A plain end_turn answer."""
    return ChatResponse([TextBlock(text=text)], "end_turn", Usage(input_tokens, output_tokens))


def tool_response(name: str, input: dict[str, Any], *, id: str | None = None, text: str = "") -> ChatResponse:
    """An answer that calls one tool."""
    blocks: list[ContentBlock] = [TextBlock(text=text)] if text else []
    blocks.append(ToolUseBlock(id=id or f"toolu_{name}_{abs(hash(str(input))) % 10**8}", name=name, input=input))
    return ChatResponse(blocks, "tool_use", Usage(10, 5))
