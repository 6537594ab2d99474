"""The memory tools the model calls: ``memory_read``, ``memory_write``, ``memory_delete`` (seed texts), and
``MEMORY_GUIDANCE``, the system-prompt section saying when to use them.

Input fields are plain optional strings so a missing or wrong value gets the seed's own error text
back instead of a schema error; the JSON schema still marks them required for the model."""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from catcode.errors import MemoryStoreError
from catcode.memory.flows import InvalidMemory
from catcode.memory.pipeline.manager import MemoryManager
from catcode.memory.store import entry_file
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.names import name_problem, validate_name, validate_new_name
from catcode.memory.store.store import MemoryStore
from catcode.memory.words import (
    NO_MEMORIES,
    WRITE_TOOL,
    format_entry,
    not_found,
    owned_by,
    replacement_note,
    sorted_by_scope,
    unversioned_fix,
)
from catcode.text import shorten
from catcode.tools.base import Tool, ToolContext, ToolResult, tool

MEMORY_GUIDANCE = """\
## Memory
You keep memories across sessions: the "# Persistent Memory" block lists them, and memory_read shows one in full.
Call memory_write when the user states a lasting preference or corrects you, and for:
- user preferences and habits
- project decisions and constraints
- key technical facts learned (APIs, file layout, gotchas)
- anything the user explicitly asked you to remember
Types: user (the person and how they work), feedback (corrections to how you work), project (decisions and
constraints of this project), reference (technical facts). Update a memory by writing its name again rather
than adding a near-duplicate.
Never save secrets (API keys, tokens, passwords, private keys), anything derivable from the code itself, or the
state of the task at hand."""

NAME_REQUIRED = "Error: name is required"
WRITE_KEY = "name"
"""The argument of ``WRITE_TOOL`` its permission rules match (``memory_write(user-*)``)."""
PAGE_SIZE = 50
"""Memories per page of ``memory_read`` without a name: names and descriptions only, full text by name."""
DESCRIPTION_CHARS = 200
TYPE_INVALID = "Error: type must be one of user|feedback|project|reference"


class MemoryReadInput(BaseModel):
    """Input of memory_read."""

    name: str | None = Field(
        default=None, description="The memory to read in full; omit it to list names and descriptions, by page."
    )
    page: int | None = Field(default=None, description="Which page of the list (from 1) when no name is given.")


class MemoryWriteInput(BaseModel):
    """Input of memory_write."""

    model_config = ConfigDict(json_schema_extra={"required": ["name", "type", "description", "content"]})

    name: str | None = Field(default=None, description="kebab-case slug, e.g. user-prefers-vim (the unique key)")
    type: str | None = Field(default=None, description="user | feedback | project | reference")
    description: str | None = Field(default=None, description="One-line summary, shown in every request")
    content: str | None = Field(default=None, description="The fact to remember, in full")


class MemoryDeleteInput(BaseModel):
    """Input of memory_delete."""

    model_config = ConfigDict(json_schema_extra={"required": ["name"]})

    name: str | None = Field(default=None, description="The memory to delete")


def memory_tools(manager: MemoryManager) -> list[Tool]:
    """The three memory tools, bound to ``manager`` (writes) and its store (reads)."""
    store = manager.store

    @tool("memory_read", key_arg="name")
    def memory_read(args: MemoryReadInput, ctx: ToolContext) -> ToolResult:
        """Read saved memories. With a name, return that memory in full; without one, list the names and
        descriptions of the memories, 50 per page (``page`` picks one)."""
        name = (args.name or "").strip()
        if not name:
            return ToolResult(memory_page(store, args.page or 1))
        entry = store.get(name)
        if entry is None:
            return ToolResult(not_found(name), is_error=True)
        return ToolResult(format_entry(entry, store.scope_of(name)))

    def preview_write(args: MemoryWriteInput, ctx: ToolContext) -> str | None:
        entry = _entry(args, store)
        return None if isinstance(entry, ToolResult) else _write_preview(store, entry)

    @tool(WRITE_TOOL, key_arg=WRITE_KEY, preview=preview_write)
    def memory_write(args: MemoryWriteInput, ctx: ToolContext) -> ToolResult:
        """Save a memory that persists across sessions (writing an existing name updates it).

        Types: user (preferences, habits), feedback (corrections), project (decisions, constraints),
        reference (technical facts: APIs, file layout, gotchas). Never save secrets."""
        entry = _entry(args, store)
        if isinstance(entry, ToolResult):
            return entry
        replaced = replaced_elsewhere(store, entry)
        try:
            counts = manager.write_entry(entry, why="tool")
        except MemoryStoreError as exc:
            return ToolResult(str(exc), is_error=True)
        redacted = f" ({counts.redacted} secret(s) redacted)" if counts.redacted else ""
        if counts.unversioned:
            return ToolResult(unversioned(f"Memory written: {entry.name}{redacted}", counts.unversioned), is_error=True)
        if replaced is None:
            return ToolResult(f"Memory saved: {entry.name}{redacted}")
        old, scope = replaced
        return ToolResult(
            f"Memory saved: {entry.name}{redacted} — it replaced the {owned_by(scope)} {entry.name} "
            f"(it stays a memory of {scope.label}; was: {shorten(old.description, DESCRIPTION_CHARS)!r})"
        )

    def preview_delete(args: MemoryDeleteInput, ctx: ToolContext) -> str | None:
        try:
            name = (args.name or "").strip()
            path = store.path_of(name) if name_problem(name) is None else None
            return _diff(store.root, path, _read(path), None, "") if path else None
        except Exception:  # a preview is a courtesy; the delete itself reports any problem
            return None

    @tool("memory_delete", key_arg="name", preview=preview_delete)
    def memory_delete(args: MemoryDeleteInput, ctx: ToolContext) -> ToolResult:
        """Delete a saved memory by name (when it is wrong or no longer true)."""
        name = (args.name or "").strip()
        if not name:
            return ToolResult(NAME_REQUIRED, is_error=True)
        try:
            deleted = manager.delete_entry(validate_name(name), why="tool")
        except MemoryStoreError as exc:
            return ToolResult(str(exc), is_error=True)
        if not deleted:
            return ToolResult(not_found(name), is_error=True)
        if store.unversioned:
            return ToolResult(unversioned(f"Memory deleted: {name}", store.unversioned), is_error=True)
        return ToolResult(f"Memory deleted: {name}")

    return [memory_read, memory_write, memory_delete]


def write_probe() -> Tool:
    """``memory_write`` as the permission policy sees it (its name, permission class and key argument), for memory
    written outside a session (``catcode memory import``): the person's rules and mode decide it the same way. It
    never runs."""

    def never(args: MemoryWriteInput, ctx: ToolContext) -> ToolResult:
        raise AssertionError("the consent probe is never run")

    return tool(WRITE_TOOL, key_arg=WRITE_KEY)(never)


def unversioned(done: str, reason: str) -> str:
    """A write whose files are on disk but whose commit failed: never called saved, and the way out said."""
    return (
        f"{done}, but NOT recorded in memory's history: {reason}. The file is on disk and in use; it cannot be "
        f"listed or undone until then: {unversioned_fix(reason)}."
    )


def memory_page(store: MemoryStore, page: int) -> str:
    """One page of the list ``memory_read`` gives without a name: ``- name (type, scope): description``, the user
    scope first, at most ``PAGE_SIZE`` lines of at most ``DESCRIPTION_CHARS`` characters each."""
    items = sorted_by_scope(store.located())
    if not items:
        return NO_MEMORIES
    pages = -(-len(items) // PAGE_SIZE)
    if page < 1 or page > pages:
        return f"There is no page {page}: {len(items)} memories make {pages} page(s) of {PAGE_SIZE}."
    first = (page - 1) * PAGE_SIZE
    shown = items[first : first + PAGE_SIZE]
    lines = [
        f"Memories {first + 1}-{first + len(shown)} of {len(items)} (page {page} of {pages}). "
        "Call memory_read with a name for the full text."
    ]
    lines += [f"- {e.name} ({e.type.value}, {s.label}): {shorten(e.description, DESCRIPTION_CHARS)}" for e, s in shown]
    if page < pages:
        lines.append(f"More: memory_read with page={page + 1}.")
    return "\n".join(lines)


def new_entry(
    store: MemoryStore, name: str | None, kind: str | None, description: str | None, content: str | None
) -> MemoryEntry:
    """The memory a write of these fields saves, dated today — the one check of ``memory_write`` and of every other
    writer (the MCP server's); ``InvalidMemory`` says what is wrong."""
    name = (name or "").strip()
    if not name:
        raise InvalidMemory(NAME_REQUIRED)
    try:
        memory_type = MemoryType((kind or "").strip().lower())
    except ValueError:
        raise InvalidMemory(TYPE_INVALID) from None
    try:
        validate_new_name(name)
    except MemoryStoreError as exc:
        raise InvalidMemory(str(exc)) from None
    today = store.today()
    return MemoryEntry(
        name=name,
        description=description or "",
        type=memory_type,
        content=content or "",
        created_at=today,
        updated_at=today,
    )


def _entry(args: MemoryWriteInput, store: MemoryStore) -> MemoryEntry | ToolResult:
    """The entry ``args`` describe, or the seed's error result."""
    try:
        return new_entry(store, args.name, args.type, args.description, args.content)
    except InvalidMemory as exc:
        return ToolResult(str(exc), is_error=True)


def replaced_elsewhere(store: MemoryStore, entry: MemoryEntry) -> tuple[MemoryEntry, Scope] | None:
    """The memory ``entry`` would replace and its scope, when that scope is not where ``entry`` would go as a new
    memory: e.g. in project B, a reference named like an all-projects memory written in project A. A write keeps
    the existing memory's scope, so every project would see the new text; the person and the model are told."""
    old, scope = store.get(entry.name), store.scope_of(entry.name)
    if old is None or scope is None or scope is store.rules.place(entry):
        return None
    return old, scope


def _write_preview(store: MemoryStore, entry: MemoryEntry) -> str | None:
    """The would-be file of a new memory, or a unified diff of the file it replaces — headed by what it replaces
    when that memory is in another scope. Never raises."""
    try:
        prepared, redacted = store.prepare(store.merged(entry))
        new_text = entry_file.render(prepared)
        old_path = store.path_of(entry.name)
        note = f"# {redacted} secret(s) will be redacted before saving\n" if redacted else ""
        if old_path is None:
            return note + new_text
        replaced = replaced_elsewhere(store, entry)
        if replaced is not None:
            note = replacement_note(*replaced, prepared) + note
        return note + _diff(store.root, old_path, _read(old_path), store.target_path(prepared), new_text)
    except Exception:  # a preview is a courtesy; the write itself reports any problem
        return None


def _diff(root: Path, old: Path | None, old_text: str, new: Path | None, new_text: str) -> str:
    def label(path: Path | None, side: str) -> str:
        return f"{side}/{path.relative_to(root)}" if path else "/dev/null"

    lines = difflib.unified_diff(
        old_text.splitlines(keepends=True), new_text.splitlines(keepends=True), label(old, "a"), label(new, "b")
    )
    return "".join(lines) or "(no changes)"


def _read(path: Path | None) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path else ""
    except OSError:
        return ""
