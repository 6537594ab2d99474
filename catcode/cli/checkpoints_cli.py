"""``catcode checkpoints [--session ID] [--json]`` and ``catcode rewind ID [--yes]`` for the project of the current
directory, and what ``catcode doctor`` says about its checkpoints. An error is one line on stderr and exit 1 (2 for
invalid settings)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict
from typing import TYPE_CHECKING

import typer

from catcode.cli.launch import fail, load

if TYPE_CHECKING:
    from catcode.checkpoints.restore import RestorePlan
    from catcode.checkpoints.store import CheckpointStore
    from catcode.settings.config import Settings
    from catcode.settings.paths import Paths


def _errors() -> AbstractContextManager[None]:
    from catcode.cli.command_errors import command_errors

    return command_errors("checkpoints_cli_failed")


def _store() -> CheckpointStore:
    from catcode.checkpoints.store import store_for

    settings, paths = load()
    return store_for(paths.home, paths.project_key, paths.project_root, settings.checkpoints.max_file_mb)


def checkpoints(
    session: str | None = typer.Option(None, "--session", help="Only this session's checkpoints (an id or its start)."),
    as_json: bool = typer.Option(False, "--json", help="One JSON array: id, session, turn, time, message, files."),
) -> None:
    """List this project's checkpoints, oldest first: id, time, session, turn, the message's first words, files
    changed. Restore one with `catcode rewind ID`."""
    with _errors():
        store = _store()
        _settled(store)
        found = [c for c in store.all() if session is None or c.session.startswith(session)]
        big = store.repo.big_files()
        if as_json:
            typer.echo(json.dumps([asdict(c) for c in found], ensure_ascii=False, indent=2))
            return
        if not found:
            typer.echo("No checkpoints in this project yet." if session is None else f"No checkpoints of {session}.")
        for checkpoint in found:
            typer.echo(checkpoint.summary())
            for line in checkpoint.files:
                typer.echo(f"    {line}")
        cap = store.repo.max_file_bytes / (1024 * 1024)
        if big:
            typer.echo(f"Left out of checkpoints (over {cap:g} MB, checkpoints.max_file_mb): {', '.join(big)}")


def _settled(store: CheckpointStore) -> None:
    """Count what the ended turns changed (a snapshot of the files now) before they are listed; when that cannot be
    done the list says so for them."""
    from catcode.checkpoints.shadow import CheckpointError

    try:
        store.settle()
    except CheckpointError as exc:
        typer.echo(f"The files of the last turns are not counted: {exc}", err=True)


def rewind(
    checkpoint_id: str = typer.Argument(..., metavar="ID", help="A checkpoint id (or its start), as listed."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Restore without asking."),
) -> None:
    """Restore the project's files to checkpoint ID: the files it changes are listed (those changed outside catcode
    since are marked) and you are asked first unless --yes. A checkpoint is taken first: the restore is undoable."""
    from catcode.checkpoints.restore import changed_line, plan_restore

    with _errors():
        store = _store()
        target = store.find(checkpoint_id)
        if target is None:
            fail(f"No checkpoint {checkpoint_id!r} in this project — `catcode checkpoints` lists them.", 1)
        plan = plan_restore(store, target, "shell", 0)
        typer.echo(f"Restoring checkpoint {target.id} ({target.message!r}):")
        for line in plan.lines():
            typer.echo(line)
        if plan.changes and not _confirmed(yes, len(plan.changes), plan):
            plan.cancel()
            typer.echo("Nothing restored.")
            raise typer.Exit(1)
        typer.echo(changed_line(plan.apply(), plan.left))
        typer.echo(f"Undo with `catcode rewind {plan.before.id}`.")


def _confirmed(yes: bool, count: int, plan: RestorePlan) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        plan.cancel()
        fail(f"Refusing to restore {count} file{'s' if count != 1 else ''} without --yes (no terminal to ask on)", 1)
    return typer.confirm("Restore these files?", default=False)


def doctor_lines(settings: Settings, paths: Paths) -> tuple[list[str], bool]:
    """What ``catcode doctor`` says about this project's checkpoints: how many, their size, the files left out, and
    each problem with its fix (``health.check``); and whether one of them needs the person."""
    from catcode.checkpoints import pending
    from catcode.checkpoints.health import check
    from catcode.checkpoints.store import store_for

    store = store_for(paths.home, paths.project_key, paths.project_root, settings.checkpoints.max_file_mb)
    size = store.size() if store.folder.exists() else 0
    lines = [f"checkpoints: {len(store.all())} in this project, {_size(size)} on disk at {store.folder}"]
    big = store.repo.big_files()
    if big:
        lines.append(f"checkpoints: {len(big)} file(s) over the size cap left out: {', '.join(big[:10])}")
    left = pending.left_behind(store.folder)
    if left:  # a quick session ends before its preparation is done: not a problem, nothing is lost
        lines.append(
            f"checkpoints: {len(left)} not made yet (a session ended before the files were staged; the files its "
            "edits changed are saved): the next session or `catcode checkpoints` makes them"
        )
    problems = check(store)
    for problem in problems:
        lines += [f"checkpoints: problem: {problem.problem}", f"  fix: {problem.fix}"]
    return lines, any(not p.repaired_by_itself for p in problems)


def _size(count: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return f"{count} bytes"


def register(app: typer.Typer) -> None:
    """Add ``checkpoints`` and ``rewind`` to the root app."""
    commands: list[tuple[str, Callable[..., None]]] = [("checkpoints", checkpoints), ("rewind", rewind)]
    for name, function in commands:
        app.command(name, options_metavar="[OPTIONS]")(function)
