"""``MemoryService``: drives the pipeline from history.jsonl through the persistent cursor.

Session end, Dream (background, mid-session), recovery at start and the compaction flush all call
``process_pending``, which processes exactly the message lines after ``.dream_cursor``: nothing twice, nothing
lost. The cursor advances when a run reviewed its window (also when nothing was worth remembering) and never
when it failed. One run at a time per project, across processes (``.dream.lock``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from catcode.errors import one_line
from catcode.log import get_logger
from catcode.memory.pipeline.cursor import MESSAGE_KINDS, DreamCursor, HistoryWindow, unprocessed_count
from catcode.memory.pipeline.history import HistoryConfig, HistoryLog
from catcode.memory.pipeline.history_compaction import compact_history
from catcode.memory.pipeline.history_format import HistoryRecord
from catcode.memory.pipeline.manager import MemoryManager
from catcode.memory.store.models import ConsolidationReport, MemoryConfig
from catcode.messages import Message

log = get_logger(__name__)

BACKOFF_START, BACKOFF_MAX = 60.0, 1800.0


@dataclass
class RunResult:
    """What one pipeline run did."""

    why: str
    report: ConsolidationReport | None = None  # None: there was nothing to process
    reviewed: bool = False
    messages: int = 0
    error: str | None = None
    finished: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def changed(self) -> list[str]:
        """Names added or updated."""
        return [*self.report.added, *self.report.updated] if self.report else []


class Busy(Exception):
    """Another run (this process or another) holds the project's pipeline lock."""


class MemoryService:
    """Cursor-driven extraction for one project."""

    def __init__(
        self,
        manager: MemoryManager,
        history: HistoryLog,
        cursor: DreamCursor,
        *,
        config: MemoryConfig,
        history_config: HistoryConfig,
        run_lock: Path,
        summarize: Callable[[list[HistoryRecord]], str] | None = None,
        notify: Callable[[str], None] = lambda line: None,
        clock: Callable[[], float] = time.monotonic,
        background_manager: MemoryManager | None = None,
    ) -> None:
        self.manager, self.history, self.cursor = manager, history, cursor
        # Dream and recovery runs use their own output bound (memory.dream_max_tokens).
        self.background_manager = background_manager or manager
        self.config, self.history_config = config, history_config
        self._run_lock = FileLock(str(run_lock), mode=0o600)
        self._summarize = summarize
        self._notify = notify
        self._clock = clock
        self._dream: threading.Thread | None = None
        self._backoff = 0.0
        self._next_dream = 0.0
        self.last_run: RunResult | None = None
        self.last_dream: RunResult | None = None

    # -- recording --------------------------------------------------------------------------------------------

    def record(self, message: Message) -> None:
        """Append a stored message to history.jsonl, then start a Dream if enough is unprocessed."""
        self.history.append(message)
        self.maybe_dream()

    def pending(self) -> int:
        """Unprocessed message lines."""
        return unprocessed_count(self.history, self.cursor, MESSAGE_KINDS)

    # -- one run ------------------------------------------------------------------------------------------------

    def process_pending(self, *, why: str, wait: float = 0.0) -> RunResult:
        """Review the oldest unprocessed window. Raises ``Busy`` if another run holds the lock past ``wait``
        seconds; provider and store errors propagate with the cursor untouched."""
        try:
            self._run_lock.acquire(timeout=wait)
        except Timeout:
            raise Busy("another memory run is in progress") from None
        try:
            window = HistoryWindow(self.history, self.cursor)
            result = RunResult(why, messages=len(window))
            if window:
                manager = self.background_manager if why in ("dream", "recovery") else self.manager
                result.report = manager.extract_and_consolidate(window, why=why)
                result.reviewed = window.advanced
            self.last_run = result
            log.info("memory_run", why=why, messages=len(window), reviewed=result.reviewed, changed=result.changed)
            return result
        finally:
            self._run_lock.release()

    def compact_history(self) -> None:
        """Fold processed history into a summary line when the file is over budget (best effort)."""
        try:
            compact_history(
                self.history,
                self.cursor,
                char_budget=self.history_config.char_budget,
                keep_recent=self.history_config.keep_recent,
                summarize=self._summarize or _no_summary,
            )
        except Exception:
            log.warning("history_compaction_failed", exc_info=True)

    # -- Dream: background runs mid-session ---------------------------------------------------------------------

    def maybe_dream(self) -> bool:
        """Start a background run when ≥ ``dream_min_lines`` are unprocessed; never blocks. True if started."""
        if self._dream is not None and self._dream.is_alive():
            return False
        if self._clock() < self._next_dream or self.pending() < self.config.dream_min_lines:
            return False
        return self.start_background("dream")

    def start_background(self, why: str) -> bool:
        """Run ``process_pending`` in a daemon thread (fire-and-forget); results become one quiet notice."""
        if self._dream is not None and self._dream.is_alive():
            return False
        self._dream = threading.Thread(target=self._background, args=(why,), name=f"memory-{why}", daemon=True)
        self._dream.start()
        return True

    def wait_background(self, timeout: float | None = None) -> None:
        """Wait for a running background run (tests, shutdown)."""
        if self._dream is not None:
            self._dream.join(timeout)

    def _background(self, why: str) -> None:
        try:
            result = self.process_pending(why=why)
        except Busy:
            return
        except Exception as exc:
            self._backoff = min(BACKOFF_MAX, self._backoff * 2 or BACKOFF_START)
            self._next_dream = self._clock() + self._backoff
            self.last_dream = RunResult(why, error=one_line(exc))
            log.warning("memory_background_failed", why=why, retry_in=self._backoff, exc_info=True)
            return
        self._backoff = 0.0
        self.last_dream = result
        if result.changed:
            self._notify(_background_line(why, result))
        self.compact_history()


def _no_summary(records: list[HistoryRecord]) -> str:
    raise RuntimeError("no summariser configured")  # compact_history then writes its stub with counts


def _background_line(why: str, result: RunResult) -> str:
    report = result.report
    assert report is not None
    parts = [
        f"added {', '.join(report.added)}" if report.added else "",
        f"updated {', '.join(report.updated)}" if report.updated else "",
    ]
    changed = "; ".join(p for p in parts if p)
    if why == "recovery":
        count = len(report.added) + len(report.updated)
        noun = "memory" if count == 1 else "memories"
        return f"Recovered {count} {noun} from an interrupted session ({changed}) — /memory revert undoes it"
    return f"Memory ({why}): {changed} — /memory revert undoes it"
