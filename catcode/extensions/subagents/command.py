"""``/agents``: the subagent definitions the task tool can start, and where each is defined."""

from __future__ import annotations

from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.extensions.subagents.definitions import AgentSet


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
    lines += ["", "Add one in ~/.claude/agents/NAME.md or .claude/agents/NAME.md (Claude Code's format; catcode's own "
              "~/.cat-code/agents/ and .cat-code/agents/ too)."]  # fmt: skip
    return "\n".join(lines)


def register_agents(registry: CommandRegistry, agents: AgentSet, refused: list[str]) -> None:
    """Add ``/agents``."""

    @registry.command("agents", takes_args=False)
    def cmd_agents(ctx: CommandContext, args: str) -> None:
        """List the subagents the task tool can start, and where each is defined."""
        ctx.console.print(agents_text(agents, refused), markup=False, highlight=False)
