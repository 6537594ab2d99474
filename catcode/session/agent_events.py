"""The agent loop's outward types: ``AgentEvents`` (what the loop tells the UI while a turn runs; each front end
overrides what it shows) and ``TurnResult`` (how a turn ended). Light on purpose: the front ends import these
before the loop itself is needed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from catcode.providers.base import Usage

if TYPE_CHECKING:
    from catcode.conversation.messages import ToolUseBlock
    from catcode.providers.base import ChatResponse
    from catcode.session.loop_seams import Recalled
    from catcode.tools.base import ToolResult


class AgentEvents:
    """What the agent tells the UI. The default does nothing (print mode and tests override what they need)."""

    def on_request(self) -> None:
        """A request is about to be sent (start a spinner)."""

    def on_text(self, text: str) -> None:
        """A streamed text delta."""

    def on_response(self, response: ChatResponse) -> None:
        """A complete response arrived."""

    def on_tool_start(self, call: ToolUseBlock) -> None:
        """A tool is about to run (after approval)."""

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A tool finished (or was refused)."""

    def on_denied(self, call: ToolUseBlock, reason: str) -> None:
        """A call was refused before it ran: by a rule, the mode, a hook or the person (``permission_denials``)."""

    def on_notice(self, text: str) -> None:
        """A one-line notice for the person (compaction, limits)."""

    def on_retry(self, text: str) -> None:
        """A failed request is retried ("overloaded, retrying in 2 s (attempt 2/4)"); a notice by default."""
        self.on_notice(text)

    def on_tool_output(self, text: str) -> None:
        """Live output of the running tool (called from the tool's reader thread)."""

    def on_recall(self, recalled: Recalled) -> None:
        """What per-turn recall did for the person's message (``memory.auto_recall.Recalled``): the memories it
        attached, none, or why it was skipped."""


@dataclass
class TurnResult:
    """How a turn ended."""

    text: str = ""
    rounds: int = 0
    interrupted: bool = False
    error: str | None = None
    status: int | None = None  # the HTTP status of a provider failure (401: the API key was rejected)
    usage: Usage = field(default_factory=Usage)
    limit_reached: bool = False  # stopped by ``max_tool_rounds`` with tool calls still to answer
    stopped: str = ""  # a hook stopped the turn (Claude Code's ``"continue": false``): its reason, for the person
