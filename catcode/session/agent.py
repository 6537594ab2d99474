"""The agent loop: ``run_turn`` → ``query`` → ``execute_tools`` until the model ends its turn.

The stored history is always valid for the API: every tool_use gets exactly one tool_result, whether the tool
ran, was denied, crashed, or the user interrupted; a provider failure never leaves a half-written exchange
(``history_repair.py`` holds how a turn's messages join the history and how it is mended).

One round of tool calls: a call made under an earlier name or input shape (``read_file`` with ``path``) is read as
the tool's own first, so hooks, rules and the UI see one name. Each call goes: the tool's input model,
PRE_TOOL_USE hooks (which may block it, decide its permission or change its input), the permission policy (the
``Approver`` when it must ask; it too may change the input), the tool, POST_TOOL_USE hooks. A refused call is told
to the events (``on_denied``). Neighbouring calls of a ``concurrent`` tool run together on worker threads
(``tool_batch.AgentThread``); their prompts and screen output are handed back to the agent's thread.

What the loop tells the front end (``AgentEvents``) and how a turn ended (``TurnResult``) are here too: they are the
loop's own surface. Per-turn recall is memory's, a floor above: the loop knows it as ``attached.Recall``.

Why one module over 450 lines: the turn, the request and the tool round read and write the same state (the
history, the hooks, the policy, the cancel flag, the halt a hook asks for); cut apart, each piece needed a
Protocol repeating the agent to reach it. What stands on its own is beside it: ``history_repair.py``,
``tool_batch.py`` (the worker threads), ``turn_attachments.py`` (text for the requests only)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catcode.boundary import wrap
from catcode.conversation.messages import ImageBlock, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.errors import CatcodeError, ProviderError, one_line
from catcode.hooks.bus import HookContext, HookEvent, HookManager, HookOutcome
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, ChatResponse, LLMProvider, Usage
from catcode.providers.tokens import TokenCounter
from catcode.safety.permissions import ApprovalRequest, Approver, PermissionPolicy, Verdict
from catcode.session.history_repair import (
    INTERRUPTED,
    interrupted_tail,
    join_user_message,
    undo_unanswered,
    user_message,
)
from catcode.session.tool_batch import AgentThread, CallCancelled, neighbours
from catcode.session.turn_attachments import TurnAttachments
from catcode.tools.base import Tool, ToolContext, ToolInputError, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from pydantic import BaseModel

    from catcode.session.attached import Recall, Recalled
    from catcode.session.compaction import Compactor

# Any: a tool call's input is the model's JSON object.

log = get_logger(__name__)

BLOCKED_PROMPT = "Not sent: a UserPromptSubmit hook blocked it"
BLOCKED_REQUEST = "Not sent: a hook blocked the request"
STOP_FEEDBACK = "Stop hook feedback:\n"
"""How a Stop hook's reason reaches the model, as Claude Code words it."""


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
        counter: TokenCounter | None = None,
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
        self.around_concurrent: Callable[[], contextlib.AbstractContextManager[object]] = contextlib.nullcontext
        # Per-turn recall: the person's text → what to attach to it for the requests (None: nothing), see
        # ``memory.auto_recall``; the attachments stay out of ``messages`` (so out of history.jsonl).
        self.recall: Recall | None = None
        self.attached = TurnAttachments()
        self._partial: list[str] = []
        self._streaming = False
        self._halted: str | None = None

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
        self._halted = None
        submitted = self.hooks.emit(HookContext(HookEvent.USER_PROMPT_SUBMIT, messages=self.messages, prompt=text))
        if submitted.halt is not None:
            result.stopped = submitted.halt.reason
            return result
        if submitted.block is not None:
            result.error = f"{BLOCKED_PROMPT}: {submitted.block.reason}"
            return result
        context = [m.text for m in submitted.appended if m.text.strip()]
        recalled = self._recall(text)
        created, added = self._add_user_text(text, context, images)
        start = len(self.messages) - 1
        if recalled is not None:
            if recalled.text:  # before the person's text: what it found first, the question last
                at = len(self.messages[start].content) - added  # the person's text: the first block this turn added
                self.attached.add(self.messages[start], at, recalled.text, tuple(i.name for i in recalled.items))
            self.events.on_recall(recalled)  # also when nothing was found, or recall was skipped: the front end says
        stop_active = False
        try:
            while result.rounds < self.max_tool_rounds:
                result.rounds += 1
                response = self.query()
                result.usage.add(response.usage)
                reply = Message(role=Role.ASSISTANT, content=response.content or [TextBlock(text="(no reply)")])
                self._store(reply)
                result.text = response.text
                if not reply.tool_uses:
                    feedback = self._stop_feedback(response.text, stop_active, result)
                    if feedback is None:
                        return result
                    self._store(Message.user(STOP_FEEDBACK + feedback))
                    stop_active = True
                    continue
                self._store(Message(role=Role.USER, content=list(self.execute_tools(reply.tool_uses))))
                if self._halted is not None:
                    result.stopped = self._halted
                    return result
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
            undo_unanswered(self.messages, start, created=created, added=added)
        return result

    def _recall(self, text: str) -> Recalled | None:
        """What per-turn recall did for ``text``, leaving out what is attached already (its ``text`` is empty when
        nothing was found or it was skipped); None without recall, or when it raised (logged): a failed search
        never fails the turn."""
        if self.recall is None:
            return None
        try:
            return self.recall(text, self.attached.names(self.messages))
        except Exception:
            log.warning("recall_failed", exc_info=True)
            return None

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
            self.tools.specs(self.policy.denies_whole),  # a tool denied as a whole is not offered at all
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

    def _stop_feedback(self, text: str, active: bool, result: TurnResult) -> str | None:
        """What a Stop hook wants the model to do before it stops (it blocked, with this reason), or None."""
        outcome = self.hooks.emit(HookContext(HookEvent.STOP, messages=self.messages, message=text, stop_active=active))
        if outcome.halt is not None:
            result.stopped = outcome.halt.reason
            return None
        return outcome.block.reason if outcome.block is not None else None

    def halt(self, reason: str) -> None:
        """Stop the turn once the current round of tool calls is over (a hook's ``"continue": false``)."""
        if self._halted is None:
            self._halted = reason

    # -- one round of tool calls ------------------------------------------------------------------------------

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

    def _run_tool(self, call: ToolUseBlock) -> ToolResult:
        call = own_call(self.tools, call)
        result, call = self._decide_and_run(call)
        if not result.text:
            result = ToolResult("(no output)", result.is_error, result.images)
        after = self._tool_hooks(HookEvent.POST_TOOL_USE, call, result)
        # The tool ran; a PostToolUse hook has something to tell the model about it.
        told = [after.block.reason] if after.block is not None else []
        told += [message.text for message in after.appended if message.text.strip()]
        if told:
            result = ToolResult("\n\n".join([result.text, *told]), result.is_error, result.images, result.total_lines)
        if after.halt is not None:
            self.halt(after.halt.reason)
        self._tell(lambda: self.events.on_tool_end(call, result))
        return result

    def _tool_hooks(self, event: HookEvent, call: ToolUseBlock, result: ToolResult | None = None) -> HookOutcome:
        """The PRE_TOOL_USE or POST_TOOL_USE hooks of ``call`` (told its ``result`` once it ran)."""
        context = HookContext(event, messages=self.messages, tool_name=call.name, tool_input=call.input,
                              tool_result=result, call_id=call.id)  # fmt: skip
        return self.hooks.emit(context)

    def _tell(self, event: Callable[[], None]) -> None:
        """Screen output happens on this thread, also for calls running on a worker (dropped once interrupted)."""
        with contextlib.suppress(CallCancelled):
            self.thread.call(event, self.context.cancel)

    def _decide_and_run(self, call: ToolUseBlock) -> tuple[ToolResult, ToolUseBlock]:
        """The call's result, and the call as it ran (a hook or the approver may have changed its input)."""
        tool = self.tools.get(call.name)
        if tool is None:
            return ToolResult(self.tools.unknown(call.name), True), call
        try:
            args = tool.parse(call.input)
        except ToolInputError as exc:
            return ToolResult(str(exc), True), call
        before = self._tool_hooks(HookEvent.PRE_TOOL_USE, call)
        if before.halt is not None:
            self.halt(before.halt.reason)
            return self._denied(call, f"Not run: a hook stopped the turn ({before.halt.reason})"), call
        if before.block is not None:
            return self._denied(call, f"Blocked: {before.block.reason}"), call
        hooked = before.decision
        if hooked is not None and hooked.updated_input is not None:
            call, parsed = _with_input(tool, call, hooked.updated_input)
            if isinstance(parsed, ToolResult):
                why = f"A PreToolUse hook changed the input into one that is not valid: {parsed.text}"
                return ToolResult(why, True), call
            args = parsed
        allows = hooked is not None and hooked.decision == "allow"
        verdict, reason = self.policy.check(tool, call.input, hook_allows=allows)
        if verdict is Verdict.DENY:
            return self._denied(call, f"Permission denied: {reason}."), call
        if verdict is Verdict.ALLOW and hooked is not None and hooked.decision == "ask":
            verdict = Verdict.ASK
        if verdict is Verdict.ASK:
            if getattr(self.approver, "asks_person", True):  # a Notification hook tells the person they are waited for
                waiting = f"catcode needs your permission to use {call.name}"
                self.hooks.emit(HookContext(HookEvent.NOTIFICATION, source="permission_prompt", message=waiting))
            request = ApprovalRequest(tool, call.input, self._preview(tool, args), call_id=call.id)
            decision = self.thread.call(lambda: self.approver.ask(request), self.context.cancel)
            if not decision.allowed:
                why = f" Reason: {decision.reason}" if decision.reason else ""
                return self._denied(call, f"The user declined to run {call.name}.{why}"), call
            self.policy.remember(tool, decision)
            if decision.updated_input is not None and decision.updated_input != call.input:
                call, parsed = _with_input(tool, call, decision.updated_input)
                if isinstance(parsed, ToolResult):
                    return parsed, call
                args = parsed
        self._tell(lambda: self.events.on_tool_start(call))
        return self.tools.execute(tool, args, self.context), call

    def _denied(self, call: ToolUseBlock, text: str) -> ToolResult:
        self._tell(lambda: self.events.on_denied(call, text))
        return ToolResult(text, True)

    def _preview(self, tool: Tool, args: BaseModel) -> str | None:
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

    def _add_user_text(self, text: str, context: list[str], images: list[ImageBlock]) -> tuple[bool, int]:
        """Store the person's text, its images and what hooks added to it; True when it is a new message, False when
        merged into the last one, and how many blocks were added."""
        message = user_message(text, context, images)
        created = join_user_message(self.messages, message)
        self._notify(message)
        return created, len(message.content)

    def add_local_command(self, command: str, output: str) -> None:
        """A command the person ran themselves (``!cmd`` at the prompt): into the conversation as Claude Code puts
        it, so that the next message can refer to it; it joins the person's next message."""
        stdout = wrap("bash-stdout", output, inline=True) + wrap("bash-stderr", "", inline=True)
        message = Message(
            role=Role.USER,
            content=[TextBlock(text=wrap("bash-input", command, inline=True)), TextBlock(text=stdout)],
        )
        join_user_message(self.messages, message)
        self._notify(message)

    def _repair_after_interrupt(self) -> None:
        tail = interrupted_tail(self.messages, self._streaming, self._partial)
        if tail is not None:
            self._store(tail)
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
        if self.counter is not None:
            self.counter.reset()

    def _replaced(self, messages: list[Message]) -> None:
        for listener in self.replace_listeners:
            try:
                listener(messages)
            except Exception:
                log.warning("replace_listener_failed", exc_info=True)


def own_call(tools: ToolRegistry, call: ToolUseBlock) -> ToolUseBlock:
    """``call`` under its tool's own name and input shape (``read_file {path}`` is ``Read {file_path}``)."""
    tool = tools.get(call.name)
    if tool is None or (tool.name == call.name and tool.legacy is None):
        return call
    tool_input = tool.legacy(call.name, call.input) if tool.legacy is not None else call.input
    return call.model_copy(update={"name": tool.name, "input": tool_input})


def _with_input(
    tool: Tool, call: ToolUseBlock, tool_input: dict[str, Any]
) -> tuple[ToolUseBlock, BaseModel | ToolResult]:
    """``call`` with the input a hook or the approver gave instead, and that input parsed (or the error)."""
    call = call.model_copy(update={"input": tool_input})
    try:
        return call, tool.parse(tool_input)
    except ToolInputError as exc:
        return call, ToolResult(str(exc), True)
