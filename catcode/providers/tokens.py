"""Token accounting for context compaction: a cheap estimator, the context-window table and ``TokenCounter``.

The estimator never calls a tokenizer: it must run before every request on conversations of hundreds of
messages. Its rule (documented in ``estimate_tokens``) errs on the generous side for prose and code, and
counts CJK text per character, where a chars/4 rule would undercount it four-fold."""

from __future__ import annotations

import json
import math

from catcode.conversation.messages import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.providers.base import ToolSpec, Usage

ASCII_CHARS_PER_TOKEN = 4
"""ASCII prose and code average about four characters per token."""

NARROW_CHARS_PER_TOKEN = 2
"""Two-byte UTF-8 characters (accented Latin, Cyrillic, Greek...) cost about two per token."""

MESSAGE_OVERHEAD_TOKENS = 4
"""Role and framing tokens every message costs on top of its content."""

BLOCK_OVERHEAD_TOKENS = 3
"""Framing a tool_use or tool_result block costs on top of its payload (ids, type tags)."""

DEFAULT_CONTEXT_WINDOW = 200_000
"""The window assumed for a model id the table does not know."""

BUDGET_FRACTION = 0.8
"""Share of the window a conversation may fill before it is compacted (room for the reply and tools)."""

# Longest prefix wins. claude-* models have a 200k window; the 1M-token window is an opt-in beta that the
# model id does not reveal, so it is reached through ``compact.token_budget`` rather than guessed here.
_CONTEXT_WINDOWS: tuple[tuple[str, int], ...] = (("claude-", 200_000),)


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``, by UTF-8 width: ASCII at 4 chars/token; 2-byte characters (accented
    Latin, Cyrillic, Greek, Arabic, Hebrew) at 2 chars/token; 3-byte characters (CJK ideographs, kana,
    Hangul, CJK punctuation, most symbols) 1 token each; 4-byte characters (emoji, rare ideographs) 2 tokens
    each. Rounded up, so any non-empty text costs at least 1. Two C-speed encodes, no per-char Python loop."""
    if text.isascii():
        return -(-len(text) // ASCII_CHARS_PER_TOKEN)
    ascii_count = len(text.encode("ascii", "ignore"))
    others = len(text) - ascii_count
    # Beyond 2 bytes per non-ASCII character, each extra byte is one "wide" token: n3 + 2 * n4.
    wide = len(text.encode("utf-8", "surrogatepass")) - ascii_count - 2 * others
    narrow = max(others - wide, 0)  # exact unless 4-byte characters are present, then slightly low
    return math.ceil(ascii_count / ASCII_CHARS_PER_TOKEN + narrow / NARROW_CHARS_PER_TOKEN + wide)


IMAGE_TOKENS = 1600
"""What an image costs at most in input tokens (the API scales larger images down to about this)."""


def estimate_message_tokens(msg: Message) -> int:
    """Estimated tokens of one message: text, tool_use name and input JSON, tool_result content, plus a
    small per-message and per-block overhead."""
    total = MESSAGE_OVERHEAD_TOKENS
    for block in msg.content:
        if isinstance(block, TextBlock):
            total += estimate_tokens(block.text)
        elif isinstance(block, ToolUseBlock):
            payload = json.dumps(block.input, ensure_ascii=False, separators=(",", ":"))
            total += BLOCK_OVERHEAD_TOKENS + estimate_tokens(block.name) + estimate_tokens(payload)
        elif isinstance(block, ToolResultBlock):
            total += BLOCK_OVERHEAD_TOKENS + estimate_tokens(block.content) + IMAGE_TOKENS * len(block.images)
        elif isinstance(block, ImageBlock):
            total += BLOCK_OVERHEAD_TOKENS + IMAGE_TOKENS
    return total


def estimate_messages_tokens(messages: list[Message]) -> int:
    """Estimated tokens of a list of messages."""
    return sum(estimate_message_tokens(m) for m in messages)


def estimate_request_overhead(system: str, tools: list[ToolSpec]) -> int:
    """Estimated tokens of what every request carries besides the conversation: system prompt and tools."""
    return estimate_tokens(system) + sum(estimate_tokens(json.dumps(t, ensure_ascii=False)) for t in tools)


def context_window(model_id: str) -> int:
    """The context window, in tokens, of ``model_id`` (by id prefix; 200k when unknown)."""
    model = model_id.lower()
    matches = [(len(prefix), window) for prefix, window in _CONTEXT_WINDOWS if model.startswith(prefix)]
    return max(matches)[1] if matches else DEFAULT_CONTEXT_WINDOW


def default_budget(model_id: str) -> int:
    """The compaction budget when none is configured: 80% of the model's window."""
    return int(context_window(model_id) * BUDGET_FRACTION)


class TokenCounter:
    """Tracks the conversation's size between requests.

    After a response, the size is what the API reported (``usage.context_tokens``: system prompt, tools,
    injected blocks and the messages sent) plus an estimate of the messages added since. Before the first
    response, or once the history was rewritten (compaction), everything is estimated, plus
    ``overhead_tokens`` for the system prompt and tools.
    """

    def __init__(self, overhead_tokens: int = 0) -> None:
        self.overhead_tokens = overhead_tokens
        self._reported = 0
        self._sent_count = 0
        self._anchor: Message | None = None  # last message sent; identifies the history the report is about

    def record(self, usage: Usage, sent: list[Message]) -> None:
        """Remember a response's usage and the stored messages its request carried."""
        if usage.context_tokens <= 0 or not sent:
            self.reset()
            return
        self._reported = usage.context_tokens
        self._sent_count = len(sent)
        self._anchor = sent[-1]

    @property
    def reported(self) -> int:
        """The context size the last response reported (0: none since the start, compaction or /clear)."""
        return self._reported

    def reset(self) -> None:
        """Forget the last report; the next ``count`` estimates everything."""
        self._reported, self._sent_count, self._anchor = 0, 0, None

    def count(self, messages: list[Message]) -> int:
        """The current size of a request carrying ``messages``."""
        n = self._sent_count
        # The report only applies while the history still starts with what was sent (compaction replaces it).
        if self._anchor is not None and len(messages) >= n and messages[n - 1] is self._anchor:
            return self._reported + estimate_messages_tokens(messages[n:])
        return self.overhead_tokens + estimate_messages_tokens(messages)
