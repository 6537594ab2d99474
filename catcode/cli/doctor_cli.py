"""``catcode doctor``: is this machine ready for catcode? The provider in use (the Claude API, Amazon Bedrock or
Google Vertex AI: where requests go, how they are authenticated, the model id sent); whether the sandbox around
bash can start here (bubblewrap found, user namespaces on), and with which fence; how many checkpoints this project
has and their size. Memory has its own: ``catcode memory doctor``.
Exit 1 when the sandbox cannot start; what the provider lacks (a key, a library) is a ``problem:`` line."""

from __future__ import annotations

import os

import typer


def doctor() -> None:
    """Check that the sandbox around bash commands can start here (and the fence it puts up), report this project's
    checkpoints (count and size), and name the provider in use and what it lacks. Exit 1 if the sandbox cannot
    start."""
    from catcode.cli.launch import fail, settle
    from catcode.errors import ConfigError
    from catcode.providers.registry import report
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

    try:
        for line in doctor_lines(settings, paths):
            typer.echo(line)
    except Exception as exc:  # a report line, not a crash: the other checks still count
        typer.echo(f"checkpoints: could not be read: {exc}")
    for line in report(settings, dict(os.environ)):
        typer.echo(line)
    typer.echo("memory: run catcode memory doctor to check memory files, indexes and history")
    if fence.unavailable:
        raise typer.Exit(1)
