"""The typer app: ``catcode`` (interactive), ``catcode -p PROMPT`` (print mode), ``catcode memory ...``.

Parses arguments, loads settings and hands over to ``app.build_session``. Errors reach the person as one line
(exit 2 for setup problems, 1 for a failed turn); tracebacks only with ``--debug``."""

from __future__ import annotations

import typer

from catcode import __version__
from catcode.launch import guarded, load, start, state
from catcode.log import get_logger
from catcode.mcp.cli import mcp_app
from catcode.memory_cli import memory_app

log = get_logger(__name__)
__all__ = ["app", "fail", "load", "run", "state"]


def fail(message: str, code: int) -> None:
    """One readable line on stderr, then exit with ``code``."""
    typer.echo(f"catcode: {message}", err=True)
    raise typer.Exit(code)


app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    pretty_exceptions_enable=False,
    help="catcode: a coding agent that remembers.",
)
app.add_typer(memory_app, name="memory")
app.add_typer(mcp_app, name="mcp")


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    prompt: str | None = typer.Option(None, "-p", "--print", help="Run one turn non-interactively and print it."),
    model: str | None = typer.Option(None, "--model", "-m", help="Claude model id for this session."),
    permission_mode: str | None = typer.Option(
        None, "--permission-mode", help="default, accept-edits, read-only or bypass."
    ),
    debug: bool = typer.Option(False, "--debug", help="Log to the terminal and show tracebacks."),
    version: bool = typer.Option(False, "--version", "-V", help="Print the version and exit."),
) -> None:
    """Start an interactive session in the current project, or run one prompt with -p."""
    state["debug"] = debug
    if version:
        typer.echo(f"catcode {__version__}")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is not None:
        return
    raise typer.Exit(start(prompt, model, permission_mode))


def run() -> None:
    """Run the typer app; typer exits with the command's code, ``guarded`` turns surprises into one line."""
    guarded(lambda: app(prog_name="catcode"))
