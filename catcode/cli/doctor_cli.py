"""``catcode doctor``: is this machine ready for catcode? Today: whether the sandbox around bash can start here
(bubblewrap found, user namespaces on), and with which fence; how many checkpoints this project has, their size, and
what is wrong with them (a lock left by a killed session, torn records, a damaged checkpoint repository).
Memory has its own: ``catcode memory doctor``.
Exit 1 when a check fails."""

from __future__ import annotations

import typer


def doctor() -> None:
    """Check that the sandbox around bash commands can start here (and the fence it puts up), and report this
    project's checkpoints (count, size, and any damage with its fix). Exit 1 if the sandbox cannot start or the
    checkpoints are damaged."""
    from catcode.cli.launch import fail, settle
    from catcode.errors import ConfigError
    from catcode.sandbox.fence import make_fence

    try:
        settings, paths = settle(notify=lambda line: typer.echo(f"catcode: {line}", err=True))
    except ConfigError as exc:
        fail(str(exc), 2)
    extra = [paths.project_root / d for d in settings.permissions.additional_dirs]
    fence = make_fence(settings.sandbox, paths.project_root, extra)
    try:
        typer.echo(fence.status())
    finally:
        fence.close()
    from catcode.cli.checkpoints_cli import doctor_lines

    damaged = False
    try:
        lines, damaged = doctor_lines(settings, paths)
        for line in lines:
            typer.echo(line)
    except Exception as exc:  # a report line, not a crash: the other checks still count
        typer.echo(f"checkpoints: could not be read: {exc}")
        damaged = True
    typer.echo("memory: run catcode memory doctor to check memory files, indexes and history")
    if fence.unavailable or damaged:
        raise typer.Exit(1)
