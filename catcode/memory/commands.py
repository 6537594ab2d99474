"""``/memory`` (run the pipeline now, and its subcommands: list, show, forget, edit, move, clear, log, diff,
revert, status) and ``/dream``. The report texts follow the seed's ``MemoryCommand`` / ``runPipeline``; the flows
shared with ``catcode memory`` return data (``memory/flows.py``, ``memory/edit.py``, ``memory/status.py``,
``memory/revert_tool.py``), worded here with ``memory/slash_words.py`` and ``memory/report.py``.

Subcommands are handlers in ``MemoryCommand.handlers``; another module adds one with
``add_memory_subcommand(registry, name, help, handler)`` (its help and completion then appear too). Over the usual
250 lines on purpose: one dispatcher and its ten subcommands, each a few lines around a shared flow."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.errors import CatcodeError, one_line
from catcode.memory.flows import ClearQuestion, EditRejected, ForgetQuestion, clear_memories, forget_memory, move_memory
from catcode.memory.report import (
    clear_question,
    forget_question,
    format_entry,
    format_list,
    format_report,
    hidden_line,
    sorted_by_scope,
    unreadable_line,
)
from catcode.memory.revert_tool import NO_CHANGES, describe_revert, format_changes, memory_diff, memory_log
from catcode.memory.slash_words import error_line, not_found, said
from catcode.memory.store.models import ConsolidationReport

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime

Handler = Callable[[CommandContext, str], None]

NOTHING_PENDING = "no new messages since the last run"
BUSY = "another memory run is in progress — try again in a moment"
DEFAULT_LOG = 10


class MemoryCommand:
    """Run the memory pipeline now over what is unprocessed, or manage memories: /memory [subcommand]."""

    def __init__(self, runtime: MemoryRuntime) -> None:
        self.runtime = runtime
        self.handlers: dict[str, Handler] = {
            "list": self.sub_list,
            "show": self.sub_show,
            "forget": self.sub_forget,
            "edit": self.sub_edit,
            "move": self.sub_move,
            "clear": self.sub_clear,
            "log": self.sub_log,
            "diff": self.sub_diff,
            "revert": self.sub_revert,
            "status": self.sub_status,
        }
        self.help: dict[str, str] = {
            "list": "list memories: name - description (type, all projects | this project)",
            "show": "show one memory in full: /memory show <name>",
            "forget": "delete one memory (asks first; revertible): /memory forget <name>",
            "edit": "edit one memory in $VISUAL/$EDITOR, checked before it is saved: /memory edit <name>",
            "move": "keep a memory for all projects or this one only: /memory move <name> user|project",
            "clear": "delete every memory (asks first; revertible)",
            "log": "recent changes to memories, newest first: /memory log [N] [--all] (--all: journal too)",
            "diff": "what a change did: /memory diff [id] (default: the last change to memories)",
            "revert": "undo a change as a new change: /memory revert [id] (default: the last change to memories)",
            "status": "scopes, counts, unprocessed lines, failures, last Dream, versioning",
        }

    def __call__(self, ctx: CommandContext, args: str) -> None:
        """Dispatch to a subcommand; no subcommand runs the pipeline."""
        sub, _, rest = args.strip().partition(" ")
        if not sub:
            self.run_pipeline(ctx)
        elif sub in self.handlers:
            try:
                self.handlers[sub](ctx, rest.strip())
            except CatcodeError as exc:  # a bad id, a revert conflict, a lock timeout: one line, the REPL goes on
                ctx.console.print(error_line(exc), style="red", markup=False, highlight=False)
        else:
            known = ", ".join(self.handlers)
            ctx.console.print(f"Unknown subcommand /memory {sub} — choose one of: {known}", style="red", markup=False)

    def complete(self, ctx: CommandContext | None, text: str) -> list[str]:
        """Subcommand names, and memory names after ``show``, ``forget``, ``edit`` and ``move``."""
        sub, space, _ = text.partition(" ")
        if space and sub in ("show", "forget", "edit", "move"):
            names = [f"{sub} {e.name}" for e in self.runtime.store.load_all()]
            return [line for line in names if line.startswith(text)]
        return [name for name in self.handlers if name.startswith(text)]

    # -- the pipeline -------------------------------------------------------------------------------------------

    def run_pipeline(self, ctx: CommandContext) -> None:
        """The seed's runPipeline: process what is pending, print the report; a failure is one line."""
        from catcode.memory.pipeline.run_result import skipped_line

        result = self._process(ctx, "command", "Memory pipeline failed")
        if result is None:
            return
        if result.skipped:
            ctx.console.print(skipped_line(result), style="yellow", markup=False, highlight=False)
            return
        report = result.report or ConsolidationReport(candidates_found=0, skipped_reason=NOTHING_PENDING)
        ctx.console.print(format_report(report), markup=False, highlight=False)

    def dream(self, ctx: CommandContext, args: str) -> None:
        """Run a Dream now (in the foreground) over the unprocessed history; prints a one-line result."""
        service = self.runtime.service
        result = self._process(ctx, "dream", "Dream failed")
        if result is None:
            return
        assert service is not None  # a result comes only from the service
        service.last_dream = result  # /memory status shows foreground Dreams too
        report = result.report
        if result.skipped:
            from catcode.memory.pipeline.run_result import skipped_line

            line = skipped_line(result)
        elif report is None:
            line = "Dream: nothing new to review."
        elif not result.reviewed:
            line = f"Dream: nothing done — {report.skipped_reason}."
        else:
            pairs = (("added", report.added), ("updated", report.updated))
            changes = [f"{verb} {', '.join(names)}" for verb, names in pairs if names]
            summary = "; ".join(changes) or report.skipped_reason or "no changes"
            line = f"Dream: reviewed {result.messages} messages — {summary}."
        ctx.console.print(line, markup=False, highlight=False)

    def _process(self, ctx: CommandContext, why: str, failed: str) -> Any:
        from catcode.memory.pipeline.run_result import Busy

        service = self.runtime.service
        try:
            if service is None:
                raise CatcodeError("memory extraction needs a model provider")
            # Asked for: what waits is saved whatever its length (the exit's "/memory saves them now").
            return service.process_pending(why=why, wait=10, minimum=1 if why == "command" else None)
        except Busy:
            ctx.console.print(f"{failed}: {BUSY}", style="red", markup=False, highlight=False)
            return None
        except Exception as exc:  # fail-open: the REPL goes on
            message = one_line(exc)
        if why == "dream" and service is not None:
            from catcode.memory.pipeline.run_result import RunResult

            service.last_dream = RunResult(why, error=message)
        ctx.console.print(f"{failed}: {message}", style="red", markup=False, highlight=False)
        return None

    # -- subcommands ----------------------------------------------------------------------------------------------

    def sub_list(self, ctx: CommandContext, args: str) -> None:
        """``name - description (type, all projects)``, user scope first; then counts of skipped and hidden."""
        store = self.runtime.store
        ctx.console.print(format_list(sorted_by_scope(store.located())), markup=False, highlight=False)
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
        ctx.console.print(format_entry(entry, store.scope_of(args)), markup=False, highlight=False)

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

    def sub_log(self, ctx: CommandContext, args: str) -> None:
        """Recent changes to memories (``--all``: journal entries too): id, when, why, and A/M/D per memory."""
        words = args.split()
        everything = "--all" in words
        numbers = [w for w in words if w != "--all"]
        if len(numbers) > 1 or (numbers and not numbers[0].isdigit()):
            ctx.console.print("Usage: /memory log [N] [--all]", style="red", markup=False)
            return
        if self._versioning_off(ctx):
            return
        changes = memory_log(self.runtime.git, int(numbers[0]) if numbers else DEFAULT_LOG, everything=everything)
        ctx.console.print(format_changes(changes), markup=False, highlight=False)

    def sub_diff(self, ctx: CommandContext, args: str) -> None:
        """The diff of a change (default: the last change to memories), coloured."""
        if self._versioning_off(ctx):
            return
        from rich.syntax import Syntax  # pygments: only when a diff is shown

        text = memory_diff(self.runtime.git, args or None)
        if not text:
            ctx.console.print(NO_CHANGES, markup=False)
            return
        ctx.console.print(Syntax(text.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))

    def sub_revert(self, ctx: CommandContext, args: str) -> None:
        """Undo a change (default: the last change to memories) as a new change; a conflict changes nothing."""
        if self._versioning_off(ctx):
            return
        runtime = self.runtime  # RevertConflict: one red line (``__call__``), nothing changed
        line = describe_revert(runtime.revert(args or None))
        ctx.console.print(line, markup=False, highlight=False)

    def sub_status(self, ctx: CommandContext, args: str) -> None:
        """Scopes and counts, cursor, unprocessed lines, last Dream, versioning, unreadable files."""
        from catcode.memory.status import memory_status, status_lines

        ctx.console.print(Text("\n".join(status_lines(memory_status(self.runtime)))))

    def _versioning_off(self, ctx: CommandContext) -> bool:
        git = self.runtime.git
        if not git.available:
            ctx.console.print(git.warning, style="yellow", markup=False)
        return not git.available


def register_memory_commands(registry: CommandRegistry, runtime: MemoryRuntime) -> MemoryCommand:
    """Add ``/memory`` and ``/dream`` for ``runtime`` (a ``MemoryRuntime``); returns the /memory dispatcher."""
    memory = MemoryCommand(runtime)
    registry.command("memory", subcommands=memory.help, complete=memory.complete)(memory)
    if runtime.service is not None:
        registry.command("dream", takes_args=False)(memory.dream)
    return memory


def add_memory_subcommand(registry: CommandRegistry, name: str, help_text: str, handler: Handler) -> None:
    """Add ``/memory <name>`` (its help line and completion too); a no-op when /memory is not registered
    (memory disabled)."""
    found = registry.resolve("memory")
    if not isinstance(found, Command) or not isinstance(found.function, MemoryCommand):
        return
    found.function.handlers[name] = handler
    found.function.help[name] = help_text
    found.subcommands[name] = help_text
