"""``--max-budget-usd``: no request is sent once what this session cost reaches the budget (Claude Code's meaning);
the turn ends there and its result says why. A model without a price cannot be held to a budget, so a request to
it is refused too rather than sent uncounted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.hooks.bus import CONTINUE, Block, HookContext, HookEvent, HookResult

if TYPE_CHECKING:
    from catcode.session.session import Session


class BudgetGuard:
    """A PRE_LLM_REQUEST handler that blocks requests past the budget."""

    def __init__(self, session: Session, budget: float) -> None:
        self.session, self.budget = session, budget

    def attach(self) -> None:
        """Check every request of the session."""
        self.session.hooks.on(HookEvent.PRE_LLM_REQUEST, self)

    def __call__(self, context: HookContext) -> HookResult:
        """Block once the cost so far reaches the budget."""
        from catcode.providers.pricing import cost_of, session_usage

        spent, unknown = cost_of(session_usage(self.session))
        if spent is None:
            return Block(f"--max-budget-usd: {', '.join(unknown)} has no price, so its cost cannot be held to a budget")
        if spent >= self.budget:
            return Block(f"--max-budget-usd: ${spent:.4f} spent of ${self.budget:g}; no more requests are sent")
        return CONTINUE
