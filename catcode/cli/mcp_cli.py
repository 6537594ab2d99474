"""``catcode mcp ...``: ``catcode mcp serve [--allow-writes]`` serves this project's memory over MCP on stdio.

stdout carries the protocol only: a failure is one line on stderr (exit 1; bad settings exit 2, like every other
command), details in the log."""

from __future__ import annotations

import typer

mcp_app = typer.Typer(
    name="mcp", help="catcode and MCP: serve this project's memory to MCP clients.", no_args_is_help=True
)


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
