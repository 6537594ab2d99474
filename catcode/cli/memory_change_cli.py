"""``catcode memory`` commands that change memories, and their history: forget, edit, move, clear (asking first
unless ``--yes``; each one change), log, diff and revert (the git history of those changes). Registered on
``memory_app`` by ``memory_cli.py``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from catcode.cli.memory_offline import ask_unless_yes, require_versioning, with_runtime
from catcode.cli.memory_words import said
from catcode.cli.values import whole_number
from catcode.text import shown_on

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime


def forget(
    name: str = typer.Argument(..., help="The memory's name."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Delete one memory (one change that `catcode memory revert` undoes)."""
    from catcode.memory.flows import ForgetQuestion, forget_memory
    from catcode.memory.report import forget_question

    def confirm(question: ForgetQuestion) -> bool:
        return ask_unless_yes(yes, f"forget {name}", forget_question(question))

    def body(runtime: MemoryRuntime) -> None:
        typer.echo(said(forget_memory(runtime.store, name, runtime.git.available, confirm)))

    with_runtime(body)


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

    with_runtime(body)


def move(
    name: str = typer.Argument(..., help="The memory's name."),
    where: str = typer.Argument(..., help="user (all projects) or project (this project)."),
) -> None:
    """Keep a memory for all projects (user) or for this project only (project)."""
    from catcode.memory.flows import move_memory

    with_runtime(lambda runtime: typer.echo(said(move_memory(runtime.store, name, where))))


def clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Delete every memory (one change that `catcode memory revert` undoes). What was said before the clear, in
    any project, is never saved afterwards (not even by a session still open)."""
    from catcode.memory.flows import ClearQuestion, clear_memories
    from catcode.memory.pipeline.cursor import mark_cleared
    from catcode.memory.report import clear_question

    def confirm(question: ClearQuestion) -> bool:
        return ask_unless_yes(yes, f"delete {question.counts.total} memories", clear_question(question))

    def body(runtime: MemoryRuntime) -> None:
        projects = runtime.paths.project_memory.parent
        result = clear_memories(runtime.store, runtime.git.available, confirm, mark=lambda: mark_cleared(projects))
        typer.echo(said(result))

    with_runtime(body)


def log_changes(
    limit: int = typer.Argument(10, help="How many changes to show.", parser=whole_number(1)),
    everything: bool = typer.Option(False, "--all", help="Journal entries and set-up changes too."),
) -> None:
    """Recent changes to memories, newest first: id, when, why, and A/M/D per memory."""
    from catcode.memory.revert_tool import format_changes, memory_log

    def body(runtime: MemoryRuntime) -> None:
        require_versioning(runtime)
        typer.echo(shown_on(sys.stdout, format_changes(memory_log(runtime.git, limit, everything=everything))))

    with_runtime(body)


def diff(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Show what a memory change did, as a diff (default: the last change to memories)."""
    from catcode.memory.revert_tool import NO_CHANGES, memory_diff

    def body(runtime: MemoryRuntime) -> None:
        require_versioning(runtime)
        typer.echo(shown_on(sys.stdout, memory_diff(runtime.git, commit).rstrip("\n") or NO_CHANGES))

    with_runtime(body)


def revert(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Undo a memory change as a new change (default: the last change to memories; a later change to the same
    memory makes it refuse)."""
    from catcode.memory.revert_tool import describe_revert

    def body(runtime: MemoryRuntime) -> None:
        require_versioning(runtime)
        typer.echo(describe_revert(runtime.revert(commit)))

    with_runtime(body)
