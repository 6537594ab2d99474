"""The parts every session has, attached through the same seam as the optional ones (``session.parts``) so that
one list gives the order of all hooks and tools: plan mode, the todo list and the bash sandbox; and the system
prompt, built once every part has added its section."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.hooks.bus import HookEvent

if TYPE_CHECKING:
    from catcode.session.parts import SessionBuilder
    from catcode.session.todos import TodoList


class PlanModePart:
    """``ExitPlanMode`` (it asks through the approver when that can show a plan) and the plan-mode reminder."""

    def attach(self, builder: SessionBuilder) -> None:
        """Add the tool and the reminder hook."""
        from catcode.safety.plan_mode import PlanModeReminder, exit_plan_mode_tool

        builder.tools.register(exit_plan_mode_tool(builder.policy, getattr(builder.approver, "ask_plan", None)))
        builder.hooks.on(HookEvent.PRE_LLM_REQUEST, PlanModeReminder(builder.policy))


class TodosPart:
    """``todo_write`` over the session's todo list (``/todos`` is a built-in command)."""

    def __init__(self, todos: TodoList) -> None:
        self.todos = todos

    def attach(self, builder: SessionBuilder) -> None:
        """Add the tool; once the agent exists, keep the list in step with a replaced conversation — before the
        history records a compacted one."""
        builder.tools.register(self.todos.tool())
        builder.when_built(lambda session: session.agent.replace_listeners.insert(0, self.todos.replaced))


class SandboxPart:
    """The fence around bash (bubblewrap): probed once, off the start's path; one line when it was asked for and
    cannot start (the prompts then stand alone, never silently); catcode's own folders hidden from it; the project
    looked through again for outside links at each message; its temp folder removed when the session ends."""

    def attach(self, builder: SessionBuilder) -> None:
        """Put the fence on the tool context and tell the policy whether it is up."""
        from catcode.sandbox.fence import make_fence

        notify, context = builder.notify, builder.context

        def unavailable(problem: str) -> None:
            notify(f"sandbox not available: {problem}; bash commands run unfenced and ask as before")

        paths = builder.paths
        fence = make_fence(
            builder.settings.sandbox, context.project_root, context.allowed_dirs, unavailable,
            catcode_home=paths.home, memory_root=paths.memory_root,
        )  # fmt: skip
        context.sandbox = fence
        builder.policy.fenced = lambda: fence.active
        # Files linked outside the project may have appeared while the person was typing (a pnpm install).
        builder.hooks.on(HookEvent.USER_PROMPT_SUBMIT, lambda hook_context: fence.rescan())
        builder.hooks.on(HookEvent.SESSION_END, lambda hook_context: fence.close())


def system_prompt(builder: SessionBuilder, cwd: Path, *, announce: bool = True) -> tuple[str, Callable[[], str]]:
    """The static system prompt with the parts' sections and the project instructions (AGENTS.md, CLAUDE.md...)
    at its end, the one line naming them (unless the interactive header showed it already: ``announce``), and the
    function that reads them again and rebuilds the prompt (``/init`` uses it). ``system_prompt`` replaces the base
    prompt; ``append_system_prompt`` comes last."""
    from catcode.session import instructions
    from catcode.session.nested_instructions import NestedInstructions
    from catcode.session.prompts import system_prompt as base_prompt

    settings, paths = builder.settings, builder.paths
    loaded = instructions.load(paths.home, paths.project_root, cwd)
    for warning in loaded.warnings:
        builder.notify(warning)  # a skipped file is said in print mode too (stderr)
    # The CLAUDE.md of a folder below, and a rule naming a path, come with the first file tool call there.
    builder.hooks.on(HookEvent.POST_TOOL_USE, NestedInstructions.after(loaded, paths.home, paths.project_root, cwd))
    line = instructions.loaded_line(loaded, paths.project_root, paths.home)
    if line and announce:
        builder.notices.put(line)

    def build(section: str) -> str:
        sections = (*builder.prompt_sections, section, settings.append_system_prompt or "")
        return base_prompt(paths.project_root, *sections, base=settings.system_prompt)

    def rebuild() -> str:
        return build(instructions.load(paths.home, paths.project_root, cwd).section)

    return build(loaded.section), rebuild
