"""``catcode memory serve|sync|remote ...``: memory beyond this terminal — a local web view with its JSON API, and
sync through a git remote. Registered on ``memory_cli.memory_app`` by ``cli_app``; errors are one line on stderr
and exit 1, like every ``catcode memory`` command. The web stack is imported only by ``serve``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from catcode.cli.help_text import HelpGroup
from catcode.cli.memory_offline import memory_errors, offline_runtime, with_runtime
from catcode.cli.values import whole_number

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime

DEFAULT_PORT = 8765


def register(memory_app: typer.Typer) -> None:
    """Add ``serve``, ``sync`` and ``remote add|show`` to ``catcode memory``."""
    remote_app = typer.Typer(
        name="remote", cls=HelpGroup, help="The git remote that memories sync through.", no_args_is_help=True
    )
    remote_app.command("add")(remote_add)
    remote_app.command("show")(remote_show)
    memory_app.add_typer(remote_app, name="remote")
    memory_app.command("sync")(sync)
    memory_app.command("serve")(serve)


def remote_add(
    url: str = typer.Argument(..., help="A git URL (SSH, HTTPS or a path); an empty repository will do."),
) -> None:
    """Set the git remote that `catcode memory sync` fetches from and pushes to."""
    from catcode.memory.sync.engine import sync_for

    with_runtime(lambda runtime: typer.echo(sync_for(runtime).add_remote(url)))


def remote_show() -> None:
    """Show the memory remote, the last sync and what is waiting to be sent or merged."""
    from catcode.memory.sync.engine import sync_for

    with_runtime(lambda runtime: typer.echo("\n".join(sync_for(runtime).show())))


def sync() -> None:
    """Sync memories with the remote: fetch, merge (memory by memory), commit, push. Never forces a push."""
    from catcode.errors import CatcodeError
    from catcode.memory.sync.engine import sync_for

    def body(runtime: MemoryRuntime) -> None:
        if runtime.config.sync == "off":
            raise CatcodeError(
                "Memory sync is off (memory.sync: off); turn it on with `catcode config set memory.sync manual`."
            )
        typer.echo("\n".join(sync_for(runtime).run().lines()))

    with_runtime(body)


def serve(
    port: int = typer.Option(
        DEFAULT_PORT, "--port", help="Port to listen on (0: a free one).", parser=whole_number(0, 65535)
    ),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in your browser."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on. Anything but 127.0.0.1 exposes your memories: be sure."
    ),
) -> None:
    """Browse, search and undo memory changes in your browser: a local web page with a JSON API, on 127.0.0.1
    only, behind a token printed in its URL."""
    from catcode.web.server import serve_memory

    with memory_errors():
        serve_memory(offline_runtime(), host=host, port=port, open_browser=open_browser, say=typer.echo)
