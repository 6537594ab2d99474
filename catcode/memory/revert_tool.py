"""Memory changes as people and the model see them: the change list (``/memory log``, ``catcode memory log``),
what an undo did, the ``memory_revert`` tool that lets the model undo a change under the permission prompt — and
``revert_change``, THE undo: the rules (what was left uncommitted is recorded first, under the memory lock; a bare
undo means the last change to memories, never a journal entry) live here and return data (``RevertResult``), so
that the slash command, the offline CLI, the tool and the web view undo the same way; ``describe_revert`` words
what an undo did in the sentences they share (they name no command).

The journal (session summaries and their weekly and long-term compiles) is versioned in the same repository but
kept out of the way: ``MEMORY_CHANGES`` selects the changes that touched memories; ``log`` shows only those unless
asked for everything, and ``diff`` and ``revert`` without an id mean the last of them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from catcode.errors import MemoryStoreError
from catcode.fsutil import locked
from catcode.memory.versioning.changes import Change, RevertResult
from catcode.memory.words import describe_revert
from catcode.tools.base import Tool, ToolContext, ToolResult, tool

if TYPE_CHECKING:
    from catcode.memory.store.store import MemoryStore
    from catcode.memory.versioning.git_store import GitStore

PREVIEW_MAX_LINES = 80
PREVIEW_MAX_CHARS = 6000
MEMORY_CHANGES = ("users", "projects", ":(exclude,glob)projects/*/journal/**")
"""git pathspecs of the changes to memories: both scopes, not the journal (nor the repository's own set-up)."""


def memory_log(git: GitStore, limit: int, *, everything: bool = False) -> list[Change]:
    """The last ``limit`` changes to memories (``everything``: journal entries and set-up too), newest first."""
    return git.log(limit) if everything else git.log(limit, paths=MEMORY_CHANGES, patterns=True)


def last_memory_change(git: GitStore) -> str | None:
    """The id of the last change to memories (what a bare ``diff`` shows and a bare ``revert`` undoes)."""
    return git.last_change(MEMORY_CHANGES, patterns=True)


def memory_diff(git: GitStore, commit: str | None = None) -> str:
    """The diff of ``commit``, by default of the last change to memories; "" when there is none."""
    target = commit or last_memory_change(git)
    return git.diff(target) if target else ""


def revert_change(git: GitStore, store: MemoryStore, lock_path: Path, commit: str | None = None) -> RevertResult:
    """Undo ``commit`` (default: the last change to memories) as a new change, under the memory lock: what was
    left uncommitted is first recorded the store's way (valid memory files only, redacted), so git never refuses
    over it and nothing unchecked is committed. ``MemoryStoreError`` (``RevertConflict``) says why it could not."""
    if not git.available:
        raise MemoryStoreError(git.warning)
    with locked(lock_path):
        store.reconcile()
        target = commit or last_memory_change(git)
        if target is None:
            raise MemoryStoreError("No memory changes have been recorded yet; there is nothing to undo")
        return git.revert(target)


def cap(text: str, max_lines: int = PREVIEW_MAX_LINES, max_chars: int = PREVIEW_MAX_CHARS) -> str:
    """``text`` cut to ``max_lines`` lines and ``max_chars`` characters, saying how much was left out."""
    lines = text.rstrip("\n").split("\n")
    kept = "\n".join(lines[:max_lines])
    if len(kept) > max_chars:
        kept = kept[:max_chars]
        kept = kept.rsplit("\n", 1)[0] if "\n" in kept else kept  # whole lines, unless the first is too long
    if kept == text.rstrip("\n"):
        return text
    hidden = len(lines) - kept.count("\n") - 1
    return kept + (f"\n… ({hidden} more lines)" if hidden else "…")


class Reverter(Protocol):
    """What ``memory_revert`` needs of the session's memory (``MemoryRuntime``)."""

    @property
    def git(self) -> GitStore:
        """The memory repository."""
        ...

    def revert(self, commit: str | None = None) -> RevertResult:
        """Undo ``commit`` (default: the last change to memories) as a new change."""
        ...


class MemoryRevertInput(BaseModel):
    """Input of memory_revert."""

    commit: str | None = Field(
        default=None, description="Id of the change to undo (from the memory log); omit it to undo the last change."
    )


def memory_revert_tool(runtime: Reverter) -> Tool:
    """``memory_revert`` bound to ``runtime`` (a ``MemoryRuntime``): asks before it writes, previews the diff."""

    def preview(args: MemoryRevertInput, ctx: ToolContext) -> str | None:
        try:
            text = memory_diff(runtime.git, _commit(args))
        except Exception:  # a preview is a courtesy; the revert itself reports any problem
            return None
        return f"This change would be undone:\n{cap(text)}" if text else None

    @tool("memory_revert", key_arg="commit", preview=preview)
    def memory_revert(args: MemoryRevertInput, ctx: ToolContext) -> ToolResult:
        """Undo a change to saved memories (default: the last change) by recording a new change.

        Use it when the user says a memory that was just saved, updated or deleted is wrong. Nothing is lost:
        the undo can itself be undone."""
        try:
            result = runtime.revert(_commit(args))
        except MemoryStoreError as exc:
            return ToolResult(str(exc), is_error=True)
        return ToolResult(describe_revert(result))

    return memory_revert


def _commit(args: MemoryRevertInput) -> str | None:
    return (args.commit or "").strip() or None
