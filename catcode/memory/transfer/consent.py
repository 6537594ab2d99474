"""Consent for imported memories that every project would see: the same decision a model's ``memory_write`` gets.

An imported text that becomes a memory for all projects (the user scope: a new user or feedback memory, or a
change to one) steers every future session, whatever project it runs in; a folder another tool keeps, or a file
a repository ships, should not get there unasked. So each such write is put to the person's permission policy as a
``memory_write`` call of that name would be (``memory.tools.write_probe``: their settings' rules and mode —
``permissions.allow: [memory_write]``, ``deny``, ``accept-edits``/``bypass``): allowed, denied (held back, with the
rule that denied it), or asked. Asked on a terminal, each is shown with its text; without one it is held back and
the command says how to allow it. Memories for this project only need no more than the import's own question."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from catcode.memory.tools import WRITE_KEY, write_probe
from catcode.memory.transfer.plan import ImportPlan, Step
from catcode.memory.words import NO_TERMINAL
from catcode.safety.permissions import Verdict

if TYPE_CHECKING:
    from catcode.safety.permissions import PermissionPolicy

Answer = Literal["yes", "no", "all"]
Ask = Callable[[Step], Answer]
"""Asks the person about one step (``all``: yes to this one and every one after it)."""


def settle(plan: ImportPlan, policy: PermissionPolicy, ask: Ask | None) -> list[Step]:
    """Decide every write for all projects of ``plan``: those not allowed become ``held`` (with why). ``ask``
    asks the person (None: nobody can be asked). Returns the steps held back."""
    probe = write_probe()
    allowed_rest = False
    for step in plan.for_all_projects():
        verdict, reason = policy.check(probe, {WRITE_KEY: step.name})
        if verdict is Verdict.ALLOW or (verdict is Verdict.ASK and allowed_rest):
            continue
        if verdict is Verdict.DENY:
            _hold(step, reason)
        elif ask is None:
            _hold(step, NO_TERMINAL)
        else:
            answer = ask(step)
            allowed_rest = answer == "all"
            if answer == "no":
                _hold(step, "you said no")
    return plan.held()


def _hold(step: Step, why: str) -> None:
    step.action, step.why = "held", why
