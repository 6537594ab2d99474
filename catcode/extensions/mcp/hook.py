"""``McpToolsHook``: before each request, the tools of MCP servers that became ready join the registry.

The servers are started at launch with everything else (the interactive session once its prompt is drawn; print
mode and piped input while the session is built). A request sent before they are ready waits for them — "waiting
for MCP server echo… Esc to send without it" — up to ``mcp.startup_timeout`` seconds after their start (default
10): the first message gets the tools it was configured for. A server that misses that is named in one line and
its tools join a later request once it is ready (it keeps its own ``mcp_servers.NAME.startup_timeout`` to come up).
Esc (at a terminal) sends without waiting, for this request and the next ones. A call the model makes to a tool
of a server still starting (or failed) is answered with that, not "Unknown tool".

How the wait is shown and skipped is the ``WaitScreen``'s: ``PlainWait`` (a line through ``notify``; print mode,
piped input, tests) or the terminal's (``catcode.ui.mcp_wait``, which also watches Esc)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from catcode.extensions.mcp.manager import McpManager, ServerState
from catcode.extensions.mcp.tools import tool_name
from catcode.hooks.bus import CONTINUE, HookContext, HookResult
from catcode.tools.base import ToolRegistry

DEFAULT_WAIT = 10.0


class WaitScreen(Protocol):
    """Where the wait for MCP servers is shown, and how the person skips it."""

    def say(self, line: str) -> None:
        """Show one line now."""
        ...

    def wait(self, line: str, ready: Callable[[float], bool], seconds: float) -> bool:
        """Show ``line``, then wait until ``ready(step)`` (which waits up to ``step`` seconds) is True or
        ``seconds`` passed; False when the person chose to send without waiting."""
        ...


class PlainWait:
    """No keys to watch: the line through ``say``, then the wait."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    def wait(self, line: str, ready: Callable[[float], bool], seconds: float) -> bool:
        """Show ``line`` and wait; never skipped."""
        self.say(line)
        ready(seconds)
        return True


def waiting_line(names: list[str], *, skip: bool) -> str:
    """The line "waiting for MCP server echo… Esc to send without it" (several servers: "servers a, b… … them")."""
    noun = "server" if len(names) == 1 else "servers"
    line = f"waiting for MCP {noun} {', '.join(names)}…"
    return f"{line} Esc to send without {'it' if len(names) == 1 else 'them'}" if skip else line


class McpToolsHook:
    """PRE_LLM_REQUEST handler that keeps the registry in step with the servers (it never adds messages)."""

    def __init__(
        self,
        manager: McpManager,
        tools: ToolRegistry,
        notify: Callable[[str], None],
        *,
        wait: float = DEFAULT_WAIT,
        screen: WaitScreen | None = None,
        skippable: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.manager, self.tools = manager, tools
        self.wait = wait
        self.screen = screen or PlainWait(notify)
        self.skippable = skippable  # the screen watches Esc
        self._clock = clock
        self._waiting = True
        self._told: set[str] = set()
        tools.explain_absent(self.absent)

    def absent(self, name: str) -> str | None:
        """Why ``name``, which the model called, is not on the registry when it is a tool of a server still
        starting or failed; None otherwise."""
        for server in self.manager.servers.values():
            prefix = tool_name(server.name, "")
            if prefix is None or not name.startswith(prefix) or server.state is ServerState.READY:
                continue
            if server.state is ServerState.FAILED:
                return f"MCP server {server.name} failed{f': {server.detail}' if server.detail else ''}"
            if server.state is not ServerState.STOPPED:
                return f"MCP server {server.name} is still starting: its tools join a later request once it is ready"
        return None

    def __call__(self, context: HookContext) -> HookResult:
        """Start the servers if nothing did; wait for those still starting (within ``wait`` of their start);
        name each one that missed it once; put the tools of the ready ones on the registry. A preview (``/context``)
        neither starts nor waits."""
        manager = self.manager
        if context.preview:
            return CONTINUE
        if not manager.started:
            manager.start()
        starting = manager.starting()
        if starting and self._waiting:
            left = manager.started_at + self.wait - self._clock()
            if left > 0:
                names = [s.name for s in starting]

                def ready(step: float) -> bool:
                    manager.wait_ready(step)
                    return not manager.starting()

                if not self.screen.wait(waiting_line(names, skip=self.skippable), ready, left):
                    self._waiting = False  # Esc: this request and the next ones go without waiting
        manager.sync_tools(self.tools)
        for server in manager.starting():
            if server.name not in self._told:
                self._told.add(server.name)
                how = "sent without it" if not self._waiting else f"not ready after {self.wait:g}s"
                self.screen.say(f"MCP server {server.name}: {how}; its tools join a later request once it is ready")
        return CONTINUE
