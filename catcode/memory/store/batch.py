"""How a batch of consolidation decisions becomes changes to memory files: the seed's ``apply`` rules plus the
scope rules — an existing memory is updated where it lives; a new one goes where ``ScopeRules.place`` says, under a
free name when its own is taken in another scope; a file that exists but cannot be read is never overwritten."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path

from catcode.log import get_logger
from catcode.memory.store.cache import Located
from catcode.memory.store.models import AppliedCounts, MemoryAction, MemoryEntry, MemoryOperation, Scope
from catcode.memory.store.scopes import ScopeRules, free_name

log = get_logger(__name__)

Changes = dict[str, tuple[MemoryEntry, Scope] | None]
"""name → the entry to write and the scope it goes to, or None to delete."""
Merge = Callable[[MemoryEntry | None, MemoryEntry], MemoryEntry]


def decide_batch(
    operations: list[MemoryOperation],
    current: Mapping[str, Located],
    *,
    rules: ScopeRules,
    problem_at: Callable[[Path], str | None],
    today: Callable[[], date],
    merged: Merge,
) -> tuple[Changes, AppliedCounts]:
    """The changes ``operations`` make to the memories ``current`` (this view's), and their counts.

    ADD without an entry, UPDATE without a target or an entry, and SKIP count as skipped. UPDATE writes the
    candidate under ``target_name``. ADD and UPDATE keep ``created_at`` and the scope when the name exists."""
    changes: Changes = {}
    counts = AppliedCounts()
    elsewhere: dict[Scope, set[str]] = {}

    def taken(name: str, scope: Scope) -> bool:  # each folder listed once, however many operations
        if scope not in elsewhere:
            elsewhere[scope] = rules.names_elsewhere(scope)
        return name in elsewhere[scope]

    for op in operations:
        name = written_name(op)
        fresh = op.entry.to_entry(today(), name_override=name) if name and op.entry else None
        if fresh is not None and fresh.name not in current and fresh.name not in changes:
            scope = rules.place(fresh)
            if taken(fresh.name, scope):

                def clashes(n: str, s: Scope = scope) -> bool:
                    return n in current or n in changes or taken(n, s)

                new = free_name(fresh.name, clashes)
                log.warning("memory_renamed", name=fresh.name, to=new, reason="the name is taken in another scope")
                counts.renamed[fresh.name] = new
                fresh = fresh.model_copy(update={"name": new})
        if fresh is not None and problem_at(_where(fresh, current, changes, rules)):
            log.warning("memory_operation_blocked", name=name, reason="its file exists but cannot be read")
            fresh = None
        if fresh is None:
            counts.skipped += 1
            skipped = op.entry.name if op.entry else op.target_name
            counts.skipped_names.extend([skipped] if skipped else [])
            continue
        (counts.added_names if op.action is MemoryAction.ADD else counts.updated_names).append(fresh.name)
        previous, base = changes.get(fresh.name), current.get(fresh.name)
        scope = previous[1] if previous else base.scope if base else rules.place(fresh)
        earlier = previous[0] if previous else base.entry if base else None
        changes[fresh.name] = (merged(earlier, fresh), scope)
    counts.added, counts.updated = len(counts.added_names), len(counts.updated_names)
    return changes, counts


def written_name(op: MemoryOperation) -> str | None:
    """The memory an operation writes: the entry's name for ADD, the target for UPDATE, else None."""
    if op.entry is None:
        return None
    if op.action is MemoryAction.ADD:
        return op.entry.name
    return op.target_name if op.action is MemoryAction.UPDATE else None


def _where(entry: MemoryEntry, current: Mapping[str, Located], changes: Changes, rules: ScopeRules) -> Path:
    found = current.get(entry.name)
    if found is not None:
        return found.path
    planned = changes.get(entry.name)
    scope = planned[1] if planned else rules.place(entry)
    return rules.dirs[scope] / f"{entry.name}.md"
