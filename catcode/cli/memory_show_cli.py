"""``catcode memory`` commands that look without changing a memory: list, show, status, path, search, recent, and
doctor (whose ``--fix`` only repairs: quarantines unreadable files, rebuilds indexes). They never write a memory nor
commit; registered on ``memory_app`` by ``memory_cli.py``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from catcode.cli.launch import load
from catcode.cli.memory_offline import memory_errors, with_runtime
from catcode.cli.memory_words import not_found, path_summary
from catcode.cli.values import whole_number
from catcode.text import shown_on

INDEXING = (
    "Some memories are not in the search index yet: they are being read and indexed in the background, and this "
    "search may miss them."
)
SEARCH_NOW = 10_000
"""Memories a search reads and indexes itself before it answers, when the index lacks them (a folder written by
hand, searched for the first time): an answer that misses none of them is worth a few seconds once. More are left
to the background (``INDEXING``)."""

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime


def list_memories() -> None:
    """List memories (name - description (type, all projects | this project)), user scope first."""
    from catcode.memory.report import NO_MEMORIES, hidden_line, list_line, unreadable_line

    def body(runtime: MemoryRuntime) -> None:
        store = runtime.store
        lines: list[str] = []
        listed = False
        for row in store.iter_summaries():  # a chunk at a time: 100,000 memories are never held at once
            lines.append(list_line(*row))
            if len(lines) == 5_000:
                typer.echo(shown_on(sys.stdout, "\n".join(lines)))
                lines, listed = [], True
        if lines or not listed:
            typer.echo(shown_on(sys.stdout, "\n".join(lines)) if lines else NO_MEMORIES)
        hidden, problems = len(store.hidden()), len(store.problems())
        if problems - hidden:
            typer.echo(unreadable_line(problems - hidden), err=True)
        if hidden:
            typer.echo(hidden_line(hidden), err=True)

    with_runtime(body)


def show(name: str = typer.Argument(..., help="The memory's name.")) -> None:
    """Show one memory in full, with its scope."""
    from catcode.errors import CatcodeError
    from catcode.memory.report import format_entry

    def body(runtime: MemoryRuntime) -> None:
        entry = runtime.store.get(name.strip())
        if entry is None:
            raise CatcodeError(not_found(name))
        typer.echo(shown_on(sys.stdout, format_entry(entry, runtime.store.scope_of(name.strip()))))

    with_runtime(body)


def status() -> None:
    """Scopes and counts, cursor, unprocessed lines, failures, versioning, unreadable files."""
    from catcode.memory.status import memory_status, status_lines

    with_runtime(lambda runtime: typer.echo("\n".join(status_lines(memory_status(runtime)))))


def path() -> None:
    """Print where memories live: the memory root, both scopes, the history log."""
    with memory_errors():
        typer.echo(path_summary(load()[1]))


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
            if runtime.store.unread() <= SEARCH_NOW:
                runtime.store.complete()
            recall.sync(budget=SEARCH_NOW)
            if not as_json:
                typer.echo(shown_on(sys.stdout, search_text(recall, " ".join(query), limit)))
            for line in search_json_lines(recall, " ".join(query), limit) if as_json else []:
                typer.echo(line)
            # A memory file written by hand that is not a valid one is left out of the search: say so, as list
            # does. Counted before facts.db closes: closing it changes the project folder, and a rescan costs a
            # stat per memory file.
            unreadable = len(runtime.store.problems()) - len(runtime.store.hidden())
            behind = recall.behind or runtime.store.unread() > 0
            unsaved = recall.unsaved
        if unreadable:
            typer.echo(unreadable_line(unreadable), err=True)
        if unsaved:
            typer.echo(f"catcode: {unsaved}", err=True)
        if behind and runtime.start_upkeep():  # a large store searched for the first time: indexed once, apart
            typer.echo(INDEXING, err=True)

    with_runtime(body)


def recent(
    count: int = typer.Argument(5, help="How many session summaries (1-100).", parser=whole_number(1, 100)),
) -> None:
    """Show the latest session summaries of this project's journal."""
    from catcode.memory.builder import build_recall
    from catcode.memory.recall.views import recent_text

    def body(runtime: MemoryRuntime) -> None:
        with build_recall(runtime) as recall:
            typer.echo(shown_on(sys.stdout, recent_text(recall, count)))

    with_runtime(body)


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

    with_runtime(body)
    if not healthy:
        raise typer.Exit(1)
