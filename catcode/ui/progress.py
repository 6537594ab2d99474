"""Feedback while something runs: the spinner's "Thinking… 3s · Ctrl+C to interrupt" line, and the live view of
a running tool (its call, elapsed seconds and the last lines of its output, made visible: ``text.visible``), both
transient ``rich`` Lives."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from catcode.text import visible

if TYPE_CHECKING:
    from rich.live import Live

INTERRUPT_HINT = "Ctrl+C to interrupt"
TAIL_LINES = 5


class Waiting:
    """The spinner's text: what it waits for, the seconds so far and how to stop it (re-rendered live)."""

    def __init__(self, label: str = "Thinking…") -> None:
        self.label = label
        self.started = time.monotonic()

    def __rich__(self) -> Text:
        seconds = int(time.monotonic() - self.started)
        return Text(f"{self.label} {seconds}s · {INTERRUPT_HINT}", style="dim")


class _ToolView:
    def __init__(self, progress: ToolProgress) -> None:
        self.progress = progress

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        progress = self.progress
        seconds = int(time.monotonic() - progress.started)
        suffix = f"  {seconds}s · {INTERRUPT_HINT}"
        room = max(10, options.max_width - len(suffix) - 2)  # one line: the clock and the hint never wrap away
        label = progress.label if len(progress.label) <= room else progress.label[: room - 1] + "…"
        yield Text.assemble(("⏺ ", "cyan"), label, (suffix, "dim"))
        width = max(20, options.max_width - 6)
        for line in progress.tail():
            yield Text("  │ " + line[:width], style="dim")


class ToolProgress:
    """A running tool on screen: started by ``start``, fed output from any thread, gone after ``stop``."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.label = ""
        self.started = time.monotonic()
        self._lines: list[str] = []
        self._partial = ""
        self._lock = threading.Lock()
        self._live: Live | None = None

    def start(self, label: str) -> None:
        """Show ``label`` (the compact call) with a clock."""
        from rich.live import Live

        self.stop()
        self.label, self.started = label, time.monotonic()
        with self._lock:
            self._lines, self._partial = [], ""
        self._live = Live(
            _ToolView(self), console=self.console, transient=True, refresh_per_second=4, redirect_stdout=False,
            redirect_stderr=False,
        )  # fmt: skip
        self._live.start()

    def feed(self, text: str) -> None:
        """Output arrived (called from the tool's reader thread). A CR ends a line (a progress bar's redraws are
        lines of their own); any other control character is shown, not obeyed."""
        text = visible(text, cr_ends_lines=True)
        with self._lock:
            chunk = (self._partial + text).split("\n")
            self._partial = chunk.pop()
            self._lines = (self._lines + chunk)[-TAIL_LINES:]

    def tail(self) -> list[str]:
        """The last lines of output, the unfinished one included."""
        with self._lock:
            lines = self._lines + ([self._partial] if self._partial else [])
        return lines[-TAIL_LINES:]

    def stop(self, keep: bool = False) -> None:
        """Remove the live view (idempotent); ``keep``: print the call and its last output lines for good (a tool
        interrupted by Ctrl+C, which will print no result)."""
        live, self._live = self._live, None
        if live is None:
            return
        live.stop()
        if keep:
            seconds = int(time.monotonic() - self.started)
            self.console.print(Text.assemble(("⏺ ", "cyan"), self.label, (f"  interrupted after {seconds}s", "yellow")))
            for line in self.tail():
                self.console.print(Text("  │ " + line, style="dim"), overflow="ellipsis", no_wrap=True)
