"""Each tool's memory layout read into ``ImportItem``s, and what was found but not imported (``Skipped``, with why).

- A Claude Code auto-memory folder (``read_folder``): one memory per ``*.md`` file — front matter ``name``,
  ``description``, ``type`` (Claude Code's four types are catcode's), or catcode's own ``metadata.type`` — plus what
  ``MEMORY.md`` holds besides its index lines (older versions wrote notes there), one memory per ``##`` section.
  ``export --format claude`` writes this layout, so its folder reads back the same.
- CLAUDE.md sections (``claude_md_sections``): offered one by one; only the ones chosen are imported.
- Codex (``read_codex``): ``MEMORY.md``'s note blocks (a ``---`` header with ``description`` and the ``cwd`` of the
  sessions they came from, then bullets) — a block about other folders only is skipped — and ``memory_summary.md``'s
  "User Profile" (a user memory) and "General Tips" (feedback); its "What's in Memory" is an index and is skipped.
- Gemini CLI (``read_gemini``): each fact of the "## Gemini Added Memories" section.
- Any file (``read_file``): one memory file (front matter), the AGENTS.md section ``export --format agents-md``
  writes, a Gemini memory file, or else one memory per ``##`` section (per bullet when there are none).

A folder is read without following any link out of it (``confined.read_inside``): a ``notes.md`` that links to
``/proc/self/environ`` or ``~/.aws/credentials`` is skipped with why, and so is a project's ``CLAUDE.md`` that
links outside the project (as the system prompt skips it). Only regular files are read, at most ``MAX_READ`` bytes
each."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from catcode import front_matter
from catcode.confined import Refused, read_inside
from catcode.memory.store.models import MemoryType
from catcode.memory.transfer.items import (
    AGENTS_HEADING,
    FENCE,
    ImportItem,
    Skipped,
    bullets,
    describe,
    infer_type,
    sections,
)

GEMINI_SECTION = "Gemini Added Memories"
MAX_READ = 64 * 2**20  # bytes of one Markdown file read: 100,000 sections fit many times over
MAX_MEMORY_FILE = 256 * 1024  # a memory file of a folder: the most one memory holds (a larger one is skipped)
_LINK_LINE = re.compile(r"^\s*[-*+]\s+\[[^\]]*\]\(([^)]+\.md)\)")
_CWD = re.compile(r"cwd=([^,)]+)")
PROJECT = MemoryType.PROJECT  # what a tool's per-project notes are, unless they speak about the person
_TYPE_LINE = re.compile(r"^\*(user|feedback|project|reference)\*\s*(?:—|-)\s*(.*)$")

Found = tuple[list[ImportItem], list[Skipped]]


def _text(
    path: Path,
    within: Path | None = None,
    where: str = "the folder",
    *,
    skipped: list[Skipped] | None = None,
    cap: int = MAX_READ,
) -> str:
    """The text of ``path``, at most ``cap`` bytes, read only from inside ``within`` when given (raises ``Refused``
    with why it was not read): a longer file is cut at its last line within the cap, and one line in ``skipped``
    says so (nothing is dropped silently)."""
    data = read_inside(path, within or Path(path.anchor or "/"), cap, where=where)
    if len(data) > cap:
        try:
            size = path.stat().st_size
        except OSError:
            size = len(data)
        data = data[: data.rfind(b"\n", 0, cap) + 1 or cap]
        if skipped is not None:
            rest = max(size - len(data), 1)
            skipped.append(
                Skipped(
                    str(path),
                    f"only its first {len(data):,} bytes were read ({cap // 2**20} MB is the most of one file): "
                    f"{rest:,} bytes after them were not; split the file",
                )
            )
    return data.decode("utf-8", errors="replace")


def _read_in(path: Path, folder: Path, skipped: list[Skipped], *, cap: int = MAX_READ) -> str | None:
    """The text of ``path`` when it is there and read from inside ``folder``; None (and why, in ``skipped``, when
    it is there but refused)."""
    if not (path.is_file() or path.is_symlink()):
        return None
    try:
        return _text(path, folder, skipped=skipped, cap=cap)
    except Refused as exc:
        skipped.append(Skipped(str(path), f"not read: {exc}"))
        return None


def _type(value: object) -> MemoryType | None:
    try:
        return MemoryType(str(value).strip().lower()) if value else None
    except ValueError:
        return None


def _title_name(text: str, words: int = 6) -> str:
    return "-".join(re.findall(r"[A-Za-z0-9]+", text.lower())[:words])


def read_folder(folder: Path, project_root: Path) -> Found:
    """A Claude Code auto-memory folder (or catcode's own scope folder, or what ``export --format claude`` wrote)."""
    items: list[ImportItem] = []
    skipped: list[Skipped] = []
    for path in sorted(folder.glob("*.md")):
        if path.name != "MEMORY.md" and (path.is_file() or path.is_symlink()):
            try:
                if path.stat().st_size > MAX_MEMORY_FILE:
                    skipped.append(
                        Skipped(str(path), f"larger than {MAX_MEMORY_FILE // 1024} KB, what one memory holds")
                    )
                    continue
            except OSError:
                pass  # said by the read below
        text = None if path.name == "MEMORY.md" else _read_in(path, folder, skipped, cap=MAX_MEMORY_FILE)
        if text is None:
            continue
        item = memory_file(path, text, project_root)
        if item is None:
            skipped.append(Skipped(str(path), "empty"))
        else:
            items.append(item)
    index = folder / "MEMORY.md"
    index_text = _read_in(index, folder, skipped)
    if index_text:
        notes = "\n".join(line for line in index_text.splitlines() if not _LINK_LINE.match(line))
        for title, body in sections(notes):
            body = "\n".join(line for line in body.splitlines() if not line.startswith("# ")).strip()
            if title.lower() in ("", "memory index") and not body:
                continue
            if body:
                name = _title_name(title) or "claude-memory-notes"
                kind = infer_type(body, project_root, PROJECT)
                items.append(ImportItem(name, describe(body) or title, kind, body, f"{index} ({title or 'notes'})"))
    return items, skipped


def memory_file(path: Path, text: str, project_root: Path) -> ImportItem | None:
    """One memory file (front matter ``name``, ``description``, ``type`` — Claude Code's — or catcode's
    ``metadata.type``; without front matter, the text alone); None when it holds no text."""
    try:
        fields, body = front_matter.read(text, ValueError, missing="no front matter")
    except ValueError:
        fields, body = {}, text
    raw_metadata = fields.get("metadata")
    metadata = raw_metadata if isinstance(raw_metadata, dict) else {}
    kind = _type(fields.get("type")) or _type(metadata.get("type")) or infer_type(body, project_root, PROJECT)
    name = str(fields.get("name") or path.stem)
    description = str(fields.get("description") or describe(body) or name)
    return ImportItem(name, description, kind, body.strip(), str(path)) if body.strip() else None


@dataclass(frozen=True)
class Offer:
    """A CLAUDE.md section the person may choose to import."""

    number: int
    path: Path
    title: str
    body: str
    user: bool  # from the user's CLAUDE.md (all projects) rather than the project's

    def item(self, project_root: Path) -> ImportItem:
        """The memory this section becomes: feedback from the user's file, project from the project's."""
        kind = MemoryType.FEEDBACK if self.user else MemoryType.PROJECT
        name = _title_name(self.title) or ("claude-md-user" if self.user else "claude-md-project")
        return ImportItem(name, describe(self.body) or self.title, kind, self.body, f"{self.path} ({self.title})")


def claude_md_sections(files: list[tuple[Path, bool]], project_root: Path) -> tuple[list[Offer], list[Skipped]]:
    """Every non-empty ``##`` section of these CLAUDE.md files, numbered from 1, and the files not read (a project's
    that links outside the project)."""
    offers: list[Offer] = []
    skipped: list[Skipped] = []
    for path, user in files:
        try:
            text = _text(path, None if user else project_root, "the project")
        except Refused as exc:
            skipped.append(Skipped(str(path), f"not read: {exc}"))
            continue
        for title, body in sections(text):
            body = "\n".join(line for line in body.splitlines() if not line.startswith("# ")).strip()
            if body:
                offers.append(Offer(len(offers) + 1, path, title, body, user))
    return offers, skipped


def read_codex(folder: Path, project_root: Path) -> Found:
    """Codex's ``MEMORY.md`` note blocks and ``memory_summary.md`` (see the module docstring)."""
    items: list[ImportItem] = []
    skipped: list[Skipped] = []
    handbook = folder / "MEMORY.md"
    text = _read_in(handbook, folder, skipped)
    if text is not None:
        found, missed = _codex_blocks(text, handbook, project_root)
        items += found
        skipped += missed
    summary = folder / "memory_summary.md"
    text = _read_in(summary, folder, skipped)
    if text is not None:
        text = text.split("\n", 1)[1] if text.startswith("v1") else text
        kinds = {"user profile": MemoryType.USER, "general tips": MemoryType.FEEDBACK}
        for title, body in sections(text):
            origin = f"{summary} ({title or 'top'})"
            if title.lower().startswith("what's in memory") or title.lower().startswith("what is in memory"):
                skipped.append(Skipped(origin, "an index of MEMORY.md, whose notes are imported themselves"))
            elif body:
                kind = kinds.get(title.lower()) or infer_type(body, project_root)
                name = f"codex-{_title_name(title) or 'summary'}"
                items.append(ImportItem(name, describe(body) or title, kind, body, origin))
    return items, skipped


def _codex_blocks(text: str, path: Path, project_root: Path) -> Found:
    parts = re.split(r"(?m)^---[ \t]*$", text)
    preamble = [line for line in parts[0].splitlines() if line.strip()]
    if len(parts) < 3 or any(not line.startswith("#") for line in preamble):
        return _free_form(text, path, project_root), []
    items: list[ImportItem] = []
    skipped: list[Skipped] = []
    root = str(project_root.resolve())
    for header, body in zip(parts[1::2], parts[2::2], strict=False):
        try:
            fields = yaml.safe_load(header) or {}
        except yaml.YAMLError:
            fields = {}
        fields = fields if isinstance(fields, dict) else {}
        description = str(fields.get("description") or describe(body)).strip()
        origin = f"{path} ({description[:40]})"
        cwds = {c.strip().rstrip("/") for c in _CWD.findall(str(fields.get("rollout_summary_files") or ""))}
        if not body.strip():
            continue
        if cwds and root not in cwds:
            skipped.append(Skipped(origin, f"about another folder ({', '.join(sorted(cwds))}); import it there"))
            continue
        kind = MemoryType.PROJECT if cwds else infer_type(body, project_root)
        items.append(ImportItem(_title_name(description) or "codex-note", description, kind, body.strip(), origin))
    return items, skipped


def _free_form(text: str, path: Path, project_root: Path) -> list[ImportItem]:
    """Markdown without a known layout: one memory per ``##`` section, else one per top-level bullet, else the
    whole text as one."""
    found = [(title, body if title else _no_headings(body)) for title, body in sections(text)]
    found = [(title, body) for title, body in found if body]
    if any(title for title, _ in found):
        return [
            ImportItem(_title_name(title) or path.stem.lower(), describe(body) or title,
                       infer_type(body, project_root), body, f"{path} ({title or 'top'})")
            for title, body in found
        ]  # fmt: skip
    body = _no_headings(text)
    facts = bullets(body) or ([body] if body else [])
    return [_fact(fact, str(path), project_root) for fact in facts]


def _no_headings(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("#")).strip()


def read_gemini(path: Path, project_root: Path) -> Found:
    """Each fact of the "Gemini Added Memories" section of Gemini CLI's memory file."""
    items = []
    skipped: list[Skipped] = []
    for title, body in sections(_text(path, skipped=skipped)):
        if title.strip().lower() == GEMINI_SECTION.lower():
            for fact in bullets(body):
                name = _title_name(fact) or "gemini-memory"
                items.append(ImportItem(name, describe(fact), infer_type(fact, project_root), fact, f"{path}"))
    return items, skipped


def read_agents_section(text: str, origin: str) -> list[ImportItem]:
    """The memories of the AGENTS.md section ``export --format agents-md`` writes (``### name``, then
    ``*type* — description``, then the text)."""
    section = ""
    for title, body in sections(text):
        if f"## {title}" == AGENTS_HEADING:
            section = body
    items = []
    for name, body in sections(section, level=3):
        if not name:
            continue
        first, _, rest = body.partition("\n")
        match = _TYPE_LINE.match(first.strip())
        if match is None:
            continue
        text = rest.strip()
        if text.startswith(FENCE) and text.endswith("~~~~"):
            text = text[len(FENCE) : -4].strip()
        items.append(ImportItem(name, match.group(2).strip(), MemoryType(match.group(1)), text, origin))
    return items


def read_file(path: Path, project_root: Path) -> Found:
    """Any Markdown file: one memory file (front matter), catcode's AGENTS.md section, a Gemini memory file, else
    its sections or bullets."""
    skipped: list[Skipped] = []
    text = _text(path, skipped=skipped)
    if text.startswith("---\n"):
        item = memory_file(path, text, project_root)
        return ([item], skipped) if item else ([], [*skipped, Skipped(str(path), "empty")])
    if AGENTS_HEADING in text:
        return read_agents_section(text, str(path)), skipped
    if re.search(rf"(?m)^##\s+{GEMINI_SECTION}\s*$", text):
        return read_gemini(path, project_root)
    return _free_form(text, path, project_root), skipped


def _fact(fact: str, origin: str, project_root: Path) -> ImportItem:
    return ImportItem(_title_name(fact) or "imported", describe(fact), infer_type(fact, project_root), fact, origin)
