"""``/memory`` and ``/dream``: memory from the REPL. ``/memory`` alone runs the pipeline now over what is unprocessed
(the seed's ``runPipeline``); ``SUBCOMMANDS`` is the one table of its subcommands — list, show, forget, edit, move,
clear, log, diff, revert, status, and with the session's search search, recent, recalled — its help and completion
read from it. Each calls memory's front door (``service.py``) and words its result with ``words.py`` in the REPL's
voice (``REPL``: ``/memory revert``...). A memory's words (the model may have written them) are shown ``visible``:
an escape sequence in one is never obeyed. A failure is one red line; the REPL goes on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.errors import CatcodeError, one_line
from catcode.memory.service import NoSuchMemory, VersioningOff, is_busy
from catcode.memory.words import (
    NO_CHANGES,
    REPL,
    clear_question,
    forget_question,
    format_changes,
    format_entry,
    format_list,
    format_report,
    hidden_line,
    recalled_text,
    recent_text,
    search_text,
    unreadable_line,
)
from catcode.text import visible

if TYPE_CHECKING:
    from catcode.memory.service import ClearQuestion, EditRejected, ForgetQuestion, MemoryDoor, RunResult

NOTHING_PENDING = "no new messages since the last run"
BUSY = "another memory run is in progress — try again in a moment"
DEFAULT_LOG = 10
DEFAULT_RECENT = 5
SEARCH_LIMIT = 10


class Subcommand(NamedTuple):
    """One ``/memory`` subcommand: its handler (a ``MemoryCommand`` method), its help line, and whether it needs
    the session's search (``recall``) or completes memory names."""

    handler: Callable[[MemoryCommand, CommandContext, str], None]
    help: str
    recall: bool = False
    names: bool = False


class MemoryCommand:
    """Run the memory pipeline now over what is unprocessed, or manage memories: /memory [subcommand]."""

    def __init__(self, door: MemoryDoor) -> None:
        self.door = door
        self.subcommands = {name: sub for name, sub in SUBCOMMANDS.items() if not sub.recall or door.recall is not None}
        self.help = {name: sub.help for name, sub in self.subcommands.items()}

    def __call__(self, ctx: CommandContext, args: str) -> None:
        """Dispatch to a subcommand; no subcommand runs the pipeline."""
        sub, _, rest = args.strip().partition(" ")
        if not sub:
            self.run_pipeline(ctx)
        elif sub in self.subcommands:
            try:
                self.subcommands[sub].handler(self, ctx, rest.strip())
            except VersioningOff as exc:  # git missing: said, not an error of what was typed
                ctx.console.print(str(exc), style="yellow", markup=False)
            except CatcodeError as exc:  # a bad id, a revert conflict, a lock timeout: one line, the REPL goes on
                ctx.console.print(REPL.error_line(exc), style="red", markup=False, highlight=False)
        else:
            known = ", ".join(self.subcommands)
            ctx.console.print(f"Unknown subcommand /memory {sub} — choose one of: {known}", style="red", markup=False)

    def complete(self, ctx: CommandContext | None, text: str) -> list[str]:
        """Subcommand names, and memory names after ``show``, ``forget``, ``edit`` and ``move``."""
        sub, space, _ = text.partition(" ")
        if space and sub in self.subcommands and self.subcommands[sub].names:
            return [line for line in (f"{sub} {name}" for name in self.door.names()) if line.startswith(text)]
        return [name for name in self.subcommands if name.startswith(text)]

    # -- looking ------------------------------------------------------------------------------------------------

    def list_memories(self, ctx: CommandContext, args: str) -> None:
        """``name - description (type, all projects)``, user scope first; then counts of skipped and hidden."""
        listing = self.door.listing()
        ctx.console.print(visible(format_list(listing.items)), markup=False, highlight=False)
        if listing.unreadable:
            ctx.console.print(unreadable_line(listing.unreadable), style="yellow", markup=False)
        if listing.hidden:
            ctx.console.print(hidden_line(listing.hidden), style="yellow", markup=False)

    def show(self, ctx: CommandContext, args: str) -> None:
        """One memory in full, with its scope."""
        if not args:
            return _usage(ctx, "/memory show <name>")
        try:
            shown = self.door.show(args)
        except NoSuchMemory:
            ctx.console.print(REPL.not_found(args), style="red", markup=False)
            return
        ctx.console.print(visible(format_entry(shown.entry, shown.scope)), markup=False, highlight=False)

    def log(self, ctx: CommandContext, args: str) -> None:
        """Recent changes to memories (``--all``: journal entries too): id, when, why, and A/M/D per memory."""
        words = args.split()
        everything = "--all" in words
        numbers = [w for w in words if w != "--all"]
        if len(numbers) > 1 or (numbers and not numbers[0].isdigit()):
            return _usage(ctx, "/memory log [N] [--all]")
        changes = self.door.log(int(numbers[0]) if numbers else DEFAULT_LOG, everything=everything)
        ctx.console.print(visible(format_changes(changes)), markup=False, highlight=False)

    def diff(self, ctx: CommandContext, args: str) -> None:
        """The diff of a change (default: the last change to memories), coloured."""
        text = self.door.diff(args or None)
        if not text:
            ctx.console.print(NO_CHANGES, markup=False)
            return
        from rich.syntax import Syntax  # pygments: only when a diff is shown

        ctx.console.print(Syntax(visible(text.rstrip("\n")), "diff", theme="ansi_dark", background_color="default"))

    def status(self, ctx: CommandContext, args: str) -> None:
        """Scopes and counts, cursor, unprocessed lines, last Dream, versioning, unreadable files."""
        from rich.text import Text

        from catcode.memory.words import status_lines

        ctx.console.print(Text("\n".join(status_lines(self.door.status()))))

    def search(self, ctx: CommandContext, args: str) -> None:
        """Search every memory, session summary and compacted history of this project."""
        if not args.strip():
            return _usage(ctx, "/memory search <query>")
        found = self.door.search(args, SEARCH_LIMIT)  # facts.db locked for 5 s: one red line (``__call__``)
        ctx.console.print(search_text(found.query, found.hits), markup=False, highlight=False)

    def recent(self, ctx: CommandContext, args: str) -> None:
        """The latest session summaries, newest first."""
        if args and not args.isdigit():
            return _usage(ctx, "/memory recent [N]")
        entries = self.door.recent(int(args) if args else DEFAULT_RECENT)
        ctx.console.print(recent_text(entries), markup=False, highlight=False)

    def recalled(self, ctx: CommandContext, args: str) -> None:
        """What per-turn recall attached to the last message(s) that got any."""
        if args and not args.isdigit():
            return _usage(ctx, "/memory recalled [N]")
        lately = self.door.recalled()
        ctx.console.print(recalled_text(lately, int(args) if args else 1), markup=False, highlight=False)

    # -- changing -----------------------------------------------------------------------------------------------

    def forget(self, ctx: CommandContext, args: str) -> None:
        """Delete one memory after asking; one git commit that /memory revert undoes."""
        if not args:
            return _usage(ctx, "/memory forget <name>")

        def confirm(question: ForgetQuestion) -> bool:
            return ctx.confirm(forget_question(question))

        ctx.console.print(REPL.said(self.door.forget(args, confirm)), markup=False, highlight=False)

    def edit(self, ctx: CommandContext, args: str) -> None:
        """Open one memory in $VISUAL/$EDITOR; saved only when it is a valid memory file."""
        if not args:
            return _usage(ctx, "/memory edit <name>")

        def again(rejected: EditRejected) -> bool:
            return ctx.confirm(f"{rejected.name} was not saved: {rejected.problem}. Edit it again?")

        ctx.console.print(REPL.said(self.door.edit(args, again)), markup=False, highlight=False)

    def move(self, ctx: CommandContext, args: str) -> None:
        """Keep a memory for all projects (user) or for this project only (project)."""
        name, _, where = args.partition(" ")
        if not name or where.strip() not in ("user", "project"):
            return _usage(ctx, "/memory move <name> user|project")
        ctx.console.print(REPL.said(self.door.move(name, where)), markup=False, highlight=False)

    def clear(self, ctx: CommandContext, args: str) -> None:
        """Delete every memory after asking (the question says which are for all projects); one git commit that
        /memory revert undoes. Conversation said before the clear is never saved afterwards."""

        def confirm(question: ClearQuestion) -> bool:
            return ctx.confirm(clear_question(question))

        ctx.console.print(REPL.said(self.door.clear(confirm)), markup=False)

    def revert(self, ctx: CommandContext, args: str) -> None:
        """Undo a change (default: the last change to memories) as a new change; a conflict changes nothing."""
        from catcode.memory.words import describe_revert

        ctx.console.print(describe_revert(self.door.revert(args or None)), markup=False, highlight=False)

    # -- the pipeline -------------------------------------------------------------------------------------------

    def run_pipeline(self, ctx: CommandContext) -> None:
        """The seed's runPipeline: process what is pending, print the report; a failure is one line."""
        from catcode.memory.words import no_report, skipped_line

        result = self._process(ctx, "command", "Memory pipeline failed")
        if result is None:
            return
        if result.skipped:
            ctx.console.print(skipped_line(result), style="yellow", markup=False, highlight=False)
            return
        ctx.console.print(format_report(result.report or no_report(NOTHING_PENDING)), markup=False, highlight=False)

    def dream(self, ctx: CommandContext, args: str) -> None:
        """Run a Dream now (in the foreground) over the unprocessed history; prints a one-line result."""
        from catcode.memory.words import dream_line

        result = self._process(ctx, "dream", "Dream failed")
        if result is not None:
            ctx.console.print(dream_line(result), markup=False, highlight=False)

    def _process(self, ctx: CommandContext, why: Any, failed: str) -> RunResult | None:
        try:
            return self.door.process(why)
        except Exception as exc:  # fail-open: the REPL goes on
            message = BUSY if is_busy(exc) else one_line(exc)
        ctx.console.print(f"{failed}: {message}", style="red", markup=False, highlight=False)
        return None


def _usage(ctx: CommandContext, usage: str) -> None:
    ctx.console.print(f"Usage: {usage}", style="red", markup=False)


SUBCOMMANDS: dict[str, Subcommand] = {
    "list": Subcommand(
        MemoryCommand.list_memories, "list memories: name - description (type, all projects | this project)"
    ),
    "show": Subcommand(MemoryCommand.show, "show one memory in full: /memory show <name>", names=True),
    "forget": Subcommand(
        MemoryCommand.forget, "delete one memory (asks first; revertible): /memory forget <name>", names=True
    ),
    "edit": Subcommand(
        MemoryCommand.edit,
        "edit one memory in $VISUAL/$EDITOR, checked before it is saved: /memory edit <name>",
        names=True,
    ),
    "move": Subcommand(
        MemoryCommand.move,
        "keep a memory for all projects or this one only: /memory move <name> user|project",
        names=True,
    ),
    "clear": Subcommand(MemoryCommand.clear, "delete every memory (asks first; revertible)"),
    "log": Subcommand(
        MemoryCommand.log, "recent changes to memories, newest first: /memory log [N] [--all] (--all: journal too)"
    ),
    "diff": Subcommand(
        MemoryCommand.diff, "what a change did: /memory diff [id] (default: the last change to memories)"
    ),
    "revert": Subcommand(
        MemoryCommand.revert,
        "undo a change as a new change: /memory revert [id] (default: the last change to memories)",
    ),
    "status": Subcommand(MemoryCommand.status, "scopes, counts, unprocessed lines, failures, last Dream, versioning"),
    "search": Subcommand(MemoryCommand.search, "search everything remembered: /memory search <query>", recall=True),
    "recent": Subcommand(
        MemoryCommand.recent, "the latest session summaries, newest first: /memory recent [N]", recall=True
    ),
    "recalled": Subcommand(
        MemoryCommand.recalled, "what recall attached to your last message(s): /memory recalled [N]", recall=True
    ),
}
"""Every ``/memory`` subcommand, in the order its help lists them."""


def register_memory_commands(registry: CommandRegistry, door: MemoryDoor) -> MemoryCommand:
    """Add ``/memory`` (and ``/dream`` when the session runs the pipeline) over ``door``; returns /memory."""
    memory = MemoryCommand(door)
    registry.command("memory", subcommands=memory.help, complete=memory.complete)(memory)
    if door.dreams:
        registry.command("dream", takes_args=False)(memory.dream)
    return memory
