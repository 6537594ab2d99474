"""One progress line per running subagent.

``LiveProgress`` (a terminal): while a batch of task calls runs (``shown()``, entered by the agent's thread), a
transient ``rich.live.Live`` holds one line per running subagent, updated as it works
(``⎿ explore: find the loader · round 2 · grep(load_settings)``) and redrawn by the Live's own refresh thread;
when one ends, its final line is printed for good. It is paused while a permission prompt reads the terminal,
and cleared when the batch ends, interrupted or not. ``PlainProgress`` (piped output, print mode): one line when a
subagent starts and one when it ends.

``add``, ``done`` and ``paused`` draw, so they run on the agent's thread (the runner hands them over);
``update`` only records the status and may be called from any thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from rich.console import Console, Group
from rich.text import Text

from catcode.text import visible

if TYPE_CHECKING:
    from rich.live import Live


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

    def shown(self) -> contextlib.AbstractContextManager[None]:
        """Lines are drawn only inside this (a batch of task calls); they are cleared when it ends."""
        ...

    def paused(self) -> contextlib.AbstractContextManager[None]:
        """Hide the lines while the terminal is used for something else (a permission prompt)."""
        ...


class _Line:
    """A subagent's words (its task, what it calls) are the model's: shown, never obeyed (``text.visible``)."""

    def __init__(self, owner: _Board, label: str) -> None:
        self.owner, self.label, self.status = owner, visible(label), "starting"

    def update(self, status: str) -> None:
        self.status = visible(status)

    def done(self, summary: str) -> None:
        self.owner.finish(self, visible(summary))


class _Board:
    """The lines, and whether a batch is on screen."""

    def __init__(self) -> None:
        self.lines: list[_Line] = []
        self.lock = threading.RLock()
        self.active = 0

    def add(self, label: str) -> ProgressLine:
        """A new line (drawn when a batch is on screen)."""
        line = _Line(self, label)
        with self.lock:
            self.lines.append(line)
            self.started(line)
        return line

    def finish(self, line: _Line, summary: str) -> None:
        """Drop ``line``; say how it ended while its batch is still on screen."""
        with self.lock:
            if line not in self.lines:
                return
            self.lines.remove(line)
            if self.active:
                self.ended(line, summary)

    @contextlib.contextmanager
    def shown(self) -> Iterator[None]:
        """Draw lines while the body runs; forget them afterwards (a late subagent draws nothing)."""
        with self.lock:
            self.active += 1
        try:
            yield
        finally:
            with self.lock:
                self.active -= 1
                if not self.active:
                    self.lines.clear()
                    self.cleared()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing to hide by default."""
        yield

    def started(self, line: _Line) -> None:
        """A line was added."""

    def ended(self, line: _Line, summary: str) -> None:
        """A line ended."""

    def cleared(self) -> None:
        """The batch is over."""


class LiveProgress(_Board):
    """Live lines on a terminal console."""

    def __init__(self, console: Console) -> None:
        super().__init__()
        self.console = console
        self._live: Live | None = None
        self._paused = 0

    def started(self, line: _Line) -> None:
        """Start the Live display if it is not up."""
        self._show()

    def ended(self, line: _Line, summary: str) -> None:
        """Print the final line above the live ones; stop the Live when none is left."""
        self.console.print(Text(f"  ⎿ {line.label} — {summary}", style="dim"))
        if not self.lines:
            self._hide()

    def cleared(self) -> None:
        """Stop the Live."""
        self._hide()

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """No live lines while the body runs."""
        with self.lock:
            self._paused += 1
            self._hide()
        try:
            yield
        finally:
            with self.lock:
                self._paused -= 1
                self._show()

    def _render(self) -> Group:
        with self.lock:
            return Group(*(Text(f"  ⎿ {line.label} · {line.status}", style="cyan") for line in self.lines))

    def _show(self) -> None:
        if self._live is None and self.lines and self.active and not self._paused:
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


class PlainProgress(_Board):
    """A line when a subagent starts and one when it ends, through ``write``."""

    def __init__(self, write: Callable[[str], None]) -> None:
        super().__init__()
        self.write = write

    def started(self, line: _Line) -> None:
        """Announce it."""
        if self.active:
            self.write(f"  ⎿ {line.label} · started")

    def ended(self, line: _Line, summary: str) -> None:
        """How it ended."""
        self.write(f"  ⎿ {line.label} — {summary}")
