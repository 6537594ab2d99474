"""``/memory`` (run the pipeline now, and its subcommands: list, show, forget, edit, move, clear, log, diff,
revert, status) and ``/dream``. The report texts follow the seed's ``MemoryCommand`` / ``runPipeline``; the flows
shared with ``catcode memory`` return data (``memory/flows.py``, ``memory/edit.py``, ``memory/status.py``,
``memory/revert_tool.py``), worded here with ``memory/slash_words.py`` and ``memory/report.py``.

Subcommands are handlers in ``MemoryCommand.handlers``; another module adds one with
``add_memory_subcommand(registry, name, help, handler)`` (its help and completion then appear too). Here: the
dispatcher, the pipeline run and ``/dream``; the subcommands that show are in ``slash_show.py``, those that change
memories in ``slash_change.py``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.errors import CatcodeError, one_line
from catcode.memory.report import format_report
from catcode.memory.slash_change import ChangingSubcommands
from catcode.memory.slash_show import ShowingSubcommands
from catcode.memory.slash_words import error_line
from catcode.memory.store.models import ConsolidationReport

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime

Handler = Callable[[CommandContext, str], None]

NOTHING_PENDING = "no new messages since the last run"
BUSY = "another memory run is in progress — try again in a moment"


class MemoryCommand(ShowingSubcommands, ChangingSubcommands):
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
            names = [f"{sub} {name}" for name in self.runtime.store.names()]
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
