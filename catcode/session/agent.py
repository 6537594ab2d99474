"""The agent loop: ``run_turn`` → ``query`` → ``execute_tools`` until the model ends its turn.

The stored history is always valid for the API: every tool_use gets exactly one tool_result, whether the tool
ran, was denied, crashed, or the user interrupted; a provider failure never leaves a half-written exchange.

One round of tool calls (each call's hooks, permission check and result, overlapping calls on worker threads) is
``tool_round.py``'s; the loop here stores the rounds and repairs the history after an interrupt. What the loop
tells the UI (``AgentEvents``) and how a turn ended (``TurnResult``) are ``agent_events.py``'s."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from catcode.boundary import wrap
from catcode.conversation.hook_bus import HookContext, HookEvent, HookManager
from catcode.conversation.messages import ImageBlock, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.errors import CatcodeError, ProviderError
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, ChatResponse, LLMProvider, Usage
from catcode.providers.tokens import TokenCounter
from catcode.safety.permissions import Approver, PermissionPolicy
from catcode.session.agent_events import AgentEvents, TurnResult
from catcode.session.history_repair import interrupted_tail, join_user_message, undo_unanswered, user_message
from catcode.session.loop_seams import Compactor, Recall, recall_safely
from catcode.session.tool_batch import AgentThread
from catcode.session.tool_round import execute_tools
from catcode.session.turn_attachments import TurnAttachments
from catcode.tools.base import ToolContext, ToolRegistry

log = get_logger(__name__)

BLOCKED_PROMPT = "Not sent: a UserPromptSubmit hook blocked it"
BLOCKED_REQUEST = "Not sent: a hook blocked the request"
STOP_FEEDBACK = "Stop hook feedback:\n"
"""How a Stop hook's reason reaches the model, as Claude Code words it."""


class RequestBlocked(CatcodeError):
    """A PRE_LLM_REQUEST hook answered ``Block``: the request was not sent; the message says why."""


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
        recalled = recall_safely(self.recall, text, self.attached.names(self.messages))
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

    def execute_tools(self, calls: list[ToolUseBlock]) -> list[ToolResultBlock]:
        """Run each call in order (``tool_round.py``); every call gets exactly one result, even when interrupted."""
        return execute_tools(self, calls, self._store)

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
