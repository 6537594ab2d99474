"""Hook events, hook results and the ``HookManager`` that runs plain-callable handlers.

A failing handler is logged and skipped: a hook can never kill a turn or a session."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from catcode.conversation.messages import Message
from catcode.log import get_logger

# Any: a tool call's input is JSON; the tool result and the response are typed on the floors above (tools, providers),
# which this floor may not import.

log = get_logger(__name__)


class HookEvent(StrEnum):
    """When a hook runs."""

    PRE_LLM_REQUEST = "pre_llm_request"
    POST_LLM_RESPONSE = "post_llm_response"
    PRE_TOOL_USE = "pre_tool_use"
    POST_TOOL_USE = "post_tool_use"
    SESSION_START = "session_start"
    SESSION_END = "session_end"
    USER_PROMPT_SUBMIT = "user_prompt_submit"  # before the person's text is stored; may add context or block it
    PRE_COMPACT = "pre_compact"  # before the conversation is compacted (``trigger``: auto or manual)
    STOP = "stop"  # the model ended its answer (no tool call); ``Block`` makes it go on with the reason
    NOTIFICATION = "notification"  # catcode waits for the person (``source``: permission_prompt or idle_prompt)


@dataclass
class HookContext:
    """What a handler is told. Fields not relevant to ``event`` stay at their defaults."""

    event: HookEvent
    messages: list[Message] = field(default_factory=list)  # the conversation (read-only by convention)
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""  # the tool_use id on PRE_TOOL_USE / POST_TOOL_USE
    tool_result: Any = None  # a ToolResult on POST_TOOL_USE
    response: Any = None  # a ChatResponse on POST_LLM_RESPONSE
    prompt: str = ""  # the person's text on USER_PROMPT_SUBMIT
    trigger: str = ""  # "auto" or "manual" on PRE_COMPACT
    source: str = ""  # SESSION_START: startup, resume or clear; SESSION_END: exit or clear; NOTIFICATION: its type
    message: str = ""  # NOTIFICATION: what catcode waits for; STOP: the model's last answer
    stop_active: bool = False  # STOP: the model is already going on because a Stop hook blocked
    preview: bool = False  # PRE_LLM_REQUEST for a look only (``/context``): nothing may wait, run or change


class Continue:
    """Nothing to add; carry on."""

    def __repr__(self) -> str:
        return "Continue"


CONTINUE = Continue()


@dataclass(frozen=True)
class AppendMessages:
    """PRE_LLM_REQUEST: add these (system) messages to this one request only; they are never stored in the
    history. USER_PROMPT_SUBMIT: their text is added to the person's message as context."""

    messages: list[Message]


@dataclass(frozen=True)
class Block:
    """PRE_LLM_REQUEST: the request is not sent; ``reason`` is shown to the person (the turn ends there).
    PRE_TOOL_USE: do not run the tool; ``reason`` goes back to the model as an error result.
    POST_TOOL_USE: the tool ran; ``reason`` is added to its result for the model.
    USER_PROMPT_SUBMIT: the text is not sent; ``reason`` is shown to the person.
    STOP: the model goes on, with ``reason`` as its next instruction."""

    reason: str


@dataclass(frozen=True)
class Decide:
    """PRE_TOOL_USE (Claude Code's ``permissionDecision``): ``allow`` runs the call without asking (a deny rule or a
    read-only mode still refuses it), ``ask`` asks even where a rule or the mode would not, "" says nothing of the
    permission; ``reason`` is shown to the person. ``updated_input`` replaces the call's input. A denial is a
    ``Block``."""

    decision: str = ""  # "allow", "ask" or ""
    reason: str = ""
    updated_input: dict[str, Any] | None = None


@dataclass(frozen=True)
class Halt:
    """Any event (Claude Code's ``"continue": false``): stop the turn once this step is over; ``reason`` is shown to
    the person, not the model."""

    reason: str


HookResult = Continue | AppendMessages | Block | Decide | Halt | tuple["HookResult", ...] | None
HookHandler = Callable[[HookContext], HookResult]


@dataclass
class HookOutcome:
    """All handlers' answers to one event, combined: the first block, decision and halt win."""

    appended: list[Message] = field(default_factory=list)
    block: Block | None = None
    decision: Decide | None = None
    halt: Halt | None = None
    sources: list[tuple[str, list[Message]]] = field(default_factory=list)
    """Which handler (its qualified name) appended which messages: what ``/context`` counts each part by."""

    def add(self, result: HookResult) -> None:
        """Fold one handler's answer (a tuple holds several) into this outcome."""
        if isinstance(result, tuple):
            for part in result:
                self.add(part)
        elif isinstance(result, AppendMessages):
            self.appended.extend(result.messages)
        elif isinstance(result, Block) and self.block is None:
            self.block = result
        elif isinstance(result, Decide) and self.decision is None:
            self.decision = result
        elif isinstance(result, Halt) and self.halt is None:
            self.halt = result


class HookManager:
    """Registry of handlers per event, run in registration order."""

    def __init__(self) -> None:
        self._handlers: dict[HookEvent, list[HookHandler]] = defaultdict(list)

    def on(self, event: HookEvent, handler: HookHandler) -> None:
        """Register ``handler`` for ``event``."""
        self._handlers[event].append(handler)

    def emit(self, context: HookContext) -> HookOutcome:
        """Run every handler of ``context.event``; a raising handler is logged and skipped."""
        outcome = HookOutcome()
        for handler in self._handlers.get(context.event, ()):
            try:
                result = handler(context)
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                log.warning("hook_failed", hook_event=context.event.value, handler=_name(handler), error=repr(exc))
                continue
            before = len(outcome.appended)
            outcome.add(result)
            if len(outcome.appended) > before:
                outcome.sources.append((_name(handler), outcome.appended[before:]))
        return outcome


def _name(handler: HookHandler) -> str:
    return getattr(handler, "__qualname__", None) or type(handler).__name__
