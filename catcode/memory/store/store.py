"""``MemoryStore``: the memory files of the user scope and the project scope, with ONE write path.

A new user or feedback memory goes to ``user_dir`` ("all projects"), a project or reference one to ``project_dir``
("this project"), as ``placement`` decides (``scopes.py``: a correction naming this project's files stays here).
Once written, a memory stays in its scope whatever its type becomes; only ``move`` changes it. So no write ever
deletes a memory of the other scope: the user scope is shared by every project. A name is unique in every view:
a new user memory may not take a name a project memory of any project has, nor a new project memory a name a
user memory of any user has (each project is seen by every user working in it); such a memory is renamed
(``apply``) or refused (``update``).

Every change (update, delete, apply, clear, move, rename, index repair) goes through ``_mutate``, which takes the
cross-process lock, records what was left uncommitted (``reconcile``), reloads from disk, validates names, redacts
secrets, writes files atomically (0600, folders 0700), rebuilds each touched ``MEMORY.md`` once and makes one
versioning commit saying what changed and why. Reading never writes: a stale index is rebuilt by the next write,
or by ``reconcile`` (at session start). Only valid memory files, redacted, are ever committed.

Over the usual 250 lines on purpose: the one write path and the steps it orders under the lock (reconcile, reload,
decide, prepare, write files, write indexes, commit) stay in one module, to be read and reviewed at once."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Protocol

from catcode.errors import MemoryStoreError
from catcode.fsutil import atomic_write_many, atomic_write_text, ensure_private_dir, locked, remove_stale_temp_files
from catcode.log import get_logger
from catcode.memory.store import entry_file, leftovers
from catcode.memory.store.batch import Changes, decide_batch
from catcode.memory.store.cache import DUPLICATE, MAX_FILE_BYTES, DiskCache, Located, MemoryProblem
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.models import AppliedCounts, MemoryAction, MemoryEntry, MemoryOperation, Scope
from catcode.memory.store.names import validate_name, validate_new_name
from catcode.memory.store.scan_record import ScanRecord, code_stamp
from catcode.memory.store.scopes import Placement, ScopeRules

__all__ = ["MemoryProblem", "MemoryStore", "Redactor", "Versioning"]

log = get_logger(__name__)

Redactor = Callable[[str], tuple[str, list[str]]]
"""Returns the text with secrets replaced and the kinds of secret found (one item per redaction)."""
Decide = Callable[[Mapping[str, Located]], tuple[Changes, AppliedCounts]]
RECOVER = "recover: record changes made outside catcode (an interrupted session or a hand edit)"


class Versioning(Protocol):
    """Records each batch of memory changes (``GitStore``).

    It may also offer ``uncommitted(folders) -> list[Path]``: the files under ``folders`` that differ from what
    was last recorded. The store calls it before its first write (and after a failed one) and records those of them
    that are valid memory files, redacted, so that what a killed session or a hand edit left is versioned too."""

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
        placement: Callable[[MemoryEntry], Scope] | None = None,
        scan_record: Path | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        """``scan_record``: where to keep what reading the files gave, so that the next process parses only the
        files that changed (``scan_record.py``); None keeps nothing. ``clock``: the wall clock in ns (tests move
        it on: a file read within a tick of its last change is not recorded)."""
        if Path(user_dir).resolve() == Path(project_dir).resolve():
            raise ValueError("the user scope and the project scope need different folders")
        self.dirs = {Scope.USER: Path(user_dir).absolute(), Scope.PROJECT: Path(project_dir).absolute()}
        self.root = Path(os.path.commonpath([str(user_dir), str(project_dir)]))
        self._lock_path = lock_path
        self._redactor = redactor
        self._versioning = versioning
        self.today = today
        self.placement = placement or Placement()
        self.rules = ScopeRules(self.dirs, self.root, self.placement)
        record = ScanRecord(scan_record, self.dirs, code_stamp(redactor)) if scan_record else None
        self._cache = DiskCache(
            self.dirs, self.root, (lambda text: redactor(text)[0]) if redactor else None, record, clock
        )
        self._guard = threading.RLock()  # protects the cache; always taken AFTER the file lock
        self._recover = True  # record what is uncommitted: on the first write, and after a failed one
        self.last_commit: str | None = None
        """The change that recorded this store's latest write (None: it changed nothing, or no versioning)."""

    # ----- reading (never writes anything) ------------------------------------------------------------------
    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a scope changes (also by another process). Cheap: a few ``os.stat`` calls."""
        self._sync()
        with self._guard:
            return (*(self._cache.scanned or ()), self._cache.generation)

    def load_all(self) -> list[MemoryEntry]:
        """Every valid memory of both scopes, sorted by name (a snapshot; entries are immutable)."""
        self._sync()
        return list(self._cache.snapshot)

    def located(self) -> list[tuple[MemoryEntry, Scope]]:
        """Every valid memory with the scope it lives in, sorted by name."""
        self._sync()
        with self._guard:
            return [(loc.entry, loc.scope) for loc in self._cache.entries.values()]

    def get(self, name: str) -> MemoryEntry | None:
        """The memory called ``name``, if any."""
        self._sync()
        found = self._cache.entries.get(name)
        return found.entry if found else None

    def scope_of(self, name: str) -> Scope | None:
        """The scope the memory called ``name`` lives in, if there is one."""
        self._sync()
        found = self._cache.entries.get(name)
        return found.scope if found else None

    def path_of(self, name: str) -> Path | None:
        """The file holding the memory called ``name``, if any."""
        self._sync()
        found = self._cache.entries.get(name)
        return found.path if found else None

    def problems(self) -> list[MemoryProblem]:
        """The files skipped because they could not be read (or are hidden by a name clash), and why."""
        self._sync()
        return list(self._cache.problems)

    def hidden(self) -> list[MemoryProblem]:
        """The valid memories hidden by a memory of the same name in the other scope (made from another project)."""
        return [p for p in self.problems() if p.reason.startswith(DUPLICATE)]

    def target_path(self, entry: MemoryEntry) -> Path:
        """Where ``entry`` is written: where its memory is now, else where ``placement`` puts a new one."""
        self._sync()
        with self._guard:
            found = self._cache.entries.get(validate_name(entry.name))
        return found.path if found else self.dirs[self.rules.place(entry)] / f"{entry.name}.md"

    def prepare(self, entry: MemoryEntry) -> tuple[MemoryEntry, int]:
        """``entry`` exactly as it would be written (secrets redacted, text encodable) and the number of
        redactions. Raises ``MemoryStoreError`` when it cannot be written (bad name, too large...)."""
        validate_new_name(entry.name)
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
        return entry, redacted

    def merged(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` as ``update`` would write it: the existing ``created_at`` kept, ``updated_at`` today."""
        self._sync()
        with self._guard:
            found = self._cache.entries.get(entry.name)
        return self._merged(found.entry if found else None, entry)

    # ----- writing -------------------------------------------------------------------------------------
    def update(self, entry: MemoryEntry, *, why: str = "update") -> AppliedCounts:
        """Write ``entry`` keeping the existing memory's ``created_at`` and scope; ``updated_at`` becomes today.
        A new memory whose name another project's memory has is refused (``MemoryStoreError``)."""
        validate_name(entry.name)

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            old = cur.get(entry.name)
            scope = old.scope if old else self.rules.place(entry, refuse=True)
            self._refuse_unreadable(self.dirs[scope] / f"{entry.name}.md")
            return {entry.name: (self._merged(old.entry if old else None, entry), scope)}, _counts(old, entry.name)

        return self._mutate(why, decide)

    def delete(self, name: str, *, why: str = "delete") -> bool:
        """Delete the memory called ``name``; False when there is none."""
        validate_name(name)
        return self._mutate(why, lambda cur: ({name: None} if name in cur else {}, AppliedCounts())).deleted == 1

    def clear(self, *, why: str = "clear") -> int:
        """Delete every memory of both scopes of this view (unreadable files are left alone); how many."""

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            return dict.fromkeys(cur), AppliedCounts()

        counts = self._mutate(why, decide, every_copy=True)
        return counts.deleted

    def move(self, name: str, scope: Scope, *, why: str = "move") -> AppliedCounts:
        """Move the memory ``name`` to ``scope`` (its text and dates unchanged). ``MemoryStoreError`` when there is
        no such memory, it is there already, or the name is taken in the target scope."""
        validate_name(name)

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            old = cur.get(name)
            if old is None:
                raise MemoryStoreError(f"No memory named {name}")
            if old.scope is scope:
                raise MemoryStoreError(f"{name} is already kept for {scope.label}")
            self.rules.refuse_clash(name, scope, moving=True)
            self._refuse_unreadable(self.dirs[scope] / f"{name}.md")
            return {name: (old.entry, scope)}, AppliedCounts(updated=1, updated_names=[name])

        return self._mutate(why, decide)

    def rename(self, name: str, new_name: str, *, why: str = "rename") -> AppliedCounts:
        """Give the memory ``name`` the free name ``new_name`` (same scope, same text)."""
        validate_new_name(new_name)

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            old = cur.get(name)
            if old is None:
                raise MemoryStoreError(f"No memory named {name}")
            if new_name in cur or self._cache.copies(new_name):
                raise MemoryStoreError(f"The name {new_name} is taken")
            self.rules.refuse_clash(new_name, old.scope)
            renamed = old.entry.model_copy(update={"name": new_name})
            counts = AppliedCounts(added=1, added_names=[new_name], renamed={name: new_name})
            return {name: None, new_name: (renamed, old.scope)}, counts

        return self._mutate(why, decide, keep_copies=True)

    def apply(
        self, operations: list[MemoryOperation], *, why: str, still_wanted: Callable[[], bool] | None = None
    ) -> AppliedCounts:
        """Apply consolidation decisions as one batch (one index rebuild, one commit).

        ADD without an entry, UPDATE without a target or an entry, and SKIP count as skipped. UPDATE writes
        the candidate under ``target_name``. ADD and UPDATE keep ``created_at`` and the scope when the name exists.
        A new memory whose name another project's memory has is saved under a free name (``renamed``). An
        operation whose target file exists but cannot be read is skipped (logged), never overwritten.
        ``still_wanted`` is asked under the lock: False applies nothing (``superseded``)."""
        for op in operations:
            if op.action is MemoryAction.ADD and op.entry is not None:
                validate_name(op.entry.name)
            elif op.action is MemoryAction.UPDATE and op.target_name is not None:
                validate_name(op.target_name)

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            if still_wanted is not None and not still_wanted():
                log.info("memory_batch_superseded", why=why, operations=len(operations))
                return {}, AppliedCounts(superseded=True)
            return decide_batch(
                operations, cur, rules=self.rules, problem_at=self._cache.problem_at, today=self.today,
                merged=self._merged,
            )  # fmt: skip

        return self._mutate(why, decide)

    def reconcile(self) -> str | None:
        """Record what was left uncommitted (hand edits, a killed session) and rebuild stale indexes, under the
        lock; the id of the change that recorded it, or None."""
        with locked(self._lock_path), self._guard:
            self._recover = True
            commit = self._recover_leftovers()
            stale = self._cache.refresh()
            if stale:
                paths = self._write_indexes(stale)
                if paths and self._versioning is not None:
                    commit = self._commit("reindex: rebuild MEMORY.md", paths) or commit
            return commit

    def _refuse_unreadable(self, target: Path) -> None:
        problem = self._cache.problem_at(target)
        if problem:
            raise MemoryStoreError(f"{target} exists but cannot be read ({problem}); fix or remove it first")

    def _merged(self, old: MemoryEntry | None, entry: MemoryEntry) -> MemoryEntry:
        created = old.created_at if old else entry.created_at
        return entry.model_copy(update={"created_at": created, "updated_at": self.today()})

    def _mutate(
        self, why: str, decide: Decide, *, every_copy: bool = False, keep_copies: bool = False
    ) -> AppliedCounts:
        """THE write path: lock, reconcile, reload, decide, validate + redact everything, write, index, commit."""
        with locked(self._lock_path), self._guard:
            if self._recover:
                self._recover_leftovers()
            stale = self._cache.refresh()
            current = dict(self._cache.entries)
            changes, counts = decide(current)
            prepared: Changes = {}
            for name, change in changes.items():
                prepared[name] = None
                if change is not None:
                    entry, redacted = self.prepare(change[0])
                    prepared[name] = (entry, change[1])
                    counts.redacted += redacted
            try:
                paths, summary, touched = self._write_files(prepared, every_copy, keep_copies)
                paths += self._write_indexes(touched | stale)
            except OSError as exc:
                self._cache.invalidate()  # whatever reached the disk is picked up by the next scan
                self._recover = True  # and committed by the next write
                raise MemoryStoreError(f"Could not write memory files: {exc.strerror or exc}; try again") from exc
            self._cache.settle()
            counts.deleted = len(summary["delete"])
            written = {*summary["add"], *summary["update"], *summary["move"]}
            counts.unchanged_names = [name for name, change in prepared.items() if change and name not in written]
            if paths and self._versioning is not None:
                counts.commit = self._commit(_message(why, summary), paths)
            self.last_commit = counts.commit
            return counts

    def _write_files(
        self, prepared: Changes, every_copy: bool, keep_copies: bool
    ) -> tuple[list[Path], dict[str, list[str]], set[Scope]]:
        """Write and remove files (``every_copy``: every copy of a deleted name; ``keep_copies``: only the one in
        view, as a rename away from a clash does)."""
        writes: list[tuple[Path, MemoryEntry]] = []
        removals: list[Located] = []
        summary: dict[str, list[str]] = {"add": [], "update": [], "delete": [], "move": []}
        for name, change in prepared.items():
            old = self._cache.entries.get(name)
            target = None if change is None else self.dirs[change[1]] / f"{name}.md"
            if change is None:
                summary["delete"].append(name)
            elif old is None or change[0] != old.entry or old.path != target:
                writes.append((target, change[0]))  # type: ignore[arg-type]
                verb = "add" if old is None else "move" if old.path != target else "update"
                summary[verb].append(name)
            if old is not None and old.path != target:
                removals.append(old)  # deleted, or moved to the other scope
            # A copy in the other scope that a killed move left behind (the same memory, byte for byte) would come
            # back once this one goes; a different memory of the same name is another project's and is kept.
            keep = target, old.path if old else None
            for copy in [] if keep_copies else self._cache.copies(name):
                if copy.path not in keep and (every_copy or (old is not None and copy.entry == old.entry)):
                    removals.append(copy)
        for folder in {target.parent for target, _ in writes}:
            ensure_private_dir(folder)
        atomic_write_many([(target, entry_file.render(entry)) for target, entry in writes])
        for target, entry in writes:
            self._cache.remember(self._scope_at(target), target, entry)
        for old in removals:  # only once every new file is in place: a crash never loses a memory
            old.path.unlink(missing_ok=True)
            self._cache.forget(old.scope, old.path)
        touched = {self._scope_at(target) for target, _ in writes} | {old.scope for old in removals}
        if touched:
            self._cache.assemble()
        return [target for target, _ in writes] + [old.path for old in removals], summary, touched

    def _scope_kinds(self) -> set[Path]:
        """The folders holding every user's scope and every project's scope (``users/``, ``projects/``)."""
        return {folder.parent for folder in self.dirs.values()}

    def _scope_at(self, path: Path) -> Scope:
        return Scope.USER if path.parent == self.dirs[Scope.USER] else Scope.PROJECT

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

    def _commit(self, message: str, paths: list[Path]) -> str | None:
        try:
            return self._versioning.commit(message, paths)  # type: ignore[union-attr]
        except Exception as exc:  # a versioning failure must not undo or hide a write that happened
            self._recover = True  # the next write commits these files
            log.warning("memory_commit_failed", message=message, error=repr(exc))
            return None

    def _recover_leftovers(self) -> str | None:
        """Under the lock: remove old temp files of killed writes, then record what was left uncommitted in this
        view's folders (only what ``leftovers.plan`` allows: valid memory files, redacted) as a change of its own,
        before this write's changes."""
        for folder in self.dirs.values():
            remove_stale_temp_files(folder)
        uncommitted = getattr(self._versioning, "uncommitted", None)
        if uncommitted is None:
            self._recover = False
            return None
        try:
            pending = [Path(p) for p in uncommitted(sorted(self._scope_kinds()))]
            commit = self._record_leftovers(pending) if pending else None
            self._recover = False
            return commit
        except Exception as exc:  # like a failed commit: the write goes on, the next one tries again
            log.warning("memory_recovery_commit_failed", error=repr(exc))
            return None

    def _record_leftovers(self, pending: list[Path]) -> str | None:
        self._cache.refresh()
        valid = {loc.path: loc for scope in Scope for loc in self._cache.valid_files(scope)}
        folders = set(self.dirs.values())
        found = leftovers.plan(
            pending, folders, valid, self._cache.copies, self.prepare, self._redactor, self._scope_kinds()
        )
        if not found:
            return None
        self._cache.invalidate()
        own = [folder for folder in found.index_folders if folder in folders]
        stale = self._cache.refresh() | {self._scope_at(folder / INDEX_NAME) for folder in own}
        paths = found.paths + self._write_indexes(stale)
        self._cache.settle()
        log.info("memory_leftovers_recorded", files=len(paths))
        return self._commit(RECOVER, paths)

    def _sync(self) -> None:
        """Bring the cache up to date. Reads never write: a stale index waits for the next write or reconcile."""
        with self._guard:
            self._cache.refresh()


def _counts(old: Located | None, name: str) -> AppliedCounts:
    if old is not None:
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
