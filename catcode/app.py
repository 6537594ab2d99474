"""The composition root: builds and wires every object of a session. Nothing else constructs collaborators.

``cli.py`` parses the command line and calls ``build_session``; the REPL and print mode only use what it returns."""

from __future__ import annotations

import os
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from catcode.agent import Agent, AgentEvents
from catcode.config import Paths, Settings
from catcode.errors import MissingApiKeyError
from catcode.hooks import HookContext, HookEvent, HookManager
from catcode.permissions import Approver, PermissionPolicy
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.tools.base import ToolContext, ToolRegistry

log = structlog.get_logger(__name__)

MISSING_KEY = (
    "No API key. Set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...) or point ANTHROPIC_BASE_URL at an "
    "Anthropic-compatible server."
)


def make_provider(settings: Settings, env: dict[str, str]) -> LLMProvider:
    """The Anthropic provider for these settings; raises ``MissingApiKeyError`` when nothing can be reached."""
    api_key = env.get("ANTHROPIC_API_KEY") or None
    base_url = env.get("ANTHROPIC_BASE_URL") or None
    if not api_key and not base_url:
        raise MissingApiKeyError(MISSING_KEY)
    from catcode.providers.anthropic import AnthropicProvider

    return AnthropicProvider(
        settings.model,
        api_key=api_key,
        base_url=base_url,
        max_retries=settings.max_retries,
        timeout=settings.request_timeout,
        memory_model=settings.memory.model,
    )


@dataclass
class Session:
    """Everything one catcode session is made of."""

    settings: Settings
    paths: Paths
    provider: LLMProvider
    hooks: HookManager
    tools: ToolRegistry
    policy: PermissionPolicy
    agent: Agent
    context: ToolContext
    extras: dict[str, Any] = field(default_factory=dict)  # optional services by name (memory, skills...)
    notices: queue.SimpleQueue[str] = field(default_factory=queue.SimpleQueue)  # background lines for the UI
    exit_steps: list[Callable[[Callable[[str], None]], None]] = field(default_factory=list)

    def end(self) -> None:
        """Run SESSION_END hooks (they never raise)."""
        self.hooks.emit(HookContext(HookEvent.SESSION_END, messages=self.agent.messages))

    def shutdown(self, say: Callable[[str], None]) -> None:
        """End the session: exit steps (memory capture...) then SESSION_END hooks. Never raises; Ctrl+C skips
        the step it interrupts. ``say`` prints one line for the person."""
        for step in self.exit_steps:
            try:
                step(say)
            except KeyboardInterrupt:
                say("Skipped; it will be done at the next start.")
            except Exception:
                log.warning("exit_step_failed", exc_info=True)
        try:
            self.end()
        except BaseException:
            log.warning("session_end_failed", exc_info=True)


def build_session(
    settings: Settings,
    paths: Paths,
    *,
    approver: Approver,
    events: AgentEvents | None = None,
    provider: LLMProvider | None = None,
    env: dict[str, str] | None = None,
) -> Session:
    """Build a whole session: provider, tools, permissions, hooks and the agent."""
    from catcode.tools.builtin import builtin_tools

    env = dict(os.environ) if env is None else env
    provider = provider or make_provider(settings, env)
    hooks = HookManager()
    tools = ToolRegistry(builtin_tools())
    policy = PermissionPolicy.from_strings(
        settings.permissions.mode, settings.permissions.allow, settings.permissions.deny, paths.project_root
    )
    extra_dirs = [Path(d).expanduser().resolve() for d in settings.permissions.additional_dirs]
    context = ToolContext(project_root=paths.project_root, allowed_dirs=extra_dirs)
    from catcode.prompts import system_prompt

    agent = Agent(
        provider,
        tools,
        hooks,
        policy,
        approver,
        context,
        system_prompt=system_prompt(paths.project_root),
        options=ChatOptions(max_tokens=settings.max_tokens),
        max_tool_rounds=settings.max_tool_rounds,
        events=events,
    )
    session = Session(settings, paths, provider, hooks, tools, policy, agent, context)
    hooks.emit(HookContext(HookEvent.SESSION_START))
    return session
