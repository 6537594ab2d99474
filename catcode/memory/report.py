"""Text for people and for the model that names no front end's commands: the pipeline report (``/memory``), the
list (``/memory list``, ``catcode memory list``, the MCP server's ``memory_list``), one memory in full
(``memory_read``, ``/memory show``), the lines under a list, the questions the flows of ``flows.py`` ask before
they delete, and what a flow did (``done_text``), to which each front end adds its own undo command
(``slash_words.py``, ``cli/memory_words.py``). Every memory is shown with its scope: "all projects" (the user
scope) or "this project"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from catcode.memory.store.models import ConsolidationReport, MemoryEntry, MemoryType, Scope
from catcode.text import flatten

if TYPE_CHECKING:  # the flows' types: not loaded with the model's memory tools, which need none of them
    from catcode.memory.flows import (
        Cleared,
        ClearQuestion,
        Edited,
        ForgetQuestion,
        Forgotten,
        Located,
        Moved,
        ScopeCounts,
    )

    Done = Cleared | Forgotten | Moved | Edited
    """What a flow that changes memories returned."""

NO_MEMORIES = "No memories stored."
KEPT_ALL = "Kept every memory."


def format_report(report: ConsolidationReport) -> str:
    """The seed's ``runPipeline`` output (plus a redaction line when secrets were removed)."""
    lines = ["Memory pipeline complete:", f"  candidates: {report.candidates_found}"]
    if report.skipped_reason:
        lines.append(f"  note: {report.skipped_reason}")
    for label, names in (("added", report.added), ("updated", report.updated), ("skipped", report.skipped)):
        if names:
            lines.append(f"  {label}: {', '.join(names)}")
    for asked, saved in report.renamed.items():
        lines.append(f"  renamed: {asked} → {saved} ({asked} is taken by a memory of another project or user)")
    if report.redacted:
        lines.append(f"  redacted: {report.redacted} secret(s)")
    return "\n".join(lines)


def format_list(items: Sequence[Located]) -> str:
    """One line per memory: ``name - description (type, all projects)``."""
    if not items:
        return NO_MEMORIES
    return "\n".join(list_line(e.name, e.description, e.type, scope) for e, scope in items)


def list_line(name: str, description: str, kind: MemoryType, scope: Scope) -> str:
    """``name - description (type, all projects)``: one memory in a list."""
    return f"{name} - {flatten(description)} ({kind.value}, {scope.label})"


def format_entry(entry: MemoryEntry, scope: Scope | None = None) -> str:
    """A memory in full: heading with its type (and scope), description, dates, then the content."""
    where = f", {scope.label}" if scope is not None else ""
    dates = f"(created {entry.created_at.isoformat()}, updated {entry.updated_at.isoformat()})"
    return f"## {entry.name} ({entry.type.value}{where})\n{flatten(entry.description)}\n{dates}\n\n{entry.content}"


def unreadable_line(count: int) -> str:
    """The line under a list when files were skipped."""
    noun = "file" if count == 1 else "files"
    return f"{count} unreadable memory {noun} skipped — run catcode memory doctor"


def hidden_line(count: int) -> str:
    """The line under a list when memories of another project's making are hidden by a name clash."""
    noun = "memory for all projects is" if count == 1 else "memories for all projects are"
    return f"{count} {noun} hidden here by one of this project's of the same name — run catcode memory doctor"


def unversioned_line(reason: str) -> str:
    """The line said once when memory changes stop being recorded in memory's history (a commit failed)."""
    return f"Memory changes are not being recorded in memory's history: {reason}. They are on disk and in use; " + (
        unversioned_fix(reason) + "."
    )


def unversioned_fix(reason: str) -> str:
    """What to do when a commit failed for ``reason``: make room on a full disk, else repair the repository."""
    if "No space left" in reason or "disk is full" in reason:
        return "free some disk space, and the next memory change records them"
    return "run catcode memory doctor --fix to repair the memory repository"


def scope_counts(counts: ScopeCounts) -> str:
    """``3 for all projects, 1 for this project`` (only the scopes that have any)."""
    return ", ".join(f"{counts.of_scope(s)} for {s.label}" for s in (Scope.USER, Scope.PROJECT) if counts.of_scope(s))


def undoable(versioned: bool) -> str:
    """Whether a change that deletes can be undone, as the questions before one say it."""
    return "This is a git commit you can revert." if versioned else "Versioning is off: this cannot be undone."


def clear_question(question: ClearQuestion) -> str:
    """``Delete all 4 memories (1 for all projects, 3 for this project)? This is a git commit you can revert.``"""
    count = question.counts.total
    return f"Delete all {count} memories ({scope_counts(question.counts)})? {undoable(question.versioned)}"


def forget_question(question: ForgetQuestion) -> str:
    """``Forget NAME (type, scope): description? This is a git commit you can revert.``"""
    what = f"{question.name} ({question.type.value}, {question.scope.label}): {question.description}"
    return f"Forget {what}? {undoable(question.versioned)}"


def done_text(result: Done) -> str:
    """What a flow did, in one sentence that names no command (a front end adds how to undo it)."""
    from catcode.memory.flows import Cleared, Forgotten, Moved, Unchanged

    if isinstance(result, Cleared):
        if result.unchanged is Unchanged.NO_MEMORIES:
            return NO_MEMORIES
        if result.unchanged is Unchanged.DECLINED:
            return KEPT_ALL
        noun = "memory" if result.deleted == 1 else "memories"
        return f"Deleted {result.deleted} {noun} ({scope_counts(result.counts)})."
    if isinstance(result, Forgotten):
        return f"Kept {result.name}." if result.unchanged else f"Forgot {result.name} ({result.scope.label})."
    if isinstance(result, Moved):
        return f"Moved {result.name} to {result.after.label} (it was for {result.before.label})."
    if result.unchanged is Unchanged.SAME_TEXT:
        return f"No change to {result.name}."
    redacted = f" ({result.redacted} secret(s) redacted)" if result.redacted else ""
    return f"Saved {result.name}{redacted}."
