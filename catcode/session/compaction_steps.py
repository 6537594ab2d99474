"""The two steps of compaction that work on messages alone: shortening old tool outputs (``micro_compact``) and the
one LLM call that summarises the oldest turns (``summarise``). ``compaction.py`` orders them and decides where
to cut.
"""

from __future__ import annotations

from catcode.boundary import wrap
from catcode.conversation.messages import Message, ToolResultBlock
from catcode.conversation.transcript import TranscriptStyle, render_transcript
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.session.compaction_marks import STUB_PREFIX, turn_starts
from catcode.settings.compaction import CompactConfig
from catcode.text import shorten

__all__ = ["SUMMARY_INSTRUCTIONS", "SUMMARY_SYSTEM", "micro_compact", "summarise"]

_TOOL_INPUT_CHARS = 500  # tool_use input shown to the summariser; the result matters more than the call

SUMMARY_SYSTEM = "You compress a coding-assistant conversation so the assistant can continue without the original."
SUMMARY_INSTRUCTIONS = """Summarise the conversation transcript below. The summary replaces the original \
messages, so keep everything needed to continue the work, under these Markdown headings:
## Goals and instructions: what the user wants; every instruction, preference or correction they gave.
## Decisions: what was decided, and why.
## Files touched: paths read, created or edited, and what changed in each.
## Current state: where the work stands now.
## Open tasks: what is still to do.
Fold any earlier "[Conversation Summary]" in the transcript in. Be concise; drop tool output that no longer \
matters."""


def _stub(tool: str, content: str) -> str:
    first = next((line for line in content.splitlines() if line.strip()), "")
    return f"{STUB_PREFIX}{tool} returned {len(content):,} chars; first line: {shorten(first, 80)}]"


def micro_compact(messages: list[Message], keep_recent_turns: int, max_chars: int) -> tuple[list[Message], int]:
    """Stub tool_result contents longer than ``max_chars`` outside the last ``keep_recent_turns`` turns.
    Returns the new list (unchanged messages are the same objects) and how many results were stubbed."""
    starts = turn_starts(messages)
    spare_from = starts[-keep_recent_turns] if len(starts) >= keep_recent_turns else 0
    names: dict[str, str] = {}
    out: list[Message] = []
    stubbed = 0
    for i, msg in enumerate(messages):
        names.update((b.id, b.name) for b in msg.tool_uses)
        if i >= spare_from or not msg.is_tool_result:
            out.append(msg)
            continue
        blocks = list(msg.content)
        for j, b in enumerate(blocks):
            if isinstance(b, ToolResultBlock) and len(b.content) > max_chars and not b.content.startswith(STUB_PREFIX):
                blocks[j] = b.model_copy(update={"content": _stub(names.get(b.tool_use_id, "tool"), b.content)})
                stubbed += 1
        out.append(msg if blocks == msg.content else msg.model_copy(update={"content": blocks}))
    return out, stubbed


def summarise(provider: LLMProvider, config: CompactConfig, head: list[Message], focus: str | None) -> str:
    """One LLM call summarising ``head`` (with the ``focus`` of ``/compact``); raises when it returns no text."""
    style = TranscriptStyle(call_chars=_TOOL_INPUT_CHARS, result_chars=config.tool_result_max_chars)
    transcript = render_transcript(head, style)
    focus_line = f"Focus the summary on: {focus}\n\n" if focus else ""
    prompt = f"{SUMMARY_INSTRUCTIONS}\n\n{focus_line}{wrap('transcript', transcript)}"
    options = ChatOptions(max_tokens=config.summary_max_tokens, temperature=0.3, purpose="compact")
    text = provider.chat([Message.user(prompt)], SUMMARY_SYSTEM, [], options).text.strip()
    if not text:
        raise ValueError("the summary call returned no text")
    return text
