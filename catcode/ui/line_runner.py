"""Running what the person typed, shared by the interactive REPL (``repl.py``) and piped input (``piped.py``):
``Conversation`` runs one line — a slash command through the registry, anything else as one agent turn with its
``@path`` attachments — and never lets a failing command, a provider error or Ctrl+C end the session."""

from __future__ import annotations

import contextlib
import queue
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from catcode.commands.builtins import register_builtins
from catcode.commands.registry import CommandContext, CommandRegistry, ReplState
from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.session.agent import TurnResult
from catcode.ui.events import ReplEvents
from catcode.ui.render import error_text

if TYPE_CHECKING:
    from catcode.session.session import Session
    from catcode.ui.turn_keys import TurnKeys

log = get_logger(__name__)

ENDING = "turn stopped; ending the session (catcode --continue takes it up again)."
COMMAND = re.compile(r"^/[\w:.-]*(\s|$)")  # "/usr/bin/x is slow" is a message, not a command; /tools:greet is one


def build_registry(session: Session) -> CommandRegistry:
    """Built-in commands, then every registration of ``session.slash_commands`` (the session's own commands, memory,
    skills...)."""
    registry = CommandRegistry()
    register_builtins(registry)
    for register in session.slash_commands:
        register(registry)
    return registry


def is_command(text: str) -> bool:
    """Is this line a slash command?"""
    return COMMAND.match(text) is not None


def drain(notices: queue.SimpleQueue[str]) -> list[str]:
    """Everything waiting on the queue, without blocking."""
    lines: list[str] = []
    while True:
        try:
            lines.append(notices.get_nowait())
        except queue.Empty:
            return lines


class Conversation:
    """Runs typed lines: slash commands through the registry, anything else as one agent turn. Never lets a
    failing command, a provider error or Ctrl+C end the session.

    ``console`` gets the answers; ``errors`` the failures; ``progress`` the notices and exit lines — in piped
    mode the last two are stderr, so stdout holds only the answer."""

    def __init__(
        self,
        session: Session,
        registry: CommandRegistry,
        console: Console,
        events: ReplEvents,
        confirm: Callable[[str], bool] = lambda question: False,
        errors: Console | None = None,
        progress: Console | None = None,
        keys: TurnKeys | None = None,
    ) -> None:
        self.session, self.registry, self.console, self.events = session, registry, console, events
        self.keys = keys  # ``TurnKeys`` on a terminal: Ctrl+D during a turn stops it and ends the session
        self.errors = errors or console
        self.progress = progress or console
        self.state = ReplState()
        self.ctx = CommandContext(session, console, confirm, self.state)

    def handle(self, line: str) -> TurnResult | None:
        """Run one line; the turn's result when it was a message."""
        text = line.strip()
        if not text:
            return None
        if is_command(text) and "\n" not in text:
            self.command(text)
            return None
        if text.startswith("!"):
            self.local_command(text[1:].strip())
            return None
        if self.session.auto_recall is not None:  # the message is known: recall starts now, the turn takes it up
            self.session.auto_recall.begin(text)
        return self.turn(text)

    def local_command(self, command: str) -> None:
        """``!cmd``: run ``cmd`` here, inside the fence as the model's commands are (the person typed it: nothing is
        asked), show its output as a tool's, and add both to the conversation, as Claude Code's bash mode does."""
        from catcode.conversation.messages import ToolUseBlock

        tool = self.session.tools.get("Bash")
        if not command or tool is None:
            self.errors.print(error_text("! runs a shell command: !git status"))
            return
        call = ToolUseBlock(id="local-command", name="Bash", input={"command": command})
        self.events.on_tool_start(call)
        context = self.session.context
        try:
            result = self.session.tools.execute(tool, tool.parse(call.input), context)
        except KeyboardInterrupt:
            self.events.end_turn()
            self.progress.print(Text("interrupted", style="yellow"))
            return
        self.events.on_tool_end(call, result)
        output = re.sub(r"\n?exit code: 0$", "", result.text)
        self.session.agent.add_local_command(command, output)

    def command(self, text: str) -> None:
        """Dispatch a slash command; a failure is one red line. A command that stands for a turn (a custom command,
        ``/review``) has it run next, as if typed."""
        try:
            self.registry.dispatch(text, self.ctx)
        except CatcodeError as exc:
            self.errors.print(error_text(str(exc)))
        except Exception as exc:
            log.exception("command_failed", command=text.split()[0])
            self.errors.print(error_text(f"{text.split()[0]} failed: {exc} (details in the log)"))
        pending, self.state.pending_turn = self.state.pending_turn, None
        if pending is not None:
            with pending.during():
                self.turn(pending.text)

    def turn(self, text: str) -> TurnResult:
        """One agent turn (``@path`` attaches files); an interrupt or a failure is one line, the session goes on."""
        from catcode.conversation.images import ImageTooBig
        from catcode.session.attachments import attach_all

        try:
            message, attached, images = attach_all(text, self.session.paths.project_root)
        except ImageTooBig as exc:  # one line, and nothing is sent
            self.errors.print(error_text(str(exc)))
            return TurnResult(error=str(exc))
        for item in attached:
            self.progress.print(Text(item.describe(), style="dim"))
        watching = self.keys.watching() if self.keys is not None else contextlib.nullcontext()
        try:
            with watching:
                result = self.session.agent.run_turn(message, images)
        except KeyboardInterrupt:  # landed outside the agent's own handler
            result = TurnResult(interrupted=True)
        except Exception as exc:
            log.exception("turn_failed")
            result = TurnResult(error=f"Unexpected error: {exc} (details in the log)")
        finally:
            self.events.end_turn()
        self.state.last_turn_usage = result.usage
        if self.keys is not None and self.keys.exit_requested:
            self.state.exit = True
            self.progress.print(Text(f"Ctrl+D: {ENDING}", style="yellow"))
        elif result.interrupted:
            self.progress.print(Text("interrupted", style="yellow"))
        elif result.stopped:
            self.progress.print(Text(f"A hook stopped the turn: {result.stopped}", style="yellow"))
        elif result.error:
            self.errors.print(error_text(result.error))
        return result

    def say(self, line: str) -> None:
        """One line for the person (used by exit steps: "Saving memories…")."""
        self.progress.print(Text(line))

    def show_notices(self, lines: list[str]) -> None:
        """Background notices, dim."""
        for line in lines:
            self.progress.print(Text(line, style="dim"))

    def print_notices(self) -> None:
        """Print whatever background work queued."""
        self.show_notices(drain(self.session.notices))

    def shutdown(self) -> None:
        """End the session (memory capture, SESSION_END); never raises. The last tool's kept output goes."""
        full = getattr(self.events, "full", None)
        if full is not None:
            full.discard()
        self.session.shutdown(self.say)
