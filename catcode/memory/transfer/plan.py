"""The import plan: each found item as the memory it becomes (name repaired, type and scope inferred and shown),
the clashes with existing memories shown with both texts and merged or renamed — never replaced — and the whole
plan applied through the store's one write path as ONE commit ("import: claude, 12 memories: add ..."), which one
``catcode memory revert`` undoes. Secrets are redacted by that write path, like every memory write."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from catcode.memory.store.models import (
    AppliedCounts,
    CandidateMemory,
    MemoryAction,
    MemoryEntry,
    MemoryOperation,
    Scope,
)
from catcode.memory.store.names import slugify
from catcode.memory.store.scopes import free_name
from catcode.memory.transfer.items import ImportItem, Skipped

if TYPE_CHECKING:
    from catcode.memory.store.store import MemoryStore

Action = Literal["add", "merge", "rename", "same", "skip", "held"]
Choose = Callable[["Step"], Action]
"""Decides a clash: ``merge`` (the imported text added to the existing memory), ``rename`` (kept as a new memory
under a free name) or ``skip``. ``held``: held back for want of the person's consent (``consent.py``)."""


@dataclass
class Step:
    """What happens to one imported item."""

    item: ImportItem
    name: str  # the name it is written under (the existing memory's for a merge)
    scope: Scope
    action: Action = "add"
    existing: MemoryEntry | None = None  # the memory of the same name, when there is one
    why: str = ""  # why it was held back

    @property
    def entry(self) -> MemoryEntry:
        """The memory this step writes."""
        if self.action == "merge" and self.existing is not None:
            content = f"{self.existing.content.rstrip()}\n\n{self.item.content.strip()}"
            return self.existing.model_copy(update={"content": content})
        return MemoryEntry(name=self.name, description=self.item.description, type=self.item.type,
                           content=self.item.content)  # fmt: skip


@dataclass
class ImportPlan:
    """Every step of one import and what was found but not imported."""

    source: str
    steps: list[Step] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def writes(self) -> list[Step]:
        """The steps that change memory."""
        return [s for s in self.steps if s.action in ("add", "merge", "rename")]

    def for_all_projects(self) -> list[Step]:
        """The writes that would change a memory every project sees (the user scope)."""
        return [s for s in self.writes if s.scope is Scope.USER]

    def held(self) -> list[Step]:
        """The steps held back for want of consent."""
        return [s for s in self.steps if s.action == "held"]

    def clashes(self) -> list[Step]:
        """Items whose name an existing memory with another text has."""
        return [s for s in self.steps if s.existing is not None and s.action != "same"]

    def lines(self) -> list[str]:
        """The plan as a person reads it: one line per item, then what was skipped and why."""
        out = []
        for step in self.steps:
            entry = step.entry
            where = f"{entry.type.value}, {step.scope.label}"
            if step.action == "add":
                out.append(f"+ {step.name} ({where}) — {entry.description}")
            elif step.action == "rename":
                out.append(f"+ {step.name} ({where}) — {entry.description} [renamed: {step.item.name} is taken]")
            elif step.action == "merge":
                out.append(f"~ {step.name} ({where}) — the imported text is added to it")
            elif step.action == "same":
                out.append(f"= {step.name} — already there, unchanged")
            elif step.action == "held":
                out.append(f"- {step.name} ({where}) — held back: {step.why}")
            else:
                out.append(f"- {step.item.name} — skipped (its name is taken)")
        out += [f"- {s.origin}: skipped, {s.reason}" for s in self.skipped]
        return out

    def operations(self) -> list[MemoryOperation]:
        """The plan as the store's batch operations."""
        ops = []
        for step in self.writes:
            entry = step.entry
            candidate = CandidateMemory(type=entry.type, name=entry.name, description=entry.description,
                                        content=entry.content)  # fmt: skip
            if step.action == "merge":
                ops.append(MemoryOperation(action=MemoryAction.UPDATE, target_name=step.name, entry=candidate))
            else:
                ops.append(MemoryOperation(action=MemoryAction.ADD, entry=candidate))
        return ops


def make_plan(
    store: MemoryStore, source: str, items: list[ImportItem], skipped: list[Skipped], choose: Choose
) -> ImportPlan:
    """The plan for ``items`` against ``store`` (a ``MemoryStore``); ``choose`` decides each clash."""
    plan = ImportPlan(source, skipped=list(skipped))
    planned: set[str] = set()

    def taken(name: str, scope: Scope) -> bool:
        return name in planned or store.get(name) is not None or store.rules.taken(name, scope)

    for item in items:
        name = slugify(item.name) or slugify(item.description) or f"{source}-memory"
        if name in planned:  # two items of one import with one name: both kept
            name = free_name(name, lambda n: taken(n, Scope.USER) or taken(n, Scope.PROJECT))
        entry = MemoryEntry(name=name, description=item.description, type=item.type, content=item.content)
        existing = store.get(name)
        if existing is None:
            scope = store.rules.place(entry)
            if store.rules.taken(name, scope):
                name = free_name(name, functools.partial(taken, scope=scope))
            step = Step(item, name, scope)
        else:
            step = Step(item, name, store.scope_of(name) or existing.type.scope, existing=existing)
            if existing.content.strip() == item.content.strip():
                step.action = "same"
            else:
                step.action = choose(step)
                if step.action == "rename":
                    step.scope = store.rules.place(entry)
                    step.name = _renamed(name, source, functools.partial(taken, scope=step.scope))
        planned.add(step.name)
        plan.steps.append(step)
    return plan


def _renamed(name: str, source: str, taken: Callable[[str], bool]) -> str:
    """``name-claude`` (the source's name added), or with a number when that is taken too."""
    suffix = slugify(source) or "imported"
    wanted = slugify(f"{name}-{suffix}") or name
    return wanted if not taken(wanted) else free_name(wanted, taken)


def apply_plan(store: MemoryStore, plan: ImportPlan) -> AppliedCounts:
    """Write the plan as one batch (one commit); the store's ``AppliedCounts``."""
    count = len(plan.writes)
    return store.apply(plan.operations(), why=f"import: {plan.source}, {count} memories")
