"""``McpToolsHook``: before each request, the tools of MCP servers that became ready join the registry.

In the REPL the servers are started in the background at the session's first quiet moment (its first answer, or
its prompt idle with the Anthropic SDK loaded: ``Session.start_idle``), and a request never waits for one not ready
yet (it is named once; its tools come with a later request). In print mode and piped input nothing starts them:
the first request starts them and waits up to their start-up timeout (``wait_first``), since there is no prompt to
keep responsive and no later chance to offer their tools."""

from __future__ import annotations

from collections.abc import Callable

from catcode.hooks import CONTINUE, HookContext, HookResult
from catcode.mcp.manager import McpManager
from catcode.tools.base import ToolRegistry


class McpToolsHook:
    """PRE_LLM_REQUEST handler that keeps the registry in step with the servers (it never adds messages)."""

    def __init__(
        self, manager: McpManager, tools: ToolRegistry, notify: Callable[[str], None], *, wait_first: bool = True
    ) -> None:
        self.manager, self.tools, self.notify = manager, tools, notify
        self.wait_first = wait_first
        self._first = True
        self._told: set[str] = set()

    def __call__(self, context: HookContext) -> HookResult:
        """Sync the tools; on the first request without a prompt (``wait_first``), start the servers and wait for
        them."""
        manager = self.manager
        if self._first:
            self._first = False
            if self.wait_first and not manager.started:
                manager.start()
                longest = max((s.spec.settings.startup_timeout for s in manager.servers.values()), default=0.0)
                manager.wait_ready(longest + 1.0)
        manager.sync_tools(self.tools)
        for server in manager.starting():
            if server.name not in self._told:
                self._told.add(server.name)
                self.notify(f"MCP server {server.name} is still starting; its tools join a later request")
        return CONTINUE
