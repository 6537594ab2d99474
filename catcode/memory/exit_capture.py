"""The memory step at exit: "Saving memories… (Ctrl+C to skip)", the pipeline over what the session left
unprocessed in a thread bounded by ``memory.exit_timeout``, then one line per memory added or updated and how to
undo it. It exits whatever happens: what times out or fails stays after the cursor for the next start."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from catcode.errors import one_line
from catcode.log import get_logger

log = get_logger(__name__)


def capture_at_exit(runtime: Any, say: Callable[[str], None]) -> None:
    """Process what the session of ``runtime`` (a ``MemoryRuntime`` with a provider) left unprocessed, bounded by
    ``memory.exit_timeout``; Ctrl+C skips it. Sets ``runtime.capture_failed`` when it timed out or failed."""
    service, history = runtime.service, runtime.history
    assert service is not None and history is not None
    if service.pending() < runtime.config.extract_min_messages:
        history.append_event("session_end", captured=service.pending() == 0)
        return
    say("Saving memories… (Ctrl+C to skip)")
    timeout = runtime.config.exit_timeout
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["result"] = service.process_pending(why="session-end", wait=timeout)
        except Exception as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="memory-exit", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        runtime.capture_failed = True
        log.warning("session_end_memory_timeout", timeout=timeout)
        say(f"Memory capture timed out after {timeout:.0f}s; it will finish at the next start.")
        return
    if "error" in outcome:
        runtime.capture_failed = True
        log.warning("Session-end memory extraction failed", error=repr(outcome["error"]))
        say(f"Memory capture failed ({one_line(outcome['error'])}); it will be retried at the next start.")
        return
    result = outcome["result"]
    report = result.report
    added, updated = (report.added, report.updated) if report else ([], [])
    log.info(f"Session-end memory: {len(added)} added, {len(updated)} updated")
    history.append_event("session_end", captured=result.reviewed)
    if added or updated:
        say(f"Memory: {len(added)} added, {len(updated)} updated — /memory list shows them")
        for mark, names in (("+", added), ("~", updated)):
            for name in names:
                entry = runtime.store.get(name)
                say(f"  {mark} {name} — {entry.description if entry else ''}")
        if report and report.redacted:
            say(f"  {report.redacted} secret(s) were redacted before saving")
        say("  Undo with /memory revert, or `catcode memory revert`.")
    elif result.reviewed:
        say("Nothing new to remember.")
