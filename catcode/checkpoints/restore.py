"""``RestorePlan``: a restore is planned first — a checkpoint of the files as they are now (which makes the restore
undoable), the files it will change, and those among them changed outside catcode since the target checkpoint — and
applied only once the person has seen that."""

from __future__ import annotations

from dataclasses import dataclass

from catcode.checkpoints.shadow import Change
from catcode.checkpoints.store import Checkpoint, CheckpointStore


@dataclass
class RestorePlan:
    """What restoring ``target`` will do."""

    store: CheckpointStore
    target: Checkpoint
    before: Checkpoint  # the files as they were just before the restore: restoring it undoes the restore
    changes: list[Change]  # from the files now to the target
    outside: list[str]  # files the restore overwrites that were changed outside catcode since the target

    def lines(self) -> list[str]:
        """The files the restore changes, one per line (``M path``), the ones changed outside catcode marked."""
        if not self.changes:
            return ["(no file differs from the checkpoint)"]
        shown = {"A": "restore", "M": "rewrite", "D": "delete"}
        marked = set(self.outside)
        note = "  (changed outside catcode since)"
        return [f"  {shown.get(c.status, c.status)} {c.path}{note if c.path in marked else ''}" for c in self.changes]

    def cancel(self) -> None:
        """The person said no: the checkpoint taken for it is dropped."""
        self.store.drop([self.before])

    def apply(self) -> list[Change]:
        """Make the files match the target; what changed. The ``before`` checkpoint records it as its turn."""
        with self.store.repo.lock():
            done = self.store.repo.restore(self.before.commit, self.target.commit)
        self.store.finish(self.before)
        return done


def plan_restore(store: CheckpointStore, target: Checkpoint, session: str, turn: int) -> RestorePlan:
    """Checkpoint the files now, then compare them with ``target``."""
    before = store.take(session, turn, f"before rewind to {target.id}: {target.message}", kind="rewind")
    changes = store.repo.restorable(before.commit, target.commit)
    outside = store.outside_changes(target, before.commit)
    return RestorePlan(store, target, before, changes, sorted(c.path for c in changes if c.path in outside))


def changed_line(done: list[Change]) -> str:
    """``Restored 3 files: a.py, build/x.o, notes.md`` (at most 10 named)."""
    if not done:
        return "No file needed restoring."
    names = [c.path for c in done]
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    return f"Restored {len(names)} file{'s' if len(names) != 1 else ''}: {', '.join(names[:10])}{more}"
