"""``/memory search <query>``, ``/memory recent [N]`` and ``/memory recalled [N]``: the fact index, the work journal
and what per-turn recall attached, from the REPL.

Added to ``/memory`` through ``add_memory_subcommand`` (catcode/memory/commands.py), so they appear in its help
and completion; ``register_recall_commands`` must run after ``register_memory_commands``."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.memory.auto_recall import AutoRecall, recalled_text
from catcode.memory.commands import add_memory_subcommand
from catcode.memory.recall.recall import Recall
from catcode.memory.recall.views import recent_text, search_text

DEFAULT_RECENT = 5
SEARCH_LIMIT = 10


def register_recall_commands(registry: CommandRegistry, recall: Recall, auto: AutoRecall | None = None) -> None:
    """Add ``/memory search``, ``/memory recent`` and ``/memory recalled`` for ``recall`` and per-turn recall
    ``auto`` (None: off); a no-op when /memory is not registered."""

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

    def recalled(ctx: CommandContext, args: str) -> None:
        """What per-turn recall attached to the last message(s) that got any."""
        if args and not args.isdigit():
            ctx.console.print("Usage: /memory recalled [N]", style="red", markup=False)
            return
        ctx.console.print(recalled_text(auto, int(args) if args else 1), markup=False, highlight=False)

    add_memory_subcommand(registry, "search", "search everything remembered: /memory search <query>", search)
    add_memory_subcommand(registry, "recent", "the latest session summaries, newest first: /memory recent [N]", recent)
    add_memory_subcommand(
        registry, "recalled", "what recall attached to your last message(s): /memory recalled [N]", recalled
    )
