"""``/memory search <query>`` and ``/memory recent [N]``: the fact index and the work journal from the REPL.

Added to ``/memory`` through ``add_memory_subcommand`` (catcode/commands/memory.py), so they appear in its help
and completion; ``register_recall_commands`` must run after ``register_memory_commands``."""

from __future__ import annotations

from catcode.commands.memory import add_memory_subcommand
from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.memory.recall.recall import Recall
from catcode.memory.recall.views import recent_text, search_text

DEFAULT_RECENT = 5
SEARCH_LIMIT = 10


def register_recall_commands(registry: CommandRegistry, recall: Recall) -> None:
    """Add ``/memory search`` and ``/memory recent`` for ``recall`` (a no-op when /memory is not registered)."""

    def search(ctx: CommandContext, args: str) -> None:
        """Search every memory, session summary and compacted history of this project."""
        if not args.strip():
            ctx.console.print("Usage: /memory search <query>", style="red", markup=False)
            return
        # A CatcodeError (facts.db locked by another process for 5 s) is one red line, printed by /memory itself.
        ctx.console.print(search_text(recall, args, SEARCH_LIMIT), markup=False, highlight=False)

    def recent(ctx: CommandContext, args: str) -> None:
        """The latest session summaries, newest first."""
        if args and not args.isdigit():
            ctx.console.print("Usage: /memory recent [N]", style="red", markup=False)
            return
        ctx.console.print(recent_text(recall, int(args) if args else DEFAULT_RECENT), markup=False, highlight=False)

    add_memory_subcommand(registry, "search", "search everything remembered: /memory search <query>", search)
    add_memory_subcommand(registry, "recent", "the latest session summaries, newest first: /memory recent [N]", recent)
