"""``MemoryStore``: the memory files of the user scope and the project scope, with ONE write path.

A new user or feedback memory goes to ``user_dir`` ("all projects"), a project or reference one to ``project_dir``
("this project"), as ``placement`` decides (``scopes.py``: a correction naming this project's files stays here).
Once written, a memory stays in its scope whatever its type becomes; only ``move`` changes it. So no write ever
deletes a memory of the other scope: the user scope is shared by every project. A name is unique in every view:
a new user memory may not take a name a project memory of any project has, nor a new project memory a name a
user memory of any user has (each project is seen by every user working in it); such a memory is renamed
(``apply``) or refused (``update``).

Every change goes through the one write path (``writer.py``: lock, reconcile, reload, decide, redact, write,
index, commit); this module says what each change is, decided against the memories on disk under the lock.
Reading never writes: a stale index is rebuilt by the next write, or by ``reconcile`` (at session start)."""

from __future__ import annotations

import heapq
import os
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from pathlib import Path

from catcode.errors import MemoryStoreError
from catcode.log import get_logger
from catcode.memory.store.batch import Changes, decide_batch
from catcode.memory.store.cache import DUPLICATE, DiskCache, Located, MemoryProblem
from catcode.memory.store.catalog import code_stamp
from catcode.memory.store.models import AppliedCounts, MemoryAction, MemoryEntry, MemoryOperation, MemoryType, Scope
from catcode.memory.store.names import validate_name, validate_new_name
from catcode.memory.store.scan import catalog_files, holding, reader
from catcode.memory.store.scopes import Placement, ScopeRules
from catcode.memory.store.writer import Redactor, Versioning, WritePath

__all__ = ["MemoryProblem", "MemoryStore"]

log = get_logger(__name__)

READ_BUDGET = 250
"""New files a process's reads read at once at most: more than that (a first look at a folder of memories written
by hand) are read in the background, every one of them."""


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
        catalog_dir: Path | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        """``catalog_dir``: where the catalogues of the two folders are kept (``catalog.py``), so that a process
        knows the memories without reading their files; None keeps them in memory (every file is read).
        ``clock``: the wall clock in ns (tests move it on: a file read within a tick of its last change is read
        again)."""
        if Path(user_dir).resolve() == Path(project_dir).resolve():
            raise ValueError("the user scope and the project scope need different folders")
        self.dirs = {Scope.USER: Path(user_dir).absolute(), Scope.PROJECT: Path(project_dir).absolute()}
        self.root = Path(os.path.commonpath([str(user_dir), str(project_dir)]))
        self.today = today
        self.placement = placement or Placement()
        self.rules = ScopeRules(self.dirs, self.root, self.placement)
        self._cache = DiskCache(
            self.dirs, self.root, (lambda text: redactor(text)[0]) if redactor else None, catalog_dir,
            stamp=code_stamp(redactor), clock=clock,
        )  # fmt: skip
        self._writer = WritePath(self.dirs, self._cache, lock_path=lock_path, redactor=redactor, versioning=versioning)
        self._guard = self._writer.guard  # protects the cache; always taken AFTER the file lock

    @property
    def last_commit(self) -> str | None:
        """The change that recorded this store's latest write (None: it changed nothing, or no versioning)."""
        return self._writer.last_commit

    @property
    def unversioned(self) -> str:
        """Why the latest commit failed ("" once one succeeds): what was written since is on disk, not in history."""
        return self._writer.unversioned

    def on_unversioned(self, say: Callable[[str], None]) -> None:
        """Call ``say(reason)`` when a commit fails (the first failure, and the first after one succeeded again)."""
        self._writer.on_unversioned = say

    # ----- reading (never writes memory files) ------------------------------------------------------------
    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever a scope changes (also by another process). Cheap: two ``os.stat`` calls and a query."""
        self._sync()
        with self._guard:
            return self._cache.fingerprint()

    def load_all(self) -> list[MemoryEntry]:
        """Every valid memory of both scopes, sorted by name (a snapshot; entries are immutable). Holds them all:
        what needs less asks for less (``get``, ``newest``, ``counts``, ``names``)."""
        return [entry for entry, _ in self.located()]

    def located(self) -> list[tuple[MemoryEntry, Scope]]:
        """Every valid memory with the scope it lives in, sorted by name (every file read first)."""
        self.complete()
        with self._guard:
            return [(loc.entry, loc.scope) for loc in self._cache.visible()]

    def newest_first(self, chunk: int = 1_000) -> Iterator[tuple[MemoryEntry, Scope]]:
        """Every memory newest first: by update day, then this project's before this user's, then by name, each
        descending — the exact reverse of ``iter_listed``'s memories sorted (stably) by day — read ``chunk`` at a
        time from each scope's catalogue (a store of 100,000 is never held whole)."""
        self.complete()
        self._sync()
        scopes = [self._dated(scope, chunk) for scope in (Scope.PROJECT, Scope.USER)]
        rank = {Scope.USER: 0, Scope.PROJECT: 1}
        return heapq.merge(
            *scopes, key=lambda pair: (pair[0].updated_at.isoformat(), rank[pair[1]], pair[0].name), reverse=True
        )

    def _dated(self, scope: Scope, chunk: int) -> Iterator[tuple[MemoryEntry, Scope]]:
        before = None
        while True:
            with self._guard:
                found = self._cache.catalogs.dated(scope, before, chunk)
            if not found:
                return
            yield from ((entry, scope) for entry in found)
            before = (found[-1].updated_at.isoformat(), found[-1].name)

    def get(self, name: str) -> MemoryEntry | None:
        """The memory called ``name``, if any, as its file holds it now."""
        found = self._lookup(name)
        return found.entry if found else None

    def scope_of(self, name: str) -> Scope | None:
        """The scope the memory called ``name`` lives in, if there is one."""
        found = self._lookup(name)
        return found.scope if found else None

    def path_of(self, name: str) -> Path | None:
        """The file holding the memory called ``name``, if any."""
        found = self._lookup(name)
        return found.path if found else None

    def newest(self, scope: Scope, limit: int) -> list[MemoryEntry]:
        """The ``limit`` most recently updated memories of ``scope`` (newest first; a copy hidden by a clash aside)."""
        self._sync()
        with self._guard:
            return self._cache.newest(scope, limit)

    def counts(self) -> dict[Scope, int]:
        """How many memories each scope holds (a copy hidden by a clash aside)."""
        self._sync()
        with self._guard:
            return self._cache.counts()

    def holding(self, words: list[str], limit: int) -> list[tuple[MemoryEntry, Scope]]:
        """The ``limit`` memories read so far that hold the most telling of ``words`` (substrings, ASCII case
        aside), best first: what a search finds without the fact index (``scan.holding``)."""
        self._sync()
        with self._guard:
            files = catalog_files(self._cache.catalogs)
            if files is None:  # catalogues in memory: this connection, under the guard
                return holding(self._cache.catalogs.conn, words, limit)
        with reader(files) as conn:  # the store stays free meanwhile
            return holding(conn, words, limit)

    def listed(self, first: int = 0, count: int | None = None) -> list[tuple[MemoryEntry, Scope]]:
        """Memories in the order of every list (all projects' first, then this project's, each by name): ``count``
        of them (None: all) from the ``first``."""
        if count is None:
            self.complete()
        self._sync()
        with self._guard:
            return self._cache.page(first, count)

    def iter_listed(self, chunk: int = 1_000) -> Iterator[tuple[MemoryEntry, Scope]]:
        """Every memory in list order, ``chunk`` at a time (a list of 100,000 is never held whole)."""
        self.complete()
        self._sync()
        for scope in (Scope.USER, Scope.PROJECT):
            after = ""
            while True:
                with self._guard:
                    found = self._cache.catalogs.page(scope, 0, chunk, after=after)
                if not found:
                    break
                yield from ((entry, scope) for entry in found)
                after = found[-1].name

    def iter_summaries(self, chunk: int = 5_000) -> Iterator[tuple[str, str, MemoryType, Scope]]:
        """``(name, description, type, scope)`` of every memory in list order, ``chunk`` at a time (what a list
        prints: 100,000 in a second or two, never held whole)."""
        self.complete()
        self._sync()
        for scope in (Scope.USER, Scope.PROJECT):
            after = ""
            while True:
                with self._guard:
                    found = self._cache.catalogs.summaries(scope, after, chunk)
                if not found:
                    break
                yield from ((name, description, MemoryType(kind), scope) for name, description, kind in found)
                after = found[-1][0]

    def names(self) -> list[str]:
        """Every memory's name, sorted."""
        self._sync()
        with self._guard:
            return list(self._cache.entries)

    def marks(self) -> dict[str, int]:
        """Where the catalogues stand (each one's id and change number): what ``changed_since`` is given later."""
        self._sync()
        with self._guard:
            return self._cache.catalogs.marks()

    def changed_since(self, marks: dict[str, int]) -> set[str] | None:
        """The names of the memories changed (written, edited, removed) since ``marks``; None when a catalogue is
        not the one ``marks`` come from (recreated, or another folder): then everything may have changed."""
        self._sync()
        names: set[str] = set()
        with self._guard:
            catalogs = self._cache.catalogs
            for scope in Scope:
                seq = marks.get(catalogs.meta(scope, "id"))
                if seq is None:
                    return None
                put, gone = catalogs.changes_since(scope, seq)
                names.update(fname.removesuffix(".md") for fname in (*put, *gone))
        return names

    def indexed(self, names: list[str]) -> dict[str, tuple[MemoryEntry, Scope] | None]:
        """Each of ``names`` as the catalogues hold it (the memory shown under that name and its scope), or None
        when there is no such memory any more."""
        with self._guard:
            found = {name: self._cache.entries.get(name) for name in names}
        return {name: (loc.entry, loc.scope) if loc else None for name, loc in found.items()}

    @property
    def narrowed(self) -> int:
        """Memory files this process made private (0600) as it read them: someone could read them (a file written
        by hand, say with 0644)."""
        return self._cache.narrowed

    def large(self) -> bool:
        """Whether a folder holds more files than a process stats whole at its first look (``VERIFY_BUDGET``):
        then edits in place are looked for by ``verify``, in the background."""
        with self._guard:
            return self._cache.large()

    def unread(self) -> int:
        """Memory files listed but not read yet (a first look at a large folder reads a part of it: ``complete``)."""
        self._sync()
        with self._guard:
            return sum(len(files) for files in self._cache.unread.values())

    def catalog_files(self) -> dict[Scope, tuple[Path, str]] | None:
        """Each scope's catalogue file and the code that wrote it (its ``code`` record), or None when one is kept
        in memory: what a fresh process's quick search reads instead of the store."""
        with self._guard:
            catalogs = self._cache.catalogs
            found = {scope: (catalogs.files.get(scope), catalogs.meta(scope, "code")) for scope in Scope}
        if any(file is None or code is None for file, code in found.values()):
            return None
        return {scope: (file, code) for scope, (file, code) in found.items() if file is not None}

    def settle_listing(self, *, wait: bool = False) -> None:
        """At a process's end: record that the folders hold what the catalogues say, when they do, so that the next
        process trusts them without listing them (``DiskCache.settle_listing``; ``wait``: a tick after their last
        change, for a process nobody waits for)."""
        with self._guard:
            self._cache.settle_listing(wait=wait)

    def complete(self) -> None:
        """Read every memory file not read yet (a chunk at a time: readers in between never wait for all)."""
        self._cache.complete(self._guard)

    def verify(self) -> int:
        """Stat every memory file and read again those changed in place since they were read (the background check
        at each session's start); how many changed. Never holds the lock for more than a chunk of files."""
        return self._cache.verify(self._guard)

    def recheck(self, paths: list[Path]) -> None:
        """Read ``paths`` again now (files something other than the store rewrote: git undoing a change)."""
        with self._guard:
            for path in paths:
                self._cache.fresh_path(path)

    def problems(self) -> list[MemoryProblem]:
        """The files skipped because they could not be read (or are hidden by a name clash), and why."""
        self._sync()
        with self._guard:
            return self._cache.problems

    def hidden(self) -> list[MemoryProblem]:
        """The valid memories hidden by a memory of the same name in the other scope (made from another project)."""
        return [p for p in self.problems() if p.reason.startswith(DUPLICATE)]

    def target_path(self, entry: MemoryEntry) -> Path:
        """Where ``entry`` is written: where its memory is now, else where ``placement`` puts a new one."""
        found = self._lookup(validate_name(entry.name))
        return found.path if found else self.dirs[self.rules.place(entry)] / f"{entry.name}.md"

    def prepare(self, entry: MemoryEntry) -> tuple[MemoryEntry, int]:
        """``entry`` exactly as it would be written (secrets redacted, text encodable) and the number of
        redactions. Raises ``MemoryStoreError`` when it cannot be written (bad name, too large...)."""
        return self._writer.prepare(entry)

    def merged(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` as ``update`` would write it: the existing ``created_at`` kept, ``updated_at`` today."""
        found = self._lookup(entry.name)
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

        return self._writer.mutate(why, decide)

    def delete(self, name: str, *, why: str = "delete") -> bool:
        """Delete the memory called ``name``; False when there is none."""
        validate_name(name)
        return self._writer.mutate(why, lambda cur: ({name: None} if name in cur else {}, AppliedCounts())).deleted == 1

    def clear(self, *, why: str = "clear") -> int:
        """Delete every memory of both scopes of this view (unreadable files are left alone); how many."""

        def decide(cur: Mapping[str, Located]) -> tuple[Changes, AppliedCounts]:
            return dict.fromkeys(cur), AppliedCounts()

        counts = self._writer.mutate(why, decide, every_copy=True)
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

        return self._writer.mutate(why, decide)

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

        return self._writer.mutate(why, decide, keep_copies=True)

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

        return self._writer.mutate(why, decide)

    def reconcile(self) -> str | None:
        """Record what was left uncommitted (hand edits, a killed session) and rebuild stale indexes, under the
        lock; the id of the change that recorded it, or None."""
        return self._writer.reconcile()

    def _refuse_unreadable(self, target: Path) -> None:
        problem = self._cache.problem_at(target)
        if problem:
            raise MemoryStoreError(f"{target} exists but cannot be read ({problem}); fix or remove it first")

    def _merged(self, old: MemoryEntry | None, entry: MemoryEntry) -> MemoryEntry:
        created = old.created_at if old else entry.created_at
        return entry.model_copy(update={"created_at": created, "updated_at": self.today()})

    def _sync(self) -> None:
        """Bring the catalogues up to date with what was added or removed (at most ``READ_BUDGET`` new files read by
        this process's reads: the rest is ``complete``'s).
        Reads never write memory files: a stale index waits for the next write or reconcile."""
        with self._guard:
            self._cache.refresh(budget=max(0, READ_BUDGET - self._cache.new_files_read), part=False)

    def _lookup(self, name: str) -> Located | None:
        """The memory ``name`` as its file holds now (this project's scope first)."""
        self._sync()
        with self._guard:
            return self._cache.lookup(name)


def _counts(old: Located | None, name: str) -> AppliedCounts:
    if old is not None:
        return AppliedCounts(updated=1, updated_names=[name])
    return AppliedCounts(added=1, added_names=[name])
