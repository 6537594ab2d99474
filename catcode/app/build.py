"""The composition root: builds the core of a session, lists its parts in one place (``session_parts``), attaches
each through the seam of ``session.parts`` and returns the ``Session``. Nothing else constructs collaborators; each
part wires itself (its hooks, tools, slash commands, exit steps and start-up work).

``cli`` parses the command line and calls ``build_session``; the REPL and print mode only use what it returns."""

from __future__ import annotations

import os
import queue
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.hooks.bus import HookContext, HookEvent, HookManager
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.safety.permissions import Approver, PermissionPolicy
from catcode.session.agent import Agent, AgentEvents
from catcode.session.parts import SessionBuilder, SessionPart, stderr_line
from catcode.session.session import Session
from catcode.settings.config import Paths, Settings
from catcode.settings.consent import Asker
from catcode.tools.base import ToolContext, ToolRegistry

if TYPE_CHECKING:
    from catcode.extensions.mcp.hook import WaitScreen
    from catcode.session.todos import TodoList


def make_provider(
    settings: Settings, env: dict[str, str], on_retry: Callable[[str], None] | None = None
) -> LLMProvider:
    """The provider of the platform these settings and ``env`` choose (``providers/registry.py``); raises
    ``MissingApiKeyError`` when nothing can be reached. ``on_retry`` hears each retry of a conversation request
    ("overloaded, retrying in 2 s (attempt 2/4)")."""
    from catcode.providers.registry import chosen

    return chosen(settings.provider, env).build(settings, env, on_retry)


def session_parts(settings: Settings, todos: TodoList, mcp_wait: WaitScreen | None = None) -> list[SessionPart]:
    """Every part of a session with these settings, in the one order they attach: the order of the hooks on each
    request (memory's index, then recent work, skills, the user hooks' SessionStart context, MCP, plan mode — a
    stable prefix for prompt caching), of the tools, of the exit steps and of the start-up work. A part that is off
    is not even imported."""
    from catcode.app.core import PlanModePart, SandboxPart, TodosPart
    from catcode.extensions.inventory import InventoryPart
    from catcode.extensions.mcp.part import McpPart
    from catcode.extensions.user_hooks.part import UserHooksPart

    parts: list[SessionPart] = []
    if settings.memory.enabled:
        from catcode.memory.part import memory_parts

        parts += memory_parts(settings)
    if settings.skills_enabled:
        from catcode.extensions.skills.part import SkillsPart

        parts.append(SkillsPart())
    inventory = InventoryPart()  # after memory and skills, whose tools a project subagent may name
    user_hooks = UserHooksPart(inventory)
    parts += [inventory, user_hooks, McpPart(inventory, mcp_wait), PlanModePart(), TodosPart(todos), SandboxPart()]
    if settings.subagents.enabled:
        from catcode.extensions.subagents.part import SubagentsPart

        parts.append(SubagentsPart(inventory, user_hooks))
    if settings.checkpoints.enabled:
        from catcode.checkpoints.part import CheckpointsPart

        parts.append(CheckpointsPart())
    from catcode.extensions.custom_commands.part import CustomCommandsPart

    parts.append(CustomCommandsPart(inventory))  # last: a slash command of catcode's own keeps its name
    return parts


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
    mcp_wait: WaitScreen | None = None,
    instructions_shown: bool = False,
    message: str = "",
    session_id: str | None = None,
) -> Session:
    """Build a whole session: provider, tools, permissions, hooks, every part and the agent.

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
    a request's wait for them. ``instructions_shown``: the interactive header named the instruction files already.
    ``message``: the person's first message when it is known already (print mode): per-turn recall starts on it
    while the rest of the session is built. ``session_id``: this session's id (default: a new UUID; print mode passes
    ``--session-id`` or the resumed one's)."""
    from catcode.app.core import system_prompt
    from catcode.commands.misc import register_session_commands
    from catcode.providers.tokens import TokenCounter, estimate_request_overhead
    from catcode.session.compaction import Compactor
    from catcode.session.todos import TodoList
    from catcode.tools.builtin import builtin_tools

    env = dict(os.environ) if env is None else env
    provider = provider or make_provider(settings, env, on_retry=events.on_retry if events else None)
    given, notices = notices is not None, queue.SimpleQueue() if notices is None else notices
    # Without an asker or a queue of the caller's (print mode, piped input) a notice goes to stderr.
    notify = notices.put if ask_consent is not None or given else stderr_line
    rules = settings.permissions
    builder = SessionBuilder(
        settings=settings, paths=paths, provider=provider, env=env, approver=approver, events=events,
        policy=PermissionPolicy.from_strings(rules.mode, rules.allow, rules.deny, paths.project_root, rules.ask),
        context=_tool_context(settings, paths, events), ask_consent=ask_consent, notify=notify,
        interactive=interactive, defer_start_up=defer_start_up, message=message, hooks=HookManager(),
        tools=ToolRegistry(builtin_tools()), notices=notices,
        session_id=session_id or str(uuid.uuid4()),  # memory's runtime takes the same id (``MemoryPart``)
        slash_commands=[register_session_commands],  # /compact, /todos, /init, /resume
    )  # fmt: skip
    builder.context.read_denied = builder.policy.read_denied  # what Read(.env) keeps out, grep leaves out too
    todos = TodoList()
    for part in session_parts(settings, todos, mcp_wait):
        part.attach(builder)
    system, rebuild_system = system_prompt(builder, cwd or Path.cwd(), announce=not instructions_shown)
    overhead = estimate_request_overhead(system, builder.tools.specs(builder.policy.denies_whole))
    hooks, memory = builder.hooks, builder.memory
    compactor = Compactor(
        provider,
        settings.compact,
        flush=memory.flush if memory else None,
        system_tokens=overhead,
        before=lambda trigger: hooks.emit(HookContext(HookEvent.PRE_COMPACT, trigger=trigger)),
    )
    agent = Agent(
        provider,
        builder.tools,
        hooks,
        builder.policy,
        approver,
        builder.context,
        system_prompt=system,
        options=ChatOptions(max_tokens=settings.max_tokens),
        max_tool_rounds=settings.max_tool_rounds,
        compactor=compactor,
        counter=TokenCounter(overhead),
        events=events,
    )
    session = builder.build(agent, compactor, todos, lambda: setattr(agent, "system_prompt", rebuild_system()))
    if session.history is not None:  # markers for compaction and /clear, so that a resumed conversation matches
        from catcode.session.reopen import HistoryMarkers

        agent.replace_listeners.append(HistoryMarkers(session.history).replaced)
    if defer_start_up:
        hooks.on(HookEvent.POST_LLM_RESPONSE, lambda context: session.start_idle())
    builder.finish(session)
    hooks.emit(HookContext(HookEvent.SESSION_START))
    return session


def _tool_context(settings: Settings, paths: Paths, events: AgentEvents | None) -> ToolContext:
    """The tools' context: the project, the folders added with ``--add-dir``, live output to the screen."""
    folders = [*settings.permissions.additional_dirs, *settings.permissions.additional_directories]
    context = ToolContext(
        project_root=paths.project_root,
        allowed_dirs=[Path(d).expanduser().resolve() for d in folders],
        bash_timeout=settings.bash_timeout,
    )
    context.output = events.on_tool_output if events is not None else None
    return context
