"""Text for people and for the model: the pipeline report (``/memory``), the list (``/memory list``), one
memory in full (``memory_read``, ``/memory show``), ``/memory status``, ``catcode memory path`` and the one "clear
every memory" flow; shared by the slash commands and ``catcode memory``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from catcode.memory.store.models import ConsolidationReport, MemoryEntry, Scope
from catcode.memory.store.store import MemoryStore
from catcode.text import flatten

NO_MEMORIES = "No memories stored."
KEPT_ALL = "Kept every memory."
Confirm = Callable[[int, str], bool]
"""Asked before ``clear`` deletes: how many memories would go, and the question to put to the person."""


def format_report(report: ConsolidationReport) -> str:
    """The seed's ``runPipeline`` output (plus a redaction line when secrets were removed)."""
    lines = ["Memory pipeline complete:", f"  candidates: {report.candidates_found}"]
    if report.skipped_reason:
        lines.append(f"  note: {report.skipped_reason}")
    for label, names in (("added", report.added), ("updated", report.updated), ("skipped", report.skipped)):
        if names:
            lines.append(f"  {label}: {', '.join(names)}")
    if report.redacted:
        lines.append(f"  redacted: {report.redacted} secret(s)")
    return "\n".join(lines)


def format_list(entries: Sequence[MemoryEntry]) -> str:
    """One line per memory: ``name - description (type)``."""
    if not entries:
        return NO_MEMORIES
    return "\n".join(f"{e.name} - {flatten(e.description)} ({e.type.value})" for e in entries)


def format_entry(entry: MemoryEntry) -> str:
    """A memory in full: heading with its type, description, dates, then the content."""
    dates = f"(created {entry.created_at.isoformat()}, updated {entry.updated_at.isoformat()})"
    return f"## {entry.name} ({entry.type.value})\n{flatten(entry.description)}\n{dates}\n\n{entry.content}"


def sorted_by_scope(entries: list[MemoryEntry]) -> list[MemoryEntry]:
    """User scope first, then project scope, each by name (the order of ``/memory list`` and injection)."""
    return sorted(entries, key=lambda e: (e.type.scope is not Scope.USER, e.name))


def unreadable_line(count: int) -> str:
    """The line under a list when files were skipped."""
    noun = "file" if count == 1 else "files"
    return f"{count} unreadable memory {noun} skipped — run catcode memory doctor"


def clear_memories(store: MemoryStore, versioned: bool, confirm: Confirm, undo: str) -> str:
    """The one "clear every memory" flow (``/memory clear``, ``catcode memory clear``): ask ``confirm``, delete every
    memory as one change, and return the line to show; ``undo`` names the command that reverts it."""
    count = len(store.load_all())
    if count == 0:
        return NO_MEMORIES
    undoable = "This is a git commit you can revert." if versioned else "Versioning is off: this cannot be undone."
    if not confirm(count, f"Delete all {count} memories? {undoable}"):
        return KEPT_ALL
    deleted = store.clear(why="clear")
    noun = "memory" if deleted == 1 else "memories"
    return f"Deleted {deleted} {noun}." + (f" Undo with {undo}." if versioned else " (versioning is off)")


def path_summary(paths: Any) -> str:
    """Where memory lives, for ``catcode memory path``."""
    return "\n".join(
        [
            f"memory root:   {paths.memory_root}",
            f"user scope:    {paths.user_memory}",
            f"project scope: {paths.project_memory}",
            f"history:       {paths.history_file}",
        ]
    )


def status_lines(runtime: Any) -> list[str]:
    """The ``/memory status`` lines."""
    store, service, git = runtime.store, runtime.service, runtime.git
    counts = {scope: 0 for scope in Scope}
    for entry in store.load_all():
        counts[entry.type.scope] += 1
    lines = [
        f"user scope:     {store.dirs[Scope.USER]} ({_memories(counts[Scope.USER])})",
        f"project scope:  {store.dirs[Scope.PROJECT]} ({_memories(counts[Scope.PROJECT])})",
    ]
    if runtime.cursor is not None and service is not None:
        lines.append(f"cursor:         history.jsonl processed through seq {runtime.cursor.get()}")
        lines.append(f"unprocessed:    {service.pending()} message lines")
        lines.append(f"last Dream:     {_dream_text(service.last_dream)}")
    lines.append(f"versioning:     {'on (git)' if git.available else 'off — ' + git.warning}")
    problems = len(store.problems())
    files = "file" if problems == 1 else "files"
    lines.append(f"unreadable:     {problems} {files}" + (" — run catcode memory doctor" if problems else ""))
    return lines


def _dream_text(run: Any) -> str:
    if run is None:
        return "none this session"
    when = run.finished.astimezone().strftime("%Y-%m-%d %H:%M")
    if run.error:
        return f"{when} ({run.why}) failed: {run.error}"
    if run.report is None:
        return f"{when} ({run.why}) nothing to review"
    changed = [*run.report.added, *run.report.updated]
    outcome = f"changed {', '.join(changed)}" if changed else run.report.skipped_reason or "no changes"
    return f"{when} ({run.why}) {outcome}"


def _memories(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"
