"""``MemoryStore``: the memory files of the user scope and the project scope, with ONE write path.

User and feedback memories live in ``user_dir``, project and reference memories in ``project_dir``;
a name is unique across both. Every change (update, delete, apply, clear, index repair) goes
through ``_mutate``, which takes the cross-process lock, reloads from disk, validates names, redacts
secrets, writes files atomically (0600, folders 0700), moves a memory whose type changed scope,
rebuilds each touched ``MEMORY.md`` once and makes one versioning commit saying what changed and why.
Reads come from ``DiskCache`` (see cache.py): a few ``os.stat`` calls while nothing changed.

Over the usual 250 lines on purpose: the one write path and the steps it orders under the lock (recover,
reload, decide, prepare, write files, write indexes, commit) stay in one module, to be read and reviewed at once."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Protocol

from catcode.errors import CatcodeError, MemoryStoreError
from catcode.fsutil import atomic_write_many, atomic_write_text, ensure_private_dir, locked, remove_stale_temp_files
from catcode.log import get_logger
from catcode.memory.store import entry_file
from catcode.memory.store.cache import MAX_FILE_BYTES, DiskCache, Located, MemoryProblem
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.models import AppliedCounts, MemoryAction, MemoryEntry, MemoryOperation, Scope
from catcode.memory.store.names import validate_name, validate_new_name

__all__ = ["MemoryProblem", "MemoryStore", "Redactor", "Versioning"]

log = get_logger(__name__)

Redactor = Callable[[str], tuple[str, list[str]]]
"""Returns the text with secrets replaced and the kinds of secret found (one item per redaction)."""
Changes = dict[str, MemoryEntry | None]
"""name → the entry to write, or None to delete."""
Decide = Callable[[Mapping[str, MemoryEntry]], tuple[Changes, AppliedCounts]]


class Versioning(Protocol):
    """Records each batch of memory changes (``GitStore``).

    It may also offer ``commit_pending() -> str | None``: commit whatever is uncommitted, as a change of
    its own. The store calls it before its first write, and again after a failed write or commit, so that files
    a killed session wrote but never committed are recorded (and undo is not refused over them)."""

    def commit(self, message: str, paths: list[Path]) -> str | None:
        """Commit ``paths`` (written or deleted) with ``message``; the commit id, or None if nothing changed."""
        ...


class MemoryStore:
    """Memory files of both scopes. Thread-safe, and safe against other catcode processes."""

    def __init__(
        self,
        user_dir: Path,
        project_dir: Path,
        *,
        lock_path: Path,
        redactor: Redactor | None = None,
        versioning: Versioning | None = None,
        today: Callable[[], date] = date.today,
    ) -> None:
        if Path(user_dir).resolve() == Path(project_dir).resolve():
            raise ValueError("the user scope and the project scope need different folders")
        self.dirs = {Scope.USER: Path(user_dir), Scope.PROJECT: Path(project_dir)}
        self.root = Path(os.path.commonpath([str(user_dir), str(project_dir)]))
        self._lock_path = lock_path
        self._redactor = redactor
        self._versioning = versioning
        self.today = today
        self._cache = DiskCache(self.dirs, self.root)
        self._guard = threading.RLock()  # protects the cache; always taken AFTER the file lock
        self._recover = True  # tidy up after a killed session: on the first write, and after a failed one

    # ----- reading -------------------------------------------------------------------------------------
    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a scope changes (also by another process). Cheap: a few ``os.stat`` calls."""
        self._sync()
        with self._guard:
            return (*(self._cache.scanned or ()), self._cache.generation)

    def load_all(self) -> list[MemoryEntry]:
        """Every valid memory of both scopes, sorted by name (a snapshot; entries are immutable)."""
        self._sync()
        return list(self._cache.snapshot)

    def get(self, name: str) -> MemoryEntry | None:
        """The memory called ``name``, if any."""
        self._sync()
        found = self._cache.entries.get(name)
        return found.entry if found else None

    def path_of(self, name: str) -> Path | None:
        """The file holding the memory called ``name``, if any."""
        self._sync()
        found = self._cache.entries.get(name)
        return found.path if found else None

    def problems(self) -> list[MemoryProblem]:
        """The files skipped because they could not be read, and why."""
        self._sync()
        return list(self._cache.problems)

    def target_path(self, entry: MemoryEntry) -> Path:
        """Where ``entry`` is written: ``<scope folder>/<name>.md`` (the scope follows the type)."""
        return self.dirs[entry.type.scope] / f"{validate_name(entry.name)}.md"

    def prepare(self, entry: MemoryEntry) -> tuple[MemoryEntry, int]:
        """``entry`` exactly as it would be written (secrets redacted, text encodable) and the number of
        redactions. Raises ``MemoryStoreError`` when it cannot be written (bad name, too large...)."""
        target = self.dirs[entry.type.scope] / f"{validate_new_name(entry.name)}.md"
        redacted = 0
        values = {}
        for field in ("description", "content"):
            text = entry_file.clean_text(getattr(entry, field))
            if self._redactor is not None:
                text, kinds = self._redactor(text)
                redacted += len(kinds)
            values[field] = text
        entry = entry.model_copy(update=values)
        size = len(entry_file.render(entry).encode("utf-8"))
        if size > MAX_FILE_BYTES:
            raise MemoryStoreError(f"Memory {entry.name} is too large ({size // 1024} KB; the limit is 256 KB)")
        with self._guard:
            problem = self._cache.problem_at(target)
        if problem:
            raise MemoryStoreError(f"{target} exists but cannot be read ({problem}); fix or remove it first")
        return entry, redacted

    def merged(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` as ``update`` would write it: the existing ``created_at`` kept, ``updated_at`` today."""
        self._sync()
        with self._guard:
            found = self._cache.entries.get(entry.name)
        return self._merged({entry.name: found.entry} if found else {}, entry.name, entry)

    # ----- writing -------------------------------------------------------------------------------------
    def update(self, entry: MemoryEntry, *, why: str = "update") -> AppliedCounts:
        """Write ``entry`` keeping the existing memory's ``created_at``; ``updated_at`` becomes today."""
        validate_name(entry.name)
        return self._mutate(
            why,
            lambda cur: ({entry.name: self._merged(cur, entry.name, entry)}, _counts(entry.name in cur, entry.name)),
        )

    def delete(self, name: str, *, why: str = "delete") -> bool:
        """Delete the memory called ``name``; False when there is none."""
        validate_name(name)
        return self._mutate(why, lambda cur: ({name: None} if name in cur else {}, AppliedCounts())).deleted == 1

    def clear(self, *, why: str = "clear") -> int:
        """Delete every memory of both scopes (unreadable files are left alone); how many were deleted."""
        return self._mutate(why, lambda cur: (dict.fromkeys(cur), AppliedCounts())).deleted

    def apply(self, operations: list[MemoryOperation], *, why: str) -> AppliedCounts:
        """Apply consolidation decisions as one batch (one index rebuild, one commit).

        ADD without an entry, UPDATE without a target or an entry, and SKIP count as skipped. UPDATE writes
        the candidate under ``target_name``. ADD and UPDATE keep ``created_at`` when the name exists. An
        operation whose target file exists but cannot be read is skipped (logged), never overwritten."""
        for op in operations:
            if op.action is MemoryAction.ADD and op.entry is not None:
                validate_name(op.entry.name)
            elif op.action is MemoryAction.UPDATE and op.target_name is not None:
                validate_name(op.target_name)
        return self._mutate(why, lambda cur: self._decide(operations, cur))

    def _decide(
        self, operations: list[MemoryOperation], current: Mapping[str, MemoryEntry]
    ) -> tuple[Changes, AppliedCounts]:
        work, changes, counts = dict(current), {}, AppliedCounts()
        for op in operations:
            name = _written_name(op)
            fresh = op.entry.to_entry(self.today(), name_override=name) if name and op.entry else None
            if fresh is not None and self._cache.problem_at(self.target_path(fresh)):
                log.warning("memory_operation_blocked", name=name, reason="its file exists but cannot be read")
                fresh = None
            if fresh is None:
                counts.skipped += 1
                skipped = op.entry.name if op.entry else op.target_name
                counts.skipped_names.extend([skipped] if skipped else [])
                continue
            (counts.added_names if op.action is MemoryAction.ADD else counts.updated_names).append(fresh.name)
            work[fresh.name] = changes[fresh.name] = self._merged(work, fresh.name, fresh)
        counts.added, counts.updated = len(counts.added_names), len(counts.updated_names)
        return changes, counts

    def _merged(self, current: Mapping[str, MemoryEntry], name: str, entry: MemoryEntry) -> MemoryEntry:
        old = current.get(name)
        created = old.created_at if old else entry.created_at
        return entry.model_copy(update={"created_at": created, "updated_at": self.today()})

    def _mutate(self, why: str, decide: Decide) -> AppliedCounts:
        """THE write path: lock, reload, decide, validate + redact everything, then write, index, commit."""
        with locked(self._lock_path), self._guard:
            if self._recover:
                self._recover_leftovers()
            stale = self._cache.refresh()
            current = {name: loc.entry for name, loc in self._cache.entries.items()}
            changes, counts = decide(current)
            prepared: Changes = {}
            for name, entry in changes.items():
                prepared[name] = None
                if entry is not None:
                    prepared[name], redacted = self.prepare(entry)
                    counts.redacted += redacted
            try:
                paths, summary, touched = self._write_files(prepared, current)
                paths += self._write_indexes(touched | stale)
            except OSError as exc:
                self._cache.invalidate()  # whatever reached the disk is picked up by the next scan
                self._recover = True  # and committed by the next write
                raise MemoryStoreError(f"Could not write memory files: {exc.strerror or exc}; try again") from exc
            self._cache.settle()
            counts.deleted = len(summary["delete"])
            if paths and self._versioning is not None:
                self._commit(_message(why, summary), paths)
            return counts

    def _write_files(
        self, prepared: Changes, current: Mapping[str, MemoryEntry]
    ) -> tuple[list[Path], dict[str, list[str]], set[Scope]]:
        writes: list[tuple[Path, MemoryEntry]] = []
        removals: list[Located] = []
        summary: dict[str, list[str]] = {"add": [], "update": [], "delete": []}
        for name, entry in prepared.items():
            old = self._cache.entries.get(name)
            target = None if entry is None else self.target_path(entry)
            if entry is None:
                summary["delete"].append(name)
            elif entry != current.get(name) or old is None or old.path != target:
                writes.append((target, entry))  # type: ignore[arg-type]
                summary["update" if name in current else "add"].append(name)
            if old is not None and old.path != target:
                removals.append(old)  # deleted, or moved to the other scope
            # A copy in the other scope left by an interrupted move would otherwise come back once this one goes.
            removals += [
                c for c in self._cache.copies(name) if c.path != target and (old is None or c.path != old.path)
            ]
        for folder in {target.parent for target, _ in writes}:
            ensure_private_dir(folder)
        atomic_write_many([(target, entry_file.render(entry)) for target, entry in writes])
        for target, entry in writes:
            self._cache.remember(entry.type.scope, target, entry)
        for old in removals:  # only once every new file is in place: a crash never loses a memory
            old.path.unlink(missing_ok=True)
            self._cache.forget(old.scope, old.path)
        touched = {entry.type.scope for _, entry in writes} | {old.scope for old in removals}
        if touched:
            self._cache.assemble()
        return [target for target, _ in writes] + [old.path for old in removals], summary, touched

    def _write_indexes(self, scopes: set[Scope]) -> list[Path]:
        written = []
        for scope in sorted(scopes):
            index = self.dirs[scope] / INDEX_NAME
            entries = self._cache.scope_entries(scope)
            if entries or index.exists():
                ensure_private_dir(index.parent)
                atomic_write_text(index, entry_file.render_index(entries))
                written.append(index)
            self._cache.index_written(scope)
        return written

    def _commit(self, message: str, paths: list[Path]) -> None:
        try:
            self._versioning.commit(message, paths)  # type: ignore[union-attr]
        except Exception as exc:  # a versioning failure must not undo or hide a write that happened
            self._recover = True  # the next write commits these files
            log.warning("memory_commit_failed", message=message, error=repr(exc))

    def _recover_leftovers(self) -> None:
        """Under the lock: remove old temp files of killed writes and commit what a killed session left
        uncommitted, before this write's own changes so that each stays a change of its own."""
        for folder in self.dirs.values():
            remove_stale_temp_files(folder)
        commit_pending = getattr(self._versioning, "commit_pending", None)
        try:
            if commit_pending is not None:
                commit_pending()
            self._recover = False
        except Exception as exc:  # like a failed commit: the write goes on, the next one tries again
            log.warning("memory_recovery_commit_failed", error=repr(exc))

    def _sync(self) -> None:
        """Bring the cache up to date; repair a missing or stale index through the write path."""
        with self._guard:
            stale = self._cache.refresh()
        if not stale:
            return
        try:
            self._mutate("reindex", lambda cur: ({}, AppliedCounts()))
        except (CatcodeError, OSError) as exc:  # a read must still succeed on a read-only disk
            log.warning("memory_index_rebuild_failed", error=str(exc))
            with self._guard:
                for scope in stale:
                    self._cache.index_written(scope)  # do not retry on every read


def _written_name(op: MemoryOperation) -> str | None:
    """The memory an operation writes: the entry's name for ADD, the target for UPDATE, else None."""
    if op.entry is None:
        return None
    if op.action is MemoryAction.ADD:
        return op.entry.name
    return op.target_name if op.action is MemoryAction.UPDATE else None


def _counts(existed: bool, name: str) -> AppliedCounts:
    if existed:
        return AppliedCounts(updated=1, updated_names=[name])
    return AppliedCounts(added=1, added_names=[name])


def _message(why: str, summary: dict[str, list[str]]) -> str:
    """The commit message, e.g. ``session-end: add user-prefers-vim; update project-api-style``."""
    parts = []
    for verb, names in summary.items():
        if names:
            more = f" (+{len(names) - 10} more)" if len(names) > 10 else ""
            parts.append(f"{verb} {', '.join(names[:10])}{more}")
    return f"{why}: {'; '.join(parts) or 'rebuild MEMORY.md'}"
