"""``ReplEvents``: agent events turned into screen output — the streamed answer (``render.MarkdownStream`` or
``PlainStream``), tool lines and results, a running tool's live view (``progress.ToolProgress``), notices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from catcode.conversation.messages import ToolUseBlock
from catcode.providers.base import ChatResponse
from catcode.session.agent import AgentEvents
from catcode.session.todos import TOOL_NAME as TODO_TOOL
from catcode.tools.base import ToolRegistry, ToolResult
from catcode.ui.render import MarkdownStream, PlainStream, result_text, tool_call_text

if TYPE_CHECKING:
    from catcode.session.attached import Recalled
    from catcode.ui.full_output import FullOutput


class ReplEvents(AgentEvents):
    """Turns agent events into screen output. ``tools`` (set once the session exists) gives each tool's key
    argument; ``end_turn`` must be called after every turn (it stops the spinner after Ctrl+C or an error)."""

    def __init__(
        self, console: Console, *, live: bool = True, preview_lines: int = 6, progress: Console | None = None
    ) -> None:
        from catcode.ui.progress import ToolProgress

        self.console = console
        self.progress = progress or console  # tool lines and notices (stderr when stdout is not a terminal)
        self.stream: MarkdownStream | PlainStream = MarkdownStream(console) if live else PlainStream(console)
        self.preview_lines = preview_lines
        self.tools: ToolRegistry | None = None
        self.last_output: tuple[str, str] | None = None  # (call, result) of the last tool, for Ctrl+O
        self.full: FullOutput | None = None  # the last tool's whole output on disk, for Ctrl+O (on a terminal)
        self._running = ToolProgress(console) if live else None
        self._shown: set[str] = set()
        self._todo_lines = 0  # lines of the checklist drawn last, while nothing was printed after it
        self._in_flight = 0  # calls running alongside others (task) whose header is on screen
        self._concurrent_done = False

    def on_request(self) -> None:
        """Spinner until the first token."""
        self.stream.begin()

    def on_text(self, text: str) -> None:
        """Stream the delta."""
        self._todo_lines = 0
        self.stream.feed(text)

    def on_response(self, response: ChatResponse) -> None:
        """The answer is complete."""
        self.stream.finish()

    def on_tool_start(self, call: ToolUseBlock) -> None:
        """``⏺ tool(key argument)``; on a terminal, live with its clock and output tail until it ends (the line
        is printed for good then). A call that runs alongside others (``task``) is printed for good at once: its
        subagent's progress lines, and the line saying it is done, come under it."""
        self.stream.finish()
        tool = self.tools.get(call.name) if self.tools is not None else None
        if call.name != TODO_TOOL:
            self._todo_lines = 0
        label = tool_call_text(call.name, self.key_argument(call)).plain
        if self.full is not None:
            self.full.begin(label)
        interactive = getattr(tool, "interactive", False)  # it talks with the person: no live view over it
        if self._running is not None and not self._concurrent(call) and not interactive:
            self._running.start(label.removeprefix("⏺ "))
        else:
            self._show_call(call)
            if self._concurrent(call):
                self._in_flight += 1

    def on_tool_output(self, text: str) -> None:
        """Live output of the running tool."""
        if self._running is not None:
            self._running.feed(text)
        if self.full is not None:
            self.full.feed(text)

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """The result's first lines (also for calls that never started: refused, unknown, invalid)."""
        if self._running is not None:
            self._running.stop()
        if call.name == TODO_TOOL and not result.is_error:
            self._draw_todos(call, result)
            return
        self._todo_lines = 0
        if call.id not in self._shown:
            self._show_call(call)
        elif self._concurrent(call):
            self._in_flight -= 1
            if self._in_flight or self._concurrent_done:  # other calls' lines came between: say whose result
                self._show_call(call)
            self._concurrent_done = self._in_flight > 0
        self._shown.discard(call.id)
        label = tool_call_text(call.name, self.key_argument(call)).plain
        self.last_output = (label, result.text)
        if self.full is not None:
            if self.full.fed:  # what it printed as it ran, whole, then how it ended ("exit code: 0")
                self.full.end(result.text.rsplit("\n", 1)[-1])
            else:
                self.full.write(label, result.text)
        shown = result_text(result, self.preview_lines)
        if self._running is not None and (result.total_lines or len(result.text.splitlines())) > self.preview_lines:
            shown.append("  (Ctrl+O shows all of it)", style="dim")
        self.progress.print(shown)

    def on_recall(self, recalled: Recalled) -> None:
        """The dim ``recalled: a, b`` line (Ctrl+O then pages what was attached, ``/memory recalled`` too), or
        ``recall skipped: why``; nothing when nothing matched."""
        if recalled.text:
            self.last_output = (recalled.line, recalled.text)
        if recalled.text or recalled.skipped:
            self.progress.print(Text(recalled.line, style="dim"))

    def on_notice(self, text: str) -> None:
        """A dim line (compaction, limits, retries)."""
        self._todo_lines = 0
        self.progress.print(Text(text, style="dim"))

    def _draw_todos(self, call: ToolUseBlock, result: ToolResult) -> None:
        """The todo list as a checklist under its call line; when that checklist was the last thing drawn, it is
        redrawn in place (on a terminal)."""
        from catcode.commands.todo_view import checklist
        from catcode.session.todos import TodoWriteInput

        self._shown.discard(call.id)
        items = TodoWriteInput(**call.input).todos
        drawn = Text.assemble(("⏺ ", "cyan"), ("Todo list", "bold"), "\n", checklist(items))
        if self._todo_lines and self._running is not None and self.progress.is_terminal:
            self.progress.file.write(f"\x1b[{self._todo_lines}F\x1b[J")  # up to the old list's start, erase below
        self.progress.print(drawn)
        self._todo_lines = len(self.progress.render_lines(drawn, pad=False))
        self.last_output = ("TodoWrite", result.text)
        if self.full is not None:
            self.full.write("⏺ TodoWrite", result.text)

    def end_turn(self) -> None:
        """Stop any spinner or Live and keep what streamed before an interrupt or a failure: a tool still running
        (Ctrl+C) leaves its call and the last lines of its output on screen."""
        self._todo_lines = 0
        if self._running is not None:
            self._running.stop(keep=True)
        if self.full is not None and self.full.open:
            self.full.end("interrupted")
        self.stream.finish()
        self._shown.clear()
        self._in_flight, self._concurrent_done = 0, False

    def _show_call(self, call: ToolUseBlock) -> None:
        self._shown.add(call.id)
        self.progress.print(tool_call_text(call.name, self.key_argument(call)))

    def _concurrent(self, call: ToolUseBlock) -> bool:
        tool = self.tools.get(call.name) if self.tools is not None else None
        return bool(getattr(tool, "concurrent", False))

    def key_argument(self, call: ToolUseBlock) -> str | None:
        """The argument that says what a call does: the tool's ``key_arg``, else its first string argument."""
        tool = self.tools.get(call.name) if self.tools is not None else None
        if tool is not None and tool.key_arg and tool.key_arg in call.input:
            return str(call.input[tool.key_arg])
        return next((v for v in call.input.values() if isinstance(v, str)), None)
