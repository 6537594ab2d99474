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
    USER_PROMPT_SUBMIT: the text is not sent; ``reason`` is shown to the person."""

    reason: str


@dataclass(frozen=True)
class Decide:
    """PRE_TOOL_USE: the hook's word on the permission — ``allow`` (run without asking; deny rules and the mode's
    refusals still apply) or ``ask`` (ask even where a rule allows) — and the input to run with instead."""

    decision: str = ""  # "allow", "ask" or "" (no word on the permission)
    updated_input: dict[str, Any] | None = None


HookResult = Continue | AppendMessages | Block | Decide | None
HookHandler = Callable[[HookContext], HookResult]


@dataclass
class HookOutcome:
    """All handlers' answers to one event, combined."""

    appended: list[Message] = field(default_factory=list)
    block: Block | None = None
    decide: Decide | None = None  # the first handler's word on the permission (PRE_TOOL_USE)


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
            if isinstance(result, AppendMessages):
                outcome.appended.extend(result.messages)
            elif isinstance(result, Block) and outcome.block is None:
                outcome.block = result
            elif isinstance(result, Decide) and outcome.decide is None:
                outcome.decide = result
        return outcome


def _name(handler: HookHandler) -> str:
    return getattr(handler, "__qualname__", None) or type(handler).__name__
