"""``--permission-prompt-tool mcp__server__tool``: an MCP tool decides what would ask (Claude Code's meaning). It is
called with ``{"tool_name", "input", "tool_use_id"}`` and answers a JSON text: ``{"behavior": "allow",
"updatedInput": {...}}`` or ``{"behavior": "deny", "message": "..."}``. A tool that is missing, fails or answers
anything else is a refusal (``fallback`` says so, as print mode does when nobody can be asked)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from catcode.safety.permissions import ApprovalRequest, Decision

if TYPE_CHECKING:
    from catcode.safety.permissions import Approver
    from catcode.session.session import Session


class PromptToolApprover:
    """Asks the MCP tool ``name``; ``session`` is set once the session (and its MCP tools) exists."""

    asks_person = False
    """A program answers, not a person at a prompt: no Notification hook runs for its questions."""

    def __init__(self, name: str, fallback: Approver) -> None:
        self.name, self.fallback = name, fallback
        self.session: Session | None = None

    def ask(self, request: ApprovalRequest) -> Decision:
        """The tool's decision (a refusal when there is none)."""
        tool = self.session.tools.get(self.name) if self.session is not None else None
        if tool is None or self.session is None:
            return self.fallback.ask(request)
        arguments = {"tool_name": request.tool.name, "input": request.input, "tool_use_id": request.call_id}
        result = self.session.tools.execute(tool, tool.parse(arguments), self.session.context)
        try:
            answer = json.loads(result.text)
        except ValueError:
            answer = None
        if result.is_error or not isinstance(answer, dict):
            return Decision(False, f"the permission prompt tool {self.name} gave no decision: {result.text[:200]}")
        if answer.get("behavior") == "allow":
            updated = answer.get("updatedInput")
            return Decision(True, updated_input=updated if isinstance(updated, dict) else None)
        return Decision(False, str(answer.get("message") or f"denied by {self.name}"))
