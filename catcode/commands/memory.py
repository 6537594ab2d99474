"""``/memory`` (run the pipeline now, and its subcommands: list, show, clear, log, diff, revert, status) and
``/dream``. The report texts follow the seed's ``MemoryCommand`` / ``runPipeline``.

Subcommands are handlers in ``MemoryCommand.handlers``; another module adds one with
``add_memory_subcommand(registry, name, help, handler)`` (its help and completion then appear too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.errors import CatcodeError, one_line
from catcode.memory.report import (
    clear_memories,
    format_entry,
    format_list,
    format_report,
    sorted_by_scope,
    status_lines,
    unreadable_line,
)
from catcode.memory.revert_tool import NO_CHANGES, describe_revert, format_changes
from catcode.memory.store.models import ConsolidationReport
from catcode.memory.tools import not_found

Handler = Callable[[CommandContext, str], None]

NOTHING_PENDING = "no new messages since the last run"
BUSY = "another memory run is in progress — try again in a moment"
DEFAULT_LOG = 10


class MemoryCommand:
    """Run the memory pipeline now over what is unprocessed, or manage memories: /memory [subcommand]."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.handlers: dict[str, Handler] = {
            "list": self.sub_list,
            "show": self.sub_show,
            "clear": self.sub_clear,
            "log": self.sub_log,
            "diff": self.sub_diff,
            "revert": self.sub_revert,
            "status": self.sub_status,
        }
        self.help: dict[str, str] = {
            "list": "list memories: name - description (type)",
            "show": "show one memory in full: /memory show <name>",
            "clear": "delete every memory (asks first; revertible)",
            "log": "recent memory changes, newest first: /memory log [N]",
            "diff": "what a change did: /memory diff [id] (default: the last)",
            "revert": "undo a change as a new change: /memory revert [id]",
            "status": "scopes, counts, unprocessed lines, last Dream, versioning",
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
                ctx.console.print(str(exc), style="red", markup=False, highlight=False)
        else:
            known = ", ".join(self.handlers)
            ctx.console.print(f"Unknown subcommand /memory {sub} — choose one of: {known}", style="red", markup=False)

    def complete(self, ctx: CommandContext | None, text: str) -> list[str]:
        """Subcommand names, and memory names after ``show``."""
        if text.startswith("show "):
            return [f"show {e.name}" for e in self.runtime.store.load_all() if f"show {e.name}".startswith(text)]
        return [name for name in self.handlers if name.startswith(text)]

    # -- the pipeline -------------------------------------------------------------------------------------------

    def run_pipeline(self, ctx: CommandContext) -> None:
        """The seed's runPipeline: process what is pending, print the report; a failure is one line."""
        result = self._process(ctx, "command", "Memory pipeline failed")
        if result is None:
            return
        report = result.report or ConsolidationReport(candidates_found=0, skipped_reason=NOTHING_PENDING)
        ctx.console.print(format_report(report), markup=False, highlight=False)

    def dream(self, ctx: CommandContext, args: str) -> None:
        """Run a Dream now (in the foreground) over the unprocessed history; prints a one-line result."""
        service = self.runtime.service
        result = self._process(ctx, "dream", "Dream failed")
        if result is None:
            return
        service.last_dream = result  # /memory status shows foreground Dreams too
        report = result.report
        if report is None:
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
        from catcode.memory.pipeline.service import Busy

        service = self.runtime.service
        try:
            if service is None:
                raise CatcodeError("memory extraction needs a model provider")
            return service.process_pending(why=why, wait=10)
        except Busy:
            ctx.console.print(f"{failed}: {BUSY}", style="red", markup=False, highlight=False)
            return None
        except Exception as exc:  # fail-open: the REPL goes on
            message = one_line(exc)
        if why == "dream" and service is not None:
            from catcode.memory.pipeline.service import RunResult

            service.last_dream = RunResult(why, error=message)
        ctx.console.print(f"{failed}: {message}", style="red", markup=False, highlight=False)
        return None

    # -- subcommands ----------------------------------------------------------------------------------------------

    def sub_list(self, ctx: CommandContext, args: str) -> None:
        """``name - description (type)``, user scope first; then a count of skipped files."""
        store = self.runtime.store
        ctx.console.print(format_list(sorted_by_scope(store.load_all())), markup=False, highlight=False)
        problems = store.problems()
        if problems:
            ctx.console.print(unreadable_line(len(problems)), style="yellow", markup=False)

    def sub_show(self, ctx: CommandContext, args: str) -> None:
        """One memory in full."""
        if not args:
            ctx.console.print("Usage: /memory show <name>", style="red", markup=False)
            return
        entry = self.runtime.store.get(args)
        if entry is None:
            ctx.console.print(not_found(args), style="red", markup=False)
            return
        ctx.console.print(format_entry(entry), markup=False, highlight=False)

    def sub_clear(self, ctx: CommandContext, args: str) -> None:
        """Delete every memory after asking; one git commit that /memory revert undoes."""
        runtime = self.runtime
        line = clear_memories(runtime.store, runtime.git.available, lambda _, q: ctx.confirm(q), "/memory revert")
        ctx.console.print(line, markup=False)

    def sub_log(self, ctx: CommandContext, args: str) -> None:
        """Recent changes: id, when, why, and A/M/D per memory."""
        if not args.isdigit() and args:
            ctx.console.print("Usage: /memory log [N]", style="red", markup=False)
            return
        if self._versioning_off(ctx):
            return
        changes = self.runtime.git.log(int(args) if args else DEFAULT_LOG)
        ctx.console.print(format_changes(changes), markup=False, highlight=False)

    def sub_diff(self, ctx: CommandContext, args: str) -> None:
        """The diff of a change (default: the last), coloured."""
        if self._versioning_off(ctx):
            return
        from rich.syntax import Syntax  # pygments: only when a diff is shown

        text = self.runtime.git.diff(args or None)
        if not text:
            ctx.console.print(NO_CHANGES, markup=False)
            return
        ctx.console.print(Syntax(text.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))

    def sub_revert(self, ctx: CommandContext, args: str) -> None:
        """Undo a change (default: the last) as a new change; a conflict changes nothing."""
        if self._versioning_off(ctx):
            return
        result = self.runtime.revert(args or None)  # RevertConflict: one red line (``__call__``), nothing changed
        ctx.console.print(describe_revert(result), markup=False, highlight=False)

    def sub_status(self, ctx: CommandContext, args: str) -> None:
        """Scopes and counts, cursor, unprocessed lines, last Dream, versioning, unreadable files."""
        ctx.console.print(Text("\n".join(status_lines(self.runtime))))

    def _versioning_off(self, ctx: CommandContext) -> bool:
        git = self.runtime.git
        if not git.available:
            ctx.console.print(git.warning, style="yellow", markup=False)
        return not git.available


def register_memory_commands(registry: CommandRegistry, runtime: Any) -> MemoryCommand:
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
