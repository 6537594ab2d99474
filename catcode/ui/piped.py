"""Piped input (``echo "explain main.py" | catcode``): each line of stdin is one user message (or a slash
command), answered in plain text — no prompt, no Live, no spinner, no colours; failures go to stderr. Nobody
can be asked for permission, so asks are refused (``NoTerminalApprover``). The session is shut down at end of
input."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console

from catcode.permissions import NoTerminalApprover
from catcode.ui.render import ReplEvents
from catcode.ui.repl import Conversation, build_registry


def run_piped(
    settings: Any,
    paths: Any,
    lines: Iterable[str],
    *,
    provider: Any = None,
    console: Console | None = None,
    errors: Console | None = None,
    env: dict[str, str] | None = None,
) -> int:
    """Answer every line of ``lines``; 0 when every turn succeeded, 1 when one failed or was interrupted."""
    from catcode.app import build_session

    console = console or Console(force_terminal=False, highlight=False, soft_wrap=True)
    events = ReplEvents(console, live=False, preview_lines=settings.ui.result_preview_lines)
    session = build_session(settings, paths, approver=NoTerminalApprover(), events=events, provider=provider, env=env)
    events.tools = session.tools
    errors = errors or Console(stderr=True, force_terminal=False, highlight=False, soft_wrap=True)
    conversation = Conversation(session, build_registry(session), console, events, errors=errors)
    failed = False
    try:
        for line in lines:
            conversation.print_notices()
            result = conversation.handle(line)
            if result is not None and (result.error or result.interrupted):
                failed = True
            if conversation.state.get("exit"):
                break
        conversation.print_notices()
    finally:
        conversation.shutdown()
    return 1 if failed else 0
