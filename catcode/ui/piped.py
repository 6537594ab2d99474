"""Piped input (``git diff | catcode``, ``echo "explain main.py" | catcode``): everything on stdin is ONE user
message (a single line that is a slash command runs as the command), with the ``catcode "prompt"`` argument in
front when one was given. The answer goes to stdout in plain text — no prompt, no Live, no spinner, no colours;
tool lines, notices, "Saving memories…" and failures go to stderr. Nobody can be asked for permission, so asks
are refused (``NoTerminalApprover``) and each refusal is reported on stderr too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from catcode.app.stdin_input import combine, cut_note
from catcode.app.warm import warm_now
from catcode.safety.permissions import NoTerminalApprover
from catcode.screen import Screen
from catcode.ui.events import ReplEvents
from catcode.ui.line_runner import Conversation, build_registry

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths

NOTHING = 'nothing to send: pipe a message in (echo "question" | catcode) or give one (catcode "question")'


def run_piped(
    settings: Settings,
    paths: Paths,
    text: str,
    *,
    prompt: str | None = None,
    more: bool = False,
    provider: LLMProvider | None = None,
    console: Console | None = None,
    errors: Console | None = None,
    env: dict[str, str] | None = None,
) -> int:
    """Answer ``text`` (what was piped in; ``more``: it was cut) after ``prompt`` as one message; 0 when the turn
    succeeded, 1 when it failed or was interrupted, 2 for a setup problem (nothing to send, a rejected API key)."""
    from catcode.app.build import build_session

    errors = errors or Screen(stderr=True, force_terminal=False, highlight=False, soft_wrap=True)
    message = combine(prompt, text, more)
    if not message.strip():
        errors.print(f"catcode: {NOTHING}", markup=False)
        return 2
    console = console or Screen(force_terminal=False, highlight=False, soft_wrap=True)
    events = ReplEvents(console, live=False, preview_lines=settings.ui.result_preview_lines, progress=errors)
    approver = NoTerminalApprover(report=lambda line: errors.print(f"catcode: {line}", markup=False))
    session = build_session(settings, paths, approver=approver, events=events, provider=provider, env=env)
    events.tools = session.tools
    warm_now(session.provider)
    conversation = Conversation(session, build_registry(session), console, events, errors=errors, progress=errors)
    if more:
        errors.print(f"catcode: {cut_note()}", markup=False)
    code = 0
    try:
        conversation.print_notices()
        result = conversation.handle(message)
        if result is not None and (result.error or result.interrupted):
            code = 2 if result.status == 401 else 1  # a rejected API key is a setup problem
        conversation.print_notices()
    finally:
        conversation.shutdown()
    return code
