"""The memory step at exit: "Saving memories… (Ctrl+C to skip)", the pipeline over what the session left
unprocessed in a thread, then one line per memory added or updated — with the scope it went to — and the exact
change that undoes them. It exits whatever happens: what times out or fails stays after the cursor for the next
start; a reply that could not be read is said so, never "Nothing new to remember.". Once "Saving memories…" is
shown an outcome line always follows it.

``ExitBudget`` is the one bound of the whole exit: capture and the session summary after it share
``memory.exit_timeout`` (the summary gets what capture left)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from catcode.errors import one_line
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.memory.pipeline.cursor import DreamCursor
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.memory.pipeline.run_result import RunResult
    from catcode.memory.pipeline.service import MemoryService
    from catcode.memory.store.store import MemoryStore
    from catcode.memory.versioning.git_store import GitStore
    from catcode.settings.memory import MemoryConfig

log = get_logger(__name__)

SAVING = "Saving memories… (Ctrl+C to skip)"


class ExitBudget:
    """``seconds`` for every memory step at exit together, counted from the first step that asks."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._deadline: float | None = None

    def remaining(self) -> float:
        """Seconds left (the budget starts on the first call); never negative."""
        if self._deadline is None:
            self._deadline = self._clock() + self.seconds
        return max(0.0, self._deadline - self._clock())


class Capturing(Protocol):
    """What the exit capture needs of the session's memory (``MemoryRuntime``, which imports this module)."""

    capture_failed: bool

    @property
    def service(self) -> MemoryService | None: ...
    @property
    def history(self) -> HistoryLog | None: ...
    @property
    def cursor(self) -> DreamCursor | None: ...
    @property
    def config(self) -> MemoryConfig: ...
    @property
    def exit_budget(self) -> ExitBudget: ...
    @property
    def store(self) -> MemoryStore: ...
    @property
    def git(self) -> GitStore: ...


def capture_at_exit(runtime: Capturing, say: Callable[[str], None]) -> None:
    """Process what the session of ``runtime`` (a ``MemoryRuntime`` with a provider) left unprocessed, within
    what is left of its exit budget; Ctrl+C skips it. Sets ``runtime.capture_failed`` when it timed out or
    failed.

    One capture at a time: a background run (Dream, recovery) still going is waited for first and its outcome is
    said here (its notice would come after the last prompt). Fewer than ``extract_min_messages`` waiting: captured
    all the same when the person stated something to remember (``remember_cues``), else one line says they are
    kept. Once "Saving memories…" is shown, an outcome line always follows."""
    service, history = runtime.service, runtime.history
    assert service is not None and history is not None
    shown = service.background_running()
    if shown:
        say(SAVING)
        said = _finish_background(runtime, say)
        if not service.pending():
            history.append_event("session_end", captured=True)
            if not said:
                say("Nothing new to remember.")
            return
    pending, minimum = service.pending(), runtime.config.extract_min_messages
    if pending == 0:
        history.append_event("session_end", captured=True)
        return
    stated = pending < minimum and service.stated_to_remember()
    if pending < minimum and not stated:
        history.append_event("session_end", captured=False)
        say(kept_line(pending, minimum))
        return
    if not shown:
        say(SAVING)
    _capture(runtime, say, minimum=1 if stated else None)


def kept_line(pending: int, minimum: int) -> str:
    """The exit's line for messages left below ``extract_min_messages``."""
    noun = "message" if pending == 1 else "messages"
    return f"{pending} new {noun} kept; memory runs from {minimum} — /memory saves them now"


def _finish_background(runtime: Capturing, say: Callable[[str], None]) -> bool:
    """Wait (within the budget) for the background run, and say what it saved; whether a line was said."""
    from catcode.memory.pipeline.run_result import background_line, skipped_line

    service = runtime.service
    assert service is not None
    before = service.last_dream
    service.wait_background(runtime.exit_budget.remaining())
    if service.background_running():
        return False  # the capture after it waits on the run lock, within what is left of the budget, and says so
    result = service.last_dream
    if result is None or result is before:
        return False
    if result.changed:
        say(background_line(result.why, result))
    elif result.skipped:
        say(skipped_line(result))
    return bool(result.changed or result.skipped)


def _capture(runtime: Capturing, say: Callable[[str], None], *, minimum: int | None) -> None:
    from catcode.memory.pipeline.manager import SUPERSEDED, UnreadableReply
    from catcode.memory.pipeline.run_result import skipped_line

    service, history, cursor = runtime.service, runtime.history, runtime.cursor
    assert service is not None and history is not None and cursor is not None
    timeout = runtime.exit_budget.remaining()
    results: list[RunResult] = []
    errors: list[Exception] = []

    def work() -> None:
        try:
            results.append(service.process_pending(why="session-end", wait=timeout, minimum=minimum))
        except Exception as exc:
            errors.append(exc)

    worker = threading.Thread(target=work, name="memory-exit", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        runtime.capture_failed = True
        log.warning("session_end_memory_timeout", timeout=timeout)
        say(f"Memory capture timed out after {runtime.config.exit_timeout:.0f}s; it will finish at the next start.")
        return
    if errors:
        runtime.capture_failed = True
        error = errors[0]
        log.warning("Session-end memory extraction failed", error=repr(error))
        if isinstance(error, UnreadableReply):
            tries = service.attempts.current(cursor.get()).bad_replies
            say(f"Memory capture failed: {error} (attempt {tries}); it will be retried at the next start.")
        else:
            say(f"Memory capture failed ({one_line(error)}); it will be retried at the next start.")
        return
    result = results[0]
    report = result.report
    added, updated = (report.added, report.updated) if report else ([], [])
    log.info(f"Session-end memory: {len(added)} added, {len(updated)} updated")
    history.append_event("session_end", captured=result.reviewed or bool(result.skipped))
    if result.skipped:
        say(skipped_line(result))
    elif report is not None and (added or updated):
        say(f"Memory: {len(added)} added, {len(updated)} updated — /memory list shows them")
        for mark, names in (("+", added), ("~", updated)):
            for name in names:
                say(f"  {mark} {saved_line(runtime.store, name, report.renamed)}")
        if report.redacted:
            say(f"  {report.redacted} secret(s) were redacted before saving")
        say(undo_line(runtime, report.commit))
    elif result.reviewed:
        say("Nothing new to remember.")
    elif report is not None and report.skipped_reason == SUPERSEDED:
        say("Memory was cleared during this session: nothing said before the clear was saved.")
    elif report is None:
        say("Nothing new to remember: another run had already processed these messages.")
    else:
        say(f"Nothing saved: {report.skipped_reason}.")


def saved_line(store: MemoryStore, name: str, renamed: dict[str, str]) -> str:
    """``name — description (all projects)``: where a memory went, and why when its type alone does not say."""
    entry, scope = store.get(name), store.scope_of(name)
    if entry is None or scope is None:
        return name
    notes = [scope.label]
    reason = store.placement.reason(entry, scope) if hasattr(store.placement, "reason") else ""
    if reason:
        notes[0] += f": {reason}"
    asked = next((old for old, new in renamed.items() if new == name), None)
    if asked:
        whose = "another project" if scope.value == "user" else "another user of this project"
        notes.append(f"saved as {name}: {asked} is taken by a memory of {whose}")
    return f"{name} — {entry.description} ({'; '.join(notes)})"


def undo_line(runtime: Capturing, commit: str | None) -> str:
    """The undo hint: the exact change, so that it stays true whatever is committed after it."""
    if commit:
        short = commit[:7]
        return f"  Undo with /memory revert {short}, or `catcode memory revert {short}`."
    if not runtime.git.available:
        return "  Versioning is off (git is not installed): this cannot be undone."
    # Something was written but its commit failed (logged): a bare revert would undo an earlier change.
    return "  This change could not be recorded in git (details in the log); the next memory change records it."
