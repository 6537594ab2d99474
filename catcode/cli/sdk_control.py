"""What the Agent SDK's control requests do to a running session, and what catcode asks of the SDK.

From the SDK (``SdkControl.handlers``): ``initialize`` (its hooks — refused when they name an event catcode never
fires — and its subagents), ``interrupt`` (the turn under way stops as at Ctrl+C), ``set_permission_mode``,
``set_model``, ``mcp_status``. To the SDK: ``can_use_tool`` (``SdkApprover``, with ``--permission-prompt-tool
stdio``: allow, deny, a changed input, rules for the rest of the session), ``hook_callback`` (``sdk_hooks``) and
``mcp_message`` to the in-process MCP servers of ``--mcp-config`` ``{"type": "sdk"}`` (``SdkServers``)."""

from __future__ import annotations

import _thread
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.cli.sdk_channel import ChannelClosed, ControlError, SdkChannel, as_object
from catcode.cli.sdk_hooks import SdkHooks, unsupported
from catcode.extensions.user_hooks.transcript import keep_transcript
from catcode.hooks.bus import HookOutcome
from catcode.log import get_logger
from catcode.safety.permissions import ApprovalRequest, Decision, PermissionMode
from catcode.safety.plan_mode import PlanDecision
from catcode.settings.claude_settings import CLAUDE_MODE_NAMES
from catcode.tools.base import ToolResult

if TYPE_CHECKING:
    from catcode.hooks.bus import HookManager
    from catcode.session.session import Session

# Any: the protocol's frames are JSON objects.

log = get_logger(__name__)


class SdkApprover:
    """Asks the SDK's ``can_use_tool`` callback whenever catcode would ask the person (after rules and modes), and
    its ``PermissionRequest`` hooks first. No answer (stdin closed, an error) is a refusal."""

    asks_person = False
    """A program answers, not a person at a prompt: no Notification hook runs for its questions."""

    def __init__(self, channel: SdkChannel) -> None:
        self.channel = channel
        self.hooks: SdkHooks | None = None
        self.session: Session | None = None

    def ask(self, request: ApprovalRequest) -> Decision:
        """The SDK's answer to one call."""
        name, tool_input = request.tool.name, request.input
        if self.hooks is not None and "PermissionRequest" in self.hooks.events():
            said = HookOutcome()
            said.add(
                self.hooks.fire("PermissionRequest", {"tool_name": name, "tool_input": tool_input}, tool_name=name)
            )
            if said.block is not None:
                return Decision(False, said.block.reason)
            if said.decision is not None and said.decision.decision == "allow":
                return Decision(True, updated_input=said.decision.updated_input)
        try:
            answer = self.channel.ask(
                "can_use_tool",
                tool_name=name,
                input=tool_input,
                tool_use_id=request.call_id,
                permission_suggestions=suggestions(request),
                title=f"Claude wants to use {name}",
                display_name=name,
            )
        except ChannelClosed as exc:
            return Decision(False, f"the SDK's permission callback did not answer ({exc})")
        if answer.get("behavior") != "allow":
            if answer.get("interrupt") and self.session is not None:
                interrupt(self.session)
            return Decision(False, str(answer.get("message") or "denied by the SDK's permission callback"))
        updated = answer.get("updatedInput")
        rules = self._apply(answer.get("updatedPermissions"))
        return Decision(
            True, always=bool(rules), rules=rules, updated_input=updated if isinstance(updated, dict) else None
        )

    def ask_plan(self, plan: str) -> PlanDecision:
        """``ExitPlanMode``: the SDK's callback approves the plan (then the mode is ``default``) or not."""
        try:
            answer = self.channel.ask("can_use_tool", tool_name="ExitPlanMode", input={"plan": plan}, tool_use_id="")
        except ChannelClosed:
            return PlanDecision(False, feedback="the SDK's permission callback did not answer")
        if answer.get("behavior") == "allow":
            return PlanDecision(True, PermissionMode.DEFAULT)
        return PlanDecision(False, feedback=str(answer.get("message") or ""))

    def _apply(self, updates: Any) -> tuple[str, ...]:
        """``updatedPermissions``: allow rules come back as the decision's rules (kept for the session), the rest
        (deny rules, a mode, folders) change the session here. Destinations other than the session are kept for
        the session only: catcode writes its own settings files, never Claude Code's."""
        from catcode.safety.permission_rules import Rule

        rules: list[str] = []
        session = self.session
        for update in updates if isinstance(updates, list) else []:
            if not isinstance(update, dict):
                continue
            kind = update.get("type")
            if kind in ("addRules", "replaceRules"):
                texts = [rule_text(r) for r in update.get("rules") or [] if isinstance(r, dict)]
                if update.get("behavior") == "allow":
                    rules += texts
                elif update.get("behavior") == "deny" and session is not None:
                    session.policy.deny += [Rule.parse(t) for t in texts]
            elif kind == "setMode" and session is not None:
                set_mode(session, str(update.get("mode")))
            elif kind == "addDirectories" and session is not None:
                from pathlib import Path

                for folder in update.get("directories") or []:
                    session.context.allowed_dirs.append(Path(str(folder)).expanduser().resolve())
        return tuple(rules)


def rule_text(rule: dict[str, Any]) -> str:
    """``{"toolName": "Bash", "ruleContent": "npm test"}`` → ``Bash(npm test)``."""
    content = rule.get("ruleContent")
    return f"{rule.get('toolName')}({content})" if content else str(rule.get("toolName"))


def suggestions(request: ApprovalRequest) -> list[dict[str, Any]]:
    """The rules an "always" answer would add (``permission_suggestions``), as Claude Code sends them."""
    from catcode.safety.permission_rules import suggested_rules

    rules = []
    for text in suggested_rules(request.tool, request.input):
        name, _, rest = text.partition("(")
        rules.append({"toolName": name, "ruleContent": rest[:-1]} if rest else {"toolName": name})
    if not rules:
        return []
    return [{"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"}]


def set_mode(session: Session, mode: str) -> str:
    """Put the session in ``mode`` (Claude Code's or catcode's spelling); its Claude Code name."""
    from catcode.cli.claude_flags import permission_mode

    try:
        session.policy.mode = PermissionMode(permission_mode(mode))
    except ValueError:
        raise ControlError(f"unknown permission mode {mode!r}") from None
    return CLAUDE_MODE_NAMES.get(session.policy.mode.value, session.policy.mode.value)


def interrupt(session: Session) -> None:
    """Stop the turn under way as Ctrl+C does: tools see the cancel flag, the loop a KeyboardInterrupt."""
    session.context.cancel.set()
    _thread.interrupt_main()


@dataclass
class SdkServers:
    """The SDK's in-process MCP servers (``{"type": "sdk"}`` in ``--mcp-config``), reached through ``mcp_message``;
    their tools join the session's as ``mcp__<server>__<tool>``."""

    channel: SdkChannel
    names: list[str]
    status: dict[str, dict[str, Any]] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def connect(self, session: Session) -> None:
        """The handshake and the tool list of each server (a server that fails is ``failed`` in ``mcp_status``)."""
        if not self.names:
            return  # nothing to import: the mcp package costs seconds
        from mcp.types import Tool as Listed

        from catcode.extensions.mcp.tools import mcp_tool

        for name in self.names:
            try:
                info = self._rpc(name, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                                      "clientInfo": {"name": "catcode", "version": "1"}})  # fmt: skip
                self._notify(name, "notifications/initialized")
                listed = self._rpc(name, "tools/list", {}).get("tools") or []
            except (ChannelClosed, ControlError) as exc:
                self.status[name] = {"name": name, "status": "failed", "error": str(exc)}
                continue
            tools = []
            for item in listed:
                tool = mcp_tool(self, name, Listed.model_validate(item))
                if tool is not None:
                    session.tools.register(tool)
                    tools.append({"name": item.get("name"), "annotations": item.get("annotations") or {}})
            self.status[name] = {"name": name, "status": "connected", "serverInfo": info.get("serverInfo"),
                                 "transport": "sdk", "tools": tools}  # fmt: skip

    def call(self, server_name: str, tool_name: str, arguments: dict[str, Any], cancel: Any) -> ToolResult:
        """``tools/call`` on the SDK's server; its result as the model sees an MCP tool's (never raises)."""
        from mcp.types import CallToolResult

        from catcode.extensions.mcp.tools import result_of

        try:
            result = self._rpc(server_name, "tools/call", {"name": tool_name, "arguments": arguments})
            return result_of(CallToolResult.model_validate(result), tool_name)
        except (ChannelClosed, ControlError, ValueError) as exc:
            return ToolResult(f"MCP server {server_name} failed {tool_name}: {exc}", is_error=True)

    def _rpc(self, server: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        answer = self.channel.ask("mcp_message", server_name=server, message=message).get("mcp_response") or {}
        if "error" in answer:
            error = answer["error"]
            raise ControlError(str(error.get("message") if isinstance(error, dict) else error))
        result = answer.get("result")
        return result if isinstance(result, dict) else {}

    def _notify(self, server: str, method: str) -> None:
        self.channel.ask("mcp_message", server_name=server, message={"jsonrpc": "2.0", "method": method})


@dataclass
class SdkControl:
    """The handlers of the SDK's control requests over ``session``."""

    session: Session
    channel: SdkChannel
    approver: SdkApprover
    servers: SdkServers
    base: Callable[[], dict[str, Any]]
    hooks: SdkHooks | None = None
    turn_running: threading.Event = field(default_factory=threading.Event)
    initialized: threading.Event = field(default_factory=threading.Event)

    def install(self) -> None:
        """Answer the SDK's requests from now on."""
        self.channel.handlers.update(
            initialize=self.initialize,
            interrupt=self.interrupt,
            set_permission_mode=lambda r: {"mode": set_mode(self.session, str(r.get("mode")))},
            set_model=self.set_model,
            mcp_status=lambda r: {"mcpServers": list(self.servers.status.values())},
        )

    def initialize(self, request: dict[str, Any]) -> dict[str, Any]:
        """Register the SDK's hooks (every one, or none: an event catcode never fires refuses the whole request)
        and its subagents; what catcode offers."""
        hooks = as_object(request.get("hooks"))
        missing = unsupported(hooks)
        if missing:
            raise ControlError(
                f"catcode cannot run SDK hooks for {', '.join(missing)}: it has no such event, so the hook would "
                "never be called; remove it from the options"
            )
        if hooks:
            self.hooks = SdkHooks.parse(self.channel, self.base, hooks)
            self.hooks.register(self.session.hooks)
            keep_transcript(
                self.session.agent.listeners, Path(self.base()["transcript_path"]), self.session.session_id,
                self.session.paths.project_root,
            )  # fmt: skip
            self.approver.hooks = self.hooks
            scope = self.session.subagents
            if scope is not None:  # a subagent's tool calls obey the same PreToolUse/PostToolUse hooks
                scope.tool_hooks = both(scope.tool_hooks, self.hooks)
        agents = request.get("agents")
        if isinstance(agents, dict) and agents:
            add_agents(self.session, agents)
        self.initialized.set()
        return {
            "commands": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [],
            "hooks_applied": True,
            "hook_on_failure_supported": True,
        }

    def interrupt(self, request: dict[str, Any]) -> dict[str, Any]:
        """Stop the turn under way (nothing when none is)."""
        if self.turn_running.is_set():
            interrupt(self.session)
        return {"still_queued": []}

    def set_model(self, request: dict[str, Any]) -> dict[str, Any]:
        """The model of the next requests (None or "default": the settings' model)."""
        from catcode.providers import pricing

        wanted = request.get("model")
        model = self.session.settings.model if wanted in (None, "", "default") else pricing.model_alias(str(wanted))
        self.session.provider.model = model
        return {"model": model}


def both(earlier: Callable[[HookManager], None] | None, hooks: SdkHooks) -> Callable[[HookManager], None]:
    """Registers the earlier tool hooks (the user's), then the SDK's, on a subagent's hook manager."""

    def register(manager: HookManager) -> None:
        if earlier is not None:
            earlier(manager)
        hooks.register(manager, subagent=True)

    return register


def add_agents(session: Session, agents: dict[str, Any]) -> None:
    """The SDK's (or ``--agents``') subagent definitions, offered by the ``Task`` tool next to the others."""
    from catcode.extensions.subagents.definitions import definition_from  # the SDK's agents are subagents

    scope = session.subagents
    if scope is None:
        raise ControlError("subagents are off in this session, so the agents given cannot run")
    for name, spec in agents.items():
        try:
            scope.add_agent(definition_from(str(name), spec))
        except ValueError as exc:
            raise ControlError(f"agent {name!r}: {exc}") from None
