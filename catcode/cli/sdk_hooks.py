"""The Agent SDK's hook callbacks (``ClaudeAgentOptions.hooks``, ``initialize``'s ``hooks``) on catcode's hook bus:
each registered event fires where catcode's own hooks fire (``hooks/bus.py``: the same events and the
same matchers on the tools' names as ``.claude``/``.cat-code`` hooks, ``tools.facts.matcher_covers``), and each
matching callback is asked over the channel (``hook_callback``) with the same input a settings hook reads on stdin
(``extensions/user_hooks/shapes.py``). Its answer is read as a settings hook's JSON is
(``extensions/user_hooks/answers.py``): a block, a halt (``continue: false``), a permission decision, context in a
``<hook-context>`` block. A Stop callback that blocks makes the model go on in the same turn, as a Stop hook does.

Fail closed: ``initialize`` naming an event catcode never fires is refused (``unsupported``), and a guard event's
callback that fails (raises in the SDK, times out, answers nonsense, stdin closes) blocks what it guards unless its
matcher says ``onFailure: "continue"`` — a guard hook is never skipped in silence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.cli.sdk_channel import ChannelClosed, SdkChannel
from catcode.conversation.messages import Message
from catcode.extensions.user_hooks.answers import contexts, from_json, on_bus
from catcode.extensions.user_hooks.shapes import event_fields
from catcode.hooks.bus import CONTINUE, AppendMessages, Block, HookContext, HookEvent, HookResult
from catcode.log import get_logger
from catcode.tools.facts import matcher_covers

if TYPE_CHECKING:
    from catcode.hooks.bus import HookManager

# Any: hook inputs and outputs are the protocol's JSON objects.

log = get_logger(__name__)

BUS_EVENTS = {
    "PreToolUse": HookEvent.PRE_TOOL_USE,
    "PostToolUse": HookEvent.POST_TOOL_USE,
    "PostToolUseFailure": HookEvent.POST_TOOL_USE,  # POST_TOOL_USE of a call that failed
    "UserPromptSubmit": HookEvent.USER_PROMPT_SUBMIT,
    "PreCompact": HookEvent.PRE_COMPACT,
    "SessionEnd": HookEvent.SESSION_END,
    "Stop": HookEvent.STOP,
}
SUBAGENT_EVENTS = {"SubagentStop": HookEvent.STOP}
"""Fired on a subagent's own bus (``register(..., subagent=True)``): its STOP is the SDK's SubagentStop."""
OWN_EVENTS = ("SessionStart", "PermissionRequest")
"""Fired by the SDK session itself (``initialize``, the approver), not through the bus."""
GUARDS = ("PreToolUse", "UserPromptSubmit", "PermissionRequest")
"""Events whose callbacks decide whether something happens: a failure blocks unless ``onFailure`` is "continue".
(Stop is not one: its block makes the model go on, which a callback that cannot answer never asks for.)"""
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
    known = {*BUS_EVENTS, *SUBAGENT_EVENTS, *OWN_EVENTS}
    return sorted(event for event in hooks if event not in known)


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

    def register(self, manager: HookManager, *, subagent: bool = False) -> None:
        """A handler per bus event with callbacks; a subagent's bus (``subagent``) gets the tool events and
        SubagentStop."""
        used = self.events()
        events: dict[str, HookEvent]
        if subagent:
            events = {e: BUS_EVENTS[e] for e in ("PreToolUse", "PostToolUse", "PostToolUseFailure") if e in used}
            events.update({e: bus for e, bus in SUBAGENT_EVENTS.items() if e in used})
        else:
            events = {e: bus for e, bus in BUS_EVENTS.items() if e in used}
        for bus in dict.fromkeys(events.values()):
            names = [e for e, b in events.items() if b is bus]
            manager.on(bus, self._handler(bus, names))

    def _handler(self, bus: HookEvent, names: list[str]) -> Callable[[HookContext], HookResult]:
        def handle(context: HookContext) -> HookResult:
            return self.fire_bus(names, context)

        handle.__qualname__ = f"SdkHooks.{bus.value}"
        return handle

    def fire_bus(self, names: list[str], context: HookContext) -> HookResult:
        """One bus event, as the SDK event among ``names`` it is (PostToolUse or PostToolUseFailure by the
        result): the matching callbacks, in order; the first block (or halt) ends the run."""
        event = names[0]
        if "PostToolUse" in names or "PostToolUseFailure" in names:
            failed = context.tool_result is not None and context.tool_result.is_error
            event = "PostToolUseFailure" if failed else "PostToolUse"
        fields = event_fields(event, context, Path(self.base()["cwd"]))
        return self.fire(event, fields, tool_name=context.tool_name, call_id=context.call_id)

    def fire(self, event: str, fields: dict[str, Any], *, tool_name: str = "", call_id: str = "") -> HookResult:
        """Ask each matching callback of ``event``; what their answers mean on catcode's hook bus."""
        results: list[HookResult] = []
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
                read = from_json(event, answer, f"the SDK's {event} hook")
                added += contexts(event, read)
                said, done = on_bus(event, read)
                results += said
                if done:
                    return tuple(results)
        if added:
            results.append(AppendMessages([Message.system(text) for text in added]))
        return tuple(results) if results else CONTINUE
