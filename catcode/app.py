"""The composition root: builds and wires every object of a session. Nothing else constructs collaborators (the
memory objects come from ``memory/builder.py``, which it calls).

``cli.py`` parses the command line and calls ``build_session``; the REPL and print mode only use what it returns."""

from __future__ import annotations

import os
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode.agent import Agent, AgentEvents
from catcode.config import Paths, Settings
from catcode.errors import MissingApiKeyError
from catcode.hooks import HookContext, HookEvent, HookManager
from catcode.log import get_logger
from catcode.permissions import Approver, PermissionPolicy
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.tools.base import ToolContext, ToolRegistry

log = get_logger(__name__)

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
                break  # Ctrl+C skips every remaining exit step, not just the one it interrupted
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
    interactive: bool = True,
) -> Session:
    """Build a whole session: provider, tools, permissions, hooks and the agent."""
    from catcode.commands.misc import register_compact
    from catcode.compaction import Compactor
    from catcode.prompts import system_prompt
    from catcode.tokens import TokenCounter, estimate_request_overhead
    from catcode.tools.builtin import builtin_tools

    env = dict(os.environ) if env is None else env
    provider = provider or make_provider(settings, env)
    hooks = HookManager()
    tools = ToolRegistry(builtin_tools())
    parts = _Parts()
    memory = recall = skill_set = None
    if settings.memory.enabled:
        memory, recall = _add_memory(settings, paths, provider, hooks, tools, parts, env)
    if settings.skills_enabled:
        skill_set = _add_skills(paths, hooks, tools, parts)
    policy = PermissionPolicy.from_strings(
        settings.permissions.mode, settings.permissions.allow, settings.permissions.deny, paths.project_root
    )
    extra_dirs = [Path(d).expanduser().resolve() for d in settings.permissions.additional_dirs]
    context = ToolContext(project_root=paths.project_root, allowed_dirs=extra_dirs, read_only_dirs=parts.read_only_dirs)
    system = system_prompt(paths.project_root, *parts.prompt_sections)
    overhead = estimate_request_overhead(system, tools.specs())
    compactor = Compactor(provider, settings.compact, flush=memory.flush if memory else None, system_tokens=overhead)
    parts.register_commands.append(lambda registry: register_compact(registry, compactor))
    agent = Agent(
        provider,
        tools,
        hooks,
        policy,
        approver,
        context,
        system_prompt=system,
        options=ChatOptions(max_tokens=settings.max_tokens),
        max_tool_rounds=settings.max_tool_rounds,
        compactor=compactor,
        counter=TokenCounter(overhead),
        events=events,
    )
    session = Session(settings, paths, provider, hooks, tools, policy, agent, context, notices=parts.notices)
    session.extras.update(
        register_commands=parts.register_commands, memory=memory, recall=recall, skills=skill_set, compactor=compactor
    )
    if memory is not None:
        memory.attach(session, interactive=interactive)
    if recall is not None:
        if interactive:
            # After the capture step, and skipped when capture failed: the API is down, one line is enough.
            session.exit_steps.append(
                lambda say: None if memory.capture_failed else recall.summarize_session_at_exit(say)
            )
        recall.start_background(compile=interactive)
    hooks.emit(HookContext(HookEvent.SESSION_START))
    return session


@dataclass
class _Parts:
    """What optional services contribute to a session while it is being built."""

    register_commands: list[Callable[[Any], None]] = field(default_factory=list)
    prompt_sections: list[str] = field(default_factory=list)
    read_only_dirs: list[Path] = field(default_factory=list)
    notices: queue.SimpleQueue[str] = field(default_factory=queue.SimpleQueue)


def _add_memory(
    settings: Settings,
    paths: Paths,
    provider: LLMProvider,
    hooks: HookManager,
    tools: ToolRegistry,
    parts: _Parts,
    env: dict[str, str],
) -> tuple[Any, Any]:
    """Memory runtime and recall: hooks (the memory index first, then recent work: one stable order for prompt
    caching), tools, commands and the system-prompt guidance."""
    from catcode.commands.memory import register_memory_commands
    from catcode.commands.recall import register_recall_commands
    from catcode.memory.builder import build_memory_runtime, build_recall
    from catcode.memory.recall.recall import today_from_env
    from catcode.memory.recall.views import RecentWorkHook, memory_search_tool

    memory = build_memory_runtime(settings, paths, provider=provider, notices=parts.notices)
    memory.register(hooks, tools)
    recall = build_recall(memory, today=today_from_env(env))
    hooks.on(HookEvent.PRE_LLM_REQUEST, RecentWorkHook(recall))
    tools.register(memory_search_tool(recall))
    parts.register_commands.append(lambda registry: register_memory_commands(registry, memory))
    parts.register_commands.append(lambda registry: register_recall_commands(registry, recall))
    parts.prompt_sections.append(memory.guidance)
    return memory, recall


def _add_skills(paths: Paths, hooks: HookManager, tools: ToolRegistry, parts: _Parts) -> Any:
    """Discovered skills: index hook (after memory's, for a stable order), load_skill, readable skill folders."""
    from catcode.commands.misc import register_skills
    from catcode.skills import SkillsIndexHook, discover_skills, load_skill_tool

    skill_set = discover_skills(paths.home, paths.project_root)
    for warning in skill_set.warnings:
        parts.notices.put(warning)
    if skill_set.skills:
        hooks.on(HookEvent.PRE_LLM_REQUEST, SkillsIndexHook(skill_set))
        tools.register(load_skill_tool(skill_set))
        parts.read_only_dirs.extend(skill_set.folders())
    parts.register_commands.append(lambda registry: register_skills(registry, skill_set))
    return skill_set
