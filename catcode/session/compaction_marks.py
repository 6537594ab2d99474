"""What compaction leaves in a history, and where it may cut one.

A cut happens only right before a user message that is not a tool_result (``turn_starts``). Compaction inserts a
summary (``SUMMARY_MARKER``) or a snip note ("[N earlier messages snipped]") as a USER message plus a short ASSISTANT
acknowledgement: ``is_synthetic`` tells those apart from what the person and the model said (a later round folds
them into its summary; the memory pipeline, todos and resume leave them out). A tool output too long to keep is
replaced by a stub starting with ``STUB_PREFIX``.
"""

from __future__ import annotations

import re

from catcode.conversation.messages import Message, Role, TextBlock

__all__ = ["SNIP_ACK", "SNIP_NOTE", "STUB_PREFIX", "SUMMARY_ACK", "SUMMARY_MARKER", "is_synthetic", "turn_starts"]

SUMMARY_MARKER = "[Conversation Summary]"
SUMMARY_ACK = "Understood. I have the summary of our earlier conversation and will continue from it."
SNIP_ACK = "Understood. Earlier messages were removed to fit the context window."
STUB_PREFIX = "[compacted: "
SNIP_NOTE = re.compile(r"^\[(\d+) earlier messages snipped\]")


def turn_starts(messages: list[Message]) -> list[int]:
    """Indices of user messages that are not tool results: the only places a history may be cut."""
    return [i for i, m in enumerate(messages) if m.role is Role.USER and not m.is_tool_result]


def is_synthetic(msg: Message) -> bool:
    """True for the summary / snip note messages and their acknowledgements that compaction inserts."""
    first = msg.content[0] if msg.content else None
    text = first.text if isinstance(first, TextBlock) else ""
    if msg.role is Role.USER:
        return text.startswith(SUMMARY_MARKER) or bool(SNIP_NOTE.match(text))
    return len(msg.content) == 1 and text in (SUMMARY_ACK, SNIP_ACK)
