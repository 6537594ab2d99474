"""Subagents as a part of a session (``session.parts.SessionPart``): the ``task`` tool and its scope, progress lines
on the terminal when there is one, ``/agents``, and — once the session exists — the parent agent, per-turn recall
for subagents (``memory.auto_recall_subagents``) and their cancellation first of all exit steps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catcode.extensions.inventory import InventoryPart
    from catcode.extensions.subagents.progress import Progress
    from catcode.extensions.subagents.runner import SubagentScope
    from catcode.extensions.user_hooks.part import UserHooksPart
    from catcode.session.parts import SessionBuilder
    from catcode.session.session import Session


# Any: a slash-command registration takes the registry (``session.attached.CommandRegistration``); the console
# is rich's, as the front end's events hold it.


class SubagentsPart:
    """The definitions of the inventory, run by the ``task`` tool; tool calls obey the user hooks' tool hooks."""

    def __init__(self, inventory: InventoryPart, user_hooks: UserHooksPart) -> None:
        self.inventory, self.user_hooks = inventory, user_hooks

    def attach(self, builder: SessionBuilder) -> None:
        """The scope and the task tool; ``/agents``; the rest once the agent exists."""
        from catcode.extensions.subagents.runner import SubagentScope
        from catcode.extensions.subagents.task_tool import task_tool

        settings, found, hooks = builder.settings, self.inventory.found, self.user_hooks.hooks
        console = getattr(builder.events, "console", None)
        scope = SubagentScope(
            provider=builder.provider,
            tools=builder.tools,
            policy=builder.policy,
            approver=builder.approver,
            context=builder.context,
            agents=found.agents,
            settings=settings.subagents,
            progress=_progress(console),
            max_tokens=settings.max_tokens,
            tool_hooks=hooks.register_tool_hooks if hooks is not None else None,
            say=(lambda line: console.print(line, markup=False, highlight=False)) if console is not None else None,
        )
        builder.tools.register(task_tool(scope, found.agents))
        scope.reoffer = lambda: builder.tools.register(task_tool(scope, found.agents))
        builder.subagents = scope

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.extensions.subagents.command import register_agents

            register_agents(registry, found.agents, found.refused_agents)

        builder.slash_commands.append(register)
        # First of all exit steps: no subagent may still act while memory is captured (they are never recorded).
        builder.exit_step(lambda say: scope.cancel(), first=True)
        builder.when_built(lambda session: _built(scope, session))


def _built(scope: SubagentScope, session: Session) -> None:
    scope.parent = session.agent
    scope.recall = session.auto_recall if session.settings.memory.auto_recall_subagents else None
    session.agent.around_concurrent = scope.progress.shown


def _progress(console: Any) -> Progress:
    """Live lines on a terminal, plain ones on a console that is not, else plain lines on stderr."""
    from catcode.extensions.subagents.progress import LiveProgress, PlainProgress
    from catcode.session.parts import stderr_line

    if console is not None and console.is_terminal:
        return LiveProgress(console)
    if console is not None:
        return PlainProgress(lambda line: console.print(line, markup=False, highlight=False))
    return PlainProgress(stderr_line)
