"""``ExitGate``: what lets a process end while a background memory run (a Dream) is still going, without cutting a
write in half. Every write phase of a run — finishing an interrupted apply, recording and applying what was
extracted and moving the cursor, skipping a window, compacting history.jsonl — happens inside ``writing()``; ``close``
waits for a phase in progress to end and lets no other begin. A run that meets a closed gate stops where it is,
before its next write: what it was doing stays unprocessed after the cursor, for the next start."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from catcode.memory.pipeline.cursor import HistoryWindow
from catcode.memory.store.models import MemoryOperation

__all__ = ["ExitGate", "GatedWindow", "LeftForNextStart"]


class LeftForNextStart(Exception):
    """The process is ending: the run stopped before its next write; the next start processes what it left."""


class ExitGate:
    """Open until ``close``; a write phase runs inside ``writing()``."""

    def __init__(self) -> None:
        self._phase = threading.Lock()
        self._closed = False
        self._owner: int | None = None  # the thread in a phase ``enter`` began

    @property
    def closed(self) -> bool:
        """Whether the process is ending (no write phase begins)."""
        return self._closed

    @contextmanager
    def writing(self) -> Iterator[None]:
        """A write phase; raises ``LeftForNextStart`` instead of beginning one once the gate is closed."""
        with self._phase:
            if self._closed:
                raise LeftForNextStart("the session ended first; the next start processes these messages")
            yield

    def enter(self) -> None:
        """Begin a write phase that ends in another method (``leave``); raises like ``writing``."""
        self._phase.acquire()
        if self._closed:
            self._phase.release()
            raise LeftForNextStart("the session ended first; the next start processes these messages")
        self._owner = threading.get_ident()

    def leave(self) -> None:
        """End the write phase this thread's ``enter`` began (nothing when it holds none)."""
        if self._owner == threading.get_ident():
            self._owner = None
            self._phase.release()

    def close(self, timeout: float) -> bool:
        """Let no write phase begin, waiting at most ``timeout`` seconds for one in progress; False when it did not
        end in time (the process ends during it: it is atomic, file by file)."""
        ended = self._phase.acquire(timeout=timeout)
        self._closed = True
        if ended:
            self._phase.release()
        return ended


class GatedWindow:
    """A ``HistoryWindow`` whose apply is one write phase of ``gate``: recording what is about to be applied begins
    it (or finds the gate closed: nothing of this window is written), moving the cursor ends it. The run's caller
    ends it too when the apply fails."""

    def __init__(self, window: HistoryWindow, gate: ExitGate) -> None:
        self._window, self._gate = window, gate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._window, name)

    def __len__(self) -> int:
        return len(self._window)

    def applying(self, operations: Sequence[MemoryOperation], why: str) -> None:
        """Begin the write phase, then record the intent (``HistoryWindow.applying``)."""
        self._gate.enter()
        self._window.applying(operations, why)

    def advance(self) -> None:
        """Move the cursor (``HistoryWindow.advance``), then end the write phase."""
        try:
            self._window.advance()
        finally:
            self._gate.leave()
