"""One way to write a conversation out for a model to read, used by every prompt that shows one: the extractor's
(the seed's ``USER:`` / ``ASSISTANT:`` lines), the context-compaction summary, the session summary and the history
summary. They differ only in how much of each part they keep: a ``TranscriptStyle``.

    USER: 继续昨天的重构，把 UserService 也改成 Kotlin 风格
    ASSISTANT: 好的，让我先看一下...
      [Tool Calls: read_file]
      [Tool Results: (文件内容预览...)]
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from catcode.conversation.messages import Message, ToolResultBlock, ToolUseBlock
from catcode.text import shorten


@dataclass(frozen=True)
class TranscriptStyle:
    """How much of a conversation a transcript keeps."""

    text_chars: int | None = None
    """A message's text is cut after this many characters, saying how many more there were; None keeps it all."""
    call_chars: int = 0
    """Tool calls show their arguments as JSON shortened to this many characters; 0 shows their names only."""
    result_chars: int = 200
    """Each tool result is shown on one line, shortened to this many characters."""


EXTRACTION = TranscriptStyle(text_chars=8_000)
"""The extractor's prompt, as the seed shows it: one pasted log must not crowd the rest of the window out."""
SUMMARY = TranscriptStyle(text_chars=1_000, call_chars=200, result_chars=300)
"""The session summary and the history summary: what was asked, done and decided, tool output shortened."""


def render_transcript(messages: Iterable[Message], style: TranscriptStyle = EXTRACTION) -> str:
    """``ROLE: text`` per message, then ``  [Tool Calls: ...]`` and ``  [Tool Results: ...]`` lines."""
    lines: list[str] = []
    for message in messages:
        message = message.without_images()  # an image is its [image name] placeholder
        results, text = message.tool_results, message.text
        if results:
            lines.append(f"  [Tool Results: {' | '.join(_result(r, style) for r in results)}]")
        if text or not results:
            lines.append(f"{message.role.value.upper()}: {_cap(text, style.text_chars)}".rstrip())
        if message.tool_uses:
            lines.append(f"  [Tool Calls: {', '.join(_call(u, style) for u in message.tool_uses)}]")
    return "\n".join(lines)


def _cap(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def _call(use: ToolUseBlock, style: TranscriptStyle) -> str:
    if not style.call_chars:
        return use.name
    arguments = json.dumps(use.input, ensure_ascii=False, separators=(",", ":"))
    return f"{use.name} {shorten(arguments, style.call_chars)}"


def _result(result: ToolResultBlock, style: TranscriptStyle) -> str:
    return shorten(result.content, style.result_chars)
