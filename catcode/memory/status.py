"""``MemoryStatus``: the state of a project's memory as data — both scopes and their counts, how far the pipeline
has read history.jsonl, what waits, the last Dream, failing runs, versioning, unreadable and hidden files — read
the same way by ``/memory status`` and ``catcode memory status`` (offline too: the cursor is read from disk).
``status_lines`` words it, for both: the two terminal front ends say the same here, and it names no command
of either (only ``catcode memory doctor``, which the REPL has no slash command for)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.memory.flows import ScopeCounts
from catcode.memory.store.models import Scope

if TYPE_CHECKING:
    from catcode.memory.pipeline.attempts import Attempt, Attempts
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.run_result import RunResult
    from catcode.memory.runtime import MemoryRuntime


@dataclass(frozen=True)
class MemoryStatus:
    """What ``/memory status`` shows."""

    folders: dict[Scope, Path]
    counts: ScopeCounts
    cursor: int  # history.jsonl is processed through this seq
    unprocessed: int  # message lines after the cursor
    dreams: bool  # a pipeline runs in this process (a session, not the offline CLI)
    last_dream: RunResult | None  # of this session; None when none ran (or ``dreams`` is False)
    failing: Attempt | None  # the failures of the pending window; None when it has not failed
    max_bad_replies: int
    versioning_off: str | None  # why memory versioning is off; None when it is on
    unreadable: int  # memory files that are not valid ones (hidden ones not counted)
    hidden: int  # memories for all projects hidden by one of this project's of the same name


def memory_status(runtime: MemoryRuntime) -> MemoryStatus:
    """The status of ``runtime``'s memory (a running session's, or read from disk when it has no service)."""
    from catcode.memory.pipeline.attempts import MAX_BAD_REPLIES
    from catcode.memory.pipeline.cursor import MESSAGE_KINDS, unprocessed_count

    store, service, git = runtime.store, runtime.service, runtime.git
    cursor, history, attempts = _pipeline_state(runtime)
    seq = cursor.get()
    attempt = attempts.current(seq)
    hidden = len(store.hidden())
    return MemoryStatus(
        folders=dict(store.dirs),
        counts=ScopeCounts.of_store(store),
        cursor=seq,
        unprocessed=unprocessed_count(history, cursor, MESSAGE_KINDS),
        dreams=service is not None,
        last_dream=service.last_dream if service is not None else None,
        failing=attempt if attempt.failures else None,
        max_bad_replies=MAX_BAD_REPLIES,
        versioning_off=None if git.available else git.warning,
        unreadable=len(store.problems()) - hidden,
        hidden=hidden,
    )


def _pipeline_state(runtime: MemoryRuntime) -> tuple[DreamCursor, HistoryLog, Attempts]:
    """The cursor, history log and attempts of the runtime, or read from its paths (``catcode memory status``)."""
    from catcode.memory.pipeline.attempts import ATTEMPTS_FILE, Attempts
    from catcode.memory.pipeline.cursor import HISTORY_LOCK, DreamCursor
    from catcode.memory.pipeline.history import HistoryLog

    if runtime.service is not None and runtime.cursor is not None and runtime.history is not None:
        return runtime.cursor, runtime.history, runtime.service.attempts
    paths = runtime.paths
    cursor = DreamCursor(paths.cursor_file)
    history = HistoryLog(paths.history_file, session_id="status", lock_path=paths.project_memory / HISTORY_LOCK)
    return cursor, history, Attempts(Path(paths.project_memory) / ATTEMPTS_FILE)


def status_lines(status: MemoryStatus) -> list[str]:
    """The ``/memory status`` and ``catcode memory status`` lines."""
    folders, counts = status.folders, status.counts
    lines = [
        f"user scope:     {folders[Scope.USER]} ({_memories(counts.user)}, for all projects)",
        f"project scope:  {folders[Scope.PROJECT]} ({_memories(counts.project)}, for this project)",
        f"cursor:         history.jsonl processed through seq {status.cursor}",
        f"unprocessed:    {status.unprocessed} message lines",
    ]
    if status.dreams:
        lines.append(f"last Dream:     {dream_text(status.last_dream)}")
    attempt = status.failing
    if attempt is not None:
        when = datetime.fromtimestamp(attempt.next_at).strftime("%Y-%m-%d %H:%M")
        lines.append(
            f"failing:        {attempt.reason} ({attempt.bad_replies} of {status.max_bad_replies} unreadable "
            f"replies, {attempt.errors} errors); background runs wait until {when}"
        )
    lines.append(f"versioning:     {'on (git)' if status.versioning_off is None else 'off — ' + status.versioning_off}")
    files = "file" if status.unreadable == 1 else "files"
    doctor = " — run catcode memory doctor" if status.unreadable else ""
    lines.append(f"unreadable:     {status.unreadable} {files}{doctor}")
    if status.hidden:
        lines.append(f"hidden:         {status.hidden} by a name clash — run catcode memory doctor")
    return lines


def dream_text(run: RunResult | None) -> str:
    """The last Dream of the session in a few words: when, why, and what it changed (or why it did not)."""
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
