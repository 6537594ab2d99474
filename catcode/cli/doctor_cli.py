"""``catcode doctor``: is this machine ready for catcode? Whether the sandbox around bash can start here
(bubblewrap found, user namespaces on), and with which fence; how many checkpoints this project has and their size;
what of a Claude Code setup here is read, and a line for each part that is not (``claude_survey``). Memory has its
own: ``catcode memory doctor``. Exit 1 when a check fails."""

from __future__ import annotations

import typer


def doctor() -> None:
    """Check that the sandbox around bash commands can start here (and the fence it puts up), report this project's
    checkpoints (count and size), and what of a Claude Code setup catcode reads here and what it does not. Exit 1 if
    the sandbox cannot start."""
    from catcode.cli.launch import fail, settle
    from catcode.errors import ConfigError
    from catcode.sandbox.fence import make_fence

    try:
        settings, paths = settle(notify=lambda line: typer.echo(f"catcode: {line}", err=True))
    except ConfigError as exc:
        fail(str(exc), 2)
    from catcode import log

    log.configure(paths.logs)
    extra = [paths.project_root / d for d in settings.permissions.additional_dirs]
    fence = make_fence(settings.sandbox, paths.project_root, extra)
    try:
        typer.echo(fence.status())
    finally:
        fence.close()
    from catcode.cli.checkpoints_cli import doctor_lines

    try:
        for line in doctor_lines(settings, paths):
            typer.echo(line)
    except Exception as exc:  # a report line, not a crash: the other checks still count
        typer.echo(f"checkpoints: could not be read: {exc}")
    typer.echo("memory: run catcode memory doctor to check memory files, indexes and history")
    import os

    from catcode.cli.claude_survey import claude_setup_lines

    for line in claude_setup_lines(paths.home, paths.project_root, dict(os.environ)):
        typer.echo(line)
    if fence.unavailable:
        raise typer.Exit(1)
