"""The composition root: builds and wires every object of a session. Nothing else constructs collaborators (the
memory objects come from ``memory/builder.py``, which it calls).

``cli.py`` parses the command line and calls ``build_session``; the REPL and print mode only use what it returns.
Longer than most modules on purpose: it is the one place where everything is wired (one ``_add_*`` function per
optional part), and splitting it would make a second composition root."""

from __future__ import annotations

import os
import queue
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode.conversation.hook_bus import HookContext, HookEvent, HookManager
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.safety.permissions import Approver, PermissionPolicy
from catcode.session.agent import Agent, AgentEvents
from catcode.settings.config import Paths, Settings
from catcode.settings.consent import Asker
from catcode.tools.base import ToolContext, ToolRegistry

log = get_logger(__name__)


def make_provider(
    settings: Settings, env: dict[str, str], on_retry: Callable[[str], None] | None = None
) -> LLMProvider:
    """The Anthropic provider for these settings; raises ``MissingApiKeyError`` when nothing can be reached.
    ``on_retry`` hears each retry of a conversation request ("overloaded, retrying in 2 s (attempt 2/4)")."""
    from catcode.providers.access import api_access

    api_key, base_url = api_access(env)
    from catcode.providers.anthropic import AnthropicProvider

    return AnthropicProvider(
        settings.model,
        api_key=api_key,
        base_url=base_url,
        max_retries=settings.max_retries,
        timeout=settings.request_timeout,
        memory_model=settings.memory.model,
        on_retry=on_retry,
        api_client=settings.api_client,
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
    session_id: str = ""  # the id its lines carry in history.jsonl (what --resume takes)
    extras: dict[str, Any] = field(default_factory=dict)  # optional services by name (memory, skills...)
    notices: queue.SimpleQueue[str] = field(default_factory=queue.SimpleQueue)  # background lines for the UI
    exit_steps: list[Callable[[Callable[[str], None]], None]] = field(default_factory=list)
    background_starts: list[Callable[[], None]] = field(default_factory=list)  # once the prompt is drawn
    idle_starts: list[Callable[[], None]] = field(default_factory=list)  # start-up work for a quiet moment
    _starting: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def start_background(self) -> None:
        """Start what waits for the prompt to be drawn (MCP servers); later calls do nothing."""
        self._start(self.background_starts)

    def start_idle(self) -> None:
        """Start the start-up work left for a quiet moment (``build_session(defer_start_up=True)``: memory's store
        check and recovery, the recall index sync and journal compile); later calls do nothing.
        The interactive session calls it once its first request has been answered or its prompt sits idle, and at
        the latest when it ends."""
        self._start(self.idle_starts)

    def _start(self, starts: list[Callable[[], None]]) -> None:
        with self._starting:  # the agent's thread and the prompt's may both get here first
            taken = starts[:]
            starts.clear()
        for start in taken:
            try:
                start()
            except Exception:
                log.warning("background_start_failed", exc_info=True)

    def end(self) -> None:
        """Run SESSION_END hooks (they never raise)."""
        self.hooks.emit(HookContext(HookEvent.SESSION_END, messages=self.agent.messages))

    def shutdown(self, say: Callable[[str], None]) -> None:
        """End the session: start-up work that never found a quiet moment is started (as it would have been at
        the start), then exit steps (memory capture...) then SESSION_END hooks. Never raises; Ctrl+C skips the
        step it interrupts. ``say`` prints one line for the person."""
        self.start_idle()
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
    ask_consent: Asker | None = None,
    cwd: Path | None = None,
    notices: queue.SimpleQueue[str] | None = None,
    defer_start_up: bool = False,
    mcp_wait: Any = None,
    instructions_shown: bool = False,
) -> Session:
    """Build a whole session: provider, tools, permissions, hooks and the agent.

    ``ask_consent`` asks the person about what the project brings that needs consent (its skills, MCP servers,
    hooks, subagents with write tools); None asks nobody (print mode, piped input): only what was allowed before
    is used, and one line says what was left out — on stderr, or in ``notices`` when given (the queue of lines the
    interactive prompt shows; default a new one). ``cwd`` (default: the process's) decides which project
    instruction files are read. ``defer_start_up``: the start-up work no request needs — memory's (the store check,
    recovery, the recall index sync and journal compile) — waits for
    ``Session.start_idle`` — called here once the first request has been answered — instead of starting now, so
    that it does not compete with the first request (the interactive session, which also calls it when its prompt
    sits idle). MCP servers start at launch all the same (with ``defer_start_up``, once the prompt is drawn:
    ``Session.start_background``); ``mcp_wait`` (a ``mcp.hook.WaitScreen``; default: a line through the notices) shows
    a request's wait for them. ``instructions_shown``: the interactive header named the instruction files already."""
    from catcode.commands.misc import register_compact
    from catcode.extensions.commands import register_agents
    from catcode.extensions.inventory import gather
    from catcode.providers.tokens import TokenCounter, estimate_request_overhead
    from catcode.session.compaction import Compactor
    from catcode.tools.builtin import builtin_tools

    env = dict(os.environ) if env is None else env
    provider = provider or make_provider(settings, env, on_retry=events.on_retry if events else None)
    hooks = HookManager()
    tools = ToolRegistry(builtin_tools())
    parts = _Parts() if notices is None else _Parts(notices=notices)
    memory = recall = skill_set = None
    if settings.memory.enabled:
        memory, recall = _add_memory(settings, paths, provider, hooks, tools, parts, env)
    notify = parts.notices.put if ask_consent is not None or notices is not None else _stderr_line
    if settings.skills_enabled:
        skill_set = _add_skills(paths, hooks, tools, parts, ask_consent, notify)
    extensions = gather(paths, tools, ask_consent, notify, env, subagents=settings.subagents.enabled)
    session_id = memory.session_id if memory is not None else uuid.uuid4().hex[:12]
    user_hooks = _add_user_hooks(extensions, paths, hooks, session_id, notify)
    mcp = _add_mcp(extensions, settings, paths, hooks, tools, parts, notify, mcp_wait)
    policy = PermissionPolicy.from_strings(
        settings.permissions.mode, settings.permissions.allow, settings.permissions.deny, paths.project_root
    )
    _add_plan_mode(tools, hooks, policy, approver)
    todos = _add_todos(tools, parts)
    folders = [*settings.permissions.additional_dirs, *settings.permissions.additional_directories]
    extra_dirs = [Path(d).expanduser().resolve() for d in folders]
    context = ToolContext(
        project_root=paths.project_root,
        allowed_dirs=extra_dirs,
        read_only_dirs=parts.read_only_dirs,
        bash_timeout=settings.bash_timeout,
    )
    context.output = events.on_tool_output if events is not None else None
    _add_sandbox(settings, context, policy, hooks, notify)
    scope = None
    if settings.subagents.enabled:
        scope = _add_subagents(extensions, settings, provider, tools, policy, approver, context, events, user_hooks)
        parts.register_commands.append(
            lambda registry: register_agents(registry, extensions.agents, extensions.refused_agents)
        )
    system, rebuild_system = _add_instructions(
        settings, paths, cwd or Path.cwd(), parts, notify, announce=not instructions_shown
    )
    overhead = estimate_request_overhead(system, tools.specs())
    compactor = Compactor(
        provider,
        settings.compact,
        flush=memory.flush if memory else None,
        system_tokens=overhead,
        before=lambda trigger: hooks.emit(HookContext(HookEvent.PRE_COMPACT, trigger=trigger)),
    )
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
    session.session_id = session_id
    session.extras.update(
        register_commands=parts.register_commands,
        memory=memory,
        recall=recall,
        skills=skill_set,
        compactor=compactor,
        mcp=mcp,
        subagents=scope,
        extensions=extensions,
    )
    session.extras["reload_instructions"] = lambda: setattr(agent, "system_prompt", rebuild_system())
    agent.replace_listeners.insert(0, todos.replaced)  # before the history records a compacted conversation
    session.extras["todos"] = todos
    _add_resume(session, memory)
    auto = parts.auto_recall
    agent.recall = auto
    session.extras["auto_recall"] = auto
    if scope is not None:
        scope.parent = agent
        scope.recall = auto if settings.memory.auto_recall_subagents else None
        agent.around_concurrent = scope.progress.shown
        # First of all exit steps: no subagent may still act while memory is captured (they are never recorded).
        session.exit_steps.append(lambda say: scope.cancel())
    if mcp is not None:
        # At launch, so that the first message has their tools: once the prompt is drawn (its time does not pay for
        # the MCP SDK's import), or now when there is no prompt (print mode, piped input).
        if defer_start_up:
            session.background_starts.append(mcp.start)
        else:
            mcp.start()

    def start(work: Callable[[], None]) -> None:  # start-up work: now, or at the first quiet moment
        if defer_start_up:
            session.idle_starts.append(work)
        else:
            work()

    if defer_start_up:
        hooks.on(HookEvent.POST_LLM_RESPONSE, lambda context: session.start_idle())
    if settings.checkpoints.enabled:
        _add_checkpoints(session, notify, start, warm=defer_start_up)
    if memory is not None:
        memory.attach(session, interactive=interactive, start=start)
    if recall is not None:
        assert memory is not None  # recall is only ever built on the memory runtime
        if interactive:
            session.exit_steps.append(lambda say: recall.wait_synced(memory.start_up_wait()))
            # After the capture step, within what it left of the one exit budget, and skipped when capture failed:
            # the API is down, one line is enough.
            session.exit_steps.append(
                lambda say: (
                    None
                    if memory.capture_failed
                    else recall.summarize_session_at_exit(say, timeout=memory.exit_budget.remaining())
                )
            )
        start(lambda: recall.start_background(compile=interactive))
    if memory is not None and interactive and settings.memory.sync == "auto":
        from catcode.memory.sync.auto import attach_auto_sync

        attach_auto_sync(session, memory)  # after the capture and summary steps: the sync carries what they wrote
    hooks.emit(HookContext(HookEvent.SESSION_START))
    return session


def _add_todos(tools: ToolRegistry, parts: _Parts) -> Any:
    """``todo_write`` and ``/todos`` over the session's todo list."""
    from catcode.commands.misc import register_todos
    from catcode.session.todos import TodoList

    todos = TodoList()
    tools.register(todos.tool())
    parts.register_commands.append(lambda registry: register_todos(registry, todos))
    return todos


def _add_plan_mode(tools: ToolRegistry, hooks: HookManager, policy: PermissionPolicy, approver: Approver) -> None:
    """``exit_plan_mode`` (it asks through the approver when that can show a plan) and the plan-mode reminder."""
    from catcode.safety.plan_mode import PlanModeReminder, exit_plan_mode_tool

    tools.register(exit_plan_mode_tool(policy, getattr(approver, "ask_plan", None)))
    hooks.on(HookEvent.PRE_LLM_REQUEST, PlanModeReminder(policy))


def _add_checkpoints(
    session: Session, notify: Callable[[str], None], start: Callable[[Callable[[], None]], None], *, warm: bool
) -> None:
    """A checkpoint before each turn's first change (the tool context asks for it), the turn's end recorded,
    ``/rewind``, and the old checkpoints pruned among the start-up work; with ``warm`` (the interactive session,
    whose start-up work waits for a quiet moment) the shadow index is brought up to date then too, so that the
    first turn's checkpoint does not hash the whole project."""
    from catcode.checkpoints.command import register_rewind
    from catcode.checkpoints.session import Checkpointer
    from catcode.checkpoints.store import store_for

    settings, paths, agent = session.settings.checkpoints, session.paths, session.agent
    if paths.project_root in (Path.home(), Path(paths.project_root.anchor)):
        notify("Checkpoints are off: this folder is your home folder (or /), not a project; /rewind cannot undo here.")
        return
    store = store_for(paths.home, paths.project_key, paths.project_root, settings.max_file_mb)
    checkpointer = Checkpointer(store, session.session_id, agent, notify)
    history = session.extras.get("history")
    if history is not None:
        from catcode.session.reopen import HistoryMarkers

        checkpointer.markers = HistoryMarkers(history)
    session.hooks.on(HookEvent.USER_PROMPT_SUBMIT, checkpointer.submitted)
    agent.listeners.append(checkpointer.stored)
    agent.turn_end_listeners.append(checkpointer.end_turn)
    session.context.before_change = checkpointer.before_change
    session.extras["checkpoints"] = checkpointer
    session.extras["register_commands"].append(lambda registry: register_rewind(registry, checkpointer))

    def prune_and_warm() -> None:
        if store.folder.exists():
            store.prune(settings.retention_days)
        if warm and store.repo.available:
            threading.Thread(target=_quietly(store.warm), name="checkpoint-warm", daemon=True).start()

    start(prune_and_warm)


def _quietly(work: Callable[[], None]) -> Callable[[], None]:
    """``work`` on a background thread: a failure is logged (the first checkpoint will say it)."""

    def run() -> None:
        try:
            work()
        except Exception:
            log.warning("background_work_failed", exc_info=True)

    return run


def _add_sandbox(
    settings: Settings,
    context: ToolContext,
    policy: PermissionPolicy,
    hooks: HookManager,
    notify: Callable[[str], None],
) -> None:
    """The fence around bash (bubblewrap): probed once, off the start's path; one line when it was asked for and
    cannot start (the prompts then stand alone, never silently); its temp folder removed when the session ends."""
    from catcode.sandbox.fence import make_fence

    def unavailable(problem: str) -> None:
        notify(f"sandbox not available: {problem}; bash commands run unfenced and ask as before")

    fence = make_fence(settings.sandbox, context.project_root, context.allowed_dirs, unavailable)
    context.sandbox = fence
    policy.fenced = lambda: fence.active
    hooks.on(HookEvent.SESSION_END, lambda hook_context: fence.close())


def _add_instructions(
    settings: Settings,
    paths: Paths,
    cwd: Path,
    parts: _Parts,
    notify: Callable[[str], None],
    announce: bool = True,
) -> tuple[str, Callable[[], str]]:
    """The static system prompt with the project instructions (AGENTS.md, CLAUDE.md...) at its end, the one
    line naming them (unless the interactive header showed it already: ``announce``), and the function that reads
    them again and rebuilds the prompt (``/init`` uses it). ``system_prompt`` replaces the base prompt;
    ``append_system_prompt`` comes last."""
    from catcode.session import instructions
    from catcode.session.prompts import system_prompt

    loaded = instructions.load(paths.home, paths.project_root, cwd)
    for warning in loaded.warnings:
        notify(warning)  # a skipped file is said in print mode too (stderr)
    line = instructions.loaded_line(loaded, paths.project_root, paths.home)
    if line and announce:
        parts.notices.put(line)

    def register_init(registry: Any) -> None:  # imported with the registry: print mode has none (rich.markdown)
        from catcode.commands.init import register_init

        register_init(registry)

    parts.register_commands.append(register_init)

    def build(section: str) -> str:
        sections = (*parts.prompt_sections, section, settings.append_system_prompt or "")
        return system_prompt(paths.project_root, *sections, base=settings.system_prompt)

    def rebuild() -> str:
        return build(instructions.load(paths.home, paths.project_root, cwd).section)

    return build(loaded.section), rebuild


def _add_resume(session: Session, memory: Any) -> None:
    """Markers in history.jsonl for compaction and /clear (so a resumed conversation matches), and /resume."""
    from catcode.session.reopen import HistoryMarkers

    def register_resume(registry: Any) -> None:  # imported with the registry: print mode has none
        from catcode.commands.resume import register_resume

        register_resume(registry)

    history = getattr(memory, "history", None)
    if history is not None:
        session.extras["history"] = history
        session.agent.replace_listeners.append(HistoryMarkers(history).replaced)
    session.extras["register_commands"].append(register_resume)


@dataclass
class _Parts:
    """What optional services contribute to a session while it is being built."""

    register_commands: list[Callable[[Any], None]] = field(default_factory=list)
    prompt_sections: list[str] = field(default_factory=list)
    read_only_dirs: list[Path] = field(default_factory=list)
    notices: queue.SimpleQueue[str] = field(default_factory=queue.SimpleQueue)
    auto_recall: Any = None  # memory.auto_recall.AutoRecall when per-turn recall is on


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
    from catcode.memory.builder import build_memory_runtime, build_recall
    from catcode.memory.recall.recall import today_from_env
    from catcode.memory.recall.views import RecentWorkHook, memory_search_tool

    memory = build_memory_runtime(settings, paths, provider=provider, notices=parts.notices)
    memory.register(hooks, tools)
    recall = build_recall(memory, today=today_from_env(env))
    hooks.on(HookEvent.PRE_LLM_REQUEST, RecentWorkHook(recall))
    tools.register(memory_search_tool(recall))
    auto = None
    if settings.memory.auto_recall:
        from catcode.memory.auto_recall import AutoRecall

        assert memory.injection is not None  # set by ``register`` above
        auto = AutoRecall(recall, memory.store, settings.memory, listed=memory.injection.listed_names)
    parts.auto_recall = auto  # the agent (and, when configured, subagents) call it; /memory recalled shows it

    def register(registry: Any) -> None:  # imported with the registry: print mode has none
        from catcode.memory.commands import register_memory_commands
        from catcode.memory.recall_commands import register_recall_commands

        register_memory_commands(registry, memory)
        register_recall_commands(registry, recall, auto)

    parts.register_commands.append(register)
    parts.prompt_sections.append(memory.guidance)
    return memory, recall


def _add_skills(
    paths: Paths,
    hooks: HookManager,
    tools: ToolRegistry,
    parts: _Parts,
    ask_consent: Asker | None,
    notify: Callable[[str], None],
) -> Any:
    """Discovered skills: index hook (after memory's, for a stable order), load_skill, readable skill folders.
    Project skills are used only with the person's consent (``consented_skills``); ``notify`` says what was left
    out."""
    from catcode.extensions.skill_command import register_skills
    from catcode.extensions.skill_consent import consented_skills
    from catcode.extensions.skills import SkillsIndexHook, discover_skills, load_skill_tool

    admit = consented_skills(paths.home, paths.project_root, ask_consent, notify)
    skill_set = discover_skills(paths.home, paths.project_root, admit=admit)
    for warning in skill_set.warnings:
        parts.notices.put(warning)
    if skill_set.skills:
        hooks.on(HookEvent.PRE_LLM_REQUEST, SkillsIndexHook(skill_set))
        tools.register(load_skill_tool(skill_set))
        parts.read_only_dirs.extend(skill_set.folders())
    parts.register_commands.append(lambda registry: register_skills(registry, skill_set))
    return skill_set


def _stderr_line(line: str) -> None:
    """Print mode and piped input: a notice goes to stderr, off the answer on stdout."""
    sys.stderr.write(f"catcode: {line}\n")


def _add_user_hooks(
    extensions: Any, paths: Paths, hooks: HookManager, session_id: str, notify: Callable[[str], None]
) -> Any:
    """The user's hooks and the allowed project hooks, through the hook manager (after memory's and skills'
    handlers: the SessionStart context comes last in each request, for a stable cached prefix)."""
    from catcode.extensions.user_hooks import UserHooks

    if not extensions.hooks:
        return None
    user_hooks = UserHooks(extensions.hooks, paths.project_root, session_id, notify)
    user_hooks.register(hooks)
    return user_hooks


def _add_mcp(
    extensions: Any,
    settings: Settings,
    paths: Paths,
    hooks: HookManager,
    tools: ToolRegistry,
    parts: _Parts,
    notify: Callable[[str], None],
    wait: Any,
) -> Any:
    """MCP servers (started at launch by ``build_session``) and the hook through which a request waits for them, up
    to ``mcp.startup_timeout``, and their tools join the registry."""
    from catcode.extensions.commands import register_mcp

    if not extensions.servers and not extensions.refused_servers:
        parts.register_commands.append(lambda registry: register_mcp(registry, None, []))
        return None
    from catcode.extensions.mcp.hook import McpToolsHook
    from catcode.extensions.mcp.manager import McpManager

    manager = McpManager(extensions.servers, project_root=paths.project_root, log_dir=paths.logs.parent, notify=notify)
    hook = McpToolsHook(
        manager, tools, notify, wait=settings.mcp.startup_timeout, screen=wait, skippable=wait is not None
    )
    hooks.on(HookEvent.PRE_LLM_REQUEST, hook)
    hooks.on(HookEvent.SESSION_END, lambda context: manager.stop())
    parts.register_commands.append(lambda registry: register_mcp(registry, manager, extensions.refused_servers))
    return manager


def _add_subagents(
    extensions: Any,
    settings: Settings,
    provider: LLMProvider,
    tools: ToolRegistry,
    policy: PermissionPolicy,
    approver: Approver,
    context: ToolContext,
    events: AgentEvents | None,
    user_hooks: Any,
) -> Any:
    """The task tool and its scope; progress lines live on the terminal when there is one."""
    from catcode.extensions.subagents.progress import LiveProgress, PlainProgress
    from catcode.extensions.subagents.runner import SubagentScope
    from catcode.extensions.subagents.task_tool import task_tool

    console = getattr(events, "console", None)
    if console is not None and console.is_terminal:
        progress: Any = LiveProgress(console)
    elif console is not None:
        progress = PlainProgress(lambda line: console.print(line, markup=False, highlight=False))
    else:
        progress = PlainProgress(_stderr_line)
    scope = SubagentScope(
        provider=provider,
        tools=tools,
        policy=policy,
        approver=approver,
        context=context,
        agents=extensions.agents,
        settings=settings.subagents,
        progress=progress,
        max_tokens=settings.max_tokens,
        tool_hooks=user_hooks.register_tool_hooks if user_hooks is not None else None,
        say=(lambda line: console.print(line, markup=False, highlight=False)) if console is not None else None,
    )
    tools.register(task_tool(scope, extensions.agents))
    return scope
