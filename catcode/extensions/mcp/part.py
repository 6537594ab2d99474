"""The MCP client as a part of a session (``session.parts.SessionPart``): the servers of the inventory, started at
launch — once the prompt is drawn (its time does not pay for the MCP SDK's import), or at once when there is no
prompt (print mode, piped input) — the hook through which a request waits for them (up to ``mcp.startup_timeout``)
and puts their tools on the registry, their stop at the session's end, and ``/mcp``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from catcode.hooks.bus import HookEvent

if TYPE_CHECKING:
    from catcode.extensions.inventory import InventoryPart
    from catcode.extensions.mcp.hook import WaitScreen
    from catcode.extensions.mcp.manager import McpManager
    from catcode.session.parts import SessionBuilder


# Any: a slash-command registration hands the registry to the command module it imports when called, which types
# it: this module is shared wiring, and of the REPL it imports its own commands only (``tests/test_front_ends.py``).


class McpPart:
    """The session's MCP servers (``/mcp`` is there without any, to say how to add one)."""

    def __init__(self, inventory: InventoryPart, wait: WaitScreen | None = None) -> None:
        self.inventory = inventory
        self.wait = wait  # shows a request's wait for the servers (default: a line through the notices)

    def attach(self, builder: SessionBuilder) -> None:
        """The manager and its hook when there are servers; ``/mcp`` always."""
        found = self.inventory.found
        manager = self._manager(builder) if found.servers or found.refused_servers else None
        refused = found.refused_servers

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.extensions.mcp.command import register_mcp

            register_mcp(registry, manager, refused)

        builder.slash_commands.append(register)
        if manager is None:
            return
        builder.mcp = manager
        if builder.defer_start_up:
            builder.background_starts.append(manager.start)
        else:
            builder.when_built(lambda session: manager.start())  # once everything is wired, as the prompt's start

    def _manager(self, builder: SessionBuilder) -> McpManager:
        from catcode.extensions.mcp.hook import McpToolsHook
        from catcode.extensions.mcp.manager import McpManager

        paths, notify = builder.paths, builder.notify
        manager = McpManager(self.inventory.found.servers, project_root=paths.project_root,
                             log_dir=paths.logs.parent, notify=notify)  # fmt: skip
        hook = McpToolsHook(manager, builder.tools, notify, wait=builder.settings.mcp.startup_timeout,
                            screen=self.wait, skippable=self.wait is not None)  # fmt: skip
        builder.hooks.on(HookEvent.PRE_LLM_REQUEST, hook)
        builder.hooks.on(HookEvent.SESSION_END, lambda context: manager.stop())
        return manager
