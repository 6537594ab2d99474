"""The interactive REPL: ``catcode`` (or ``catcode "first message"``) on a terminal.

The prompt comes first. ``start_interactive`` prints the header and draws the main prompt (``keys.make_prompt``)
from a ``FirstScreen`` (model, permission mode, input history); the session — settings settled, ``app.build_session``,
the command registry, the screen objects: a ``Conversation`` — is built in a background thread once the prompt is on
screen, and the SDK is imported there next (``session_start.SessionStart``). Whatever is typed meanwhile stays in
the prompt; the first line sent waits for the session if it is not ready yet, then runs. When the project may ask
for consent (``project_trust.may_ask``), the session is built before the prompt instead, so that every question is
answered before what it governs is used. Then it loops: notices, prompt, slash command or agent turn, until Ctrl+D
or /exit. When stdin or stdout is not a terminal, ``launch`` runs ``catcode.ui.piped`` instead.

``Conversation`` and ``build_registry`` (``ui/line_runner.py``) are reachable from here too, imported when first
asked for: this module is imported before the prompt is drawn, they import the whole session."""

from __future__ import annotations

import asyncio
import functools
import os
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app, run_in_terminal

from catcode import __version__
from catcode.log import get_logger
from catcode.safety.project_trust import may_ask
from catcode.ui.first_screen import FirstScreen
from catcode.ui.keys import AnswerReader, make_prompt, prompt_marker
from catcode.ui.session_start import SessionStart, Settle, build_conversation

if TYPE_CHECKING:
    from rich.console import Console

    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings
    from catcode.settings.consent import Asker
    from catcode.settings.paths import Paths
    from catcode.ui.line_runner import Conversation
    from catcode.ui.turn_keys import TurnKeys

# Any: the module ``__getattr__`` hands out names of ``ui.line_runner`` loaded on first use; ``io`` is
# prompt_toolkit's ``input``/``output`` objects, passed through to it.

log = get_logger(__name__)

NOTICE_POLL = 0.2  # seconds between looks at the notices while the prompt waits
EXIT_HINT = "Press Ctrl+D to exit."


def __getattr__(name: str) -> Any:
    if name in ("Conversation", "build_registry"):
        from catcode.ui import line_runner as conversation

        return getattr(conversation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def console_maker(console: Console | None) -> Callable[[], Console]:
    """``console``, or else a terminal console made when first asked for (in whichever thread): importing rich costs
    about 15 ms that the prompt does not wait for."""
    made: list[Console] = [console] if console is not None else []
    lock = threading.Lock()

    def get() -> Console:
        with lock:
            if not made:
                from rich.console import Console

                made.append(Console(highlight=False))
            return made[0]

    return get


def dim_line(console: Console | None, line: str) -> None:
    """``line``, dim: through ``console`` when there is one, else straight to the terminal (as rich would write it),
    so that the header does not wait for rich."""
    if console is not None:
        from rich.text import Text

        console.print(Text(line, style="dim"))
        return
    styled = sys.stdout.isatty() and os.environ.get("TERM", "dumb") not in ("dumb", "unknown")
    sys.stdout.write(f"\x1b[2m{line}\x1b[0m\n" if styled else f"{line}\n")
    sys.stdout.flush()


def instructions_line(paths: Paths) -> str | None:
    """``Instructions: AGENTS.md, src/CLAUDE.md``: the instruction files the session will read (a few small
    files, read before the prompt so that the line comes before the first message)."""
    from catcode.session import instructions

    try:
        loaded = instructions.load(paths.home, paths.project_root, Path.cwd())
    except OSError:
        return None
    return instructions.loaded_line(loaded, paths.project_root, paths.home)


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
        instructions = instructions_line(screen.paths)
        if instructions:  # before anything is typed: the session (which reads them too) may come later
            dim_line(self._given, instructions)
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
        moment; end it with the error if the session cannot be built."""
        while True:
            error = self.start.error()
            if error is not None:
                get_app().exit(exception=error)
                return
            self.start.idle()
            conv = self.start.peek()
            if conv is not None:
                from catcode.ui.line_runner import drain

                lines = drain(conv.session.notices)
                if lines:
                    await run_in_terminal(functools.partial(conv.show_notices, lines))
            await asyncio.sleep(NOTICE_POLL)


def start_interactive(
    screen: FirstScreen,
    settle: Settle,
    *,
    first_message: str | None = None,
    resume: str | None = None,
    provider: LLMProvider | None = None,
    console: Console | None = None,
    env: dict[str, str] | None = None,
    warm: bool = True,
    ask_consent: Asker | None = None,
    **io: Any,
) -> int:
    """Run catcode interactively: the prompt drawn from ``screen``, the session built behind it from
    ``settle(notify)`` (the validated settings and paths; ``notify`` shows a line above the prompt); the process
    exit code.

    Tests inject ``provider``, a rich ``console`` and prompt_toolkit ``input``/``output`` through ``io``.
    ``ask_consent`` asks the person about what the project brings that needs consent; it is used only when the
    project may ask (the session is then built before the prompt)."""
    screen_console = console_maker(console)
    keys = None
    if "input" not in io:  # a real terminal (tests pass a pipe)
        from catcode.ui.turn_keys import TurnKeys

        keys = TurnKeys()
    answers = AnswerReader(keys, **io)
    eager = may_ask(screen.paths.project_root)
    asker = None
    if eager:
        from catcode.settings.consent import terminal_asker

        def show(text: str) -> None:
            screen_console().print(text, markup=False, highlight=False, end="", soft_wrap=True)

        asker = ask_consent or terminal_asker(answers, show)
    notices: queue.SimpleQueue[str] = queue.SimpleQueue()
    start = SessionStart(
        lambda: build_conversation(
            settle,
            screen_console,
            answers,
            notices=notices,
            provider=provider,
            env=env,
            ask_consent=asker,
            keys=keys,
        ),
        warm=warm,
    )
    if eager:
        start.build_now()
    prompt = make_prompt(screen, start, screen_console, **io)
    return Repl(start, prompt, screen, screen_console, console, keys).run(first_message, resume)


def run_interactive(settings: Settings, paths: Paths, **options: Any) -> int:
    """Run catcode interactively with settings already validated (``start_interactive``'s ``options``)."""
    return start_interactive(FirstScreen.of(settings, paths), lambda notify: (settings, paths), **options)
