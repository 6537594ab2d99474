"""``/memory``'s subcommands that show memories and their history: list, show, log, diff, status. Mixed into
``commands.MemoryCommand``; the flows' results are worded with ``report.py`` and ``revert_tool.py``. A memory's
words (the model may have written them) are shown ``visible``: an escape sequence in one is never obeyed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from catcode.commands.registry import CommandContext
from catcode.memory.report import format_entry, format_list, hidden_line, unreadable_line
from catcode.memory.revert_tool import NO_CHANGES, format_changes, memory_diff, memory_log
from catcode.memory.slash_words import not_found
from catcode.text import visible

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime

DEFAULT_LOG = 10


class ShowingSubcommands:
    """``/memory list``, ``show``, ``log``, ``diff`` and ``status`` over ``self.runtime``."""

    runtime: MemoryRuntime

    def sub_list(self, ctx: CommandContext, args: str) -> None:
        """``name - description (type, all projects)``, user scope first; then counts of skipped and hidden."""
        store = self.runtime.store
        ctx.console.print(visible(format_list(store.listed())), markup=False, highlight=False)
        hidden, problems = len(store.hidden()), len(store.problems())
        if problems - hidden:
            ctx.console.print(unreadable_line(problems - hidden), style="yellow", markup=False)
        if hidden:
            ctx.console.print(hidden_line(hidden), style="yellow", markup=False)

    def sub_show(self, ctx: CommandContext, args: str) -> None:
        """One memory in full, with its scope."""
        if not args:
            ctx.console.print("Usage: /memory show <name>", style="red", markup=False)
            return
        store = self.runtime.store
        entry = store.get(args)
        if entry is None:
            ctx.console.print(not_found(args), style="red", markup=False)
            return
        ctx.console.print(visible(format_entry(entry, store.scope_of(args))), markup=False, highlight=False)

    def sub_log(self, ctx: CommandContext, args: str) -> None:
        """Recent changes to memories (``--all``: journal entries too): id, when, why, and A/M/D per memory."""
        words = args.split()
        everything = "--all" in words
        numbers = [w for w in words if w != "--all"]
        if len(numbers) > 1 or (numbers and not numbers[0].isdigit()):
            ctx.console.print("Usage: /memory log [N] [--all]", style="red", markup=False)
            return
        if versioning_off(ctx, self.runtime):
            return
        changes = memory_log(self.runtime.git, int(numbers[0]) if numbers else DEFAULT_LOG, everything=everything)
        ctx.console.print(visible(format_changes(changes)), markup=False, highlight=False)

    def sub_diff(self, ctx: CommandContext, args: str) -> None:
        """The diff of a change (default: the last change to memories), coloured."""
        if versioning_off(ctx, self.runtime):
            return
        from rich.syntax import Syntax  # pygments: only when a diff is shown

        text = memory_diff(self.runtime.git, args or None)
        if not text:
            ctx.console.print(NO_CHANGES, markup=False)
            return
        ctx.console.print(Syntax(visible(text.rstrip("\n")), "diff", theme="ansi_dark", background_color="default"))

    def sub_status(self, ctx: CommandContext, args: str) -> None:
        """Scopes and counts, cursor, unprocessed lines, last Dream, versioning, unreadable files."""
        from catcode.memory.status import memory_status, status_lines

        ctx.console.print(Text("\n".join(status_lines(memory_status(self.runtime)))))


def versioning_off(ctx: CommandContext, runtime: MemoryRuntime) -> bool:
    """Whether memory versioning is off (git missing); says so in one yellow line."""
    git = runtime.git
    if not git.available:
        ctx.console.print(git.warning, style="yellow", markup=False)
    return not git.available
