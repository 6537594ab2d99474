"""Plan mode: the permission mode ``plan`` (``--permission-mode plan``, ``/permissions plan``, Shift+Tab) lets only
read-only tools run (``PermissionPolicy.check`` refuses the rest); the model researches, then ends planning with
``ExitPlanMode`` carrying its plan in Markdown. The person sees the plan and either approves it — choosing the
mode to carry it out in — or keeps planning, with feedback that goes back to the model. Like Claude Code's.

While the mode is on, each request carries a short reminder after the cached prefix (``PlanModeReminder``), so the
model knows it is planning without the tools or the system prompt changing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from catcode.conversation.messages import Message
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookResult
from catcode.safety.permissions import PermissionMode, PermissionPolicy
from catcode.tools.base import Permission, Tool, ToolContext, ToolResult

REMINDER = (
    "Plan mode is on: the person wants a plan before any change. Only read-only tools run (reading, searching, "
    "listing); do not edit files or run commands that change anything. Research what you need, then call "
    "ExitPlanMode with the complete plan in Markdown; the person approves it or asks for changes."
)
DESCRIPTION = (
    "Present your plan for approval and leave plan mode. Call it in plan mode once you have researched enough to "
    "say exactly what you will change and how; `plan` is the plan in Markdown (concise, step by step). The person "
    "approves it (and you carry it out) or tells you what to change (revise it and call this tool again)."
)


class ExitPlanModeInput(BaseModel):
    """Input of ``ExitPlanMode``."""

    plan: str = Field(description="The plan, in Markdown: what will change, where, and in which order.")


@dataclass(frozen=True)
class PlanDecision:
    """The person's answer to a plan: approved (and the mode to continue in), or not, with feedback."""

    approved: bool
    mode: PermissionMode = PermissionMode.DEFAULT
    feedback: str = ""


PlanAsker = Callable[[str], PlanDecision]
"""Shows the plan (Markdown) and returns the person's decision."""

NO_TERMINAL = (
    "Nobody can approve the plan here (no terminal): stay in plan mode, make no change, and end your turn with the "
    "plan as your answer."
)


def exit_plan_mode_tool(policy: PermissionPolicy, ask: PlanAsker | None) -> Tool:
    """``ExitPlanMode`` for ``policy``; ``ask`` shows the plan to the person (None: nobody can be asked)."""

    def run(args: ExitPlanModeInput, ctx: ToolContext) -> ToolResult:
        if policy.mode is not PermissionMode.PLAN:
            return ToolResult(f"Not in plan mode (the mode is {policy.mode.value}): carry on with the task.")
        if not args.plan.strip():
            return ToolResult("The plan is empty: write the plan in Markdown and call ExitPlanMode again.", True)
        if ask is None:
            return ToolResult(NO_TERMINAL, is_error=True)
        decision = ask(args.plan)
        if decision.approved:
            policy.mode = decision.mode
            return ToolResult(
                f"The person approved the plan; the permission mode is now {decision.mode.value}. Carry out the plan."
            )
        why = f" Their feedback: {decision.feedback}" if decision.feedback else ""
        return ToolResult(
            f"The person did not approve the plan and wants to keep planning.{why} Stay in plan mode: revise the "
            "plan and call ExitPlanMode again.",
            is_error=True,
        )

    return Tool(
        name="ExitPlanMode",
        description=DESCRIPTION,
        input_model=ExitPlanModeInput,
        function=run,
        permission=Permission.READ,  # it changes no file; what it asks is the person's own decision
        interactive=True,
    )


class PlanModeReminder:
    """PRE_LLM_REQUEST: while the mode is ``plan``, a system message says so (for that request only)."""

    def __init__(self, policy: PermissionPolicy) -> None:
        self.policy = policy

    def __call__(self, context: HookContext) -> HookResult:
        """The reminder in plan mode; nothing otherwise."""
        if self.policy.mode is PermissionMode.PLAN:
            return AppendMessages([Message.system(REMINDER)])
        return CONTINUE
