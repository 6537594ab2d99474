"""What a hook said, read as Claude Code reads it (its hooks reference): the exit code, and JSON on stdout.

- Exit 2 blocks, with stderr as the reason (``block``). Any other exit but 0 is a failure that blocks nothing.
- Exit 0 with a JSON object on stdout: ``continue: false`` stops the turn (``halt``, ``stopReason`` shown to the
  person); ``decision: "block"`` with ``reason`` blocks (PostToolUse, UserPromptSubmit, Stop, SubagentStop; the old
  PreToolUse ``approve``/``block`` are ``allow``/``deny``); ``hookSpecificOutput.permissionDecision`` ``allow`` /
  ``deny`` / ``ask`` with ``permissionDecisionReason`` and ``updatedInput`` (PreToolUse);
  ``hookSpecificOutput.additionalContext`` is context for the model; ``systemMessage`` is a line for the person.
- Exit 0 with plain text: UserPromptSubmit's and SessionStart's stdout is context for the model; the others' is
  only logged.

The JSON part (``from_json``) and what an answer means on catcode's hook bus (``on_bus``, ``contexts``) are the
same for the Agent SDK's hook callbacks (``cli/sdk_hooks.py``), which answer with the same object: one reading of
a hook's answer, whoever wrote the hook."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from catcode.boundary import defuse, wrap
from catcode.hooks.bus import Block, Decide, Halt, HookResult

# Any: a hook's JSON output, read field by field.

BLOCK_EXIT = 2
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""Events whose plain stdout (exit 0) is context for the model."""
CONTEXT_CAP = 10_000
"""Characters of a hook's context kept: a hook printing a log file must not flood the prompt."""
BLOCKING = ("PreToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop")
"""Events whose block stops what they guard (PostToolUse's goes to the model with the result; the others' is only
shown to the person)."""
DECIDING = ("PreToolUse", "PermissionRequest")
AFTER_TOOL = ("PostToolUse", "PostToolUseFailure")
"""Events whose block reaches the model with the tool's result (the tool already ran)."""


@dataclass
class Answer:
    """One hook's answer."""

    block: str | None = None
    """Block, with this reason (exit 2's stderr, ``decision: block``'s reason, ``permissionDecision: deny``'s)."""
    decision: str | None = None
    """PreToolUse: ``allow`` or ``ask``; PermissionRequest: ``allow``."""
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
            return from_json(event, data, f"the hook `{command}`")
    answer = Answer()
    if text and event in CONTEXT_EVENTS:
        answer.context.append(text[:CONTEXT_CAP])
    return answer


def from_json(event: str, data: dict[str, Any], who: str) -> Answer:
    """A hook's JSON answer (a settings hook's stdout, an SDK callback's return value); ``who`` names the hook in
    the reasons given when it gives none (``the hook `./check.sh` ``)."""
    answer = Answer(message=_text(data.get("systemMessage")))
    if data.get("continue") is False:
        answer.halt = _text(data.get("stopReason")) or f"{who} stopped it"
    reason = _text(data.get("reason"))
    decision = data.get("decision")
    if decision == "block":
        answer.block = reason or f"blocked by {who}"
    elif decision == "approve" and event == "PreToolUse":
        answer.decision, answer.reason = "allow", reason
    specific = data.get("hookSpecificOutput")
    if isinstance(specific, dict):
        permission = specific.get("permissionDecision")
        why = _text(specific.get("permissionDecisionReason"))
        if event == "PreToolUse" and permission == "deny":
            answer.block = why or f"denied by {who}"
        elif event == "PreToolUse" and permission in ("allow", "ask"):
            answer.decision, answer.reason = permission, why
        updated = specific.get("updatedInput")
        if event == "PreToolUse" and isinstance(updated, dict):
            answer.updated_input = updated
        if event == "PermissionRequest":
            _permission_request(answer, specific.get("decision"), who)
        context = _text(specific.get("additionalContext"))
        if context:
            answer.context.append(context[:CONTEXT_CAP])
    return answer


def _permission_request(answer: Answer, verdict: Any, who: str) -> None:
    """PermissionRequest's ``decision``: ``{"behavior": "allow", "updatedInput": ...}`` or ``{"behavior": "deny",
    "message": ...}``."""
    if not isinstance(verdict, dict):
        return
    if verdict.get("behavior") == "deny":
        answer.block = _text(verdict.get("message")) or f"denied by {who}"
    elif verdict.get("behavior") == "allow":
        updated = verdict.get("updatedInput")
        answer.decision = "allow"
        answer.updated_input = updated if isinstance(updated, dict) else None


def on_bus(event: str, answer: Answer) -> tuple[list[HookResult], bool]:
    """What ``answer`` means on the hook bus for ``event`` — a halt, a block, a permission decision — and whether
    the event's other hooks are left unasked (after a halt or a block). A block of an event that cannot block is not
    among the results (the caller shows it); the context is ``contexts``'."""
    results: list[HookResult] = []
    if answer.halt is not None:
        results.append(Halt(answer.halt))
    blocked = answer.block is not None and (event in BLOCKING or event in AFTER_TOOL)
    if answer.block is not None and blocked:
        reason = defuse(answer.block)  # reaches the model (a tool's result, Stop's feedback): no tag of ours in it
        results.append(Block(f"{event} hook: {reason}" if event in AFTER_TOOL else reason))
    elif event in DECIDING and (answer.decision or answer.updated_input is not None):
        results.append(Decide(answer.decision or "", answer.reason, answer.updated_input))
    return results, blocked or answer.halt is not None


def contexts(event: str, answer: Answer) -> list[str]:
    """The answer's context for the model, each in a ``<hook-context event="…">`` block it cannot close."""
    return [wrap("hook-context", text, event=event) for text in answer.context]


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
