"""The provider seam: what the agent and the memory pipeline need from a model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from catcode.conversation.messages import ContentBlock, Message, TextBlock

# Any: a tool's description is Messages API JSON.


@dataclass(frozen=True)
class ChatOptions:
    """Per-call options."""

    max_tokens: int = 8192
    temperature: float | None = None
    model: str | None = None  # None: the provider's configured model
    purpose: str = "chat"  # "chat", "memory", "compact": logged, and lets a provider pick a cheaper model


@dataclass
class Usage:
    """Token figures reported for one call."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def add(self, other: Usage) -> None:
        """Accumulate ``other`` into this one."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_input_tokens += other.cache_read_input_tokens
        self.cache_creation_input_tokens += other.cache_creation_input_tokens

    @property
    def context_tokens(self) -> int:
        """Everything the request occupied in the context window (cached or not)."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


@dataclass
class ChatResponse:
    """The model's reply."""

    content: list[ContentBlock]
    stop_reason: str | None = "end_turn"
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


ToolSpec = dict[str, Any]
"""A tool as the Messages API describes it: ``{"name", "description", "input_schema"}``."""
OnText = Callable[[str], None] | None
"""Receives the reply's text deltas as they stream (None: nobody is listening)."""


class LLMProvider(Protocol):
    """Anything that answers a conversation.

    ``messages`` may contain SYSTEM messages appended by hooks for this request only; a provider places
    them after ``system`` (the static base prompt). ``on_text`` receives text deltas as they stream.
    Failures after retries raise ``ProviderError``; ``KeyboardInterrupt`` propagates unchanged.
    """

    model: str

    def chat(
        self, messages: list[Message], system: str, tools: list[ToolSpec], options: ChatOptions, on_text: OnText = None
    ) -> ChatResponse:
        """Send one request and return the complete response."""
        ...
