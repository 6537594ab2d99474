"""``RestorePlan``: a restore is planned first — a checkpoint of the files as they are now (which makes the restore
undoable), the files it will change, and those among them changed outside catcode since the target checkpoint — and
applied only once the person has seen that.

A restore never writes or deletes through a link out of the project (``inside.py``): a path whose folder is a link
(or a file, or which is now a folder holding files) is left alone, said in the plan and again in what was done."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from catcode.checkpoints.shadow import Change
from catcode.checkpoints.store import Checkpoint, CheckpointStore
from catcode.text import visible


@dataclass
class RestorePlan:
    """What restoring ``target`` will do."""

    store: CheckpointStore
    target: Checkpoint
    before: Checkpoint  # the files as they were just before the restore: restoring it undoes the restore
    changes: list[Change]  # from the files now to the target
    outside: list[str]  # files the restore overwrites that were changed outside catcode since the target
    left: dict[str, str] = field(default_factory=dict)  # paths it leaves alone, with why

    def lines(self) -> list[str]:
        """The files the restore changes, one per line (``M path``), the ones changed outside catcode marked, the
        ones it leaves alone said with why."""
        if not self.changes:
            return ["(no file differs from the checkpoint)"]
        shown = {"A": "restore", "M": "rewrite", "D": "delete", "T": "rewrite"}
        marked = set(self.outside)
        note = "  (changed outside catcode since)"
        return [
            visible(f"  leave {c.path}  (not restored: {self.left[c.path]})")
            if c.path in self.left
            else visible(f"  {shown.get(c.status, c.status)} {c.path}{note if c.path in marked else ''}")
            for c in self.changes
        ]

    def cancel(self) -> None:
        """The person said no: the checkpoint taken for it is dropped."""
        self.store.drop([self.before])

    def apply(self) -> list[Change]:
        """Make the files match the target; what changed (``left``: what it did not change, with why). The
        ``before`` checkpoint records it as its turn."""
        with self.store.repo.lock():
            done, self.left = self.store.repo.restore(self.before.commit, self.target.commit)
        self.store.finish(self.before, [c.path for c in done if c.status != "D"], ran=True)
        return done


def plan_restore(store: CheckpointStore, target: Checkpoint, session: str, turn: int) -> RestorePlan:
    """Checkpoint the files now, then compare them with ``target``."""
    before = store.take(session, turn, f"before rewind to {target.id}: {target.message}", kind="rewind")
    changes = store.repo.restorable(before.commit, target.commit)
    outside = store.outside_changes(target, before.commit)
    marked = sorted(c.path for c in changes if c.path in outside)
    return RestorePlan(store, target, before, changes, marked, store.repo.blocked(changes))


def changed_line(done: list[Change], left: Mapping[str, str] | None = None) -> str:
    """``Restored 3 files: a.py, build/x.o, notes.md`` (at most 10 named), then one line per path left alone."""
    names = [c.path for c in done]
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    line = f"Restored {len(names)} file{'s' if len(names) != 1 else ''}: {', '.join(names[:10])}{more}"
    if not done:
        line = "No file restored." if left else "No file needed restoring."
    said = "\n".join([line, *(f"  Left alone {path}: {why}" for path, why in sorted((left or {}).items()))])
    return visible(said)  # a file's name may hold an escape sequence: shown, never obeyed
