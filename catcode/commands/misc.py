"""Small commands: /compact, /todos."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.commands.registry import CommandContext, CommandRegistry

if TYPE_CHECKING:
    from catcode.session.compaction import Compactor
    from catcode.session.todos import TodoList


def register_compact(registry: CommandRegistry, compactor: Compactor) -> None:
    """Add ``/compact`` for ``compactor``."""

    @registry.command("compact")
    def cmd_compact(ctx: CommandContext, args: str) -> None:
        """Compact the conversation now, keeping the latest turn: /compact [focus for the summary]."""
        agent = ctx.session.agent
        if len(agent.messages) < 2:
            ctx.console.print("Nothing to compact yet.", style="dim", markup=False)
            return
        result = compactor.compact_now(agent.messages, focus=args or None, counter=agent.counter)
        if result.tokens_after < result.tokens_before:
            agent.replace_messages(result.messages)
        ctx.console.print(result.notice, style="dim", markup=False)


def register_todos(registry: CommandRegistry, todos: TodoList) -> None:
    """``/todos``: the current todo list, as the model last wrote it."""

    @registry.command("todos", takes_args=False)
    def cmd_todos(ctx: CommandContext, args: str) -> None:
        """Show the todo list the model keeps for the current task (todo_write)."""
        from catcode.commands.todo_view import checklist
        from catcode.session.todos import counts

        if not todos.items:
            ctx.console.print("No todo list yet: the model writes one for tasks of several steps.", markup=False)
            return
        ctx.console.print(f"Todo list ({counts(todos.items)}):", markup=False)
        ctx.console.print(checklist(todos.items))
