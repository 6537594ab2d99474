"""``catcode memory ...``: offline memory commands (no API key, no model): list, show, search, recent, status,
forget, edit, move, clear, path, log, diff, revert, doctor. Plain text on stdout so it pipes well; an error is one
line on stderr, exit 1 (exit 2 when the settings are invalid). The commands that only read never write anything
(nor commit); the flows are shared with the slash commands and return data (``memory/flows.py``,
``memory/edit.py``, ``memory/status.py``, ``memory/revert_tool.py``), worded here with ``memory_words.py`` and
the text of ``memory/report.py`` that names no command. Over the usual 250 lines on purpose: one typer sub-app of
fifteen commands, each a few lines of argument handling around a shared flow; splitting it would split
``catcode memory --help``'s one source."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import typer

from catcode.cli.launch import load
from catcode.cli.memory_words import error_line, not_found, path_summary, said
from catcode.cli.values import whole_number

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime


memory_app = typer.Typer(
    name="memory", help="Inspect and manage memories offline (no API key needed).", no_args_is_help=True
)


def _confirm(yes: bool, what: str, question: str) -> bool:
    """Ask ``question`` on the terminal unless ``--yes``; without a terminal refuse (``what``: "delete 3
    memories")."""
    from catcode.errors import CatcodeError

    if yes:
        return True
    if not sys.stdin.isatty():
        raise CatcodeError(f"Refusing to {what} without --yes (no terminal to ask on)")
    return typer.confirm(question, default=False)


def _errors() -> AbstractContextManager[None]:
    """Every failure becomes one line on stderr and exit 1 — 2 for a setup problem (bad settings), like the rest of
    catcode — and a traceback only with --debug; memory's messages name the shell's commands."""
    from catcode.cli.command_errors import command_errors

    return command_errors("memory_cli_failed", error_line)


def _runtime() -> Any:
    """The offline memory runtime (store and git history; no provider) for the current directory."""
    from catcode.memory.builder import build_memory_runtime

    settings, paths = load()
    return build_memory_runtime(settings, paths)


def _with_runtime(body: Callable[[Any], None]) -> None:
    with _errors():
        body(_runtime())


@memory_app.command("list")
def list_memories() -> None:
    """List memories (name - description (type, all projects | this project)), user scope first."""
    from catcode.memory.report import format_list, hidden_line, sorted_by_scope, unreadable_line

    def body(runtime: MemoryRuntime) -> None:
        store = runtime.store
        typer.echo(format_list(sorted_by_scope(store.located())))
        hidden, problems = len(store.hidden()), len(store.problems())
        if problems - hidden:
            typer.echo(unreadable_line(problems - hidden), err=True)
        if hidden:
            typer.echo(hidden_line(hidden), err=True)

    _with_runtime(body)


@memory_app.command("show")
def show(name: str = typer.Argument(..., help="The memory's name.")) -> None:
    """Show one memory in full, with its scope."""
    from catcode.errors import CatcodeError
    from catcode.memory.report import format_entry

    def body(runtime: MemoryRuntime) -> None:
        entry = runtime.store.get(name.strip())
        if entry is None:
            raise CatcodeError(not_found(name))
        typer.echo(format_entry(entry, runtime.store.scope_of(name.strip())))

    _with_runtime(body)


@memory_app.command("status")
def status() -> None:
    """Scopes and counts, cursor, unprocessed lines, failures, versioning, unreadable files."""
    from catcode.memory.status import memory_status, status_lines

    _with_runtime(lambda runtime: typer.echo("\n".join(status_lines(memory_status(runtime)))))


@memory_app.command("forget")
def forget(
    name: str = typer.Argument(..., help="The memory's name."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Delete one memory (one change that `catcode memory revert` undoes)."""
    from catcode.memory.flows import ForgetQuestion, forget_memory
    from catcode.memory.report import forget_question

    def confirm(question: ForgetQuestion) -> bool:
        return _confirm(yes, f"forget {name}", forget_question(question))

    def body(runtime: MemoryRuntime) -> None:
        typer.echo(said(forget_memory(runtime.store, name, runtime.git.available, confirm)))

    _with_runtime(body)


@memory_app.command("edit")
def edit(name: str = typer.Argument(..., help="The memory's name.")) -> None:
    """Edit one memory in $VISUAL or $EDITOR; it is saved only as a valid memory file (else edit again or
    give up: nothing is half-written)."""
    from catcode.memory.edit import edit_memory
    from catcode.memory.flows import EditRejected

    def again(rejected: EditRejected) -> bool:
        typer.echo(f"{rejected.name} was not saved: {rejected.problem}", err=True)
        return sys.stdin.isatty() and typer.confirm("Edit it again?", default=True)

    def body(runtime: MemoryRuntime) -> None:
        typer.echo(said(edit_memory(runtime.store, name, again=again)))

    _with_runtime(body)


@memory_app.command("move")
def move(
    name: str = typer.Argument(..., help="The memory's name."),
    where: str = typer.Argument(..., help="user (all projects) or project (this project)."),
) -> None:
    """Keep a memory for all projects (user) or for this project only (project)."""
    from catcode.memory.flows import move_memory

    _with_runtime(lambda runtime: typer.echo(said(move_memory(runtime.store, name, where))))


@memory_app.command("clear")
def clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Delete every memory (one change that `catcode memory revert` undoes). What was said before the clear, in
    any project, is never saved afterwards (not even by a session still open)."""
    from catcode.memory.flows import ClearQuestion, clear_memories
    from catcode.memory.pipeline.cursor import mark_cleared
    from catcode.memory.report import clear_question

    def confirm(question: ClearQuestion) -> bool:
        return _confirm(yes, f"delete {question.counts.total} memories", clear_question(question))

    def body(runtime: MemoryRuntime) -> None:
        projects = runtime.paths.project_memory.parent
        result = clear_memories(runtime.store, runtime.git.available, confirm, mark=lambda: mark_cleared(projects))
        typer.echo(said(result))

    _with_runtime(body)


@memory_app.command("path")
def path() -> None:
    """Print where memories live: the memory root, both scopes, the history log."""
    with _errors():
        typer.echo(path_summary(load()[1]))


@memory_app.command("log")
def log_changes(
    limit: int = typer.Argument(10, help="How many changes to show.", parser=whole_number(1)),
    everything: bool = typer.Option(False, "--all", help="Journal entries and set-up changes too."),
) -> None:
    """Recent changes to memories, newest first: id, when, why, and A/M/D per memory."""
    from catcode.memory.revert_tool import format_changes, memory_log

    def body(runtime: MemoryRuntime) -> None:
        _require_versioning(runtime)
        typer.echo(format_changes(memory_log(runtime.git, limit, everything=everything)))

    _with_runtime(body)


@memory_app.command("diff")
def diff(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Show what a memory change did, as a diff (default: the last change to memories)."""
    from catcode.memory.revert_tool import NO_CHANGES, memory_diff

    def body(runtime: MemoryRuntime) -> None:
        _require_versioning(runtime)
        typer.echo(memory_diff(runtime.git, commit).rstrip("\n") or NO_CHANGES)

    _with_runtime(body)


@memory_app.command("revert")
def revert(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Undo a memory change as a new change (default: the last change to memories; a later change to the same
    memory makes it refuse)."""
    from catcode.memory.revert_tool import describe_revert

    def body(runtime: MemoryRuntime) -> None:
        _require_versioning(runtime)
        typer.echo(describe_revert(runtime.revert(commit)))

    _with_runtime(body)


@memory_app.command("doctor")
def doctor(fix: bool = typer.Option(False, "--fix", help="Quarantine unreadable files, rebuild indexes.")) -> None:
    """Check memory files, indexes, history.jsonl and versioning; list each problem with its fix. Exit 1 if
    problems remain."""
    from catcode.memory.pipeline.cursor import HISTORY_LOCK
    from catcode.memory.pipeline.history_check import HistoryCheck
    from catcode.memory.store.doctor import run_doctor

    healthy = True

    def body(runtime: MemoryRuntime) -> None:
        nonlocal healthy
        paths = runtime.paths
        history = HistoryCheck(paths.history_file, paths.project_memory / HISTORY_LOCK, paths.memory_root)
        report = run_doctor(runtime, fix=fix, extra=[history])
        typer.echo(report.text())
        healthy = report.healthy

    _with_runtime(body)
    if not healthy:
        raise typer.Exit(1)


def _require_versioning(runtime: MemoryRuntime) -> None:
    from catcode.errors import CatcodeError

    if not runtime.git.available:
        raise CatcodeError(runtime.git.warning)


@memory_app.command("search")
def search(
    query: list[str] = typer.Argument(..., help="Words, identifiers or a phrase, in any language (after -- as is)."),
    limit: int = typer.Option(
        10, "--limit", "-n", help="How many results at most (1-100).", parser=whole_number(1, 100)
    ),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per line: kind, source, date, score, snippet, scope."
    ),
) -> None:
    """Search every memory, session summary and past conversation of this project, one line per source, best
    match first. Put the question after -- to pass it as plain text: catcode memory search -- "what's -n?"."""
    from catcode.memory.builder import build_recall
    from catcode.memory.recall.views import search_json_lines, search_text
    from catcode.memory.report import unreadable_line

    def body(runtime: MemoryRuntime) -> None:
        with build_recall(runtime) as recall:
            if not as_json:
                typer.echo(search_text(recall, " ".join(query), limit))
            for line in search_json_lines(recall, " ".join(query), limit) if as_json else []:
                typer.echo(line)
            # A memory file written by hand that is not a valid one is left out of the search: say so, as list
            # does. Counted before facts.db closes: closing it changes the project folder, and a rescan costs a
            # stat per memory file.
            unreadable = len(runtime.store.problems()) - len(runtime.store.hidden())
        if unreadable:
            typer.echo(unreadable_line(unreadable), err=True)

    _with_runtime(body)


@memory_app.command("recent")
def recent(
    count: int = typer.Argument(5, help="How many session summaries (1-100).", parser=whole_number(1, 100)),
) -> None:
    """Show the latest session summaries of this project's journal."""
    from catcode.memory.builder import build_recall
    from catcode.memory.recall.views import recent_text

    def body(runtime: MemoryRuntime) -> None:
        with build_recall(runtime) as recall:
            typer.echo(recent_text(recall, count))

    _with_runtime(body)
