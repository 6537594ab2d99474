"""One round of tool calls: every tool_use of a reply gets exactly one result, whether the tool ran, was denied,
crashed or the person interrupted.

A call made under an earlier name or input shape (``read_file`` with ``path``) is read as the tool's own first, so
hooks, rules and the UI see one name. Each call goes: the tool's input model, PRE_TOOL_USE hooks (which may block
it, decide its permission or change its input), the permission policy (the ``Approver`` when it must ask; it too
may change the input), the tool, POST_TOOL_USE hooks. A refused call is told to the events (``on_denied``).
Neighbouring calls of a ``concurrent`` tool run together on worker threads (``tool_batch.py``); their prompts and
screen output are handed back to the agent's thread. ``agent.py`` runs the loop around these rounds.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from catcode.conversation.hook_bus import HookContext, HookEvent, HookManager
from catcode.conversation.messages import Message, Role, ToolResultBlock, ToolUseBlock
from catcode.errors import one_line
from catcode.log import get_logger
from catcode.safety.permissions import ApprovalRequest, Approver, PermissionPolicy, Verdict
from catcode.session.history_repair import INTERRUPTED
from catcode.session.tool_batch import AgentThread, CallCancelled, neighbours
from catcode.tools.base import Tool, ToolContext, ToolInputError, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from pydantic import BaseModel

# Any: a tool call's input is the model's JSON object.

__all__ = ["ToolEvents", "ToolHost", "execute_tools"]

log = get_logger(__name__)


class ToolEvents(Protocol):
    """What a round tells the UI about each call."""

    def on_tool_start(self, call: ToolUseBlock) -> None:
        """A tool is about to run (after approval)."""

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A tool finished (or was refused)."""

    def on_denied(self, call: ToolUseBlock, reason: str) -> None:
        """A call was refused before it ran (a rule, the mode, a hook, the person)."""


class ToolHost(Protocol):
    """What a round needs of the agent that runs it (``Agent``)."""

    tools: ToolRegistry
    hooks: HookManager
    policy: PermissionPolicy
    approver: Approver
    context: ToolContext
    thread: AgentThread
    messages: list[Message]

    def halt(self, reason: str) -> None:
        """A hook asked to stop the turn once this round is over (Claude Code's ``"continue": false``)."""
        ...

    @property
    def events(self) -> ToolEvents:
        """Told when each call starts and ends."""
        ...

    def around_concurrent(self) -> contextlib.AbstractContextManager[object]:
        """What surrounds a batch of overlapping calls on the agent's thread."""
        ...


def execute_tools(host: ToolHost, calls: list[ToolUseBlock], store: Callable[[Message], None]) -> list[ToolResultBlock]:
    """Run each call in order (neighbouring calls of a ``concurrent`` tool together, on worker threads);
    every call gets exactly one result, even when interrupted."""
    results: list[ToolResultBlock] = []
    try:
        for concurrent, group in neighbours(calls, functools.partial(_concurrent, host)):
            outcomes = _run_concurrently(host, group) if concurrent else [_run_tool(host, group[0])]
            results += [
                ToolResultBlock(tool_use_id=c.id, content=o.text, is_error=o.is_error, images=o.images)
                for c, o in zip(group, outcomes, strict=True)
            ]
    except KeyboardInterrupt:
        done = {r.tool_use_id for r in results}
        results += [
            ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in calls if c.id not in done
        ]
        store(Message(role=Role.USER, content=list(results)))
        raise
    return results


def _concurrent(host: ToolHost, call: ToolUseBlock) -> bool:
    tool = host.tools.get(call.name)
    return tool is not None and tool.concurrent


def _run_concurrently(host: ToolHost, calls: list[ToolUseBlock]) -> list[ToolResult]:
    """Even a single call runs on a worker: Ctrl+C reaches this thread, which cancels every one of them."""
    try:
        jobs: list[Callable[[], ToolResult]] = [functools.partial(_run_tool, host, call) for call in calls]
        outcomes = host.thread.run_all(jobs, host.around_concurrent())
    except KeyboardInterrupt:
        host.context.cancel.set()  # the calls still running notice it and stop
        raise
    return [
        o if isinstance(o, ToolResult) else ToolResult(f"Tool {c.name} failed: {one_line(o)}", is_error=True)
        for c, o in zip(calls, outcomes, strict=True)
    ]


def _run_tool(host: ToolHost, call: ToolUseBlock) -> ToolResult:
    call = own_call(host.tools, call)
    result, call = _decide_and_run(host, call)
    if not result.text:
        result = ToolResult("(no output)", result.is_error, result.images)
    after = host.hooks.emit(
        HookContext(
            HookEvent.POST_TOOL_USE,
            messages=host.messages,
            tool_name=call.name,
            tool_input=call.input,
            tool_result=result,
            call_id=call.id,
        )
    )
    # The tool ran; a PostToolUse hook has something to tell the model about it.
    told = [after.block.reason] if after.block is not None else []
    told += [message.text for message in after.appended if message.text.strip()]
    if told:
        result = ToolResult("\n\n".join([result.text, *told]), result.is_error, result.images, result.total_lines)
    if after.halt is not None:
        host.halt(after.halt.reason)
    _tell(host, lambda: host.events.on_tool_end(call, result))
    return result


def own_call(tools: ToolRegistry, call: ToolUseBlock) -> ToolUseBlock:
    """``call`` under its tool's own name and input shape (``read_file {path}`` is ``Read {file_path}``)."""
    tool = tools.get(call.name)
    if tool is None or (tool.name == call.name and tool.legacy is None):
        return call
    tool_input = tool.legacy(call.name, call.input) if tool.legacy is not None else call.input
    return call.model_copy(update={"name": tool.name, "input": tool_input})


def _tell(host: ToolHost, event: Callable[[], None]) -> None:
    """Screen output happens on this thread, also for calls running on a worker (dropped once interrupted)."""
    with contextlib.suppress(CallCancelled):
        host.thread.call(event, host.context.cancel)


def _decide_and_run(host: ToolHost, call: ToolUseBlock) -> tuple[ToolResult, ToolUseBlock]:
    """The call's result, and the call as it ran (a hook or the approver may have changed its input)."""
    tool = host.tools.get(call.name)
    if tool is None:
        return ToolResult(host.tools.unknown(call.name), True), call
    try:
        args = tool.parse(call.input)
    except ToolInputError as exc:
        return ToolResult(str(exc), True), call
    before = host.hooks.emit(
        HookContext(
            HookEvent.PRE_TOOL_USE, messages=host.messages, tool_name=call.name, tool_input=call.input, call_id=call.id
        )
    )
    if before.halt is not None:
        host.halt(before.halt.reason)
        return _denied(host, call, f"Not run: a hook stopped the turn ({before.halt.reason})"), call
    if before.block is not None:
        return _denied(host, call, f"Blocked: {before.block.reason}"), call
    hooked = before.decision
    if hooked is not None and hooked.updated_input is not None:
        call, parsed = _with_input(tool, call, hooked.updated_input)
        if isinstance(parsed, ToolResult):
            why = f"A PreToolUse hook changed the input into one that is not valid: {parsed.text}"
            return ToolResult(why, True), call
        args = parsed
    allows = hooked is not None and hooked.decision == "allow"
    verdict, reason = host.policy.check(tool, call.input, hook_allows=allows)
    if verdict is Verdict.DENY:
        return _denied(host, call, f"Permission denied: {reason}."), call
    if verdict is Verdict.ALLOW and hooked is not None and hooked.decision == "ask":
        verdict = Verdict.ASK
    if verdict is Verdict.ASK:
        if getattr(host.approver, "asks_person", True):  # a Notification hook tells the person they are waited for
            waiting = f"catcode needs your permission to use {call.name}"
            host.hooks.emit(HookContext(HookEvent.NOTIFICATION, source="permission_prompt", message=waiting))
        request = ApprovalRequest(tool, call.input, _preview(host, tool, args), call_id=call.id)
        decision = host.thread.call(lambda: host.approver.ask(request), host.context.cancel)
        if not decision.allowed:
            why = f" Reason: {decision.reason}" if decision.reason else ""
            return _denied(host, call, f"The user declined to run {call.name}.{why}"), call
        host.policy.remember(tool, decision)
        if decision.updated_input is not None and decision.updated_input != call.input:
            call, parsed = _with_input(tool, call, decision.updated_input)
            if isinstance(parsed, ToolResult):
                return parsed, call
            args = parsed
    _tell(host, lambda: host.events.on_tool_start(call))
    return host.tools.execute(tool, args, host.context), call


def _denied(host: ToolHost, call: ToolUseBlock, text: str) -> ToolResult:
    _tell(host, lambda: host.events.on_denied(call, text))
    return ToolResult(text, True)


def _with_input(
    tool: Tool, call: ToolUseBlock, tool_input: dict[str, Any]
) -> tuple[ToolUseBlock, BaseModel | ToolResult]:
    """``call`` with the input a hook or the approver gave instead, and that input parsed (or the error)."""
    call = call.model_copy(update={"input": tool_input})
    try:
        return call, tool.parse(tool_input)
    except ToolInputError as exc:
        return call, ToolResult(str(exc), True)


def _preview(host: ToolHost, tool: Tool, args: BaseModel) -> str | None:
    if tool.preview is None:
        return None
    try:
        return tool.preview(args, host.context)
    except Exception:
        log.warning("preview_failed", tool=tool.name, exc_info=True)
        return None
