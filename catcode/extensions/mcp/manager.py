"""``McpManager``: the session's MCP connections, on an event loop of their own in a background thread.

``start()`` (once the prompt is drawn, or while the session is built in print and piped mode) loads the SDK and
connects every server at once; each has ``startup_timeout`` seconds to answer and list its tools. The agent's
thread waits on a server only before a request (``hook.py``: up to ``mcp.startup_timeout`` after the start, Esc skips
it) and inside a tool call, which is bounded by ``call_timeout`` and by Ctrl+C.
A server that cannot start, hangs, crashes or writes garbage ends up ``failed`` with one line for the person
(``notify``) and the details in the log; a stdio server's stderr goes to ``logs/mcp-<name>.log``, never to the
terminal. Tools of a server that failed after it was ready stay offered and answer with an error.

Tools are put on the registry by ``sync_tools`` from the agent's thread (the registry is not thread-safe).

A little over the usual 250 lines: the loop thread, the per-server states and the timeouts are one lifecycle,
read together when a server misbehaves."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from catcode import __version__
from catcode.extensions.mcp.sources import ServerSpec
from catcode.extensions.mcp.transports import Transports
from catcode.log import get_logger
from catcode.tools.base import ToolRegistry, ToolResult

# Any: the mcp SDK's client session and tool objects (third-party); tool inputs are JSON.

log = get_logger(__name__)

STOP_GRACE_S = 6.0  # a stdio server gets 2 s to exit after its stdin closes, then SIGTERM, then SIGKILL
CANCEL_POLL_S = 0.2


class ServerState(StrEnum):
    """Where a server is in its life."""

    WAITING = "waiting"  # configured; the background start has not happened yet
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


@dataclass
class McpServer:
    """One server's connection state."""

    spec: ServerSpec
    state: ServerState = ServerState.WAITING
    detail: str = ""  # why it failed
    tools: list[Any] = field(default_factory=list)  # mcp Tool objects, as listed at start
    tool_names: list[str] = field(default_factory=list)  # their catcode names, once registered
    client: Any = None
    registered: bool = False
    stop: asyncio.Event | None = None
    future: concurrent.futures.Future[None] | None = None

    @property
    def name(self) -> str:
        """The server's name."""
        return self.spec.name


class McpManager:
    """Starts, calls and stops the servers of one session."""

    def __init__(
        self,
        specs: list[ServerSpec],
        *,
        project_root: Path,
        log_dir: Path,
        notify: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.servers = {spec.name: McpServer(spec) for spec in specs}
        self.project_root = project_root
        self.log_dir = log_dir
        self.notify = notify
        self.started = False
        self.started_at = 0.0  # time.monotonic() of ``start``: a request's wait for the servers counts from it
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._changed = threading.Condition()
        self.transports = Transports(project_root, log_dir)

    # -- lifecycle (any thread) ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Connect every server in the background (idempotent; returns at once)."""
        if self.started or not self.servers:
            self.started = True
            return
        self.started, self.started_at = True, time.monotonic()
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="catcode-mcp", daemon=True)
        self._thread.start()
        for server in self.servers.values():
            self._set(server, ServerState.STARTING)
            server.future = asyncio.run_coroutine_threadsafe(self._serve(server), loop)

    def wait_ready(self, timeout: float) -> None:
        """Block until no server is starting any more, or ``timeout`` seconds passed."""
        with self._changed:
            self._changed.wait_for(lambda: not self.starting(), timeout)

    def starting(self) -> list[McpServer]:
        """The servers still starting."""
        return [s for s in self.servers.values() if s.state in (ServerState.WAITING, ServerState.STARTING)]

    def stop(self, timeout: float = STOP_GRACE_S) -> None:
        """Close every connection (stdio servers are asked to exit, then killed), bounded by ``timeout``."""
        loop = self._loop
        if loop is None:
            return
        self._loop, self._stopping = None, True
        for server in self.servers.values():
            if server.state is ServerState.READY and server.stop is not None:
                loop.call_soon_threadsafe(server.stop.set)
            elif server.future is not None:
                server.future.cancel()  # still starting: give up the start (its process is stopped all the same)
        futures = [s.future for s in self.servers.values() if s.future is not None]
        concurrent.futures.wait(futures, timeout=timeout)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(1.0)
            if not self._thread.is_alive():
                loop.close()
        self.transports.close()

    # -- tools (the agent's thread) -----------------------------------------------------------------------------

    def sync_tools(self, registry: ToolRegistry) -> None:
        """Put the tools of servers that became ready on ``registry`` (in server-name order)."""
        from catcode.extensions.mcp.tools import mcp_tool

        for server in sorted(self.servers.values(), key=lambda s: s.name):
            if server.state is not ServerState.READY or server.registered:
                continue
            server.registered = True
            for listed in server.tools:
                made = mcp_tool(self, server.name, listed)
                if made is None:
                    log.warning("mcp_tool_skipped", server=server.name, tool=listed.name, reason="name")
                    continue
                registry.register(made)
                server.tool_names.append(made.name)

    def call(self, server_name: str, tool_name: str, arguments: dict[str, Any], cancel: threading.Event) -> ToolResult:
        """Call one tool and wait for it, at most ``call_timeout`` seconds; ``cancel`` (or Ctrl+C) abandons it."""
        from catcode.extensions.mcp.tools import describe_error, result_of

        server = self.servers[server_name]
        loop, client = self._loop, server.client
        if server.state is not ServerState.READY or loop is None or client is None:
            why = f": {server.detail}" if server.detail else ""
            return ToolResult(f"MCP server {server_name} is {server.state.value}{why}", is_error=True)
        timeout = server.spec.settings.call_timeout
        future = asyncio.run_coroutine_threadsafe(client.call_tool(tool_name, arguments), loop)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    outcome = future.result(timeout=min(CANCEL_POLL_S, max(0.0, deadline - time.monotonic())))
                    break
                except concurrent.futures.TimeoutError:
                    if cancel.is_set():
                        future.cancel()
                        return ToolResult("Cancelled before the MCP server answered.", is_error=True)
                    if time.monotonic() >= deadline:
                        future.cancel()
                        log.warning("mcp_call_timeout", server=server_name, tool=tool_name, timeout=timeout)
                        return ToolResult(
                            f"MCP server {server_name} did not answer {tool_name} within {timeout:g}s", is_error=True
                        )
        except KeyboardInterrupt:
            future.cancel()
            raise
        except Exception as exc:
            reason = describe_error(exc)
            log.warning("mcp_call_failed", server=server_name, tool=tool_name, error=repr(exc))
            if _connection_lost(exc):
                self._fail(server, f"connection lost ({reason})")
            return ToolResult(f"MCP server {server_name} failed on {tool_name}: {reason}", is_error=True)
        return result_of(outcome, f"mcp__{server_name}__{tool_name}")

    # -- the event loop -----------------------------------------------------------------------------------------

    async def _serve(self, server: McpServer) -> None:
        """Connect, list the tools, then hold the connection open until ``stop`` is set."""
        from catcode.extensions.mcp.tools import describe_error

        server.stop = asyncio.Event()
        timeout = server.spec.settings.startup_timeout
        task = asyncio.current_task()
        ready = False
        watchdog = asyncio.get_running_loop().call_later(timeout, lambda: None if ready else task and task.cancel())
        try:
            from mcp import Client, Implementation

            transport = self.transports.open(server.spec)
            info = Implementation(name="catcode", version=__version__)
            async with Client(transport, client_info=info) as client:
                listed = await _list_tools(client)
                ready = True
                watchdog.cancel()
                server.client, server.tools = client, listed
                self._set(server, ServerState.READY)
                log.info("mcp_server_ready", server=server.name, tools=len(listed))
                await server.stop.wait()
        except asyncio.CancelledError:
            if not ready and not self._stopping:
                self._fail(server, f"did not start within {timeout:g}s{self.transports.stderr_hint(server.spec)}")
        except BaseException as exc:  # ExceptionGroups from the SDK's task groups included
            log.warning("mcp_server_failed", server=server.name, error=repr(exc))
            self._fail(server, describe_error(exc) + self.transports.stderr_hint(server.spec))
        finally:
            watchdog.cancel()
            if server.state is ServerState.READY:
                self._set(server, ServerState.STOPPED)

    # -- state ----------------------------------------------------------------------------------------------------

    def _set(self, server: McpServer, state: ServerState, detail: str = "") -> None:
        with self._changed:
            server.state, server.detail = state, detail
            self._changed.notify_all()

    def _fail(self, server: McpServer, reason: str) -> None:
        if server.state is ServerState.FAILED or self._stopping:
            return
        was_ready = server.state is ServerState.READY
        self._set(server, ServerState.FAILED, reason)
        log.warning("mcp_server_down", server=server.name, reason=reason)
        verb = "stopped working" if was_ready else "could not start"
        self.notify(f"MCP server {server.name} {verb}: {reason} — /mcp shows its state, details in the log")


async def _list_tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever must not hang the start
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _connection_lost(exc: BaseException) -> bool:
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED
