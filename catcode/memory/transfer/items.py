"""``ImportItem`` and the Markdown pieces the readers share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from catcode.memory.store.models import MemoryType

AGENTS_HEADING = "## Memories (catcode)"
"""The section of an AGENTS.md that ``export --format agents-md`` writes and ``import`` reads back."""
FENCE = "~~~~markdown"
"""Each memory's text in the AGENTS.md section sits in a fence, so its own headings stay its own."""
AGENTS_NOTE = "<!-- written by `catcode memory export --format agents-md`; `catcode memory import` reads it back -->"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9`\"'(])")
_PLAIN_WORDS = {"project", "projects", "code", "repo", "work", "main", "test", "tests", "home", "docs", "source"}
_USER_WORDS = re.compile(r"\b(i|i'm|my|me|user|prefer|prefers|preferred|likes?|always|never)\b", re.I)


@dataclass(frozen=True)
class ImportItem:
    """One memory as another tool keeps it: a name (repaired later), a description, a type, the text, and where it
    came from (shown in the plan)."""

    name: str
    description: str
    type: MemoryType
    content: str
    origin: str


@dataclass(frozen=True)
class Skipped:
    """Something found that is not imported, and why (shown in the plan: nothing is dropped silently)."""

    origin: str
    reason: str


def infer_type(text: str, project_root: Path, default: MemoryType = MemoryType.FEEDBACK) -> MemoryType:
    """The type of a memory written as free text: ``project`` when it names this project (its folder or path),
    ``user`` when it speaks about the person (I, my, prefers...), else ``default`` (``feedback``, a lesson for
    future work; ``project`` for notes a tool keeps per project)."""
    lowered, name = text.lower(), project_root.name.lower()
    named = len(name) >= 4 and name not in _PLAIN_WORDS and re.search(rf"\b{re.escape(name)}\b", lowered)
    if str(project_root).lower() in lowered or named:
        return MemoryType.PROJECT
    if _USER_WORDS.search(text):
        return MemoryType.USER
    return default


def describe(text: str, limit: int = 120) -> str:
    """A one-line description that says what ``text`` holds: its first sentence (headings skipped, Markdown bullets
    and emphasis marks removed), cut at ``limit``; the first heading only when there is nothing else. The index of
    memories shows this line, and the model reads it to decide whether to open the memory: "Git" says nothing,
    "Never force-push to main." says it."""
    heading = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("```", "~~~", "---")):
            continue
        title = _HEADING.match(stripped)
        if title:
            heading = heading or title.group(2).strip()
            continue
        line = _BULLET.sub(r"\1", stripped).strip()
        return _cut(_first_sentence(line), limit)
    return _cut(heading, limit)


def _first_sentence(line: str) -> str:
    """``line`` up to the end of its first sentence ("Never force-push to main. Rebase instead." → the first)."""
    match = _SENTENCE_END.search(line)
    return line[: match.start() + 1] if match and match.start() >= 12 else line


def _cut(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def sections(text: str, level: int = 2) -> list[tuple[str, str]]:
    """``text`` split at headings of ``level`` (``## Title``): (title, body) pairs; text before the first heading
    has the title ""."""
    out: list[tuple[str, list[str]]] = [("", [])]
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match and len(match.group(1)) == level:
            out.append((match.group(2), []))
        else:
            out[-1][1].append(line)
    return [(title, "\n".join(lines).strip()) for title, lines in out if title or "\n".join(lines).strip()]


def bullets(text: str) -> list[str]:
    """The top-level bullets of ``text`` (continuation lines joined to their bullet)."""
    items: list[str] = []
    for line in text.splitlines():
        match = _BULLET.match(line)
        if match and not line.startswith((" " * 2, "\t")):
            items.append(match.group(1).strip())
        elif items and line.strip():
            items[-1] += "\n" + line.strip()
    return [item for item in items if item]
