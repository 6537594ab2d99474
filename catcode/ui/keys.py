r"""Reading input at the terminal: the main prompt (key bindings, per-project history, completion, bottom
toolbar) and ``AnswerReader`` for one-line answers (permission prompt, y/N questions).

Keys (they take precedence over prompt_toolkit's defaults):
- Ctrl+C clears the line when it holds text; on an empty line it ends the prompt with ``KeyboardInterrupt``
  (the REPL prints how to exit). During a Ctrl+R history search it only ends the search (ending the prompt
  from inside the search left the terminal without a prompt). Ctrl+D on an empty line is prompt_toolkit's
  default: ``EOFError``.
- Alt+Enter, Esc then Enter, or ``\`` then Enter inserts a newline; Enter sends. Pasted text (bracketed paste)
  is inserted whole, newlines included, and sent as one message with Enter.
- Shift+Tab cycles the permission mode (default → accept-edits → plan, as Claude Code); the toolbar shows it.
- Ctrl+O opens the full output of the last tool in a pager (``$PAGER``, else ``less``).
- Esc Esc on an empty line runs ``/rewind`` (go back to before one of this session's messages)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.filters import Condition, is_searching
from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.search import stop_search

from catcode.text import visible
from catcode.ui.completion import ReplCompleter

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

    from catcode.session.session import Session
    from catcode.ui.events import ReplEvents
    from catcode.ui.first_screen import FirstScreen
    from catcode.ui.line_runner import Conversation
    from catcode.ui.status_line import StatusLine
    from catcode.ui.turn_keys import TurnKeys

# Any: ``io`` is prompt_toolkit's ``input``/``output`` objects, passed through to it.


def prompt_bindings(
    cycle_mode: Callable[[], None] | None = None, show_output: Callable[[], None] | None = None
) -> KeyBindings:
    """The REPL's own bindings; ``cycle_mode`` runs on Shift+Tab, ``show_output`` (in the terminal) on Ctrl+O."""
    bindings = KeyBindings()

    @bindings.add("c-c", filter=is_searching)
    def _end_search(event: KeyPressEvent) -> None:
        stop_search()

    @bindings.add("c-c", filter=~is_searching)
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.app.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt(), style="class:aborting")

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    ends_in_backslash = Condition(lambda: _before_cursor().endswith("\\"))

    @bindings.add("enter", filter=ends_in_backslash & ~is_searching)
    def _continued(event: KeyPressEvent) -> None:
        event.current_buffer.delete_before_cursor(1)
        event.current_buffer.insert_text("\n")

    empty = Condition(lambda: not _before_cursor() and not _after_cursor())

    @bindings.add("escape", "escape", filter=empty & ~is_searching)
    def _rewind(event: KeyPressEvent) -> None:
        event.app.exit(result="/rewind")

    if cycle_mode is not None:

        @bindings.add("s-tab")
        def _cycle(event: KeyPressEvent) -> None:
            run_in_terminal(cycle_mode)  # it says the new mode above the prompt; the toolbar shows it too

    if show_output is not None:

        @bindings.add("c-o")
        def _output(event: KeyPressEvent) -> None:
            run_in_terminal(show_output)

    return bindings


def _before_cursor() -> str:
    from prompt_toolkit.application import get_app

    return get_app().current_buffer.document.text_before_cursor


def _after_cursor() -> str:
    from prompt_toolkit.application import get_app

    return get_app().current_buffer.document.text_after_cursor


class Live(Protocol):
    """The conversation being built behind the prompt (``session_start.SessionStart``)."""

    def peek(self) -> Conversation | None:
        """The conversation once it is built, else None."""
        ...

    def result(self) -> Conversation:
        """The conversation, waiting for it to be built."""
        ...

    def on_ready(self, listener: Callable[[Conversation], None]) -> None:
        """Call ``listener(conversation)`` once it is built."""
        ...


def mode_cycler(session: Session, console: Console) -> Callable[[], None]:
    """Shift+Tab: the next permission mode, and one dim line saying which."""

    def cycle() -> None:
        mode = session.policy.cycle_mode()
        console.print(f"Permission mode: {mode.value} (Shift+Tab for the next)", style="dim", markup=False)

    return cycle


def pager_for(events: ReplEvents | None, console: Console) -> Callable[[], None]:
    """Ctrl+O: the last tool's whole output (``events.full``, kept on disk) in ``$PAGER`` (else ``less``), or the
    result the model got when nothing was kept; a line saying there is none yet."""

    def show() -> None:
        last = getattr(events, "last_output", None)
        if last is None:
            console.print("No tool output yet.", style="dim", markup=False)
            return
        full = getattr(events, "full", None)
        if full is not None and full.text() and _page_file(full.path):
            return
        call, text = last
        with console.pager(styles=False):
            console.print(visible(f"{call}\n\n{text}"), markup=False, highlight=False, soft_wrap=True)

    return show


def _page_file(path: Path) -> bool:
    """Run the pager on ``path``; False when there is no pager to run."""
    import os
    import shlex
    import subprocess

    from catcode import programs

    argv = shlex.split(os.environ.get("PAGER") or "less")
    pager = programs.find(argv[0]) if argv else None  # never one planted in the project
    if pager is None:
        return False
    subprocess.run([pager, *argv[1:], str(path)], check=False)
    return True


def toolbar(session: Session) -> str:
    """Model, permission mode, the sandbox, tokens used and, when every model used has a known price, dollars."""
    from catcode.providers.pricing import cost_of, dollars, session_usage
    from catcode.ui.render import usage_summary

    mode = getattr(session.policy.mode, "value", session.policy.mode)
    total, _ = cost_of(session_usage(session))
    money = f" · {dollars(total)}" if total else ""
    fence = getattr(session.context, "sandbox", None)
    fenced = f" · {fence.label()}" if fence is not None else ""
    return f" {session.provider.model} · {mode}{fenced} · {usage_summary(session.agent.usage)}{money} · /help "


def prompt_marker() -> str:
    """``❯ `` where the terminal speaks UTF-8, else ``> ``."""
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    return "❯ " if encoding.startswith("utf") else "> "


def first_toolbar(screen: FirstScreen) -> str:
    """The toolbar before the session exists: model and permission mode, no tokens yet."""
    return f" {screen.model} · {screen.mode} · sandbox {screen.sandbox} · /help "


def input_history(screen: FirstScreen) -> History:
    """The project's typed-line history: redacted on disk, 0600 (``catcode.ui.history``), or only in memory with
    ``input_history: false``."""
    from catcode.ui.history import input_history as history_for

    return history_for(screen.paths.input_history, enabled=screen.input_history)


def make_prompt(screen: FirstScreen, live: Live, console: Callable[[], Console], **io: Any) -> PromptSession[str]:
    """The main prompt, drawn before the session exists: ``live.peek()`` is the ``Conversation`` once it is built
    (None until then) and ``live.result()`` waits for it (``ui/session_start.py``); ``console()`` is the rich
    console. Until then completion offers ``@path``s only, the toolbar shows no tokens, and Shift+Tab waits for the
    session. ``io`` may hold prompt_toolkit ``input``/``output`` (tests pass a pipe)."""
    completer = ReplCompleter(None, screen.paths.project_root, lambda: getattr(live.peek(), "ctx", None))
    live.on_ready(lambda conversation: setattr(completer, "registry", conversation.registry))

    def cycle() -> None:
        try:
            session = live.result().session  # pressed before the session exists: wait for it
        except (KeyboardInterrupt, Exception):
            return  # Ctrl+C while waiting: no change; a failed build ends the prompt with its error anyway
        mode_cycler(session, console())()

    def show_output() -> None:
        pager_for(getattr(live.peek(), "events", None), console())()

    status: list[StatusLine] = []  # the person's status-line command, once the session says there is one

    def bottom() -> str | ANSI:
        conversation = live.peek()
        if conversation is None:
            return first_toolbar(screen)
        spec = conversation.session.settings.status_line
        if spec is None:
            return toolbar(conversation.session)
        if not status:
            from catcode.ui.status_line import StatusLine

            status.append(StatusLine(spec, conversation.session, lambda: prompt.app.invalidate()))
        return ANSI(status[0].text())

    prompt: PromptSession[str] = PromptSession(
        history=input_history(screen),
        completer=completer,
        complete_while_typing=True,
        key_bindings=prompt_bindings(cycle, show_output),
        bottom_toolbar=bottom if screen.show_toolbar else None,
        prompt_continuation=lambda width, line_number, is_soft_wrap: " " * width,
        **io,
    )
    return prompt


class AnswerReader:
    """Reads one answer (permission prompt, y/N question) with a plain prompt on the same terminal; its
    answers stay out of the input history. What was typed before the question was asked never answers it:
    it is discarded first, with a line saying so (``keys``: the ``TurnKeys`` of the terminal, if any)."""

    def __init__(self, keys: TurnKeys | None = None, **io: Any) -> None:
        self._io = io
        self._prompt: PromptSession[str] | None = None
        self.keys = keys

    def __call__(self, message: str) -> str:
        """Show ``message``; KeyboardInterrupt/EOFError on Ctrl+C/Ctrl+D."""
        if self._prompt is None:
            self._prompt = PromptSession(**self._io)
        if self.keys is None:
            return self._prompt.prompt(message)
        from catcode.ui.turn_keys import discarded_line

        with self.keys.question(self._prompt.input) as discarded:
            line = discarded_line(discarded)
            if line:
                sys.stdout.write(f"\x1b[2m{visible(line)}\x1b[0m\n")
                sys.stdout.flush()
            return self._prompt.prompt(message)
