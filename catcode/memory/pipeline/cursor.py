"""``.dream_cursor`` and what it governs: which history lines are still unprocessed (``HistoryWindow``, the
manager's watermark). Folding the processed ones into a summary is ``history_compaction.py``.

The cursor holds the last seq extraction has processed. It is written atomically and never moves
backwards; a missing or corrupt file reads as 0 (everything is processed again, never skipped).

Exactly once, even under ``kill -9``: before the result of a window is applied, the operations are written to
``.dream_intent`` with the window's bounds; the cursor moves past the window only after the apply, and the intent
is removed then. A process killed in between leaves the intent: the next run applies those same operations again
(an apply is idempotent) and moves the cursor, instead of asking the model about the window a second time
(``resume_intent``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path

from catcode.conversation.messages import Message
from catcode.conversation.transcript import EXTRACTION, render_transcript
from catcode.fsutil import atomic_write_text, locked
from catcode.log import get_logger
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_format import HistoryRecord, utc_stamp
from catcode.memory.store.models import MemoryOperation

logger = get_logger(__name__)

Summarizer = Callable[[list[HistoryRecord]], str]
MESSAGE_KINDS = frozenset({"message"})
WINDOW_MAX_MESSAGES = 400  # one run reviews at most this many messages; the rest waits for the next run
WINDOW_MAX_CHARS = 120_000  # of the transcript the extractor reads (each message's text is cut at 8,000 characters)


class DreamCursor:
    """The last history seq extraction has processed, in ``.dream_cursor`` as ``{"seq": N, "updated": ts}``."""

    def __init__(self, path: Path, *, lock_path: Path | None = None) -> None:
        """With ``lock_path`` (the history lock), two sessions advancing at once cannot move it backwards."""
        self.path = path
        self._lock_path = lock_path

    def get(self) -> int:
        """The processed seq; 0 when the file is missing or corrupt (the corruption is logged)."""
        try:
            data = json.loads(self.path.read_bytes())
        except FileNotFoundError:
            return 0
        except (OSError, ValueError) as exc:
            logger.warning("dream_cursor_unreadable", path=str(self.path), error=str(exc))
            return 0
        seq = data.get("seq") if isinstance(data, dict) else None
        if type(seq) is not int or seq < 0:
            logger.warning("dream_cursor_corrupt", path=str(self.path))
            return 0
        return seq

    def advance(self, seq: int) -> None:
        """Record that every line up to ``seq`` is processed; a smaller ``seq`` than the stored one is ignored."""
        if self._lock_path is None:
            self._advance(seq)
            return
        with locked(self._lock_path):
            self._advance(seq)

    def _advance(self, seq: int) -> None:
        if seq <= self.get():
            return
        stamp = utc_stamp(lambda: datetime.now(UTC))
        atomic_write_text(self.path, json.dumps({"seq": seq, "updated": stamp}) + "\n")


class HistoryWindow:
    """The seed's watermark kept on disk (a ``manager.Watermark``): the oldest message lines after the cursor, at
    most ``WINDOW_MAX_MESSAGES`` and ``WINDOW_MAX_CHARS`` as the extractor reads them (``transcript.EXTRACTION``
    shortens an oversized message, so a few huge messages still leave room for the ones after them), read once;
    ``advance`` moves the cursor past them. ``waiting`` counts every valid message after the cursor, so the
    manager's minimum applies to what is pending, not to what fits. Lines that are not valid records (a hand
    edit) are never part of it (``HistoryLog.tail``)."""

    def __init__(self, log: HistoryLog, cursor: DreamCursor) -> None:
        self._cursor = cursor
        self.start = cursor.get()
        """The cursor when the window was read: which window a failure is about (``attempts.py``)."""
        self._records: list[HistoryRecord] = []
        self.end = self.start
        """The seq the cursor moves to on ``advance``: the window's last message."""
        records = log.tail(self.start, MESSAGE_KINDS)
        self._waiting = len(records)
        chars = 0
        for record in records:
            if len(self._records) >= WINDOW_MAX_MESSAGES:
                break
            size = len(render_transcript([record.message()], EXTRACTION))
            if self._records and chars + size > WINDOW_MAX_CHARS:
                break
            self._records.append(record)
            chars += size
            self.end = record.seq
        self.advanced = False

    def __len__(self) -> int:
        return len(self._records)

    @property
    def first(self) -> int:
        """The seq of the window's first message (0 when it has none)."""
        return self._records[0].seq if self._records else 0

    def pending(self) -> list[Message]:
        """The window's messages, oldest first."""
        return [record.message() for record in self._records]

    def waiting(self) -> int:
        """How many valid messages are after the cursor in all (the window may hold fewer)."""
        return self._waiting

    def still_pending(self) -> bool:
        """False once another process moved the cursor past this window (a ``clear`` marks everything said before
        it as processed): what was extracted from it must not be applied."""
        return self._cursor.get() < self.end

    def applying(self, operations: Sequence[MemoryOperation], why: str) -> None:
        """Record what is about to be applied for this window (``.dream_intent``), for ``resume_intent``."""
        record = {"start": self.start, "end": self.end, "why": why}
        record["operations"] = [op.model_dump(mode="json") for op in operations]
        atomic_write_text(intent_path(self._cursor), json.dumps(record, ensure_ascii=False) + "\n")

    def advance(self) -> None:
        """Record the window as processed (``.dream_cursor`` moves to its last seq; the intent is done)."""
        if self.end > self.start:
            self._cursor.advance(self.end)
            self.advanced = True
        intent_path(self._cursor).unlink(missing_ok=True)


INTENT_FILE = ".dream_intent"


def intent_path(cursor: DreamCursor) -> Path:
    """``.dream_intent`` next to ``.dream_cursor``."""
    return cursor.path.with_name(INTENT_FILE)


def resume_intent(cursor: DreamCursor, apply: Callable[[list[MemoryOperation], str], object]) -> bool:
    """Finish an apply a killed process left half done: when ``.dream_intent`` is for the window after the cursor,
    ``apply`` its operations again and move the cursor past it; an intent the cursor already passed (done, or a
    clear came first) is dropped. True when an apply was finished. The caller holds the run lock."""
    path = intent_path(cursor)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        start, end, why = int(record["start"]), int(record["end"]), str(record["why"])
        operations = [MemoryOperation.model_validate(op) for op in record["operations"]]
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("dream_intent_unreadable", path=str(path), error=str(exc))
        path.unlink(missing_ok=True)
        return False
    if start != cursor.get() or end <= start:
        path.unlink(missing_ok=True)
        return False
    apply(operations, why)
    cursor.advance(end)
    path.unlink(missing_ok=True)
    logger.warning("memory_apply_resumed", start=start, end=end, operations=len(operations))
    return True


def unprocessed(log: HistoryLog, cursor: DreamCursor, kinds: Collection[str] | None = None) -> list[HistoryRecord]:
    """The records after the cursor (optionally only the given types), oldest first."""
    return log.tail(cursor.get(), kinds)


def unprocessed_count(log: HistoryLog, cursor: DreamCursor, kinds: Collection[str] | None = None) -> int:
    """How many records are after the cursor; reads the file from the end, so it is cheap when few are."""
    return log.count_after(cursor.get(), kinds)


HISTORY_FILE, CURSOR_FILE, HISTORY_LOCK = "history.jsonl", ".dream_cursor", ".history.lock"
"""The names of a project scope's history files (``config.Paths`` and ``builder.py`` use the same)."""
CLEARED = "memory_cleared"


def mark_cleared(projects_dir: Path, *, session_id: str = "clear") -> list[Path]:
    """What a ``clear`` means for conversation not yet processed: in every project (``projects_dir/*``) whose
    history.jsonl exists, append a ``memory_cleared`` line and move the cursor to it, so no session — one still
    running included — ever extracts what was said before the clear; what is said after it is remembered as
    usual. The project folders marked."""
    marked = []
    try:
        folders = sorted(Path(d.path) for d in os.scandir(projects_dir) if d.is_dir(follow_symlinks=False))
    except OSError:
        return []
    for folder in folders:
        if not (folder / HISTORY_FILE).exists():
            continue
        lock = folder / HISTORY_LOCK
        cursor = DreamCursor(folder / CURSOR_FILE, lock_path=lock)
        log = HistoryLog(folder / HISTORY_FILE, session_id=session_id, lock_path=lock, seq_floor=cursor.get)
        seq = log.append_event(CLEARED)
        cursor.advance(seq)
        logger.info("history_marked_cleared", folder=str(folder), seq=seq)
        marked.append(folder)
    return marked
