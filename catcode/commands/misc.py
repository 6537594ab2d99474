"""Small commands: /compact, /todos; and ``register_session_commands``, every command over the session's own
objects (these two, /init, /resume, /context, /status, /config, /statusline, /add-dir, /export, /review), which the
composition root puts among the session's slash commands."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry


def register_session_commands(registry: CommandRegistry) -> None:
    """Add /compact, /todos, /init, /resume, /context, /status, /config, /statusline, /add-dir, /export and /review
    (each imported here, with the registry: print mode has none)."""
    from catcode.commands.context_view import register_context
    from catcode.commands.init import register_init
    from catcode.commands.resume import register_resume
    from catcode.commands.session_info import register_session_info
    from catcode.commands.workspace import register_workspace

    register_compact(registry)
    register_todos(registry)
    register_init(registry)
    register_resume(registry)
    register_context(registry)
    register_session_info(registry)
    register_workspace(registry)


def register_compact(registry: CommandRegistry) -> None:
    """Add ``/compact`` for the session's compactor."""

    @registry.command("compact")
    def cmd_compact(ctx: CommandContext, args: str) -> None:
        """Compact the conversation now, keeping the latest turn: /compact [focus for the summary]."""
        agent = ctx.session.agent
        if len(agent.messages) < 2:
            ctx.console.print("Nothing to compact yet.", style="dim", markup=False)
            return
        result = ctx.session.compactor.compact_now(agent.messages, focus=args or None, counter=agent.counter)
        if result.tokens_after < result.tokens_before:
            agent.replace_messages(result.messages)
        ctx.console.print(result.notice, style="dim", markup=False)


def register_todos(registry: CommandRegistry) -> None:
    """``/todos``: the current todo list, as the model last wrote it."""

    @registry.command("todos", takes_args=False)
    def cmd_todos(ctx: CommandContext, args: str) -> None:
        """Show the todo list the model keeps for the current task (todo_write)."""
        from catcode.commands.todo_view import checklist
        from catcode.session.todos import counts

        todos = ctx.session.todos
        if not todos.items:
            ctx.console.print("No todo list yet: the model writes one for tasks of several steps.", markup=False)
            return
        ctx.console.print(f"Todo list ({counts(todos.items)}):", markup=False)
        ctx.console.print(checklist(todos.items))
