"""``catcode -p PROMPT``: one agent turn, the answer streamed to stdout; nobody can be asked for permission."""

from __future__ import annotations

import sys
from typing import Any

from catcode.agent import AgentEvents
from catcode.permissions import NoTerminalApprover


class PrintEvents(AgentEvents):
    """Streams the answer to stdout; notices go to stderr."""

    def __init__(self) -> None:
        self.wrote = False

    def on_text(self, text: str) -> None:
        """Write each delta as it arrives."""
        sys.stdout.write(text)
        sys.stdout.flush()
        self.wrote = True

    def on_notice(self, text: str) -> None:
        """One line on stderr."""
        sys.stderr.write(f"catcode: {text}\n")


def run_print(settings: Any, paths: Any, prompt: str) -> int:
    """Run ``prompt`` as one turn; 0 on success, 1 on failure (one line on stderr)."""
    from catcode.app import build_session

    events = PrintEvents()
    session = build_session(settings, paths, approver=NoTerminalApprover(), events=events, interactive=False)
    try:
        result = session.agent.run_turn(prompt)
    finally:
        session.end()
    if events.wrote:
        sys.stdout.write("\n")
    if result.error:
        sys.stderr.write(f"catcode: {result.error}\n")
        return 1
    if result.interrupted:
        sys.stderr.write("catcode: interrupted\n")
        return 1
    return 0
