"""Dream: the memory service's background runs mid-session (and recovery at start), one daemon thread at a time.

``BackgroundRuns`` is mixed into ``MemoryService``: it starts ``process_pending`` in a thread once enough lines wait,
backs off in memory after a failed or empty run (on top of the failure accounting across sessions in
``attempts.py``), and turns what a run changed into one quiet notice."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable

from catcode.errors import one_line
from catcode.log import get_logger
from catcode.memory.pipeline.attempts import Attempts
from catcode.memory.pipeline.cursor import DreamCursor
from catcode.memory.pipeline.exit_gate import ExitGate, LeftForNextStart
from catcode.memory.pipeline.run_result import Busy, RunResult, background_line, skipped_line
from catcode.settings.memory import MemoryConfig

log = get_logger(__name__)

BACKOFF_START, BACKOFF_MAX = 60.0, 1800.0
GATE_WAIT = 5.0  # seconds the end waits for a write a background run has begun (it takes milliseconds)


class BackgroundRuns(ABC):
    """Background runs of a ``MemoryService`` (its base class): the service provides the run and the counts."""

    config: MemoryConfig
    cursor: DreamCursor
    attempts: Attempts
    gate: ExitGate
    _notify: Callable[[str], None]
    _clock: Callable[[], float]

    def _init_background(self) -> None:
        self._dream: threading.Thread | None = None
        self._backoff = 0.0
        self._next_dream = 0.0
        self.last_dream: RunResult | None = None

    @abstractmethod
    def pending(self) -> int:
        """Unprocessed message lines (the service's)."""

    @abstractmethod
    def process_pending(
        self, *, why: str, wait: float = 0.0, respect_backoff: bool = False, minimum: int | None = None
    ) -> RunResult:
        """One run (the service's)."""

    def background_running(self) -> bool:
        """Whether a background run (Dream, recovery) is going on now."""
        return self._dream is not None and self._dream.is_alive()

    def maybe_dream(self) -> bool:
        """Start a background run when ≥ ``dream_min_lines`` are unprocessed and no failure is backing off; never
        blocks. True if started."""
        if self._dream is not None and self._dream.is_alive():
            return False
        if self._clock() < self._next_dream or self.pending() < self.config.dream_min_lines:
            return False
        if not self.attempts.due(self.cursor.get()):
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

    def finish_background(self, timeout: float) -> str | None:
        """At the end of a process that captures nothing at exit (print mode): give a background run still going at
        most ``timeout`` seconds, then close the gate (``exit_gate``: a write in progress ends, none begins). The one
        line that says which — finished, or left whole for the next start — or None when no run was going."""
        run = self._dream
        if run is None or not run.is_alive():
            return None
        waiting = self.pending()
        run.join(timeout)
        if not run.is_alive():
            done = self.last_dream
            if done is not None and (done.changed or done.skipped):
                return None  # the run said what it did itself
            if done is not None and done.error:
                return f"Memory: the background review failed ({done.error}); the next session tries again"
            return "Memory: the background review finished; nothing new to remember"
        self.gate.close(GATE_WAIT)
        return (
            f"Memory: the background review of {waiting} message(s) did not finish within {timeout:g} s; it is left "
            "for the next session, which reviews them (nothing is lost)"
        )

    def _background(self, why: str) -> None:
        try:
            result = self.process_pending(why=why, respect_backoff=why != "recovery")
        except (Busy, LeftForNextStart):
            return
        except Exception as exc:
            self._back_off()
            self.last_dream = RunResult(why, error=one_line(exc))
            log.warning("memory_background_failed", why=why, retry_in=self._backoff, exc_info=True)
            return
        if result.deferred:
            return
        if result.report is not None and not result.reviewed and not result.skipped:
            self._back_off()  # too few waiting, or a clear came first: not again on the very next message
        else:
            self._backoff = 0.0
        self.last_dream = result
        if result.changed:
            self._notify(background_line(why, result))
        if result.skipped:
            self._notify(skipped_line(result))

    def _back_off(self) -> None:
        self._backoff = min(BACKOFF_MAX, self._backoff * 2 or BACKOFF_START)
        self._next_dream = self._clock() + self._backoff
