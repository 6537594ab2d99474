"""``.dream_cursor`` and what it governs: which history lines are still unprocessed (``HistoryWindow``, the
manager's watermark). Folding the processed ones into a summary is ``history_compaction.py``.

The cursor holds the last seq extraction has processed. It is written atomically and never moves
backwards; a missing or corrupt file reads as 0 (everything is processed again, never skipped)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path

from catcode.fsutil import atomic_write_text, locked
from catcode.log import get_logger
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_format import HistoryRecord, utc_stamp
from catcode.messages import Message

logger = get_logger(__name__)

Summarizer = Callable[[list[HistoryRecord]], str]
MESSAGE_KINDS = frozenset({"message"})
WINDOW_MAX_MESSAGES = 400  # one run reviews at most this many messages; the rest waits for the next run
WINDOW_MAX_CHARS = 120_000


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
    most ``WINDOW_MAX_MESSAGES`` and about ``WINDOW_MAX_CHARS``, read once; ``advance`` moves the cursor past them."""

    def __init__(self, log: HistoryLog, cursor: DreamCursor) -> None:
        self._cursor = cursor
        self._records: list[HistoryRecord] = []
        chars = 0
        for record in unprocessed(log, cursor, MESSAGE_KINDS)[:WINDOW_MAX_MESSAGES]:
            size = len(str(record.content))
            if self._records and chars + size > WINDOW_MAX_CHARS:
                break
            self._records.append(record)
            chars += size
        self.advanced = False

    def __len__(self) -> int:
        return len(self._records)

    def pending(self) -> list[Message]:
        """The window's messages, oldest first."""
        return [record.message() for record in self._records]

    def advance(self) -> None:
        """Record the window as processed (``.dream_cursor`` moves to its last seq)."""
        if self._records:
            self._cursor.advance(self._records[-1].seq)
            self.advanced = True


def unprocessed(log: HistoryLog, cursor: DreamCursor, kinds: Collection[str] | None = None) -> list[HistoryRecord]:
    """The records after the cursor (optionally only the given types), oldest first."""
    return log.tail(cursor.get(), kinds)


def unprocessed_count(log: HistoryLog, cursor: DreamCursor, kinds: Collection[str] | None = None) -> int:
    """How many records are after the cursor; reads the file from the end, so it is cheap when few are."""
    return log.count_after(cursor.get(), kinds)
