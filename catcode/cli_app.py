"""The typer app: ``catcode`` (interactive), ``catcode -p PROMPT`` (print mode), ``catcode memory ...``.

Parses arguments, loads settings and hands over to ``app.build_session``. Errors reach the person as one line
(exit 2 for setup problems, 1 for a failed turn); tracebacks only with ``--debug``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import structlog
import typer

from catcode import __version__
from catcode.errors import CatcodeError, ConfigError, MissingApiKeyError

log = structlog.get_logger(__name__)

app = typer.Typer(add_completion=False, no_args_is_help=False, help="catcode: a coding agent that remembers.")
state: dict[str, Any] = {"debug": False}


def load(model: str | None = None, permission_mode: str | None = None) -> tuple[Any, Any]:
    """Settings and paths for the current directory, with logging configured."""
    from catcode import log as logsetup
    from catcode.config import catcode_home, find_project_root, load_settings, resolve_paths

    home = catcode_home()
    root = find_project_root(Path.cwd())
    overrides: dict[str, Any] = {}
    if model:
        overrides["model"] = model
    if permission_mode:
        overrides["permissions"] = {"mode": permission_mode}
    settings = load_settings(home, root, dict(os.environ), overrides)
    paths = resolve_paths(settings, home, root)
    logsetup.configure(paths.logs, debug=state["debug"])
    return settings, paths


def fail(message: str, code: int) -> None:
    """One readable line on stderr, then exit."""
    sys.stderr.write(f"catcode: {message}\n")
    raise typer.Exit(code)


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
    try:
        settings, paths = load(model, permission_mode)
        if prompt is not None:
            from catcode.print_mode import run_print

            raise typer.Exit(run_print(settings, paths, prompt))
        from catcode.ui.repl import run_interactive

        raise typer.Exit(run_interactive(settings, paths))
    except MissingApiKeyError as exc:
        fail(str(exc), 2)
    except ConfigError as exc:
        fail(str(exc), 2)
    except CatcodeError as exc:
        if debug:
            raise
        fail(str(exc), 1)


def run() -> None:
    """Run the typer app; unexpected errors become one line unless ``--debug``."""
    try:
        app(prog_name="catcode", standalone_mode=True)
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as exc:
        if state["debug"]:
            raise
        log.exception("unexpected_error")
        sys.stderr.write(f"catcode: unexpected error: {exc} (details in the log; rerun with --debug)\n")
        sys.exit(1)
