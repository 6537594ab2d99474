"""``catcode mcp ...``: the project's MCP servers with Claude Code's commands and syntax — ``add``, ``add-json``,
``list``, ``get``, ``remove`` (scopes ``local``, ``project``, ``user``: ``extensions.mcp.catalog``) — and
``catcode mcp serve [--allow-writes]``, which serves this project's memory over MCP on stdio.

``serve``'s stdout carries the protocol only: a failure is one line on stderr (exit 1; bad settings exit 2, like
every other command), details in the log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

mcp_app = typer.Typer(
    name="mcp",
    help="MCP servers: add, list, get and remove them as with claude mcp; serve this project's memory.",
    no_args_is_help=True,
)

SCOPE_HELP = "local (you, this project; default), project (.mcp.json, shared) or user (you, every project)."


def _where() -> tuple[Path, Path]:
    from catcode.settings.config import catcode_home, find_project_root

    return catcode_home(), find_project_root(Path.cwd())


def _scope(value: str) -> str:
    from catcode.extensions.mcp.catalog import SCOPES

    if value not in SCOPES:
        raise typer.BadParameter(f"choose one of {', '.join(SCOPES)}")
    return value


@mcp_app.command("add")
def add(
    name: str = typer.Argument(..., help="The server's name (its tools are mcp__NAME__TOOL)."),
    target: str = typer.Argument(..., metavar="COMMAND_OR_URL", help="The command to run, or the server's URL."),
    args: list[str] = typer.Argument(None, metavar="[ARGS]...", help="The command's arguments (after --)."),
    scope: str = typer.Option("local", "-s", "--scope", help=SCOPE_HELP, parser=_scope),
    transport: str = typer.Option("stdio", "-t", "--transport", help="stdio (default), http or sse."),
    env: list[str] = typer.Option([], "-e", "--env", help="KEY=value for a stdio server (repeat it)."),
    header: list[str] = typer.Option([], "-H", "--header", help='"Name: value" for an http or sse server.'),
) -> None:
    """Add an MCP server: catcode mcp add [-s SCOPE] [-t TRANSPORT] [-e K=V] NAME COMMAND_OR_URL [-- ARGS...]."""
    from catcode.cli.launch import fail
    from catcode.errors import ConfigError
    from catcode.extensions.mcp.catalog import add as add_server
    from catcode.extensions.mcp.catalog import entry_of

    home, root = _where()
    try:
        entry = entry_of(name, target, args or [], transport=transport, env=env, headers=header)
        written = add_server(name, entry, scope, home=home, root=root, env=dict(os.environ))
    except ConfigError as exc:
        fail(f"{exc} (nothing was written)", 2)
    typer.echo(f"Added {transport} MCP server {name} to {scope} config ({written})")


@mcp_app.command("add-json")
def add_json(
    name: str = typer.Argument(..., help="The server's name."),
    entry: str = typer.Argument(..., metavar="JSON", help='The entry, e.g. \'{"type":"stdio","command":"npx"}\'.'),
    scope: str = typer.Option("local", "-s", "--scope", help=SCOPE_HELP, parser=_scope),
) -> None:
    """Add an MCP server from its JSON entry, in .mcp.json's shape: catcode mcp add-json NAME JSON."""
    from catcode.cli.launch import fail
    from catcode.errors import ConfigError
    from catcode.extensions.mcp.catalog import add as add_server
    from catcode.extensions.mcp.catalog import check

    home, root = _where()
    try:
        data = json.loads(entry)
        check(name, data)
        written = add_server(name, data, scope, home=home, root=root, env=dict(os.environ))
    except ValueError as exc:
        fail(f"not valid JSON: {exc} (nothing was written)", 2)
    except ConfigError as exc:
        fail(f"{exc} (nothing was written)", 2)
    typer.echo(f"Added MCP server {name} to {scope} config ({written})")


@mcp_app.command("list")
def list_servers() -> None:
    """List the MCP servers configured for this project: name, what runs, scope, and whether it is allowed."""
    from catcode.extensions.mcp.catalog import listed

    home, root = _where()
    found = listed(home, root, dict(os.environ))
    if not found:
        typer.echo("No MCP servers configured. Add one with: catcode mcp add NAME -- COMMAND [ARGS...]")
        return
    for item in found:
        state = {True: "", False: " - not allowed (catcode config trust)", None: " - asked at the next start"}
        typer.echo(f"{item.spec.name}: {item.spec.settings.describe()} ({item.scope}){state[item.allowed]}")


@mcp_app.command("get")
def get(name: str = typer.Argument(..., help="The server's name.")) -> None:
    """Show one MCP server: scope, file, type, command or URL, and the names of its variables and headers."""
    from catcode.cli.launch import fail
    from catcode.extensions.mcp.catalog import listed

    home, root = _where()
    matches = [item for item in listed(home, root, dict(os.environ)) if item.spec.name == name]
    if not matches:
        fail(f"no MCP server {name!r} (catcode mcp list shows them)", 1)
    for item in matches:
        settings = item.spec.settings
        typer.echo(f"{name}:\n  Scope: {item.scope} ({item.spec.source})\n  Type: {settings.transport}")
        if settings.url:
            typer.echo(f"  URL: {settings.describe().split(': ', 1)[1]}")
            if settings.headers:
                typer.echo(f"  Headers: {', '.join(settings.headers)} (values not shown)")
        else:
            typer.echo(f"  Command: {settings.command}\n  Args: {' '.join(settings.args)}")
            if settings.env:
                typer.echo(f"  Environment: {', '.join(settings.env)} (values not shown)")
    typer.echo(f"To remove it: catcode mcp remove {name} -s {matches[0].scope}")


@mcp_app.command("remove")
def remove(
    name: str = typer.Argument(..., help="The server's name."),
    scope: str | None = typer.Option(None, "-s", "--scope", help="Which scope's server (when several have it)."),
) -> None:
    """Remove an MCP server: catcode mcp remove NAME [-s SCOPE]."""
    from catcode.cli.launch import fail
    from catcode.errors import ConfigError
    from catcode.extensions.mcp.catalog import remove as remove_server

    if scope is not None:
        _scope(scope)
    home, root = _where()
    try:
        written = remove_server(name, scope, home=home, root=root, env=dict(os.environ))
    except ConfigError as exc:
        fail(str(exc), 1)
    typer.echo(f"Removed MCP server {name} from {written}")


@mcp_app.command("serve")
def serve(
    allow_writes: bool = typer.Option(
        False, "--allow-writes", help="Also offer memory_write and memory_forget (each change is a revertible commit)."
    ),
) -> None:
    """Serve memory over MCP on stdin/stdout: memory_search, memory_read, memory_list (and writes if allowed).

    For Claude Code: claude mcp add catcode-memory -- catcode mcp serve"""
    from catcode.cli.command_errors import command_errors
    from catcode.cli.launch import load
    from catcode.mcp_server.serve import serve as run
    from catcode.memory.service import MemoryDoor

    with command_errors("mcp_serve_failed"):
        settings, paths = load()
        run(MemoryDoor.offline(settings, paths), allow_writes=allow_writes)
