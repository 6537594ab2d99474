"""``DiskCache``: what the memory folders hold, re-read only when the filesystem says something changed.

The fingerprint is the (inode, mtime, size) of both scope folders and both ``MEMORY.md`` files: an atomic
``os.replace`` changes its folder's mtime, and every catcode write also replaces the index (new inode),
so writes of other processes are seen even within one clock tick. When it changes, every file is
stat'ed and only those whose (inode, mtime, size) changed are parsed again.

For writes that bypass catcode within one timestamp tick of the last scan (a folder mtime can stay the
same), a scan made less than one tick after the newest change is "racy", as in git: the next read
compares the folder listing's (name, inode) pairs again, which catches created, deleted and atomically
replaced files for the price of one ``scandir``. A file edited in place (no rename) is noticed once
something else in its folder changes.

With a ``ScanRecord`` (``scan_record.py``), what the files gave is kept on disk: a new process starts from it, and
its first scan, which stats every file anyway, parses only the files whose (inode, mtime, ctime, size) changed. Only
files read at least one tick after their last change ("settled") are recorded: the key of a file read sooner does
not tell a second change within the same tick apart, so the next process parses such a file again.

Reading and checking one file is ``file_state.py``'s."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.file_state import FileState, StatKey, is_entry_name, read_file, stat_key, tick
from catcode.memory.store.models import MemoryEntry, Scope
from catcode.memory.store.scan_record import Recorded, ScanRecord

DUPLICATE = "duplicate of "
"""How a problem of a copy hidden by a name clash starts (followed by the path of the copy that is shown)."""


@dataclass(frozen=True)
class MemoryProblem:
    """A file in a memory folder that was skipped (never rewritten, never deleted) and why."""

    path: Path
    reason: str


class Located(NamedTuple):
    """A valid memory and where its file is."""

    entry: MemoryEntry
    folder: Path
    scope: Scope

    @property
    def path(self) -> Path:
        """The memory's file."""
        return self.folder / f"{self.entry.name}.md"


class DiskCache:
    """Parsed memory files of both scopes. Not thread-safe: ``MemoryStore`` serialises access."""

    def __init__(
        self,
        dirs: dict[Scope, Path],
        root: Path,
        redact: Callable[[str], str] | None = None,
        record: ScanRecord | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        """``record``: where what the files gave is kept for the next process; ``clock``: the wall clock in ns,
        which tells whether a file was read a tick after its last change."""
        self.dirs = dirs
        self._clock = clock
        self._redact = redact
        self._record = record
        self._unrecorded = False  # a settled file was read that the record may lack: save it after the scan
        self._reading_ns = 0  # when the scan now reading files started
        self._root = root.resolve()
        self._files: dict[Scope, dict[str, FileState]] = {s: {} for s in Scope}
        self.scanned: tuple[object, ...] | None = None
        self._scan_started_ns = 0
        self.generation = 0
        self.entries: dict[str, Located] = {}
        self.snapshot: list[MemoryEntry] = []
        self.problems: list[MemoryProblem] = []
        self._index_ok: dict[Scope, tuple[object, ...]] = {}
        self._stale: set[Scope] = set()  # scopes whose index the last scan found stale

    def stat_fingerprint(self) -> tuple[object, ...]:
        """The cheap part of the fingerprint: four ``os.stat`` calls."""
        return tuple(stat_key(p) for d in self.dirs.values() for p in (d, d / INDEX_NAME))

    def refresh(self) -> set[Scope]:
        """Rescan when something changed (or the last scan was racy); the scopes whose index is stale."""
        fp = self.stat_fingerprint()
        full = fp != self.scanned
        if not full and not self._racy(fp):
            # Nothing changed on disk, but an index found stale by an earlier scan is still stale until written:
            # the write path refreshes again under the lock and must see it. Only those scopes are re-checked.
            self._stale = {scope for scope in self._stale if self._index_stale(scope)}
            return set(self._stale)
        started = self._reading_ns = self._clock()
        if self.generation == 0 and self._record is not None:
            self._seed(self._record)
        changed = [scope for scope in Scope if self._scan(scope, full=full)]
        self.scanned, self._scan_started_ns = fp, started
        if changed or self.generation == 0:
            self.assemble()
        self.save_record()
        self._stale = {scope for scope in Scope if self._index_stale(scope)}
        return set(self._stale)

    def settle(self) -> None:
        """After our own writes (under the lock): the disk is what the cache says it is."""
        self.scanned, self._scan_started_ns = self.stat_fingerprint(), self._clock()

    def save_record(self) -> None:
        """Keep what the settled files gave in the record, when a file was read that it may lack. A file just
        written is not settled (nothing to add), and a row of a file changed or deleted since is never used: its
        key does not match. A failure is only logged: the record saves parsing, nothing depends on it."""
        if self._record is None or not self._unrecorded:
            return
        self._unrecorded = False
        settled = {
            scope: {name: Recorded(f.key, f.listed_inode, f.entry, f.problem) for name, f in files.items() if f.settled}
            for scope, files in self._files.items()
        }
        self._record.save(settled)

    def invalidate(self) -> None:
        """Forget the fingerprint so the next read rescans (after a write failed half-way)."""
        self.scanned = None

    def problem_at(self, path: Path) -> str | None:
        """Why the file at ``path`` was skipped, if it was (such a file must never be overwritten)."""
        for scope, folder in self.dirs.items():
            if path.parent == folder and path.name in self._files[scope]:
                return self._files[scope][path.name].problem
        return None

    def remember(self, scope: Scope, path: Path, entry: MemoryEntry) -> None:
        """Record a file we just wrote (a regular file: atomic writes replace any link), without parsing it."""
        key = stat_key(path)
        self._files[scope][path.name] = FileState(key, key[0] if key else 0, entry)  # just written: not settled

    def forget(self, scope: Scope, path: Path) -> None:
        """Record a file we just deleted."""
        self._files[scope].pop(path.name, None)

    def copies(self, name: str) -> list[Located]:
        """Every valid file holding the memory ``name``: the one in ``entries`` plus a duplicate in the other scope
        (a move to the other scope killed between writing the new file and removing the old one leaves two)."""
        found = [(scope, self._files[scope].get(f"{name}.md")) for scope in Scope]
        return [Located(f.entry, self.dirs[scope], scope) for scope, f in found if f is not None and f.entry]

    def valid_files(self, scope: Scope) -> list[Located]:
        """Every valid memory file in ``scope``'s folder, a copy hidden by a name clash included."""
        files = self._files[scope].values()
        return sorted((Located(f.entry, self.dirs[scope], scope) for f in files if f.entry), key=lambda loc: loc.path)

    def scope_entries(self, scope: Scope) -> list[MemoryEntry]:
        """Valid memories whose file is in ``scope``'s folder, sorted by name."""
        return [loc.entry for loc in self.entries.values() if loc.scope is scope]

    def index_written(self, scope: Scope) -> None:
        """The index of ``scope`` matches its entries now (or cannot be fixed): stop checking it."""
        self._index_ok[scope] = self._index_signature(scope)

    def assemble(self) -> None:
        """Rebuild the name index, the sorted snapshot and the problem list from the per-file cache."""
        entries: dict[str, Located] = {}
        problems = []
        # This project's scope first: it wins a name clash (a user memory of the same name, made from another
        # project), so a write here never lands in a memory other projects see. The loser is reported, not lost.
        for scope in (Scope.PROJECT, Scope.USER):
            folder = self.dirs[scope]
            for fname, f in self._files[scope].items():
                if f.entry is None:
                    problems.append(MemoryProblem(folder / fname, f.problem or "unreadable"))
                elif f.entry.name in entries:
                    problems.append(MemoryProblem(folder / fname, f"{DUPLICATE}{entries[f.entry.name].path}"))
                else:
                    entries[f.entry.name] = Located(f.entry, folder, scope)
        self.entries = {name: entries[name] for name in sorted(entries)}
        self.snapshot = [loc.entry for loc in self.entries.values()]
        self.problems = sorted(problems, key=lambda p: str(p.path))
        self.generation += 1

    def _racy(self, fp: tuple[object, ...]) -> bool:
        mtimes = [key[1] for key in fp if isinstance(key, tuple)]
        if not mtimes:
            return False
        newest = max(mtimes)
        return self._scan_started_ns - newest < tick(newest)

    def _seed(self, record: ScanRecord) -> None:
        """Start from what the record says the files gave (their keys are checked by the scan that follows)."""
        for scope, files in record.load().items():
            self._files[scope] = {name: FileState(*found, settled=True) for name, found in files.items()}

    def _scan(self, scope: Scope, *, full: bool) -> bool:
        """Re-read one folder's listing; parse only new or changed files. True when anything changed.

        ``full``: stat every file; else trust a file whose listed inode is unchanged (racy re-check)."""
        old, new = self._files[scope], {}
        try:
            with os.scandir(self.dirs[scope]) as listing:  # plain strings: pathlib would cost more than stat
                found = [(d.name, d.path, d.inode(), d.is_symlink()) for d in listing if is_entry_name(d.name)]
        except (FileNotFoundError, NotADirectoryError):
            found = []
        for fname, path, inode, is_link in found:
            previous = old.get(fname)
            if previous is not None and not full and previous.listed_inode == inode:
                new[fname] = previous
                continue
            key = stat_key(path, link=is_link)
            if previous is not None and key is not None and previous.key == key:
                new[fname] = previous
            else:
                new[fname] = self._load(Path(path), key, inode)
        self._files[scope] = new
        return new.keys() != old.keys() or any(new[n] is not old[n] for n in new)

    def _load(self, path: Path, key: StatKey | None, inode: int) -> FileState:
        changed = max(key[1], key[6]) if key else self._reading_ns
        settled = self._reading_ns - changed >= tick(changed)
        self._unrecorded |= settled
        return read_file(path, key, inode, root=self._root, redact=self._redact, settled=settled)

    def _index_signature(self, scope: Scope) -> tuple[object, ...]:
        files = self._files[scope]
        return (stat_key(self.dirs[scope] / INDEX_NAME), frozenset((name, f.key) for name, f in files.items()))

    def _index_stale(self, scope: Scope) -> bool:
        signature = self._index_signature(scope)
        if self._index_ok.get(scope) == signature:
            return False
        index = self.dirs[scope] / INDEX_NAME
        entries = self.scope_entries(scope)
        try:
            stale = index.read_text(encoding="utf-8") != entry_file.render_index(entries)
        except FileNotFoundError:
            stale = bool(entries)
        except (OSError, UnicodeDecodeError):
            stale = True
        if not stale:
            self._index_ok[scope] = signature
        return stale
