"""``MemoryService``: drives the pipeline from history.jsonl through the persistent cursor.

Session end, Dream (background, mid-session), recovery at start, ``/memory`` and the compaction flush all call
``process_pending``, which processes exactly the message lines after ``.dream_cursor``: nothing twice, nothing
lost. The cursor advances when a run reviewed its window (also when nothing was worth remembering) and never
when it failed — an API error or a reply that could not be read. Failures are counted across sessions
(``attempts.py``): background runs back off, and a window whose replies could not be read ``MAX_BAD_REPLIES``
times is skipped, said and logged (a ``extraction_skipped`` line in history.jsonl records which lines). After
every run history.jsonl is compacted back within its budget. One run at a time per project, across processes
(``.dream.lock``). The background runs (Dream, recovery) are ``dream.BackgroundRuns``; what a run did is
``run_result.RunResult``."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout

from catcode.conversation.messages import Message
from catcode.errors import one_line
from catcode.log import get_logger
from catcode.memory.pipeline.attempts import ATTEMPTS_FILE, MAX_BAD_REPLIES, Attempts
from catcode.memory.pipeline.cursor import (
    MESSAGE_KINDS,
    DreamCursor,
    HistoryWindow,
    intent_path,
    resume_intent,
    unprocessed_count,
)
from catcode.memory.pipeline.dream import BackgroundRuns
from catcode.memory.pipeline.exit_gate import ExitGate, GatedWindow, LeftForNextStart
from catcode.memory.pipeline.history import HistoryError, HistoryLog
from catcode.memory.pipeline.history_compaction import compact_history
from catcode.memory.pipeline.history_format import HistoryRecord
from catcode.memory.pipeline.manager import MemoryManager, UnreadableReply
from catcode.memory.pipeline.run_result import Busy, RunResult
from catcode.settings.memory import HistoryConfig, MemoryConfig

log = get_logger(__name__)

SKIPPED = "extraction_skipped"


class MemoryService(BackgroundRuns):
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
        attempts: Attempts | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        """``notify``: a quiet line about a background run; ``warn`` (default ``notify``): a line the person must
        see at once (history.jsonl cannot be written)."""
        self.manager, self.history, self.cursor = manager, history, cursor
        self._warn = warn or notify
        self.gate = ExitGate()  # closed when the process ends with a background run still going
        self._unrecorded: list[Message] = []  # messages history.jsonl could not take yet (a full disk), in order
        # Dream and recovery runs use their own output bound (memory.dream_max_tokens).
        self.background_manager = background_manager or manager
        self.config, self.history_config = config, history_config
        self._run_lock = FileLock(str(run_lock), mode=0o600)
        self._summarize = summarize
        self.attempts = attempts or Attempts(cursor.path.with_name(ATTEMPTS_FILE))
        self._notify = notify
        self._clock = clock
        self._init_background()

    # -- recording --------------------------------------------------------------------------------------------

    def record(self, message: Message) -> None:
        """Append a stored message to history.jsonl, then start a Dream if enough is unprocessed. A message that
        cannot be written (a full disk) never fails the turn: it is held here and written, in order, with the next
        one once there is room; the first failure (and the recovery) is one line."""
        held = bool(self._unrecorded)
        self._unrecorded.append(message)
        try:
            while self._unrecorded:
                self.history.append(self._unrecorded[0])
                self._unrecorded.pop(0)
        except HistoryError as exc:
            log.warning("history_append_failed", held=len(self._unrecorded), error=str(exc))
            if not held:
                self._warn(
                    f"{exc}. This session's messages are held in memory and written once there is room (they are "
                    "lost if the session ends first)."
                )
            return
        if held:
            self._warn(f"{self.history.path.name} can be written again: the messages held back are saved.")
        self.maybe_dream()

    def pending(self) -> int:
        """Unprocessed message lines."""
        return unprocessed_count(self.history, self.cursor, MESSAGE_KINDS)

    def stated_to_remember(self) -> bool:
        """Whether the person stated something to remember in the messages waiting (``remember_cues``; no model
        call)."""
        from catcode.memory.pipeline.remember_cues import person_stated_something

        return person_stated_something(r.message() for r in self.history.tail(self.cursor.get(), MESSAGE_KINDS))

    def needs_work(self) -> bool:
        """Whether a run at start has anything to do: lines unprocessed, an apply a killed process left half done,
        or history.jsonl over its budget (a session killed before its compaction). Cheap: stats and a tail read."""
        if self.pending() or intent_path(self.cursor).exists():
            return True
        try:
            return self.history.path.stat().st_size > self.history_config.char_budget  # bytes ≥ characters
        except FileNotFoundError:
            return False

    # -- one run ------------------------------------------------------------------------------------------------

    def process_pending(
        self, *, why: str, wait: float = 0.0, respect_backoff: bool = False, minimum: int | None = None
    ) -> RunResult:
        """Review the oldest unprocessed window, then compact history.jsonl back within its budget. Raises
        ``Busy`` if another run holds the lock past ``wait`` seconds; provider errors and ``UnreadableReply``
        propagate with the cursor untouched (the failure is recorded in ``attempts``). ``respect_backoff``: the
        runs that start on their own mid-session (Dream, the compaction flush) leave a window alone while it backs
        off after a failure; exit capture, ``/memory``, ``/dream`` and recovery at start (once per start: the bound
        on unreadable replies keeps that finite) try at once. ``minimum`` replaces ``extract_min_messages`` for this
        run."""
        try:
            self._run_lock.acquire(timeout=wait)
        except Timeout:
            raise Busy("another memory run is in progress") from None
        try:
            try:
                result = self._run(why, respect_backoff, minimum)
            finally:
                self._run_lock.release()
        except LeftForNextStart:
            raise
        except Exception:
            self.compact_history(use_model=False)
            raise
        self.compact_history()
        return result

    def _run(self, why: str, respect_backoff: bool, minimum: int | None) -> RunResult:
        store = self.manager.store
        with self.gate.writing():
            resume_intent(self.cursor, lambda operations, was: store.apply(operations, why=f"{was} (finished)"))
        window = HistoryWindow(self.history, self.cursor)
        result = RunResult(why, messages=len(window))
        if not window:
            return result
        if respect_backoff and not self.attempts.due(window.start):
            result.deferred = True
            return result
        manager = self.background_manager if why in ("dream", "recovery") else self.manager
        try:
            result.report = manager.extract_and_consolidate(GatedWindow(window, self.gate), why=why, minimum=minimum)
        except LeftForNextStart:
            raise
        except UnreadableReply as exc:
            self.gate.leave()
            with self.gate.writing():
                attempt = self.attempts.failed(window.start, str(exc), bad_reply=True)
                log.warning("memory_reply_unreadable", why=why, attempt=attempt.bad_replies, of=MAX_BAD_REPLIES)
                if attempt.bad_replies < MAX_BAD_REPLIES:
                    raise
                self._skip(window, str(exc), result)
        except Exception as exc:
            self.gate.leave()
            with self.gate.writing():
                attempt = self.attempts.failed(window.start, one_line(exc), bad_reply=False)
            log.warning("memory_run_failed", why=why, errors=attempt.errors, retry_at=attempt.next_at)
            raise
        else:
            result.reviewed = window.advanced
            if result.reviewed:
                self.attempts.clear()
        finally:
            self.gate.leave()  # an apply that failed or was superseded: its write phase is over
        log.info("memory_run", why=why, messages=len(window), reviewed=result.reviewed, changed=result.changed)
        return result

    def _skip(self, window: HistoryWindow, reason: str, result: RunResult) -> None:
        """Give up on a window whose replies could not be read ``MAX_BAD_REPLIES`` times: move the cursor past it
        and record which lines were skipped and why (history.jsonl and the log)."""
        window.advance()
        self.history.append_event(SKIPPED, covers=[window.first, window.end], messages=len(window), reason=reason)
        self.attempts.clear()
        result.skipped, result.error = len(window), reason
        log.warning("memory_window_skipped", first=window.first, last=window.end, messages=len(window), reason=reason)

    def compact_history(self, *, use_model: bool = True) -> None:
        """Fold processed history into a summary line when the file is over budget (best effort). Without
        ``use_model`` (after a failed run: the model is failing) the summary is a stub with counts and dates. Not
        once the process is ending (``gate`` closed): the next run does it."""
        try:
            with self.gate.writing():
                self._compact(use_model)
        except LeftForNextStart:
            log.info("history_compaction_left", reason="the session is ending")

    def _compact(self, use_model: bool) -> None:
        try:
            compact_history(
                self.history,
                self.cursor,
                char_budget=self.history_config.char_budget,
                keep_recent=self.history_config.keep_recent,
                summarize=(self._summarize or _no_summary) if use_model else _no_summary,
            )
        except Exception:
            log.warning("history_compaction_failed", exc_info=True)


def _no_summary(records: list[HistoryRecord]) -> str:
    raise RuntimeError("no summariser configured")  # compact_history then writes its stub with counts
