"""``/mcp`` (MCP servers, their state and tools) and ``/agents`` (subagent definitions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.tools.base import Permission, ToolRegistry

if TYPE_CHECKING:
    from catcode.extensions.mcp.manager import McpManager
    from catcode.extensions.subagents.definitions import AgentSet


def mcp_text(manager: McpManager | None, tools: ToolRegistry | None, refused: list[str]) -> str:
    """One block per server: name, state, transport and source, then its tools with their permission."""
    from catcode.extensions.mcp.manager import ServerState

    if manager is not None and tools is not None:
        manager.sync_tools(tools)
    servers = manager.servers.values() if manager is not None else []
    lines: list[str] = []
    for server in sorted(servers, key=lambda s: s.name):
        spec = server.spec
        where = "user settings" if spec.trusted else f"project {spec.source.name}"
        state = server.state.value + (f": {server.detail}" if server.detail else "")
        lines.append(f"{server.name}  {state}  ({spec.settings.describe()}; {where})")
        if server.state in (ServerState.READY, ServerState.STOPPED) or server.tool_names:
            for name in server.tool_names:
                tool = tools.get(name) if tools is not None else None
                kind = "read" if tool is not None and tool.permission is Permission.READ else "asks"
                lines.append(f"  {name}  ({kind})")
            if not server.tool_names:
                lines.append("  (no tools)")
    lines += [f"{line}  not allowed (you said no, or not asked yet)" for line in refused]
    if not lines:
        return (
            "No MCP servers. Add one under mcp_servers: in ~/.cat-code/settings.yaml, or in the project's "
            ".mcp.json (Claude Code's format)."
        )
    return "\n".join(lines)


def agents_text(agents: AgentSet, refused: list[str]) -> str:
    """One line per subagent definition (name, source, model, tools, description), then skipped files."""
    lines = []
    for name in agents.names():
        definition = agents.agents[name]
        model = definition.model or "session model"
        lines.append(f"{name}  ({definition.source}; {model}; tools: {', '.join(definition.tools)})")
        lines.append(f"  {definition.description}")
    lines += [f"{name}  not allowed (project definition with more than read-only tools)" for name in refused]
    if agents.warnings:
        lines += ["", *agents.warnings]
    lines += ["", "Add one in ~/.cat-code/agents/NAME.md or .cat-code/agents/NAME.md (Claude Code's format)."]
    return "\n".join(lines)


def register_mcp(registry: CommandRegistry, manager: McpManager | None, refused: list[str]) -> None:
    """Add ``/mcp``."""

    @registry.command("mcp", takes_args=False)
    def cmd_mcp(ctx: CommandContext, args: str) -> None:
        """List MCP servers, their state (starting, ready, failed) and their tools."""
        ctx.console.print(mcp_text(manager, ctx.session.tools, refused), markup=False, highlight=False)


def register_agents(registry: CommandRegistry, agents: AgentSet, refused: list[str]) -> None:
    """Add ``/agents``."""

    @registry.command("agents", takes_args=False)
    def cmd_agents(ctx: CommandContext, args: str) -> None:
        """List the subagents the task tool can start, and where each is defined."""
        ctx.console.print(agents_text(agents, refused), markup=False, highlight=False)
