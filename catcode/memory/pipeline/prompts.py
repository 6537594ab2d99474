"""The extractor's and the consolidator's prompts: the seed's instruction texts word for word (plus one
line forbidding secrets), then the sections the seed shows (the conversation written by
``catcode.conversation.transcript``)."""

from __future__ import annotations

from collections.abc import Sequence

from catcode.conversation.messages import Message
from catcode.conversation.transcript import EXTRACTION, render_transcript
from catcode.memory.store.models import CandidateMemory, MemoryEntry, MemorySummary
from catcode.text import flatten

EXTRACTOR_INSTRUCTIONS = """\
You are a memory extractor for an AI coding agent. Review the conversation below and
identify facts worth remembering across sessions. Remember:
- User preferences and habits
- Project decisions and constraints
- Key technical facts learned (APIs, file layout, gotchas)
- Anything the user explicitly asked to remember
Ignore: one-off instructions, temporary details, small talk.
If the conversation contains a "[Conversation Summary]" system message, extract from it too.
Do NOT re-extract facts already listed under "## Already Known", and ignore the "# Persistent Memory" index block.
Respond with ONLY a JSON object, no markdown:
{"candidates": [{"type": "user|feedback|project|reference", "name": "kebab-case-slug",
"description": "one-line summary", "content": "the fact to remember"}]}
If nothing is worth remembering, respond with {"candidates": []}
Never save secrets (API keys, tokens, passwords, private keys) or anything derivable from the code itself."""

CONSOLIDATOR_INSTRUCTIONS = """\
You are a memory consolidator for an AI coding agent. Decide how to merge the candidate
memories into the existing memory store.
For each candidate decide:
- "add": the fact is new and worth storing
- "update": the fact updates an existing memory with the same or closely related topic;
  set targetName to the existing memory's name
- "skip": the fact duplicates an existing memory, is trivial, or is already known
Existing memories are listed under "## Existing Memories" (name, type, content).
Respond with ONLY a JSON object, no markdown:
{"operations": [{"action": "add|update|skip", "targetName": "<existing name for update, else null>",
"entry": {"type": "user|feedback|project|reference", "name": "kebab-case-slug",
"description": "one-line summary", "content": "the fact"}}]}
Every candidate must appear in exactly one operation. For skip, entry may be null."""

NONE = "(none)"


def build_extract_prompt(messages: Sequence[Message], existing: Sequence[MemorySummary]) -> str:
    """The extractor's prompt: instructions, ``## Already Known``, ``## Conversation``."""
    known = [f"- {s.name}: {flatten(s.description)}" for s in existing] or [NONE]
    conversation = render_transcript(messages, EXTRACTION) or NONE
    return "\n".join([EXTRACTOR_INSTRUCTIONS, "", "## Already Known", *known, "", "## Conversation", conversation])


def build_consolidate_prompt(candidates: Sequence[CandidateMemory], existing: Sequence[MemoryEntry]) -> str:
    """The consolidator's prompt: instructions, ``## Existing Memories``, ``## Candidates``."""
    memories = [f"### {e.name} ({e.type.value})\n{flatten(e.description)}\n{e.content}" for e in existing]
    numbered = [
        f"{i}. [{c.type.value}] {c.name}: {flatten(c.description)}\n{_indent(c.content)}"
        for i, c in enumerate(candidates, 1)
    ]
    return "\n".join(
        [
            CONSOLIDATOR_INSTRUCTIONS,
            "",
            "## Existing Memories",
            "\n\n".join(memories) or NONE,
            "",
            "## Candidates",
            "\n\n".join(numbered) or NONE,
        ]
    )


def _indent(text: str) -> str:
    return "\n".join(f"   {line}" if line.strip() else "" for line in text.split("\n"))
