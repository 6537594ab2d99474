"""Small commands: /compact, /skills, /todos."""

from __future__ import annotations

from typing import Any

from catcode.commands.registry import CommandContext, CommandRegistry


def register_compact(registry: CommandRegistry, compactor: Any) -> None:
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


def register_skills(registry: CommandRegistry, skill_set: Any) -> None:
    """Add ``/skills`` for ``skill_set``."""
    from catcode.extensions.skills import SkillError, format_skill, format_skill_list

    def complete(ctx: CommandContext | None, text: str) -> list[str]:
        return [f"show {n}" for n in skill_set.names() if f"show {n}".startswith(text)]

    @registry.command("skills", subcommands={"show": "show one skill: /skills show <name>"}, complete=complete)
    def cmd_skills(ctx: CommandContext, args: str) -> None:
        """List skills with their source, or show one: /skills [show <name>]."""
        sub, _, name = args.partition(" ")
        if sub == "show":
            skill = skill_set.get(name.strip())
            if skill is None:
                ctx.console.print(
                    f"Unknown skill: {name.strip() or '(none given)'}. "
                    f"Available: {', '.join(skill_set.names()) or 'none'}",
                    style="red",
                    markup=False,
                )
                return
            try:
                ctx.console.print(format_skill(skill), markup=False)
            except SkillError as exc:
                ctx.console.print(str(exc), style="red", markup=False)
            return
        if args:
            ctx.console.print(
                f"/skills takes no arguments but show <name> (got {args!r}) — /help skills", style="red", markup=False
            )
            return
        ctx.console.print(format_skill_list(skill_set), markup=False)


def register_todos(registry: CommandRegistry, todos: Any) -> None:
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
