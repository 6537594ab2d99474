"""The plan approval prompt: the plan ``ExitPlanMode`` carries, drawn as Markdown, then the person's choice —
approve and accept edits, approve and be asked before each change, or keep planning (anything else typed is
feedback for the model)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from catcode.safety.permissions import PermissionMode
from catcode.safety.plan_mode import PlanDecision

CHOICES = (
    "  1. yes, and accept edits (file changes run without asking)\n"
    "  2. yes, and ask before each change (default mode)\n"
    "  3. no, keep planning"
)
QUESTION = "Approve the plan? [1-3, or type what to change] "


def ask_plan(console: Console, read: Callable[[str], str], plan: str) -> PlanDecision:
    """Show ``plan`` and read the decision; Ctrl+C or Enter keeps planning."""
    console.print(Panel(Markdown(plan), title="Plan", title_align="left", border_style="cyan"))
    console.print(Text(CHOICES))
    try:
        answer = read(QUESTION).strip()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if answer == "1":
        return PlanDecision(True, PermissionMode.ACCEPT_EDITS)
    if answer == "2":
        return PlanDecision(True, PermissionMode.DEFAULT)
    if answer == "3":
        try:
            answer = read("What should change? (Enter to skip) ").strip()
        except (KeyboardInterrupt, EOFError):
            answer = ""
    console.print(Text("Still planning.", style="yellow"))
    return PlanDecision(False, feedback=answer)
