"""The memory step at exit, and the capture it hands over.

At exit the person goes at once: ``capture_at_exit`` says "Saving memories… in the background" and hands what the
session left unprocessed to a process of its own (``upkeep.start_upkeep``), which runs ``run_capture`` — the
pipeline over the lines after the cursor, then one line per memory added or updated, with the scope it went to and
the exact change that undoes them — and the session summary; the next interactive start in the project shows those
lines. Nothing is lost whatever happens: what times out, fails or never starts stays after the cursor for the next
start's recovery; a reply that could not be read is said so, never "Nothing new to remember.".

``ExitBudget`` bounds that work (``memory.exit_timeout``): capture and the session summary after it share it (the
summary gets what capture left)."""

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

SAVING = "Saving memories… in the background: what is saved is shown at your next start here."


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

    def hand_off(self, minimum: int | None) -> bool:
        """Start the capture in the background; False when it could not be started."""
        ...


def capture_at_exit(runtime: Capturing, say: Callable[[str], None]) -> None:
    """Hand what the session of ``runtime`` (a ``MemoryRuntime`` with a provider) left unprocessed to the capture
    in the background (``runtime.hand_off``), never waiting for the model. Fewer than ``extract_min_messages``
    waiting: handed over all the same when the person stated something to remember (``remember_cues``), else one
    line says they are kept. A background run of this process still going (Dream, recovery) ends with the process:
    what it had not saved is still after the cursor, and the capture takes it."""
    service, history = runtime.service, runtime.history
    assert service is not None and history is not None
    pending, minimum = service.pending(), runtime.config.extract_min_messages
    if pending == 0:
        history.append_event("session_end", captured=True)
        return
    stated = pending < minimum and service.stated_to_remember()
    if pending < minimum and not stated:
        history.append_event("session_end", captured=False)
        say(kept_line(pending, minimum))
        return
    history.append_event("session_end", captured=False)
    if runtime.hand_off(1 if stated else None):
        say(SAVING)
    else:
        say("Memory capture could not be started; it will be done at the next start.")


def run_capture(
    runtime: Capturing, say: Callable[[str], None], *, minimum: int | None = None, wait: float | None = None
) -> RunResult | None:
    """Process what the pipeline has not, within what is left of the exit budget, and say what happened (one line
    per memory added or updated, the change that undoes them); the run's result (None: it failed or timed out,
    and ``runtime.capture_failed`` is set). ``wait``: how long to wait for another run of the pipeline."""
    results = _capture(runtime, say, minimum=minimum, wait=wait)
    return results[0] if results else None


def kept_line(pending: int, minimum: int) -> str:
    """The exit's line for messages left below ``extract_min_messages``."""
    noun = "message" if pending == 1 else "messages"
    return f"{pending} new {noun} kept; memory runs from {minimum} — /memory saves them now"


def _capture(
    runtime: Capturing, say: Callable[[str], None], *, minimum: int | None, wait: float | None
) -> list[RunResult]:
    from catcode.memory.pipeline.manager import SUPERSEDED, UnreadableReply
    from catcode.memory.pipeline.run_result import skipped_line

    service, history, cursor = runtime.service, runtime.history, runtime.cursor
    assert service is not None and history is not None and cursor is not None
    timeout = runtime.exit_budget.remaining()
    results: list[RunResult] = []
    errors: list[Exception] = []

    def work() -> None:
        try:
            results.append(service.process_pending(why="session-end", wait=timeout if wait is None else wait,
                                                   minimum=minimum))  # fmt: skip
        except Exception as exc:
            errors.append(exc)

    worker = threading.Thread(target=work, name="memory-exit", daemon=True)
    worker.start()
    worker.join(timeout + (wait or 0.0))
    if worker.is_alive():
        runtime.capture_failed = True
        log.warning("session_end_memory_timeout", timeout=timeout)
        say(f"Memory capture timed out after {runtime.config.exit_timeout:.0f}s; it will finish at the next start.")
        return []
    if errors:
        runtime.capture_failed = True
        error = errors[0]
        log.warning("Session-end memory extraction failed", error=repr(error))
        if isinstance(error, UnreadableReply):
            tries = service.attempts.current(cursor.get()).bad_replies
            say(f"Memory capture failed: {error} (attempt {tries}); it will be retried at the next start.")
        else:
            say(f"Memory capture failed ({one_line(error)}); it will be retried at the next start.")
        return []
    result = results[0]
    report = result.report
    added, updated = (report.added, report.updated) if report else ([], [])
    log.info(f"Session-end memory: {len(added)} added, {len(updated)} updated")
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
    return results


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
