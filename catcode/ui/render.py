"""What a turn looks like on screen: streamed Markdown, a spinner until the first token, compact tool lines
and their summarised results, red error lines.

Streaming: a finished Markdown block (one followed by a blank line, outside a code fence) is printed for good
as soon as the next block starts; only the block being written lives in a transient ``rich.live.Live``, cut
to the screen's height. So the Live never grows taller than the terminal (which would duplicate lines in the
scrollback), and the final output does not depend on how the text was chunked.

Everything here that came from the model or a tool is made visible first (``text.visible``): an escape sequence
in a reply or an output is shown as ``␛[…``, never obeyed; only catcode's own styles reach the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from catcode.providers.base import Usage
from catcode.text import is_terminal, shorten, visible
from catcode.tools.base import ToolResult

if TYPE_CHECKING:
    from rich.live import Live

FENCES = ("```", "~~~")


def tool_call_text(name: str, key: str | None) -> Text:
    """``⏺ write_file(notes.txt)``: a tool call on one line."""
    out = Text.assemble(("⏺ ", "cyan"), (visible(name), "bold"))
    if key:
        out.append(f"({visible(shorten(key, 100))})")
    return out


def result_text(result: ToolResult, max_lines: int) -> Text:
    """The first ``max_lines`` lines of a tool result, then ``… N more lines`` — counted in the whole output when the
    model's copy keeps only its start and end (``total_lines``); red when it is an error."""
    lines = visible(result.text).splitlines() or [""]
    shown = lines[:max_lines]
    out = Text(style="red" if result.is_error else "dim")
    for i, line in enumerate(shown):
        out.append(("  ⎿ " if i == 0 else "    ") + line[:500] + "\n")
    total = max(result.total_lines or 0, len(lines))
    if total > len(shown):
        more = total - len(shown)
        out.append(f"{'  ⎿ ' if not shown else '    '}… {more:,} more line{'s' if more != 1 else ''}\n")
    out.rstrip()
    return out


def error_text(message: str) -> Text:
    """One red line: what failed and what to do."""
    return Text(f"✗ {visible(shorten(message, 400))}", style="red")


def tokens(n: int) -> str:
    """12345 → ``12.3k``."""
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def usage_summary(usage: Usage) -> str:
    """``1.2k in · 300 out · 9.0k cached`` for the toolbar."""
    return (
        f"{tokens(usage.input_tokens + usage.cache_creation_input_tokens)} in · {tokens(usage.output_tokens)} out"
        f" · {tokens(usage.cache_read_input_tokens)} cached"
    )


def block_end(text: str, start: int = 0) -> int | None:
    """The offset just after the first finished Markdown block at or after ``start``, or None.

    A block is finished at a blank line outside a code fence once the next line has begun with a character
    that is not indentation (an indented line could still belong to the block: a list item, code).
    ``start`` must be outside a fence (every offset this returns is)."""
    fence: str | None = None
    pending: int | None = None  # where the current blank run ends
    seen = False
    pos = start
    while pos < len(text):
        newline = text.find("\n", pos)
        line = text[pos:] if newline < 0 else text[pos:newline]
        if pending is not None and line:
            if not line[0].isspace():
                return pending
            pending = None
        if newline < 0:
            return None  # an unfinished line decides nothing more
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
        elif stripped.startswith(FENCES) and len(line) - len(line.lstrip()) < 4:
            fence, seen = stripped[:3], True
        elif not stripped:
            pending = newline + 1 if seen else None
        else:
            seen = True
        pos = newline + 1
    return None


class _Tail:
    """The last ``height`` lines of a renderable (the Live must stay shorter than the screen)."""

    def __init__(self, renderable: RenderableType, height: int) -> None:
        self.renderable, self.height = renderable, height

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        for line in lines[-self.height :]:
            yield from line
            yield Segment.line()


class MarkdownStream:
    """Shows streamed text as Markdown: a spinner until the first delta, finished blocks printed at once,
    the block being written in a transient Live."""

    def __init__(self, console: Console, *, code_theme: str = "monokai") -> None:
        self.console = console
        self.code_theme = code_theme
        self._text = ""
        self._done = 0  # how much of _text is printed for good
        self._live: Live | None = None

    def begin(self) -> None:
        """A request is on its way: show a spinner."""
        from rich.live import Live
        from rich.spinner import Spinner

        from catcode.ui.progress import Waiting

        self.finish()
        self._live = Live(
            Spinner("dots", Waiting(), style="cyan"),
            console=self.console,
            transient=True,
            refresh_per_second=8,
            vertical_overflow="crop",
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def feed(self, delta: str) -> None:
        """Add a delta: print any block it finishes, show the rest live."""
        self._text += delta
        while (end := block_end(self._text, self._done)) is not None:
            self._print(self._text[self._done : end])
            self.console.print()
            self._done = end
        if self._live is not None:
            height = max(3, self.console.size.height - 4)
            self._live.update(_Tail(self._markdown(self._text[self._done :]), height))

    def finish(self) -> None:
        """The response ended (or was cut short): print what is left and stop the Live."""
        rest = self._text[self._done :]
        self._text, self._done = "", 0
        if self._live is not None:
            live, self._live = self._live, None
            live.update(Text(""), refresh=False)
            live.stop()
        if rest.strip():
            self._print(rest)

    def _markdown(self, text: str) -> RenderableType:
        from rich.markdown import Markdown

        return Markdown(visible(text), code_theme=self.code_theme)

    def _print(self, text: str) -> None:
        if text.strip():
            self.console.print(self._markdown(text))


class PlainStream:
    """Piped output: deltas are written as they come, no Live, no spinner, no Markdown; made visible when they go
    to a terminal (to a file or a pipe they are the answer's bytes, as the model wrote them)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._open = False  # a line was started and not ended
        self._terminal = is_terminal(console.file)

    def begin(self) -> None:
        """Nothing to show while waiting."""

    def feed(self, delta: str) -> None:
        """Write the delta (visible, on a terminal)."""
        self.console.file.write(visible(delta) if self._terminal else delta)
        self.console.file.flush()
        self._open = not delta.endswith("\n")

    def finish(self) -> None:
        """End the answer's last line."""
        if self._open:
            self.console.file.write("\n")
            self.console.file.flush()
        self._open = False
