"""``WritePath``: the ONE write path of the memory store, and the steps it orders under the lock.

Every change (update, delete, apply, clear, move, rename, index repair) goes through ``WritePath.mutate``, which takes
the cross-process lock, records what was left uncommitted (``reconcile``), reloads from disk, lets the caller
decide the changes against what is there now, validates names, redacts secrets, writes files atomically (0600,
folders 0700), rebuilds each touched ``MEMORY.md`` once and makes one versioning commit saying what changed and
why. Only valid memory files, redacted, are ever committed. ``MemoryStore`` (``store.py``) decides; this writes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from catcode.errors import MemoryStoreError, one_line
from catcode.fsutil import (
    atomic_write_lines,
    atomic_write_many,
    ensure_private_dir,
    locked,
    remove_stale_temp_files,
)
from catcode.log import get_logger
from catcode.memory.store import entry_file, leftovers
from catcode.memory.store.batch import Changes
from catcode.memory.store.cache import DiskCache, Located
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.file_state import MAX_FILE_BYTES
from catcode.memory.store.models import AppliedCounts, MemoryEntry, Scope
from catcode.memory.store.names import validate_new_name

__all__ = ["Decide", "Redactor", "Versioning", "WritePath"]

log = get_logger(__name__)

Redactor = Callable[[str], tuple[str, list[str]]]
"""Returns the text with secrets replaced and the kinds of secret found (one item per redaction)."""
Decide = Callable[[Mapping[str, Located]], tuple[Changes, AppliedCounts]]
"""Given the memories on disk now (under the lock), the changes to make and the counts to report."""
RECOVER = "recover: record changes made outside catcode (an interrupted session or a hand edit)"
RECORD_CHUNK = 5_000
"""Uncommitted files recorded under one hold of the lock; a write records them first only up to this many."""


class Versioning(Protocol):
    """Records each batch of memory changes (``GitStore``).

    It may also offer ``uncommitted(folders) -> list[str]``: the files (absolute paths) under ``folders`` that
    differ from what was last recorded. The store calls it before its first write (and after a failed one) and
    records those of them that are valid memory files, redacted, so that what a killed session or a hand edit left
    is versioned too."""

    def commit(self, message: str, paths: list[Path]) -> str | None:
        """Commit ``paths`` (written or deleted) with ``message``; the commit id, or None if nothing changed."""
        ...


class WritePath:
    """Writes of both scopes' memory files through one path; ``guard`` protects ``cache`` (taken AFTER the file
    lock)."""

    def __init__(
        self,
        dirs: dict[Scope, Path],
        cache: DiskCache,
        *,
        lock_path: Path,
        redactor: Redactor | None,
        versioning: Versioning | None,
    ) -> None:
        self.dirs, self.cache, self.lock_path = dirs, cache, lock_path
        self.redactor, self.versioning = redactor, versioning
        self.guard = threading.RLock()
        self._recover = True  # record what is uncommitted: on the first write, and after a failed one
        self.last_commit: str | None = None
        """The change that recorded the latest write (None: it changed nothing, or no versioning)."""
        self._texts: dict[int, tuple[MemoryEntry, str]] = {}  # what ``prepare`` rendered, until the write is done
        self.unversioned = ""
        """Why the latest commit failed ("" once one succeeds): files written since are on disk, not in history."""
        self.on_unversioned: Callable[[str], None] | None = None
        """Told (with the reason) when a commit fails after one succeeded, or first: one line for the person."""

    def prepare(self, entry: MemoryEntry) -> tuple[MemoryEntry, int]:
        """``entry`` exactly as it would be written (secrets redacted, text encodable) and the number of
        redactions. Raises ``MemoryStoreError`` when it cannot be written (bad name, too large...)."""
        validate_new_name(entry.name)
        redacted = 0
        values = {}
        for field in ("description", "content"):
            text = entry_file.clean_text(getattr(entry, field))
            if self.redactor is not None:
                text, kinds = self.redactor(text)
                redacted += len(kinds)
            values[field] = text
        entry = entry.model_copy(update=values)
        text = entry_file.render(entry)
        size = len(text.encode("utf-8"))
        if size > MAX_FILE_BYTES:
            raise MemoryStoreError(f"Memory {entry.name} is too large ({size // 1024} KB; the limit is 256 KB)")
        self._texts[id(entry)] = (entry, text)  # written as it was rendered here (rendering is most of a write)
        return entry, redacted

    def reconcile(self, chunk: int = RECORD_CHUNK) -> str | None:
        """Record what was left uncommitted (hand edits, a killed session) and rebuild stale indexes; the id of the
        last change that recorded it, or None. The scans (git status, reading files not read yet) run without the
        lock; what they found is recorded ``chunk`` files at a time, each under the lock (a write of another
        session waits for one chunk, never for a whole store's worth)."""
        pending = self._uncommitted()
        self.cache.complete(self.guard)
        commit = None
        if pending:
            pending.sort(key=lambda path: path.endswith("/" + INDEX_NAME))  # the indexes last: rebuilt once, at the end
        for first in range(0, len(pending or ()), chunk):
            last = first + chunk >= len(pending or ())
            paths = [Path(path) for path in (pending or [])[first : first + chunk]]
            with locked(self.lock_path), self.guard:
                try:
                    commit = self._record_leftovers(paths, indexes=last) or commit
                finally:
                    self._texts.clear()  # what ``prepare`` rendered for this chunk: 100,000 files are never held
        with locked(self.lock_path), self.guard:
            self._remove_temp_files()
            if pending is not None:
                self._recover = False
            self.cache.refresh(force=True)
            stale = self.cache.stale_indexes()
            if stale:
                paths = self._write_indexes(stale)
                if paths and self.versioning is not None:
                    commit = self._commit("reindex: rebuild MEMORY.md", paths) or commit
            return commit

    def mutate(self, why: str, decide: Decide, *, every_copy: bool = False, keep_copies: bool = False) -> AppliedCounts:
        """THE write path: lock, reconcile, reload, decide, validate + redact everything, write, index, commit.

        What was left uncommitted is looked for (git status) before the lock is taken, on the first write of this
        process and after a failed one, and recorded first when it is a little; a lot (a folder of hand-written
        memories) is ``reconcile``'s, chunk by chunk — only the files this write replaces are recorded first then.
        Files listed but not read yet are read before the lock too."""
        pending = self._uncommitted() if self._recover else None
        self.cache.complete(self.guard)
        with locked(self.lock_path), self.guard:
            try:
                return self._mutate(why, decide, pending, every_copy, keep_copies)
            finally:
                self._texts.clear()

    def _mutate(
        self, why: str, decide: Decide, pending: list[str] | None, every_copy: bool, keep_copies: bool
    ) -> AppliedCounts:
        """``mutate`` under the lock."""
        self._remove_temp_files()
        if pending is not None and len(pending) <= RECORD_CHUNK:
            self._record_leftovers([Path(path) for path in pending])
            self._recover = False
        self.cache.refresh(force=True)
        stale = self.cache.stale_indexes()
        changes, counts = decide(self.cache.entries)
        edited = self.cache.recheck(list(changes))  # changed on disk since read: what was there is recorded first
        if edited:
            self._record_leftovers(edited)
            changes, counts = decide(self.cache.entries)
        prepared: Changes = {}
        for name, change in changes.items():
            prepared[name] = None
            if change is not None:
                entry, redacted = self.prepare(change[0])
                prepared[name] = (entry, change[1])
                counts.redacted += redacted
        targets = [self.dirs[c[1]] / f"{n}.md" for n, c in prepared.items() if c is not None]
        try:
            paths, summary, touched = self._write_files(prepared, every_copy, keep_copies)
            paths += self._write_indexes(touched | stale)
        except OSError as exc:
            self.cache.invalidate(targets)  # whatever reached the disk is picked up again
            self._recover = True  # and committed by the next write
            raise MemoryStoreError(f"Could not write memory files: {exc.strerror or exc}; try again") from exc
        self.cache.settle()
        counts.deleted = len(summary["delete"])
        written = {*summary["add"], *summary["update"], *summary["move"]}
        counts.unchanged_names = [name for name, change in prepared.items() if change and name not in written]
        if paths and self.versioning is not None:
            counts.commit = self._commit(_message(why, summary), paths)
            counts.unversioned = self.unversioned
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
            old = self.cache.entries.get(name)
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
            for copy in [] if keep_copies else self.cache.copies(name):
                if copy.path not in keep and (every_copy or (old is not None and copy.entry == old.entry)):
                    removals.append(copy)
        for folder in {target.parent for target, _ in writes}:
            ensure_private_dir(folder)
        atomic_write_many([(target, self._text(entry)) for target, entry in writes])
        for scope in Scope:
            self.cache.remember(scope, [(target, entry) for target, entry in writes if self._scope_at(target) is scope])
        for old in removals:  # only once every new file is in place: a crash never loses a memory
            old.path.unlink(missing_ok=True)
        for scope in Scope:
            self.cache.forget(scope, [old.path for old in removals if old.scope is scope])
        touched = {self._scope_at(target) for target, _ in writes} | {old.scope for old in removals}
        return [target for target, _ in writes] + [old.path for old in removals], summary, touched

    def _text(self, entry: MemoryEntry) -> str:
        """The file text of ``entry``: as ``prepare`` rendered it, when it did."""
        prepared, text = self._texts.get(id(entry), (None, ""))
        return text if prepared is entry else entry_file.render(entry)

    def _scope_kinds(self) -> set[Path]:
        """The folders holding every user's scope and every project's scope (``users/``, ``projects/``)."""
        return {folder.parent for folder in self.dirs.values()}

    def _scope_at(self, path: Path) -> Scope:
        return Scope.USER if path.parent == self.dirs[Scope.USER] else Scope.PROJECT

    def _write_indexes(self, scopes: set[Scope]) -> list[Path]:
        written = []
        for scope in sorted(scopes):
            index = self.dirs[scope] / INDEX_NAME
            if self.cache.counts()[scope] or index.exists():
                ensure_private_dir(index.parent)
                atomic_write_lines(index, self.cache.index_lines(scope))
                written.append(index)
            self.cache.index_written(scope)
        return written

    def _commit(self, message: str, paths: list[Path]) -> str | None:
        """Commit ``paths``; a failure is kept in ``unversioned`` and said through ``on_unversioned`` (once until a
        commit succeeds again), never raised: the files are written and in use, and the next write records them."""
        try:
            sha = self.versioning.commit(message, paths)  # type: ignore[union-attr]
        except Exception as exc:  # a versioning failure must not undo or hide a write that happened
            self._recover = True  # the next write commits these files
            log.warning("memory_commit_failed", message=message, error=repr(exc))
            self._unversioned(exc)
            return None
        self.unversioned = ""
        return sha

    def _unversioned(self, exc: Exception) -> None:
        """A commit (or the look for what is uncommitted) failed: keep why, and say it unless it was said already."""
        first = not self.unversioned
        self.unversioned = one_line(exc)
        if first and self.on_unversioned is not None:
            try:
                self.on_unversioned(self.unversioned)
            except Exception:
                log.warning("memory_unversioned_notice_failed", exc_info=True)

    def _remove_temp_files(self) -> None:
        """Under the lock: remove old temp files of killed writes."""
        for folder in self.dirs.values():
            remove_stale_temp_files(folder)

    def _uncommitted(self) -> list[str] | None:
        """What is uncommitted in every scope folder of the memory root (``Versioning.uncommitted``), looked for
        without the lock, as plain strings (100,000 ``Path`` objects would weigh tens of MB); None when it cannot be
        known (no versioning: then nothing is ever due)."""
        uncommitted = getattr(self.versioning, "uncommitted", None)
        if uncommitted is None:
            self._recover = False
            return None
        try:
            return list(uncommitted(sorted(self._scope_kinds())))
        except Exception as exc:  # like a failed commit: the write goes on, the next one tries again
            log.warning("memory_recovery_scan_failed", error=repr(exc))
            self._unversioned(exc)
            return None

    def _record_leftovers(self, pending: list[Path], *, indexes: bool = True) -> str | None:
        """Under the lock: record ``pending`` (uncommitted files; only what ``leftovers.plan`` allows: valid memory
        files, redacted) as a change of its own, before this write's changes; with ``indexes``, the ``MEMORY.md``
        they make stale too."""
        if not pending:
            return None
        for path in pending:  # what is in the catalogue is what the file holds now
            if path.parent in self.dirs.values():
                self.cache.fresh(self._scope_at(path), path.name)
        self.cache.refresh()
        folders = set(self.dirs.values())
        found = leftovers.plan(
            pending, folders, self.cache.located_at, self.cache.copies, self.prepare, self.redactor,
            self._scope_kinds(),
        )  # fmt: skip
        if not found:
            return None
        for path in found.paths:  # rewritten redacted, or removed (a finished move)
            if path.parent in folders:
                self.cache.fresh(self._scope_at(path), path.name)
        own = [folder for folder in found.index_folders if folder in folders]
        stale = (
            self.cache.stale_indexes() | {self._scope_at(folder / INDEX_NAME) for folder in own} if indexes else set()
        )
        paths = found.paths + self._write_indexes(stale)
        self.cache.settle()
        log.info("memory_leftovers_recorded", files=len(paths))
        return self._commit(RECOVER, paths)


def _message(why: str, summary: dict[str, list[str]]) -> str:
    """The commit message, e.g. ``session-end: add user-prefers-vim; update project-api-style``."""
    parts = []
    for verb, names in summary.items():
        if names:
            more = f" (+{len(names) - 10} more)" if len(names) > 10 else ""
            parts.append(f"{verb} {', '.join(names[:10])}{more}")
    return f"{why}: {'; '.join(parts) or 'rebuild MEMORY.md'}"
