"""What a hook reads about an event, in Claude Code's fields (its hooks reference) — the same for a settings hook's
stdin and an Agent SDK callback's input (``cli/sdk_hooks.py``).

The tools carry Claude Code's names and input shapes themselves (``tools.facts``; a call under an older name is
read as the tool's own before any hook sees it), so ``tool_name`` and ``tool_input`` are the call's as it runs.
``tool_response`` is the result's text and error flag, with Claude Code's fields beside them: ``stdout`` (the output
without catcode's exit line), ``stderr``, ``interrupted`` and ``isImage`` for Bash, ``filePath`` and ``success`` for
the file tools (and Write's ``content``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from catcode.hooks.bus import HookContext
from catcode.tools.facts import PATH_TOOLS

# Any: hook inputs are JSON objects.

EXIT_LINE = "exit code: "
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")


def event_fields(event: str, context: HookContext, project_root: Path) -> dict[str, Any]:
    """The fields of ``event``'s input besides the ones every event has (``session_id``, ``transcript_path``,
    ``cwd``, ``permission_mode``, ``hook_event_name``)."""
    fields: dict[str, Any] = {}
    if event in TOOL_EVENTS:
        fields.update(tool_name=context.tool_name, tool_input=context.tool_input, tool_use_id=context.call_id)
    result = context.tool_result
    if event == "PostToolUse" and result is not None:
        fields["tool_response"] = tool_response(context.tool_name, context.tool_input, result, project_root)
    if event == "PostToolUseFailure" and result is not None:
        fields["error"] = result.text
    if event == "UserPromptSubmit":
        fields["prompt"] = context.prompt
    if event in ("Stop", "SubagentStop"):
        fields.update(stop_hook_active=context.stop_active, last_assistant_message=context.message)
    if event == "SessionStart":
        fields["source"] = context.source or "startup"
    if event == "SessionEnd":
        fields["reason"] = context.source or "other"
    if event == "PreCompact":
        fields.update(trigger=context.trigger or "auto", custom_instructions="")
    if event == "Notification":
        fields.update(message=context.message, notification_type=context.source)
    return fields


def tool_response(name: str, tool_input: dict[str, Any], result: Any, root: Path) -> dict[str, Any]:
    """What a PostToolUse hook reads of a ``ToolResult``."""
    text, is_error = result.text, result.is_error
    response: dict[str, Any] = {"text": text, "is_error": is_error}
    path = tool_input.get("file_path")
    if name == "Bash":
        body, _, last = text.rpartition("\n")
        output = body if last.startswith(EXIT_LINE) else text
        response.update(stdout=output, stderr="", interrupted=False, isImage=False)
    elif name in PATH_TOOLS and isinstance(path, str):
        given = Path(path).expanduser()
        response.update(filePath=str(given if given.is_absolute() else root / given), success=not is_error)
        if name == "Write":
            response["content"] = tool_input.get("content", "")
    return response
