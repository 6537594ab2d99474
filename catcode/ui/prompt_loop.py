"""The REPL's prompt loop (``Repl``), in front of a session that may still be being built: the header, an earlier
session taken up and a first message answered, then notices, prompt, slash command or agent turn, until Ctrl+D or
/exit. Started by ``repl.start_interactive``, which draws the prompt and starts building the session."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.application import get_app, run_in_terminal

from catcode import __version__
from catcode.log import get_logger
from catcode.text import visible
from catcode.ui.keys import prompt_marker

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from rich.console import Console

    from catcode.settings.paths import Paths
    from catcode.ui.first_screen import FirstScreen
    from catcode.ui.line_runner import Conversation
    from catcode.ui.session_start import SessionStart
    from catcode.ui.turn_keys import TurnKeys

log = get_logger(__name__)

NOTICE_POLL = 0.2  # seconds between looks at the notices while the prompt waits
EXIT_HINT = "Press Ctrl+D to exit."
IDLE_NOTICE = 60.0
"""Seconds the prompt waits for a message before Notification hooks hear of it (``idle_prompt``, as Claude Code)."""


def dim_line(console: Console | None, line: str) -> None:
    """``line``, dim: through ``console`` when there is one, else straight to the terminal (as rich would write it),
    so that the header does not wait for rich."""
    if console is not None:
        from rich.text import Text

        console.print(Text(line, style="dim"))
        return
    styled = sys.stdout.isatty() and os.environ.get("TERM", "dumb") not in ("dumb", "unknown")
    line = visible(line)  # a file's name in it may hold an escape sequence: shown, not obeyed
    sys.stdout.write(f"\x1b[2m{line}\x1b[0m\n" if styled else f"{line}\n")
    sys.stdout.flush()


def start_line(paths: Paths, memory_enabled: bool = True) -> str:
    """``Instructions: ~/.claude/CLAUDE.md, CLAUDE.md · Memory: 12 memories, index 1.4 KB``: the instruction files
    the session will read and what memory holds (a few small files and two folder listings, read before the prompt
    so that the line comes before the first message)."""
    from catcode.session import instructions
    from catcode.settings.memory_glance import glance_line

    memory = glance_line((paths.user_memory, paths.project_memory), memory_enabled)
    try:
        loaded = instructions.load(paths.home, paths.project_root, Path.cwd())
    except OSError:
        return memory
    line = instructions.loaded_line(loaded, paths.project_root, paths.home)
    return f"{line} · {memory}" if line else memory


def _idle_notice(conversation: Conversation) -> None:
    """Notification hooks: the prompt has waited a while (run off the prompt's thread: a hook may take time)."""
    from catcode.hooks.bus import HookContext, HookEvent

    waiting = "catcode is waiting for your input"
    conversation.session.hooks.emit(HookContext(HookEvent.NOTIFICATION, source="idle_prompt", message=waiting))


class Repl:
    """The prompt loop, in front of a session that may still be being built. ``console()`` is the rich console
    (made when first needed); ``given`` is the one the caller passed (tests), if any: the header goes through it,
    else straight to the terminal."""

    def __init__(
        self,
        start: SessionStart,
        prompt: PromptSession[str],
        screen: FirstScreen,
        console: Callable[[], Console],
        given: Console | None = None,
        keys: TurnKeys | None = None,
    ) -> None:
        self.start = start
        self.keys = keys  # ``TurnKeys``: what was typed during a turn goes to the next prompt
        self.prompt = prompt
        self.screen = screen
        self.console = console
        self._given = given
        self.marker = prompt_marker()
        self._drawn_hooked = False
        start.on_ready(lambda conversation: prompt.app.invalidate())  # the toolbar gains its token counts

    def run(self, first_message: str | None = None, resume: str | None = None) -> int:
        """Take up an earlier session (``resume``: ``"continue"``, ``""`` to pick, or an id), answer
        ``first_message`` (both wait for the session), then loop until Ctrl+D or /exit and shut the session down
        (waiting for it if it is still being built); the exit code (0; 2 when ``resume`` names no session)."""
        screen = self.screen
        dim_line(
            self._given,
            f"catcode {__version__} · {screen.paths.project_root.name} · {screen.model}"
            "  (/help for commands, Ctrl+D to exit)",
        )
        # before anything is typed: the session (which reads the instructions too) may come later
        dim_line(self._given, start_line(screen.paths, screen.memory_enabled))
        conv: Conversation | None = None
        try:
            if resume is not None or first_message:
                conv = first = self.start.result()
                if resume is not None:
                    from catcode.commands.resume import resume_at_start

                    if not resume_at_start(first.ctx, resume) and resume not in ("", "continue"):
                        return 2  # an id that is no session: never a fresh conversation the person did not ask for
                if first_message:
                    from rich.text import Text

                    first.print_notices()
                    first.console.print(Text(f"{self.marker}{first_message}", style="bold"))
                    first.handle(first_message)
            while (conv is None or not conv.state.exit) and not self._exit_requested():
                try:
                    if conv is not None:
                        conv.print_notices()
                    if self.keys is not None:
                        from catcode.ui.turn_keys import hand_to_prompt

                        hand_to_prompt(self.keys.take_typed(), self.prompt.input)
                    prefill = ""  # /rewind's message, given back once
                    if conv is not None:
                        prefill, conv.state.prefill = conv.state.prefill, ""
                    line = self.prompt.prompt(self.marker, pre_run=self._pre_run, default=prefill)
                except KeyboardInterrupt:
                    self.console().print(EXIT_HINT, style="dim", markup=False, highlight=False)
                    continue
                except EOFError:
                    break
                if not line.strip():
                    continue  # nothing to run: no need to wait for the session
                try:
                    if self.start.peek() is None:
                        log.info("line_waits_for_session")
                    conv = self.start.result()  # the first line sent waits here until the session is built
                    conv.print_notices()
                    conv.handle(line)
                except KeyboardInterrupt:  # Ctrl+C while waiting for the session, or a second one in a turn
                    if conv is not None:
                        conv.events.end_turn()
                    self.console().print("interrupted", style="yellow", markup=False, highlight=False)
        finally:
            self.start.result().shutdown()  # waits for a session still being built; raises if it failed
        return 0

    def _exit_requested(self) -> bool:
        """Ctrl+D during a turn (or at its permission prompt) ends the session once the turn has stopped."""
        return self.keys is not None and self.keys.exit_requested

    def _pre_run(self) -> None:
        app = get_app()
        app.create_background_task(self._watch())
        if not self._drawn_hooked:  # the application is the same for every prompt: one handler is enough
            self._drawn_hooked = True
            app.after_render += self._drawn

    def _drawn(self, app: object) -> None:
        """The prompt is on screen: build the session behind it, or start what waited for the prompt."""
        self.start.drawn()

    async def _watch(self) -> None:
        """While the prompt waits: print notices above it; start the session's start-up work left for a quiet
        moment; tell Notification hooks once it has waited ``IDLE_NOTICE`` seconds; end it with the error if the
        session cannot be built."""
        waiting_since, told = time.monotonic(), False
        while True:
            error = self.start.error()
            if error is not None:
                get_app().exit(exception=error)
                return
            self.start.idle()
            conv = self.start.peek()
            if conv is not None and not told and time.monotonic() - waiting_since >= IDLE_NOTICE:
                told = True
                threading.Thread(target=_idle_notice, args=(conv,), name="catcode-idle", daemon=True).start()
            if conv is not None:
                from catcode.ui.line_runner import drain

                lines = drain(conv.session.notices)
                if lines:
                    await run_in_terminal(functools.partial(conv.show_notices, lines))
            await asyncio.sleep(NOTICE_POLL)
