"""Failed memory runs over one window, kept across sessions in ``.dream_attempts`` next to ``.dream_cursor``.

A run fails when the API fails or when the model's reply cannot be read (``manager.UnreadableReply``). Either way
the cursor stays and the window is retried — but not on every message and every start: after a failure the
background runs (Dream, recovery at start, the compaction flush) wait ``BACKOFF_START`` seconds, doubling up to
``BACKOFF_MAX``, and the wait survives a restart. After ``MAX_BAD_REPLIES`` unreadable replies for the same
window the window is skipped (``service.py`` moves the cursor past it, says so and logs it): a model that always
answers badly must not stall memory for good. API errors never skip a window: the messages wait for the API.

The record is keyed by the cursor position the window starts after; once the cursor moves (the window was
reviewed, skipped, or a ``clear`` passed it) an old record no longer applies."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from catcode.fsutil import atomic_write_text
from catcode.log import get_logger

log = get_logger(__name__)

ATTEMPTS_FILE = ".dream_attempts"
MAX_BAD_REPLIES = 3
BACKOFF_START, BACKOFF_MAX = 60.0, 1800.0


@dataclass
class Attempt:
    """The failures of the window after cursor ``start``."""

    start: int
    bad_replies: int = 0
    errors: int = 0
    next_at: float = 0.0
    """Wall-clock time before which background runs leave the window alone."""
    reason: str = ""

    @property
    def failures(self) -> int:
        """Failed runs of this window, of either kind."""
        return self.bad_replies + self.errors


class Attempts:
    """``.dream_attempts`` of one project. Callers hold the project's run lock when they record."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.clock = clock

    def current(self, start: int) -> Attempt:
        """The record of the window after cursor ``start`` (a fresh one when there is none or it is older)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            attempt = Attempt(**{k: data[k] for k in ("start", "bad_replies", "errors", "next_at", "reason")})
        except FileNotFoundError:
            return Attempt(start)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("dream_attempts_unreadable", path=str(self.path), error=str(exc))
            return Attempt(start)
        return attempt if attempt.start == start else Attempt(start)

    def due(self, start: int) -> bool:
        """Whether a background run may try the window after cursor ``start`` now."""
        return self.clock() >= self.current(start).next_at

    def failed(self, start: int, reason: str, *, bad_reply: bool) -> Attempt:
        """Record one failure of the window after ``start``; the updated record (with the time of the next try)."""
        attempt = self.current(start)
        if bad_reply:
            attempt.bad_replies += 1
        else:
            attempt.errors += 1
        wait = min(BACKOFF_MAX, BACKOFF_START * 2 ** (attempt.failures - 1))
        attempt.next_at, attempt.reason = self.clock() + wait, reason
        atomic_write_text(self.path, json.dumps(asdict(attempt)) + "\n")
        return attempt

    def clear(self) -> None:
        """Forget the failures: the window was reviewed or skipped."""
        self.path.unlink(missing_ok=True)
