"""``catcode memory export --format claude|agents-md [--out PATH]``: memories written for other agents.

- ``claude``: Claude Code's auto-memory layout — one ``<name>.md`` per memory with front matter ``name``,
  ``description`` and ``type`` (Claude Code's four types are catcode's), and ``MEMORY.md`` holding one
  ``- [name](name.md) — description`` line per memory (lines it held that point elsewhere are kept). Default
  folder: this project's Claude Code auto memory (``locate.claude_memory_dir``). A file there with another text is
  left as it is and named, unless ``force``.
- ``agents-md``: the "## Memories (catcode)" section of an AGENTS.md (default: the project's), one ``###`` per
  memory with its type and description and its text in a fence; the rest of the file is kept as it is, and an
  earlier export's section is replaced.

Both read back unchanged with ``catcode memory import PATH``. New files are 0600, new folders 0700."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from catcode import front_matter
from catcode.fsutil import atomic_write_text, ensure_private_dir
from catcode.memory.store.models import MemoryEntry
from catcode.memory.transfer.items import AGENTS_HEADING, AGENTS_NOTE, FENCE

_LINK_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]]*\]\(([^)]+\.md)\)")


@dataclass
class Exported:
    """What an export wrote and what it left alone."""

    target: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # files with another text, left alone (no ``force``)


def claude_file(entry: MemoryEntry) -> str:
    """One memory as a Claude Code auto-memory file."""
    fields = {"name": entry.name, "description": entry.description, "type": entry.type.value}
    return front_matter.write(fields, f"\n{entry.content.strip()}\n")


def export_claude(entries: list[MemoryEntry], folder: Path, *, force: bool = False) -> Exported:
    """Write ``entries`` into ``folder`` in Claude Code's auto-memory layout."""
    result = Exported(folder)
    ensure_private_dir(folder)
    for entry in entries:
        path = folder / f"{entry.name}.md"
        text = claude_file(entry)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            result.unchanged.append(entry.name)
        elif old is not None and not force:
            result.kept.append(entry.name)
        else:
            atomic_write_text(path, text)
            result.written.append(entry.name)
    index = folder / "MEMORY.md"
    ours = {f"{entry.name}.md" for entry in entries}
    kept_lines = []
    if index.is_file():
        for line in index.read_text(encoding="utf-8").splitlines():
            match = _LINK_LINE.match(line)
            if not (match and match.group(1) in ours):
                kept_lines.append(line)
    while kept_lines and not kept_lines[-1].strip():
        kept_lines.pop()
    lines = kept_lines or ["# Memory Index", ""]
    lines += [f"- [{entry.name}]({entry.name}.md) — {entry.description}" for entry in entries]
    atomic_write_text(index, "\n".join(lines) + "\n")
    return result


def agents_section(entries: list[MemoryEntry]) -> str:
    """The AGENTS.md section holding ``entries``."""
    parts = [AGENTS_HEADING, "", AGENTS_NOTE, ""]
    for entry in entries:
        parts += [f"### {entry.name}", f"*{entry.type.value}* — {entry.description}", "", FENCE,
                  entry.content.strip(), "~~~~", ""]  # fmt: skip
    return "\n".join(parts)


def _section_end(text: str, offset: int) -> int:
    """Where the section starting before ``offset`` ends: the next ``## `` heading outside a fence, else the end."""
    in_fence = False
    position = offset
    for line in text[offset:].splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and line.startswith("## "):
            return position
        position += len(line)
    return len(text)


def export_agents_md(entries: list[MemoryEntry], path: Path) -> Exported:
    """Write (or replace) the memories section of the AGENTS.md at ``path``, keeping the rest of the file."""
    section = agents_section(entries)
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    start = old.find(AGENTS_HEADING + "\n")
    if start >= 0:
        end = _section_end(old, start + len(AGENTS_HEADING) + 1)
        text = old[:start] + section + ("\n" + old[end:] if end < len(old) else "")
    else:
        text = (old.rstrip("\n") + "\n\n" if old.strip() else "") + section
    mode = (path.stat().st_mode & 0o777) if path.exists() else 0o600
    if path.parent != Path(os.sep):
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text.rstrip("\n") + "\n", mode=mode)
    return Exported(path, written=[entry.name for entry in entries])
