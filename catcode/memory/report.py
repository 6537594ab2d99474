"""Text for people and for the model: the pipeline report (``/memory``), the list (``/memory list``), one
memory in full (``memory_read``, ``/memory show``), ``/memory status``, ``catcode memory path``, and the flows that
ask before they change memory — ``clear``, ``forget`` — and ``move``; shared by the slash commands and
``catcode memory``. Every memory is shown with its scope: "all projects" (the user scope) or "this project"."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.errors import CatcodeError
from catcode.memory.store.models import ConsolidationReport, MemoryEntry, Scope
from catcode.memory.store.store import MemoryStore
from catcode.text import flatten

if TYPE_CHECKING:
    from catcode.settings.paths import Paths

NO_MEMORIES = "No memories stored."
KEPT_ALL = "Kept every memory."
Confirm = Callable[[int, str], bool]
"""Asked before a change that deletes: how many memories would go, and the question to put to the person."""
Undo = Callable[[str | None], str]
"""The undo hint for a change id (None: versioning is off or nothing changed), e.g. " Undo with /memory revert X."."""
Located = tuple[MemoryEntry, Scope]


def naming_commands(message: str, command: str) -> str:
    """A memory flow's ``message``, whose commands are the REPL's (``/memory log``), naming them as a front end
    does instead (``command`` "catcode memory": ``catcode memory log``). The flows return the one wording; each
    front end that is not the REPL words its commands through this."""
    return re.sub(r"(?<![\w/`])/memory\b", command, message)


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
    return "\n".join(f"{e.name} - {flatten(e.description)} ({e.type.value}, {scope.label})" for e, scope in items)


def format_entry(entry: MemoryEntry, scope: Scope | None = None) -> str:
    """A memory in full: heading with its type (and scope), description, dates, then the content."""
    where = f", {scope.label}" if scope is not None else ""
    dates = f"(created {entry.created_at.isoformat()}, updated {entry.updated_at.isoformat()})"
    return f"## {entry.name} ({entry.type.value}{where})\n{flatten(entry.description)}\n{dates}\n\n{entry.content}"


def sorted_by_scope(items: Sequence[Located]) -> list[Located]:
    """User scope first, then project scope, each by name (the order of ``/memory list`` and injection)."""
    return sorted(items, key=lambda item: (item[1] is not Scope.USER, item[0].name))


def unreadable_line(count: int) -> str:
    """The line under a list when files were skipped."""
    noun = "file" if count == 1 else "files"
    return f"{count} unreadable memory {noun} skipped — run catcode memory doctor"


def hidden_line(count: int) -> str:
    """The line under a list when memories of another project's making are hidden by a name clash."""
    noun = "memory for all projects is" if count == 1 else "memories for all projects are"
    return f"{count} {noun} hidden here by one of this project's of the same name — run catcode memory doctor"


def not_found_line(name: str, lister: str) -> str:
    """For a person (not the model's tool text): no memory of that name, and how to see them."""
    return f"No memory named {name}. {lister} shows them."


def scope_counts(items: Sequence[Located]) -> str:
    """``3 for all projects, 1 for this project`` (only the scopes that have any)."""
    counts = {scope: sum(1 for _, s in items if s is scope) for scope in Scope}
    return ", ".join(f"{counts[s]} for {s.label}" for s in (Scope.USER, Scope.PROJECT) if counts[s])


def clear_memories(store: MemoryStore, versioned: bool, confirm: Confirm, undo: Undo, *, mark: Any = None) -> str:
    """The one "clear every memory" flow (``/memory clear``, ``catcode memory clear``): ask ``confirm`` (the
    question says how many are for all projects and how many for this one), delete every memory as one change,
    then ``mark`` (``cursor.mark_cleared`` over the memory root's projects) so that conversation said before the
    clear — in any project, a session still open included — is never saved afterwards. The line to show."""
    items = store.located()
    if not items:
        if mark is not None:
            mark()  # nothing to delete, but what was said so far is still not to be saved
        return NO_MEMORIES
    count, split = len(items), scope_counts(items)
    undoable = "This is a git commit you can revert." if versioned else "Versioning is off: this cannot be undone."
    if not confirm(count, f"Delete all {count} memories ({split})? {undoable}"):
        return KEPT_ALL
    deleted = store.clear(why="clear")
    commit = store.last_commit
    if mark is not None:
        mark()
    noun = "memory" if deleted == 1 else "memories"
    return f"Deleted {deleted} {noun} ({split})." + undo(commit)


def forget_memory(store: MemoryStore, name: str, versioned: bool, confirm: Confirm, undo: Undo, lister: str) -> str:
    """The one "forget one memory" flow (``/memory forget NAME``, ``catcode memory forget NAME``): ask, delete it
    as one change; the line to show. ``CatcodeError`` when there is no such memory."""
    name = name.strip()
    entry, scope = store.get(name), store.scope_of(name)
    if entry is None or scope is None:
        raise CatcodeError(not_found_line(name, lister))
    undoable = "This is a git commit you can revert." if versioned else "Versioning is off: this cannot be undone."
    if not confirm(1, f"Forget {name} ({entry.type.value}, {scope.label}): {flatten(entry.description)}? {undoable}"):
        return f"Kept {name}."
    store.delete(name, why="forget")
    return f"Forgot {name} ({scope.label})." + undo(store.last_commit)


def move_memory(store: MemoryStore, name: str, where: str, undo: Undo, lister: str) -> str:
    """``/memory move NAME user|project``: keep a memory for all projects or for this project only."""
    target = {"user": Scope.USER, "project": Scope.PROJECT}.get(where.strip().lower())
    if target is None:
        raise CatcodeError("Say where to: user (all projects) or project (this project)")
    name = name.strip()
    before = store.scope_of(name)
    if before is None:
        raise CatcodeError(not_found_line(name, lister))
    counts = store.move(name, target, why="move")
    return f"Moved {name} to {target.label} (it was for {before.label})." + undo(counts.commit)


def path_summary(paths: Paths) -> str:
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
    """The ``/memory status`` and ``catcode memory status`` lines (offline too: the cursor is read from disk)."""
    from catcode.memory.pipeline.attempts import MAX_BAD_REPLIES
    from catcode.memory.pipeline.cursor import MESSAGE_KINDS, unprocessed_count

    store, service, git = runtime.store, runtime.service, runtime.git
    counts = {scope: 0 for scope in Scope}
    for _, scope in store.located():
        counts[scope] += 1
    lines = [
        f"user scope:     {store.dirs[Scope.USER]} ({_memories(counts[Scope.USER])}, for all projects)",
        f"project scope:  {store.dirs[Scope.PROJECT]} ({_memories(counts[Scope.PROJECT])}, for this project)",
    ]
    cursor, history, attempts = _pipeline_state(runtime)
    seq = cursor.get()
    lines.append(f"cursor:         history.jsonl processed through seq {seq}")
    lines.append(f"unprocessed:    {unprocessed_count(history, cursor, MESSAGE_KINDS)} message lines")
    if service is not None:
        lines.append(f"last Dream:     {_dream_text(service.last_dream)}")
    attempt = attempts.current(seq)
    if attempt.failures:
        when = datetime.fromtimestamp(attempt.next_at).strftime("%Y-%m-%d %H:%M")
        lines.append(
            f"failing:        {attempt.reason} ({attempt.bad_replies} of {MAX_BAD_REPLIES} unreadable replies, "
            f"{attempt.errors} errors); background runs wait until {when}"
        )
    lines.append(f"versioning:     {'on (git)' if git.available else 'off — ' + git.warning}")
    hidden = len(store.hidden())
    unreadable = len(store.problems()) - hidden
    files = "file" if unreadable == 1 else "files"
    lines.append(f"unreadable:     {unreadable} {files}" + (" — run catcode memory doctor" if unreadable else ""))
    if hidden:
        lines.append(f"hidden:         {hidden} by a name clash — run catcode memory doctor")
    return lines


def _pipeline_state(runtime: Any) -> tuple[Any, Any, Any]:
    """The cursor, history log and attempts of the runtime, or read from its paths (``catcode memory status``)."""
    from catcode.memory.pipeline.attempts import ATTEMPTS_FILE, Attempts
    from catcode.memory.pipeline.cursor import HISTORY_LOCK, DreamCursor
    from catcode.memory.pipeline.history import HistoryLog

    if runtime.service is not None:
        return runtime.cursor, runtime.history, runtime.service.attempts
    paths = runtime.paths
    cursor = DreamCursor(paths.cursor_file)
    history = HistoryLog(paths.history_file, session_id="status", lock_path=paths.project_memory / HISTORY_LOCK)
    return cursor, history, Attempts(Path(paths.project_memory) / ATTEMPTS_FILE)


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
