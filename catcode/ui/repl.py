"""The interactive REPL: ``catcode`` with no arguments.

``run_interactive`` builds the session (with a terminal approver and screen events), the command registry
(``build_registry``) and the main prompt (``keys.make_prompt``: file history per project, completion, key
bindings, bottom toolbar), then loops: notices, prompt, slash command or agent turn. Nothing here imports the
Anthropic SDK before the prompt is shown; a background thread warms it once the prompt is up.
When stdin or stdout is not a terminal, ``catcode.ui.piped`` runs instead."""

from __future__ import annotations

import asyncio
import importlib
import queue
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app, run_in_terminal
from rich.console import Console
from rich.text import Text

from catcode import __version__
from catcode.agent import TurnResult
from catcode.commands.builtins import register_builtins
from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.consent import terminal_asker
from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.ui.approval import TerminalApprover, ask_yes_no
from catcode.ui.keys import AnswerReader, make_prompt, prompt_marker
from catcode.ui.render import ReplEvents, error_text

log = get_logger(__name__)

COMMAND = re.compile(r"^/[\w-]*(\s|$)")  # "/usr/bin/x is slow" is a message, not a command
NOTICE_POLL = 0.2  # seconds between looks at session.notices while the prompt waits
EXIT_HINT = "Press Ctrl+D to exit."


def build_registry(session: Any) -> CommandRegistry:
    """Built-in commands, then every ``session.extras["register_commands"]`` function (memory, skills...)."""
    registry = CommandRegistry()
    register_builtins(registry)
    for register in session.extras.get("register_commands", []):
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
    failing command, a provider error or Ctrl+C end the session."""

    def __init__(
        self,
        session: Any,
        registry: CommandRegistry,
        console: Console,
        events: ReplEvents,
        confirm: Callable[[str], bool] = lambda question: False,
        errors: Console | None = None,
    ) -> None:
        self.session, self.registry, self.console, self.events = session, registry, console, events
        self.errors = errors or console  # piped mode keeps failures off stdout
        self.state: dict[str, Any] = {}
        self.ctx = CommandContext(session, console, confirm, self.state)

    def handle(self, line: str) -> TurnResult | None:
        """Run one line; the turn's result when it was a message."""
        text = line.strip()
        if not text:
            return None
        if is_command(text):
            self.command(text)
            return None
        return self.turn(text)

    def command(self, text: str) -> None:
        """Dispatch a slash command; a failure is one red line."""
        try:
            self.registry.dispatch(text, self.ctx)
        except CatcodeError as exc:
            self.errors.print(error_text(str(exc)))
        except Exception as exc:
            log.exception("command_failed", command=text.split()[0])
            self.errors.print(error_text(f"{text.split()[0]} failed: {exc} (details in the log)"))

    def turn(self, text: str) -> TurnResult:
        """One agent turn; an interrupt or a failure is one line and the session goes on."""
        try:
            result = self.session.agent.run_turn(text)
        except KeyboardInterrupt:  # landed outside the agent's own handler
            result = TurnResult(interrupted=True)
        except Exception as exc:
            log.exception("turn_failed")
            result = TurnResult(error=f"Unexpected error: {exc} (details in the log)")
        finally:
            self.events.end_turn()
        self.state["last_turn_usage"] = result.usage
        if result.interrupted:
            self.console.print(Text("interrupted", style="yellow"))
        elif result.error:
            self.errors.print(error_text(result.error))
        return result

    def say(self, line: str) -> None:
        """One line for the person (used by exit steps)."""
        self.console.print(Text(line))

    def show_notices(self, lines: list[str]) -> None:
        """Background notices, dim."""
        for line in lines:
            self.console.print(Text(line, style="dim"))

    def print_notices(self) -> None:
        """Print whatever background work queued."""
        self.show_notices(drain(self.session.notices))

    def shutdown(self) -> None:
        """End the session (memory capture, SESSION_END); never raises."""
        self.session.shutdown(self.say)


def warm_up(provider: Any) -> None:
    """Import the SDK (and what Markdown rendering needs) in a background thread, so that the first request
    does not pay for it while the person reads the prompt."""

    def work() -> None:
        try:
            if hasattr(provider, "warm_up"):
                provider.warm_up()
            for module in ("rich.live", "rich.spinner", "rich.markdown"):
                importlib.import_module(module)
        except Exception:
            log.warning("warm_up_failed", exc_info=True)

    threading.Thread(target=work, name="catcode-warm-up", daemon=True).start()


class Repl:
    """The prompt loop."""

    def __init__(self, conversation: Conversation, prompt: PromptSession[str], *, warm: bool = True) -> None:
        self.conversation = conversation
        self.prompt = prompt
        self.marker = prompt_marker()
        self._warm = warm
        self._drawn_hooked = False

    def run(self) -> int:
        """Loop until Ctrl+D or /exit, then shut the session down; the exit code (always 0)."""
        conv = self.conversation
        session = conv.session
        conv.console.print(
            Text(
                f"catcode {__version__} · {session.paths.project_root.name} · {session.provider.model}"
                "  (/help for commands, Ctrl+D to exit)",
                style="dim",
            )
        )
        try:
            while not conv.state.get("exit"):
                try:
                    conv.print_notices()
                    line = self.prompt.prompt(self.marker, pre_run=self._pre_run)
                except KeyboardInterrupt:
                    conv.console.print(Text(EXIT_HINT, style="dim"))
                    continue
                except EOFError:
                    break
                try:
                    conv.handle(line)
                except KeyboardInterrupt:  # a second Ctrl+C while the first was being handled
                    conv.events.end_turn()
                    conv.console.print(Text("interrupted", style="yellow"))
        finally:
            conv.shutdown()
        return 0

    def _pre_run(self) -> None:
        app = get_app()
        app.create_background_task(self._watch())
        if not self._drawn_hooked:  # the application is the same for every prompt: one handler is enough
            self._drawn_hooked = True
            app.after_render += self._drawn

    def _drawn(self, app: object) -> None:
        """The prompt is on screen: start what waits for it (MCP servers); later renders do nothing."""
        self.conversation.session.start_background()

    async def _watch(self) -> None:
        """While the prompt waits: warm the SDK once (the prompt is drawn by now), print notices above it."""
        if self._warm:
            self._warm = False
            warm_up(self.conversation.session.provider)
        notices = self.conversation.session.notices
        while True:
            await asyncio.sleep(NOTICE_POLL)
            lines = drain(notices)
            if lines:
                await run_in_terminal(lambda lines=lines: self.conversation.show_notices(lines))


def run_interactive(
    settings: Any,
    paths: Any,
    *,
    provider: Any = None,
    console: Console | None = None,
    stdin: Any = None,
    env: dict[str, str] | None = None,
    warm: bool = True,
    **io: Any,
) -> int:
    """Run catcode interactively in the current project; the process exit code.

    Tests inject ``provider``, a rich ``console`` and prompt_toolkit ``input``/``output`` through ``io``."""
    stdin = sys.stdin if stdin is None else stdin
    if "input" not in io and not (_isatty(stdin) and _isatty(sys.stdout)):
        from catcode.ui.piped import run_piped

        return run_piped(settings, paths, stdin, provider=provider, console=console, env=env)
    from catcode.app import build_session

    console = console or Console(highlight=False)
    answers = AnswerReader(**io)
    events = ReplEvents(console, preview_lines=settings.ui.result_preview_lines)
    approver = TerminalApprover(console, answers)

    def show(text: str) -> None:
        console.print(text, markup=False, highlight=False, end="", soft_wrap=True)

    asker = terminal_asker(answers, show)
    session = build_session(
        settings, paths, approver=approver, events=events, provider=provider, env=env, ask_consent=asker
    )
    events.tools = session.tools
    registry = build_registry(session)
    conversation = Conversation(session, registry, console, events, lambda q: ask_yes_no(answers, q))
    prompt = make_prompt(session, registry, conversation.ctx, **io)
    return Repl(conversation, prompt, warm=warm).run()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
