"""The agent loop: ``run_turn`` → ``query`` → ``execute_tools`` until the model ends its turn.

The stored history is always valid for the API: every tool_use gets exactly one tool_result, whether the tool
ran, was denied, crashed, or the user interrupted; a provider failure never leaves a half-written exchange.

Over the usual 250 lines on purpose: the loop, tool execution and the repairs after an interrupt all keep that one
invariant, so they are read and reviewed together."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from catcode.errors import ProviderError
from catcode.hooks import HookContext, HookEvent, HookManager
from catcode.log import get_logger
from catcode.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.permissions import ApprovalRequest, Approver, PermissionPolicy, Verdict
from catcode.providers.base import ChatOptions, ChatResponse, LLMProvider, Usage
from catcode.tools.base import ToolContext, ToolInputError, ToolRegistry, ToolResult

log = get_logger(__name__)

INTERRUPTED = "Interrupted by the user before this tool finished."


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

    def on_notice(self, text: str) -> None:
        """A one-line notice for the person (compaction, limits)."""


class Compactor(Protocol):
    """Keeps the conversation under the token budget (see ``catcode.compaction``)."""

    def maybe_compact(self, messages: list[Message], counter: Any) -> Any:
        """Return a result with ``.messages`` and ``.notice`` when it compacted, else None."""
        ...


@dataclass
class TurnResult:
    """How a turn ended."""

    text: str = ""
    rounds: int = 0
    interrupted: bool = False
    error: str | None = None
    usage: Usage = field(default_factory=Usage)


class Agent:
    """One conversation with the model and its tools."""

    def __init__(
        self,
        provider: LLMProvider,
        tools: ToolRegistry,
        hooks: HookManager,
        policy: PermissionPolicy,
        approver: Approver,
        context: ToolContext,
        *,
        system_prompt: str,
        options: ChatOptions | None = None,
        max_tool_rounds: int = 50,
        compactor: Compactor | None = None,
        counter: Any = None,
        events: AgentEvents | None = None,
    ) -> None:
        self.provider, self.tools, self.hooks = provider, tools, hooks
        self.policy, self.approver, self.context = policy, approver, context
        self.system_prompt = system_prompt
        self.options = options or ChatOptions()
        self.max_tool_rounds = max_tool_rounds
        self.compactor, self.counter = compactor, counter
        self.events = events or AgentEvents()
        self.messages: list[Message] = []
        self.usage = Usage()
        self.listeners: list[Callable[[Message], None]] = []  # told about every stored message (history.jsonl)
        self._partial: list[str] = []
        self._streaming = False

    # -- the loop ---------------------------------------------------------------------------------------------

    def run_turn(self, text: str) -> TurnResult:
        """Answer one user message, running tools until the model ends its turn."""
        result = TurnResult()
        self.context.cancel.clear()
        self._repair_after_interrupt()  # a second Ctrl+C can land while the previous repair ran
        created = self._add_user_text(text)
        start = len(self.messages) - 1
        try:
            while result.rounds < self.max_tool_rounds:
                result.rounds += 1
                response = self.query()
                result.usage.add(response.usage)
                reply = Message(role=Role.ASSISTANT, content=response.content or [TextBlock(text="(no reply)")])
                self._store(reply)
                result.text = response.text
                if not reply.tool_uses:
                    return result
                self._store(Message(role=Role.USER, content=self.execute_tools(reply.tool_uses)))
            self.events.on_notice(f"Stopped after {self.max_tool_rounds} tool rounds (max_tool_rounds).")
        except KeyboardInterrupt:
            result.interrupted = True
            self._repair_after_interrupt()
        except ProviderError as exc:
            result.error = str(exc)
            self._streaming = False
            if created and len(self.messages) - 1 == start:
                self.messages.pop()  # nothing answered it; the person re-sends it with Up
            elif not created and len(self.messages) - 1 == start:
                self.messages[start].content.pop()  # undo the merge, keep the earlier tool results
        return result

    def query(self) -> ChatResponse:
        """One request: compaction keeps it under budget; hooks may append per-request system messages."""
        if self.compactor is not None and self.counter is not None:
            compacted = self.compactor.maybe_compact(self.messages, self.counter)
            if compacted is not None:
                self.replace_messages(compacted.messages)
                self.events.on_notice(compacted.notice)
        # After compaction: its memory flush may have added memories this request should already carry.
        outcome = self.hooks.emit(HookContext(HookEvent.PRE_LLM_REQUEST, messages=self.messages))
        self._partial = []
        self._streaming = True
        self.events.on_request()
        response = self.provider.chat(
            [*self.messages, *outcome.appended],
            self.system_prompt,
            self.tools.specs(),
            self.options,
            on_text=self._on_text,
        )
        self._streaming = False
        self.usage.add(response.usage)
        if self.counter is not None:
            self.counter.record(response.usage, self.messages)
        self.events.on_response(response)
        self.hooks.emit(HookContext(HookEvent.POST_LLM_RESPONSE, messages=self.messages, response=response))
        return response

    def execute_tools(self, calls: list[ToolUseBlock]) -> list[ToolResultBlock]:
        """Run each call in order; every call gets exactly one result, even when interrupted."""
        results: list[ToolResultBlock] = []
        try:
            for call in calls:
                outcome = self._run_tool(call)
                results.append(ToolResultBlock(tool_use_id=call.id, content=outcome.text, is_error=outcome.is_error))
        except KeyboardInterrupt:
            done = {r.tool_use_id for r in results}
            results += [
                ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in calls if c.id not in done
            ]
            self._store(Message(role=Role.USER, content=results))
            raise
        return results

    # -- one tool call ----------------------------------------------------------------------------------------

    def _run_tool(self, call: ToolUseBlock) -> ToolResult:
        result = self._decide_and_run(call)
        if not result.text:
            result = ToolResult("(no output)", result.is_error)
        self.events.on_tool_end(call, result)
        self.hooks.emit(
            HookContext(
                HookEvent.POST_TOOL_USE,
                messages=self.messages,
                tool_name=call.name,
                tool_input=call.input,
                tool_result=result,
            )
        )
        return result

    def _decide_and_run(self, call: ToolUseBlock) -> ToolResult:
        tool = self.tools.get(call.name)
        if tool is None:
            return ToolResult(f"Unknown tool {call.name}. Available tools: {', '.join(self.tools.names())}", True)
        try:
            args = tool.parse(call.input)
        except ToolInputError as exc:
            return ToolResult(str(exc), True)
        block = self.hooks.emit(
            HookContext(HookEvent.PRE_TOOL_USE, messages=self.messages, tool_name=call.name, tool_input=call.input)
        ).block
        if block is not None:
            return ToolResult(f"Blocked: {block.reason}", True)
        verdict, reason = self.policy.check(tool, call.input)
        if verdict is Verdict.DENY:
            return ToolResult(f"Permission denied: {reason}.", True)
        if verdict is Verdict.ASK:
            decision = self.approver.ask(ApprovalRequest(tool, call.input, self._preview(tool, args)))
            if not decision.allowed:
                why = f" Reason: {decision.reason}" if decision.reason else ""
                return ToolResult(f"The user declined to run {call.name}.{why}", True)
            if decision.always:
                self.policy.session_allowed.add(tool.name)
        self.events.on_tool_start(call)
        return self.tools.execute(tool, args, self.context)

    def _preview(self, tool: Any, args: Any) -> str | None:
        if tool.preview is None:
            return None
        try:
            return tool.preview(args, self.context)
        except Exception:
            log.warning("preview_failed", tool=tool.name, exc_info=True)
            return None

    # -- history ----------------------------------------------------------------------------------------------

    def _on_text(self, text: str) -> None:
        self._partial.append(text)
        self.events.on_text(text)

    def _add_user_text(self, text: str) -> bool:
        """Store the person's text; True when it is a new message, False when merged into the last one."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role is Role.USER:
            # A turn that ended on tool results (round limit, provider failure): the new text joins that message
            # so roles keep alternating.
            last.content.append(TextBlock(text=text))
            self._notify(Message.user(text))
            return False
        self._store(Message.user(text))
        return True

    def _repair_after_interrupt(self) -> None:
        last = self.messages[-1] if self.messages else None
        if last is None:
            return
        if last.role is Role.ASSISTANT and last.tool_uses:
            self._store(
                Message(
                    role=Role.USER,
                    content=[
                        ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in last.tool_uses
                    ],
                )
            )
        elif last.role is Role.USER and self._streaming:
            # What streamed before Ctrl+C is kept, so the model knows what the person saw.
            self._store(Message.assistant(f"{''.join(self._partial)}\n[interrupted by the user]".strip()))
        self._streaming = False

    def _store(self, message: Message) -> None:
        self.messages.append(message)
        self._notify(message)

    def _notify(self, message: Message) -> None:
        for listener in self.listeners:
            try:
                listener(message)
            except Exception:
                log.warning("message_listener_failed", exc_info=True)

    def replace_messages(self, messages: list[Message]) -> None:
        """Swap in a compacted conversation (already recorded, so listeners are not told)."""
        self.messages = list(messages)

    def clear(self) -> None:
        """Start a new conversation."""
        self.messages = []
        if self.counter is not None and hasattr(self.counter, "reset"):
            self.counter.reset()
