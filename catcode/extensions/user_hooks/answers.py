"""What a hook said, read as Claude Code reads it (its hooks reference): the exit code, and JSON on stdout.

- Exit 2 blocks, with stderr as the reason (``block``). Any other exit but 0 is a failure that blocks nothing.
- Exit 0 with a JSON object on stdout: ``continue: false`` stops the turn (``halt``, ``stopReason`` shown to the
  person); ``decision: "block"`` with ``reason`` blocks (PostToolUse, UserPromptSubmit, Stop, SubagentStop; the old
  PreToolUse ``approve``/``block`` are ``allow``/``deny``); ``hookSpecificOutput.permissionDecision`` ``allow`` /
  ``deny`` / ``ask`` with ``permissionDecisionReason`` and ``updatedInput`` (PreToolUse);
  ``hookSpecificOutput.additionalContext`` is context for the model; ``systemMessage`` is a line for the person.
- Exit 0 with plain text: UserPromptSubmit's and SessionStart's stdout is context for the model; the others' is
  only logged."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# Any: a hook's JSON output, read field by field.

BLOCK_EXIT = 2
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""Events whose plain stdout (exit 0) is context for the model."""
CONTEXT_CAP = 10_000
"""Characters of a hook's context kept: a hook printing a log file must not flood the prompt."""


@dataclass
class Answer:
    """One hook's answer."""

    block: str | None = None
    """Block, with this reason (exit 2's stderr, ``decision: block``'s reason, ``permissionDecision: deny``'s)."""
    decision: str | None = None
    """PreToolUse: ``allow`` or ``ask``."""
    reason: str = ""
    """Why (``permissionDecisionReason``), for the person."""
    updated_input: dict[str, Any] | None = None
    """PreToolUse: the input to run the tool with instead (in Claude Code's shape)."""
    context: list[str] = field(default_factory=list)
    """Text for the model (``additionalContext``; plain stdout of UserPromptSubmit and SessionStart)."""
    halt: str | None = None
    """``continue: false``: stop the turn, with this ``stopReason`` for the person."""
    message: str = ""
    """``systemMessage``: a line for the person."""
    failure: str = ""
    """Why it did not answer (exit 1, a crash, a timeout...): logged and shown once, never a block."""


def read_answer(event: str, code: int | None, stdout: str, stderr: str, command: str) -> Answer:
    """The answer of a hook of ``event`` that ended with ``code`` (None: it did not start, or timed out)."""
    if code == BLOCK_EXIT:
        return Answer(block=stderr.strip() or f"blocked by the hook `{command}`")
    if code != 0:
        return Answer(failure="failed")
    text = stdout.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return _from_json(event, data, command)
    answer = Answer()
    if text and event in CONTEXT_EVENTS:
        answer.context.append(text[:CONTEXT_CAP])
    return answer


def _from_json(event: str, data: dict[str, Any], command: str) -> Answer:
    answer = Answer(message=_text(data.get("systemMessage")))
    if data.get("continue") is False:
        answer.halt = _text(data.get("stopReason")) or f"the hook `{command}` stopped it"
    reason = _text(data.get("reason"))
    decision = data.get("decision")
    if decision == "block":
        answer.block = reason or f"blocked by the hook `{command}`"
    elif decision == "approve" and event == "PreToolUse":
        answer.decision, answer.reason = "allow", reason
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        permission = specific.get("permissionDecision")
        why = _text(specific.get("permissionDecisionReason"))
        if event == "PreToolUse" and permission == "deny":
            answer.block = why or f"denied by the hook `{command}`"
        elif event == "PreToolUse" and permission in ("allow", "ask"):
            answer.decision, answer.reason = permission, why
        updated = specific.get("updatedInput")
        if event == "PreToolUse" and isinstance(updated, dict):
            answer.updated_input = updated
        context = _text(specific.get("additionalContext"))
        if context:
            answer.context.append(context[:CONTEXT_CAP])
    return answer


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
