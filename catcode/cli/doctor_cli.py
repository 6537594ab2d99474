"""``catcode doctor``: is this machine ready for catcode? The provider in use (the Claude API, Amazon Bedrock or
Google Vertex AI: where requests go, how they are authenticated, the model id sent); whether the sandbox around
bash can start here (bubblewrap found, user namespaces on), with which fence, and whether it holds — proved by a
trial run inside it —, what it hides; where the programs catcode runs for itself were found; how many checkpoints this
project has, their size, and what is wrong with them (a lock left by a killed session, torn records, a damaged
checkpoint repository); what of a Claude Code setup here is read, and a line for each part that is not
(``claude_survey``). Memory has its own: ``catcode memory doctor``.
Exit 1 when the sandbox cannot start or does not hold, or the checkpoints are damaged; what the provider lacks (a key,
a library) is a ``problem:`` line."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from catcode.sandbox.fence import Fence


def doctor() -> None:
    """Check that the sandbox around bash commands can start here and holds (a trial from inside), show the fence
    it puts up and what it hides, where catcode's own programs come from, this project's checkpoints (count, size,
    and any damage with its fix), name the provider in use and what it lacks, and say what of a Claude Code setup
    catcode reads here and what it does not. Exit 1 if the sandbox cannot start or does not hold, or the checkpoints
    are damaged."""
    from catcode.cli.launch import fail, settle
    from catcode.errors import ConfigError
    from catcode.providers.registry import report
    from catcode.sandbox.fence import make_fence

    try:
        settings, paths = settle(notify=lambda line: typer.echo(f"catcode: {line}", err=True))
    except ConfigError as exc:
        fail(str(exc), 2)
    from catcode import log

    log.configure(paths.logs)
    extra = [paths.project_root / d for d in settings.permissions.additional_dirs]
    fence = make_fence(
        settings.sandbox, paths.project_root, extra, catcode_home=paths.home, memory_root=paths.memory_root
    )
    failed = fence.unavailable is not None
    try:
        typer.echo(fence.status())
        if fence.active:
            failed = not _fence_lines(fence)
    finally:
        fence.close()
    from catcode.cli.fence_report import program_lines

    typer.echo("programs catcode runs for itself (never from the project or a folder commands may write):")
    for line in program_lines():
        typer.echo(f"  {line}")
    from catcode.cli.checkpoints_cli import doctor_lines

    damaged = False
    try:
        lines, damaged = doctor_lines(settings, paths)
        for line in lines:
            typer.echo(line)
    except Exception as exc:  # a report line, not a crash: the other checks still count
        typer.echo(f"checkpoints: could not be read: {exc}")
        damaged = True
    for line in report(settings, dict(os.environ)):
        typer.echo(line)
    typer.echo("memory: run catcode memory doctor to check memory files, indexes and history")
    from catcode.cli.claude_survey import claude_setup_lines

    for line in claude_setup_lines(paths.home, paths.project_root, dict(os.environ)):
        typer.echo(line)
    if failed or damaged:
        raise typer.Exit(1)


def _fence_lines(fence: Fence) -> bool:
    """The trial's result, what commands cannot read and which variables they do not get; False when the trial
    got out."""
    from catcode.cli.fence_report import hidden_lines, withheld_line

    proof = fence.prove()
    if proof.held:
        typer.echo("  proved from inside: " + ", ".join(proof.tried))
    else:
        typer.echo(f"  does NOT hold: {proof.failure}")
    for line in [*hidden_lines(fence)[:2], withheld_line(fence)]:
        typer.echo(f"  {line}")
    return proof.held
