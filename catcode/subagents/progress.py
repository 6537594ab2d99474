"""One progress line per running subagent.

``LiveProgress`` (a terminal): a transient ``rich.live.Live`` holds one line per running subagent, updated as it
works (``⎿ explore: find the loader · grep(load_settings)``); when one ends, its final line is printed for good.
It is paused while a permission prompt reads the terminal. ``PlainProgress`` (piped output, print mode): one line
when a subagent starts and one when it ends. Both are safe to call from the subagents' worker threads."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from rich.console import Console, Group
from rich.text import Text


class ProgressLine(Protocol):
    """One subagent's line."""

    def update(self, status: str) -> None:
        """What it is doing now."""
        ...

    def done(self, summary: str) -> None:
        """It ended: ``summary`` is its last word (done, failed, cancelled)."""
        ...


class Progress(Protocol):
    """Where subagent lines go."""

    def add(self, label: str) -> ProgressLine:
        """A line for a subagent that starts now."""
        ...

    def paused(self) -> contextlib.AbstractContextManager[None]:
        """Hide the lines while the terminal is used for something else (a permission prompt)."""
        ...


class _Line:
    def __init__(self, owner: LiveProgress | PlainProgress, label: str) -> None:
        self.owner, self.label, self.status = owner, label, "starting"

    def update(self, status: str) -> None:
        self.status = status
        self.owner.refresh()

    def done(self, summary: str) -> None:
        self.owner.finish(self, summary)


class LiveProgress:
    """Live lines on a terminal console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._lines: list[_Line] = []
        self._lock = threading.RLock()
        self._live: Any = None
        self._paused = 0

    def add(self, label: str) -> ProgressLine:
        """Show a new line (starting the Live display if needed)."""
        line = _Line(self, label)
        with self._lock:
            self._lines.append(line)
            self._show()
        return line

    def refresh(self) -> None:
        """Redraw (the Live also redraws on its own a few times a second)."""
        with self._lock:
            if self._live is not None:
                self._live.refresh()

    def finish(self, line: _Line, summary: str) -> None:
        """Print ``line``'s final state above the live lines and drop it."""
        with self._lock:
            if line in self._lines:
                self._lines.remove(line)
            self.console.print(Text(f"  ⎿ {line.label} — {summary}", style="dim"))
            if not self._lines:
                self._hide()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No live lines while the body runs."""
        with self._lock:
            self._paused += 1
            self._hide()
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1
                self._show()

    def _render(self) -> Group:
        with self._lock:
            return Group(*(Text(f"  ⎿ {line.label} · {line.status}", style="cyan") for line in self._lines))

    def _show(self) -> None:
        if self._live is None and self._lines and not self._paused:
            from rich.live import Live

            self._live = Live(
                get_renderable=self._render,
                console=self.console,
                transient=True,
                refresh_per_second=4,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()

    def _hide(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()


class PlainProgress:
    """A line when a subagent starts and one when it ends, through ``write``."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self._lock = threading.Lock()

    def add(self, label: str) -> ProgressLine:
        """Announce a subagent."""
        with self._lock:
            self.write(f"  ⎿ {label} · started")
        return _Line(self, label)

    def refresh(self) -> None:
        """Nothing to redraw."""

    def finish(self, line: _Line, summary: str) -> None:
        """Its final line."""
        with self._lock:
            self.write(f"  ⎿ {line.label} — {summary}")

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing to hide."""
        yield
