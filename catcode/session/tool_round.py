"""One round of tool calls: every tool_use of a reply gets exactly one result, whether the tool ran, was denied,
crashed or the person interrupted.

Each call goes: the tool's input model, PRE_TOOL_USE hooks, the permission policy (the ``Approver`` when it must
ask), the tool, POST_TOOL_USE hooks. Neighbouring calls of a ``concurrent`` tool run together on worker threads
(``tool_batch.py``); their prompts and screen output are handed back to the agent's thread. ``agent.py`` runs the
loop around these rounds.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

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

__all__ = ["ToolEvents", "ToolHost", "execute_tools"]

log = get_logger(__name__)


class ToolEvents(Protocol):
    """What a round tells the UI about each call."""

    def on_tool_start(self, call: ToolUseBlock) -> None:
        """A tool is about to run (after approval)."""

    def on_tool_end(self, call: ToolUseBlock, result: ToolResult) -> None:
        """A tool finished (or was refused)."""


class ToolHost(Protocol):
    """What a round needs of the agent that runs it (``Agent``)."""

    tools: ToolRegistry
    hooks: HookManager
    policy: PermissionPolicy
    approver: Approver
    context: ToolContext
    thread: AgentThread
    messages: list[Message]

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
    result = _decide_and_run(host, call)
    if not result.text:
        result = ToolResult("(no output)", result.is_error, result.images)
    feedback = host.hooks.emit(
        HookContext(
            HookEvent.POST_TOOL_USE,
            messages=host.messages,
            tool_name=call.name,
            tool_input=call.input,
            tool_result=result,
        )
    ).block
    if feedback is not None:  # the tool ran; a PostToolUse hook has something to tell the model about it
        result = ToolResult(f"{result.text}\n\n{feedback.reason}", result.is_error, result.images)
    _tell(host, lambda: host.events.on_tool_end(call, result))
    return result


def _tell(host: ToolHost, event: Callable[[], None]) -> None:
    """Screen output happens on this thread, also for calls running on a worker (dropped once interrupted)."""
    with contextlib.suppress(CallCancelled):
        host.thread.call(event, host.context.cancel)


def _decide_and_run(host: ToolHost, call: ToolUseBlock) -> ToolResult:
    tool = host.tools.get(call.name)
    if tool is None:
        return ToolResult(host.tools.unknown(call.name), True)
    try:
        args = tool.parse(call.input)
    except ToolInputError as exc:
        return ToolResult(str(exc), True)
    block = host.hooks.emit(
        HookContext(HookEvent.PRE_TOOL_USE, messages=host.messages, tool_name=call.name, tool_input=call.input)
    ).block
    if block is not None:
        return ToolResult(f"Blocked: {block.reason}", True)
    verdict, reason = host.policy.check(tool, call.input)
    if verdict is Verdict.DENY:
        return ToolResult(f"Permission denied: {reason}.", True)
    if verdict is Verdict.ASK:
        request = ApprovalRequest(tool, call.input, _preview(host, tool, args))
        decision = host.thread.call(lambda: host.approver.ask(request), host.context.cancel)
        if not decision.allowed:
            why = f" Reason: {decision.reason}" if decision.reason else ""
            return ToolResult(f"The user declined to run {call.name}.{why}", True)
        host.policy.remember(tool, decision)
    _tell(host, lambda: host.events.on_tool_start(call))
    return host.tools.execute(tool, args, host.context)


def _preview(host: ToolHost, tool: Tool, args: BaseModel) -> str | None:
    if tool.preview is None:
        return None
    try:
        return tool.preview(args, host.context)
    except Exception:
        log.warning("preview_failed", tool=tool.name, exc_info=True)
        return None
