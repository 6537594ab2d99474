"""The agent loop: ``run_turn`` → ``query`` → ``execute_tools`` until the model ends its turn.

The stored history is always valid for the API: every tool_use gets exactly one tool_result, whether the tool
ran, was denied, crashed, or the user interrupted; a provider failure never leaves a half-written exchange.

Over the usual 250 lines on purpose: the loop, running tools (overlapping ones through
``catcode.session.tool_batch``) and the repairs after an interrupt all keep that one invariant, so they are read
and reviewed together; ``AgentEvents``, the UI's side of the loop, lives here with the loop it describes."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from catcode.conversation.hook_bus import HookContext, HookEvent, HookManager
from catcode.conversation.messages import ImageBlock, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.errors import CatcodeError, ProviderError, one_line
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, ChatResponse, LLMProvider, Usage
from catcode.safety.permissions import ApprovalRequest, Approver, PermissionPolicy, Verdict
from catcode.session.tool_batch import AgentThread, CallCancelled, neighbours
from catcode.session.turn_attachments import TurnAttachments
from catcode.tools.base import ToolContext, ToolInputError, ToolRegistry, ToolResult

log = get_logger(__name__)

INTERRUPTED = "Interrupted by the user before this tool finished."
BLOCKED_PROMPT = "Not sent: a UserPromptSubmit hook blocked it"
BLOCKED_REQUEST = "Not sent: a hook blocked the request"


class RequestBlocked(CatcodeError):
    """A PRE_LLM_REQUEST hook answered ``Block``: the request was not sent; the message says why."""


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

    def on_retry(self, text: str) -> None:
        """A failed request is retried ("overloaded, retrying in 2 s (attempt 2/4)"); a notice by default."""
        self.on_notice(text)

    def on_tool_output(self, text: str) -> None:
        """Live output of the running tool (called from the tool's reader thread)."""

    def on_recall(self, recalled: Any) -> None:
        """Per-turn recall attached memories to the person's message (``memory.auto_recall.Recalled``)."""


class Compactor(Protocol):
    """Keeps the conversation under the token budget (see ``catcode.session.compaction``)."""

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
    status: int | None = None  # the HTTP status of a provider failure (401: the API key was rejected)
    usage: Usage = field(default_factory=Usage)
    limit_reached: bool = False  # stopped by ``max_tool_rounds`` with tool calls still to answer


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
        # told when the conversation is swapped (compaction) or emptied (/clear), so the log can say so
        self.replace_listeners: list[Callable[[list[Message]], None]] = []
        self.turn_end_listeners: list[Callable[[], None]] = []  # told when a turn is over, however it ended
        self.thread = AgentThread()  # runs overlapping tool calls; their prompts and screen output come back here
        # What surrounds a batch of overlapping calls on this thread (the subagents' progress lines).
        self.around_concurrent: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext
        # Per-turn recall: the person's text → what to attach to it for the requests (None: nothing), see
        # ``memory.auto_recall``; the attachments stay out of ``messages`` (so out of history.jsonl).
        self.recall: Callable[[str, frozenset[str]], Any] | None = None
        self.attached = TurnAttachments()
        self._partial: list[str] = []
        self._streaming = False

    # -- the loop ---------------------------------------------------------------------------------------------

    def run_turn(self, text: str, images: list[ImageBlock] | None = None) -> TurnResult:
        """Answer one user message (with the ``images`` it attaches), running tools until the model ends its turn."""
        try:
            return self._run_turn(text, images or [])
        finally:
            for listener in self.turn_end_listeners:
                try:
                    listener()
                except Exception:
                    log.warning("turn_end_listener_failed", exc_info=True)

    def _run_turn(self, text: str, images: list[ImageBlock]) -> TurnResult:
        result = TurnResult()
        if self.context.cancel.is_set():
            # A fresh flag rather than clear(): work cancelled in an earlier turn (a subagent still waiting for its
            # reply) must stay cancelled.
            self.context.cancel = threading.Event()
        self._repair_after_interrupt()  # a second Ctrl+C can land while the previous repair ran
        submitted = self.hooks.emit(HookContext(HookEvent.USER_PROMPT_SUBMIT, messages=self.messages, prompt=text))
        if submitted.block is not None:
            result.error = f"{BLOCKED_PROMPT}: {submitted.block.reason}"
            return result
        context = [m.text for m in submitted.appended if m.text.strip()]
        recalled = self._recall(text, self.attached.names(self.messages))
        created, added = self._add_user_text(text, context, images)
        start = len(self.messages) - 1
        if recalled is not None:  # before the person's text: what it found first, the question last
            at = len(self.messages[start].content) - added  # the person's text: the first block this turn added
            self.attached.add(self.messages[start], at, recalled.text, tuple(i.name for i in recalled.items))
            self.events.on_recall(recalled)
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
                self._store(Message(role=Role.USER, content=list(self.execute_tools(reply.tool_uses))))
            result.limit_reached = True
            self.events.on_notice(f"Stopped after {self.max_tool_rounds} tool rounds (max_tool_rounds).")
        except KeyboardInterrupt:
            result.interrupted = True
            self._repair_after_interrupt()
        except (ProviderError, RequestBlocked) as exc:
            result.error, result.status = str(exc), getattr(exc, "status", None)
            self._streaming = False
            if len(self.messages) - 1 == start:
                self.attached.drop(self.messages[start])
            if created and len(self.messages) - 1 == start:
                self.messages.pop()  # nothing answered it; the person re-sends it with Up
            elif not created and len(self.messages) - 1 == start:
                del self.messages[start].content[-added:]  # undo the merge, keep the tool results
        return result

    def query(self) -> ChatResponse:
        """One request: compaction keeps it under budget; hooks may append per-request system messages, or block
        it (``RequestBlocked``: nothing is sent)."""
        if self.compactor is not None and self.counter is not None:
            compacted = self.compactor.maybe_compact(self.messages, self.counter)
            if compacted is not None:
                self.replace_messages(compacted.messages)
                self.events.on_notice(compacted.notice)
        # After compaction: its memory flush may have added memories this request should already carry.
        outcome = self.hooks.emit(HookContext(HookEvent.PRE_LLM_REQUEST, messages=self.messages))
        if outcome.block is not None:
            log.info("request_blocked", reason=outcome.block.reason)
            raise RequestBlocked(f"{BLOCKED_REQUEST}: {outcome.block.reason}")
        self._partial = []
        self._streaming = True
        self.events.on_request()
        response = self.provider.chat(
            [*self.attached.for_request(self.messages), *outcome.appended],
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
        """Run each call in order (neighbouring calls of a ``concurrent`` tool together, on worker threads);
        every call gets exactly one result, even when interrupted."""
        results: list[ToolResultBlock] = []
        try:
            for concurrent, group in neighbours(calls, self._concurrent):
                outcomes = self._run_concurrently(group) if concurrent else [self._run_tool(group[0])]
                results += [
                    ToolResultBlock(tool_use_id=c.id, content=o.text, is_error=o.is_error, images=o.images)
                    for c, o in zip(group, outcomes, strict=True)
                ]
        except KeyboardInterrupt:
            done = {r.tool_use_id for r in results}
            results += [
                ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in calls if c.id not in done
            ]
            self._store(Message(role=Role.USER, content=list(results)))
            raise
        return results

    def _concurrent(self, call: ToolUseBlock) -> bool:
        tool = self.tools.get(call.name)
        return tool is not None and tool.concurrent

    def _run_concurrently(self, calls: list[ToolUseBlock]) -> list[ToolResult]:
        """Even a single call runs on a worker: Ctrl+C reaches this thread, which cancels every one of them."""
        try:
            jobs: list[Callable[[], ToolResult]] = [functools.partial(self._run_tool, call) for call in calls]
            outcomes = self.thread.run_all(jobs, self.around_concurrent())
        except KeyboardInterrupt:
            self.context.cancel.set()  # the calls still running notice it and stop
            raise
        return [
            o if isinstance(o, ToolResult) else ToolResult(f"Tool {c.name} failed: {one_line(o)}", is_error=True)
            for c, o in zip(calls, outcomes, strict=True)
        ]

    # -- one tool call ----------------------------------------------------------------------------------------

    def _run_tool(self, call: ToolUseBlock) -> ToolResult:
        result = self._decide_and_run(call)
        if not result.text:
            result = ToolResult("(no output)", result.is_error, result.images)
        feedback = self.hooks.emit(
            HookContext(
                HookEvent.POST_TOOL_USE,
                messages=self.messages,
                tool_name=call.name,
                tool_input=call.input,
                tool_result=result,
            )
        ).block
        if feedback is not None:  # the tool ran; a PostToolUse hook has something to tell the model about it
            result = ToolResult(f"{result.text}\n\n{feedback.reason}", result.is_error, result.images)
        self._tell(lambda: self.events.on_tool_end(call, result))
        return result

    def _tell(self, event: Callable[[], None]) -> None:
        """Screen output happens on this thread, also for calls running on a worker (dropped once interrupted)."""
        with contextlib.suppress(CallCancelled):
            self.thread.call(event, self.context.cancel)

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
            request = ApprovalRequest(tool, call.input, self._preview(tool, args))
            decision = self.thread.call(lambda: self.approver.ask(request), self.context.cancel)
            if not decision.allowed:
                why = f" Reason: {decision.reason}" if decision.reason else ""
                return ToolResult(f"The user declined to run {call.name}.{why}", True)
            self.policy.remember(tool, decision)
        self._tell(lambda: self.events.on_tool_start(call))
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

    def _recall(self, text: str, attached: frozenset[str]) -> Any:
        """What per-turn recall found for ``text`` (an object with ``.text`` and ``.items``), leaving out what is
        ``attached`` to the conversation already; None when nothing; never raises."""
        if self.recall is None:
            return None
        try:
            recalled = self.recall(text, attached)
        except Exception:
            log.warning("recall_failed", exc_info=True)
            return None
        return recalled if recalled is not None and recalled.text else None

    def _add_user_text(self, text: str, context: list[str], images: list[ImageBlock]) -> tuple[bool, int]:
        """Store the person's text, its images and what hooks added to it; True when it is a new message, False when
        merged into the last one, and how many blocks were added."""
        message = Message(
            role=Role.USER, content=[TextBlock(text=text), *images, *(TextBlock(text=t) for t in context)]
        )
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role is Role.USER:
            # A turn that ended on tool results (round limit, provider failure): the new text joins that message
            # so roles keep alternating.
            last.content.extend(message.content)
            self._notify(message)
            return False, len(message.content)
        self._store(message)
        return True, len(message.content)

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
        """Swap in a compacted conversation (its messages are already recorded, so ``listeners`` are not told;
        ``replace_listeners`` are)."""
        self.messages = list(messages)
        self._replaced(self.messages)

    def clear(self) -> None:
        """Start a new conversation."""
        self.restore([])
        self._replaced([])

    def restore(self, messages: list[Message]) -> None:
        """Take up an earlier conversation (resume): nothing is recorded again, nobody is told."""
        self.messages = list(messages)
        if self.counter is not None and hasattr(self.counter, "reset"):
            self.counter.reset()

    def _replaced(self, messages: list[Message]) -> None:
        for listener in self.replace_listeners:
            try:
                listener(messages)
            except Exception:
                log.warning("replace_listener_failed", exc_info=True)
