"""The Agent SDK's hook callbacks (``ClaudeAgentOptions.hooks``, ``initialize``'s ``hooks``) on catcode's hook bus:
each registered event fires where catcode's own hooks fire (``conversation/hook_bus.py``: the same events and the
same matchers on the tools' names as ``.claude``/``.cat-code`` hooks, ``tools.facts.matcher_covers``), and each
matching callback is asked over the channel (``hook_callback``) with Claude Code's input for the event.

Fail closed: ``initialize`` naming an event catcode never fires is refused (``unsupported``), and a guard event's
callback that fails (raises in the SDK, times out, answers nonsense, stdin closes) blocks what it guards unless its
matcher says ``onFailure: "continue"`` — a guard hook is never skipped in silence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from catcode.cli.sdk_channel import ChannelClosed, SdkChannel, as_object
from catcode.conversation.hook_bus import CONTINUE, AppendMessages, Block, Decide, HookContext, HookEvent, HookResult
from catcode.conversation.messages import Message
from catcode.log import get_logger
from catcode.tools.facts import matcher_covers

if TYPE_CHECKING:
    from catcode.conversation.hook_bus import HookManager

# Any: hook inputs and outputs are the protocol's JSON objects.

log = get_logger(__name__)

BUS_EVENTS = {
    "PreToolUse": HookEvent.PRE_TOOL_USE,
    "PostToolUse": HookEvent.POST_TOOL_USE,
    "PostToolUseFailure": HookEvent.POST_TOOL_USE,  # POST_TOOL_USE of a call that failed
    "UserPromptSubmit": HookEvent.USER_PROMPT_SUBMIT,
    "PreCompact": HookEvent.PRE_COMPACT,
    "SessionEnd": HookEvent.SESSION_END,
}
OWN_EVENTS = ("Stop", "SessionStart", "PermissionRequest")
"""Fired by the SDK session itself (the turn loop, ``initialize``, the approver), not through the bus."""
GUARDS = ("PreToolUse", "UserPromptSubmit", "PermissionRequest", "Stop")
"""Events whose callbacks decide whether something happens: a failure blocks unless ``onFailure`` is "continue"."""
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


@dataclass
class Matcher:
    """One matcher of ``initialize``'s hooks: which tools (``matcher``), which callbacks, how failure reads."""

    event: str
    matcher: str
    callback_ids: list[str]
    on_failure: str = "block"

    def covers(self, tool_name: str) -> bool:
        """Does it apply to a call of ``tool_name`` (every call for events without tools)?"""
        return self.event not in TOOL_EVENTS or matcher_covers(self.matcher or "", tool_name)


def unsupported(hooks: dict[str, Any]) -> list[str]:
    """The events of ``initialize``'s ``hooks`` catcode never fires."""
    return sorted(event for event in hooks if event not in BUS_EVENTS and event not in OWN_EVENTS)


@dataclass
class SdkHooks:
    """The SDK's callbacks by event; ``register`` puts one handler per event on a ``HookManager``."""

    channel: SdkChannel
    base: Callable[[], dict[str, Any]]  # session_id, cwd, permission_mode, transcript_path
    matchers: list[Matcher] = field(default_factory=list)

    @classmethod
    def parse(cls, channel: SdkChannel, base: Callable[[], dict[str, Any]], hooks: dict[str, Any]) -> SdkHooks:
        """From ``initialize``'s ``hooks`` (``{event: [{matcher, hookCallbackIds, onFailure}]}``)."""
        matchers = []
        for event, items in hooks.items():
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict):
                    ids = [str(i) for i in item.get("hookCallbackIds") or []]
                    failure = "continue" if item.get("onFailure") == "continue" else "block"
                    matchers.append(Matcher(event, str(item.get("matcher") or ""), ids, failure))
        return cls(channel, base, matchers)

    def events(self) -> set[str]:
        """The events some callback is registered for."""
        return {m.event for m in self.matchers if m.callback_ids}

    def register(self, manager: HookManager, *, tools_only: bool = False) -> None:
        """A handler per bus event with callbacks (``tools_only``: PreToolUse/PostToolUse, for subagents)."""
        used = self.events()
        for bus in dict.fromkeys(BUS_EVENTS[e] for e in used if e in BUS_EVENTS):
            if not tools_only or bus in (HookEvent.PRE_TOOL_USE, HookEvent.POST_TOOL_USE):
                manager.on(bus, self._handler(bus))

    def _handler(self, bus: HookEvent) -> Callable[[HookContext], HookResult]:
        def handle(context: HookContext) -> HookResult:
            return self.fire_bus(bus, context)

        handle.__qualname__ = f"SdkHooks.{bus.value}"
        return handle

    def fire_bus(self, bus: HookEvent, context: HookContext) -> HookResult:
        """One bus event: the matching callbacks, in order; the first block (or decision) wins."""
        if bus is HookEvent.POST_TOOL_USE:
            failed = context.tool_result is not None and context.tool_result.is_error
            event = "PostToolUseFailure" if failed else "PostToolUse"
        else:
            event = next(name for name, value in BUS_EVENTS.items() if value is bus)
        return self.fire(event, event_input(event, context), tool_name=context.tool_name, call_id=context.call_id)

    def fire(self, event: str, fields: dict[str, Any], *, tool_name: str = "", call_id: str = "") -> HookResult:
        """Ask each matching callback of ``event``; what their answers mean for catcode's hook bus."""
        added: list[str] = []
        for matcher in self.matchers:
            if matcher.event != event or not matcher.covers(tool_name):
                continue
            for callback_id in matcher.callback_ids:
                payload = {**self.base(), "hook_event_name": event, **fields}
                try:
                    answer = self.channel.ask(
                        "hook_callback", callback_id=callback_id, input=payload, tool_use_id=call_id or None
                    )
                except ChannelClosed as exc:
                    if event in GUARDS and matcher.on_failure != "continue":
                        return Block(f"the {event} hook could not be asked ({exc}), so the call is refused")
                    log.warning("sdk_hook_failed", hook_event=event, error=str(exc))
                    continue
                result = read_answer(event, answer)
                if isinstance(result, AppendMessages):
                    added += [m.text for m in result.messages]
                elif result is not CONTINUE and result is not None:
                    return result
        return AppendMessages([Message.system(text) for text in added]) if added else CONTINUE


def event_input(event: str, context: HookContext) -> dict[str, Any]:
    """Claude Code's input fields for ``event`` (besides session_id, cwd, permission_mode, hook_event_name)."""
    if event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        fields: dict[str, Any] = {"tool_name": context.tool_name, "tool_input": context.tool_input}
        fields["tool_use_id"] = context.call_id
        result = context.tool_result
        if event == "PostToolUse" and result is not None:
            fields["tool_response"] = result.text
        if event == "PostToolUseFailure" and result is not None:
            fields["error"] = result.text
        return fields
    if event == "UserPromptSubmit":
        return {"prompt": context.prompt}
    if event == "PreCompact":
        return {"trigger": context.trigger or "auto", "custom_instructions": None}
    if event == "SessionEnd":
        return {"reason": "other"}
    return {}


def read_answer(event: str, answer: dict[str, Any]) -> HookResult:
    """A callback's output (``continue``, ``decision``, ``reason``, ``hookSpecificOutput``...) on the bus: a block,
    a permission decision with perhaps a new input, context for the model, or nothing."""
    specific = as_object(answer.get("hookSpecificOutput"))
    reason = str(answer.get("reason") or specific.get("permissionDecisionReason") or answer.get("stopReason") or "")
    if answer.get("continue") is False:
        return Block(reason or f"stopped by the {event} hook")
    decision = specific.get("permissionDecision")
    if answer.get("decision") == "block" or decision == "deny":
        return Block(reason or f"blocked by the {event} hook")
    updated = specific.get("updatedInput")
    if event == "PreToolUse" and (decision in ("allow", "ask") or isinstance(updated, dict)):
        word = decision if decision in ("allow", "ask") else ""
        return Decide(str(word), updated if isinstance(updated, dict) else None)
    context = specific.get("additionalContext")
    if isinstance(context, str) and context.strip():
        return AppendMessages([Message.system(context)])
    return CONTINUE
