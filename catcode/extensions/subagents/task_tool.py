"""The ``task`` tool: the model hands a self-contained task to a subagent and gets its final answer back.

Several ``task`` calls in one reply run at the same time (``Tool.concurrent``), up to ``subagents.max_parallel``.
The tool itself only reads (it never asks); what the subagent does goes through the permission policy."""

from __future__ import annotations

from pydantic import BaseModel, Field

from catcode.extensions.subagents.definitions import BUILTIN_NAME, AgentSet
from catcode.extensions.subagents.runner import SubagentScope
from catcode.tools.base import Permission, Tool, ToolContext, ToolResult
from catcode.tools.facts import permission_of

DESCRIPTION = """Hand a self-contained task to a subagent: it works with a fresh context and its own tools, then \
returns its final answer (and its token usage). Use it for searches and investigations that would fill this \
conversation with file contents, and start several in one reply to run them in parallel. The subagent does not \
see this conversation: put everything it needs in the prompt, and say what its answer should contain.

Subagents (subagent_type):"""


class TaskInput(BaseModel):
    """Input of ``task``."""

    prompt: str = Field(description="The whole task for the subagent, with everything it needs to know.")
    description: str = Field(
        default="", description="A short (3-5 word) summary of the task, shown to the user (default: the subagent)."
    )
    subagent_type: str = Field(default=BUILTIN_NAME, description="Which subagent to use (listed above).")


def task_tool(scope: SubagentScope, agents: AgentSet) -> Tool:
    """The ``task`` tool over ``scope``; its description lists ``agents`` (built once: it is part of the cached
    prompt prefix)."""
    listing = "\n".join(f"- {name}: {agents.agents[name].description}" for name in agents.names())

    def run(args: TaskInput, ctx: ToolContext) -> ToolResult:
        definition = agents.get(args.subagent_type.strip() or BUILTIN_NAME)
        if definition is None:
            return ToolResult(
                f"Unknown subagent_type {args.subagent_type!r}. Available: {', '.join(agents.names())}", is_error=True
            )
        if not args.prompt.strip():
            return ToolResult("Error: prompt is empty; give the subagent its whole task.", is_error=True)
        return scope.run(definition, args.description.strip() or definition.name, args.prompt, ctx.cancel)

    return Tool(
        name="Task",
        description=f"{DESCRIPTION}\n{listing}",
        input_model=TaskInput,
        function=run,
        permission=permission_of("Task") or Permission.READ,
        key_arg="description",
        concurrent=True,
    )
