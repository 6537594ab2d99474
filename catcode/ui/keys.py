"""Reading input at the terminal: the main prompt (key bindings, per-project history, completion, bottom
toolbar) and ``AnswerReader`` for one-line answers (permission prompt, y/N questions).

Keys (they take precedence over prompt_toolkit's defaults):
- Ctrl+C clears the line when it holds text; on an empty line it ends the prompt with ``KeyboardInterrupt``
  (the REPL prints how to exit). Ctrl+D on an empty line is prompt_toolkit's default: ``EOFError``.
- Alt+Enter, or Esc then Enter, inserts a newline; Enter sends. Pasted text (bracketed paste) is inserted
  whole, newlines included, and sent as one message with Enter."""

from __future__ import annotations

import sys
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.ui.completion import ReplCompleter
from catcode.ui.render import usage_summary


def prompt_bindings() -> KeyBindings:
    """The REPL's own bindings."""
    bindings = KeyBindings()

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.app.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt(), style="class:aborting")

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def toolbar(session: Any) -> str:
    """Model, permission mode and tokens used."""
    mode = getattr(session.policy.mode, "value", session.policy.mode)
    return f" {session.provider.model} · {mode} · {usage_summary(session.agent.usage)} · /help "


def prompt_marker() -> str:
    """``❯ `` where the terminal speaks UTF-8, else ``> ``."""
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "")
    return "❯ " if encoding.startswith("utf") else "> "


def input_history(session: Any) -> History:
    """The project's typed-line history: redacted on disk, 0600 (``catcode.ui.history``), or only in memory with
    ``input_history: false``."""
    from catcode.ui.history import input_history as history_for

    return history_for(session.paths.input_history, enabled=session.settings.input_history)


def make_prompt(session: Any, registry: CommandRegistry, ctx: CommandContext, **io: Any) -> PromptSession[str]:
    """The main prompt; ``io`` may hold prompt_toolkit ``input``/``output`` (tests pass a pipe)."""
    return PromptSession(
        history=input_history(session),
        completer=ReplCompleter(registry, session.paths.project_root, lambda: ctx),
        complete_while_typing=True,
        key_bindings=prompt_bindings(),
        bottom_toolbar=(lambda: toolbar(session)) if session.settings.ui.show_toolbar else None,
        prompt_continuation=lambda width, line_number, is_soft_wrap: " " * width,
        **io,
    )


class AnswerReader:
    """Reads one answer (permission prompt, y/N question) with a plain prompt on the same terminal; its
    answers stay out of the input history."""

    def __init__(self, **io: Any) -> None:
        self._io = io
        self._prompt: PromptSession[str] | None = None

    def __call__(self, message: str) -> str:
        """Show ``message``; KeyboardInterrupt/EOFError on Ctrl+C/Ctrl+D."""
        if self._prompt is None:
            self._prompt = PromptSession(**self._io)
        return self._prompt.prompt(message)
