"""``/memory``'s subcommands that change memories: forget, edit, move, clear, revert. Each asks first where the
flow does (through ``ctx.confirm``), is one git commit that ``/memory revert`` undoes, and prints what the shared
flow did in the REPL's words (``slash_words.py``). Mixed into ``commands.MemoryCommand``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.commands.registry import CommandContext
from catcode.memory.flows import ClearQuestion, EditRejected, ForgetQuestion, clear_memories, forget_memory, move_memory
from catcode.memory.report import clear_question, forget_question
from catcode.memory.revert_tool import describe_revert
from catcode.memory.slash_show import versioning_off
from catcode.memory.slash_words import said

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime


class ChangingSubcommands:
    """``/memory forget``, ``edit``, ``move``, ``clear`` and ``revert`` over ``self.runtime``."""

    runtime: MemoryRuntime

    def sub_forget(self, ctx: CommandContext, args: str) -> None:
        """Delete one memory after asking; one git commit that /memory revert undoes."""
        if not args:
            ctx.console.print("Usage: /memory forget <name>", style="red", markup=False)
            return
        runtime = self.runtime

        def confirm(question: ForgetQuestion) -> bool:
            return ctx.confirm(forget_question(question))

        result = forget_memory(runtime.store, args, runtime.git.available, confirm)
        ctx.console.print(said(result), markup=False, highlight=False)

    def sub_edit(self, ctx: CommandContext, args: str) -> None:
        """Open one memory in $VISUAL/$EDITOR; saved only when it is a valid memory file."""
        from catcode.memory.edit import edit_memory

        if not args:
            ctx.console.print("Usage: /memory edit <name>", style="red", markup=False)
            return

        def again(rejected: EditRejected) -> bool:
            return ctx.confirm(f"{rejected.name} was not saved: {rejected.problem}. Edit it again?")

        result = edit_memory(self.runtime.store, args, again=again)
        ctx.console.print(said(result), markup=False, highlight=False)

    def sub_move(self, ctx: CommandContext, args: str) -> None:
        """Keep a memory for all projects (user) or for this project only (project)."""
        name, _, where = args.partition(" ")
        if not name or where.strip() not in ("user", "project"):
            ctx.console.print("Usage: /memory move <name> user|project", style="red", markup=False)
            return
        result = move_memory(self.runtime.store, name, where)
        ctx.console.print(said(result), markup=False, highlight=False)

    def sub_clear(self, ctx: CommandContext, args: str) -> None:
        """Delete every memory after asking (the question says which are for all projects); one git commit that
        /memory revert undoes. Conversation said before the clear is never saved afterwards."""
        from catcode.memory.pipeline.cursor import mark_cleared

        runtime = self.runtime
        projects = runtime.paths.project_memory.parent

        def confirm(question: ClearQuestion) -> bool:
            return ctx.confirm(clear_question(question))

        result = clear_memories(runtime.store, runtime.git.available, confirm, mark=lambda: mark_cleared(projects))
        ctx.console.print(said(result), markup=False)

    def sub_revert(self, ctx: CommandContext, args: str) -> None:
        """Undo a change (default: the last change to memories) as a new change; a conflict changes nothing."""
        if versioning_off(ctx, self.runtime):
            return
        runtime = self.runtime  # RevertConflict: one red line (``__call__``), nothing changed
        line = describe_revert(runtime.revert(args or None))
        ctx.console.print(line, markup=False, highlight=False)
