"""``McpToolsHook``: before each request, the tools of MCP servers that became ready join the registry.

In the REPL the servers were started in the background once the prompt was drawn, and a request never waits for
one still starting (it is named once; its tools come with a later request). In print mode and piped input
nothing started them: the first request starts them and waits up to their start-up timeout, since there is no
prompt to keep responsive and no later chance to offer their tools."""

from __future__ import annotations

from collections.abc import Callable

from catcode.hooks import CONTINUE, HookContext, HookResult
from catcode.mcp.manager import McpManager
from catcode.tools.base import ToolRegistry


class McpToolsHook:
    """PRE_LLM_REQUEST handler that keeps the registry in step with the servers (it never adds messages)."""

    def __init__(self, manager: McpManager, tools: ToolRegistry, notify: Callable[[str], None]) -> None:
        self.manager, self.tools, self.notify = manager, tools, notify
        self._first = True
        self._told: set[str] = set()

    def __call__(self, context: HookContext) -> HookResult:
        """Sync the tools; on the first request without a prompt, start the servers and wait for them."""
        manager = self.manager
        if self._first:
            self._first = False
            if not manager.started:
                manager.start()
                longest = max((s.spec.settings.startup_timeout for s in manager.servers.values()), default=0.0)
                manager.wait_ready(longest + 1.0)
        manager.sync_tools(self.tools)
        for server in manager.starting():
            if server.name not in self._told:
                self._told.add(server.name)
                self.notify(f"MCP server {server.name} is still starting; its tools join a later request")
        return CONTINUE
