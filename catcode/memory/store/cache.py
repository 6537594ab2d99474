"""``DiskCache``: the memories of both scope folders as the catalogues (``catalog.py``) hold them, kept in step with
the files without reading them all.

What changes a folder is seen three ways, none of which reads every file:

- **catcode's own writes** (any process): the one write path records each file it writes or removes in the folder's
  catalogue (``remember``/``forget``), so every process sees it at once;
- **files added, removed, renamed or replaced under their name by anything else** (a hand-made file, git checking
  out a revert or a sync, an editor that saves to a new file): they change the folder's mtime. ``refresh`` stats
  the two folders; when a folder's stat key is not the one its listing was last found to match, it lists the
  folder (names and inodes, no stat) and compares their count and checksum with the catalogue's; only when they
  differ are the files compared, and the new or replaced ones read. As in git, a listing taken less than one
  timestamp tick after the folder's last change is "racy" and is checked again next time. A large folder this
  process listed moments ago is not listed again (its changes are then most likely this process's own: facts.db's
  journal files), unless a write asks (``force``).
- **files edited in place** (same inode) by anything else: a small folder (``VERIFY_BUDGET``) is stat'ed whole at
  each process's first look and whenever it changed, as a full scan would; a large one by ``verify`` — in the
  background at the start of each session, never holding the memory lock, a chunk at a time. What is shown of one
  memory is always current: ``fresh`` checks its file first.

``refresh`` reads at most ``budget`` new files (a first start in a folder of 100,000 hand-written memories must not
wait for all of them): the rest stay ``unread`` until ``complete`` reads them (the write path, before it decides
anything; a background process). Reading and checking one file is ``file_state.py``'s.

Over 450 lines because the three ways of seeing a change share one state — each folder's listing key, the
catalogue's rows and the files still unread — and must move it under the same rules (racy listings, the
budget, the memory lock never held across a scan); cut apart, each piece needed the others' internals."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any, NamedTuple

from catcode.log import get_logger
from catcode.memory.store import entry_file
from catcode.memory.store.catalog import GONE, Catalogs, code_stamp, differs, names_digest
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.file_keys import (
    VERIFY_BUDGET,
    StatKey,
    dir_key,
    is_memory_file,
    iter_memory_files,
    listing_settled,
    memory_inodes,
    signature,
    stat_key,
    tick,
)
from catcode.memory.store.file_state import FileState, is_entry_name, read_file
from catcode.memory.store.models import MemoryEntry, Scope
from catcode.memory.store.names import name_problem

log = get_logger(__name__)

DUPLICATE = "duplicate of "
"""How a problem of a copy hidden by a name clash starts (followed by the path of the copy that is shown)."""
CHUNK = 500
"""Files read (or stat'ed) between two looks at the lock: a reader never waits for a whole scan."""
RELIST_AFTER = 2.0
"""Seconds within which a process does not list a large folder again (a write always does)."""


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
    """The memory files of both scopes, through their catalogues. Not thread-safe: ``MemoryStore`` serialises
    access (``lock`` is its guard, taken a chunk at a time by the long scans)."""

    def __init__(
        self,
        dirs: dict[Scope, Path],
        root: Path,
        redact: Callable[[str], str] | None = None,
        catalog_dir: Path | None = None,
        *,
        stamp: list[Any] | None = None,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        """``catalog_dir``: where the catalogues are kept (None: in memory, read afresh); ``stamp``: the code that
        reads the files (``catalog.code_stamp``); ``clock``: the wall clock in ns, which tells whether a file or a
        listing was read a tick after its last change."""
        self.dirs = dirs
        self._clock = clock
        self._redact = redact
        self._root = root.resolve()
        self.catalogs = Catalogs(dirs, catalog_dir, stamp if stamp is not None else code_stamp(redact))
        self.unread: dict[Scope, list[str]] = {s: [] for s in Scope}
        """Files listed but not read yet (beyond a refresh's budget): ``complete`` reads them."""
        self._trusted: dict[Scope, object] = {}  # a folder's stat key whose listing matched (this process knows)
        self._swept: set[Scope] = set()  # folders this process stat'ed whole
        self._listed: dict[Scope, tuple[float, int]] = {}  # when this process last listed each folder, how many
        self.new_files_read = 0  # files this process read that the catalogue did not hold
        self.narrowed = 0  # memory files this process made private (0600): they were readable by others
        # Files this process read or wrote within a tick of their change: their key is trusted here (this process
        # saw the change), not by the next process, which reads them again.
        self._unsettled_here: set[tuple[Scope, str]] = set()
        self.entries = _Visible(self)
        """Every valid memory by name, this project's scope winning a clash (a live view, never a copy)."""

    # -- keeping in step ---------------------------------------------------------------------------------------

    def refresh(self, budget: int | None = None, *, force: bool = False, part: bool = True) -> None:
        """Notice files added, removed or renamed in either folder (see the module docstring), reading at most
        ``budget`` new files (None: all of them; without ``part``, none when there are more: a few new files are read
        at once, a flood of them in the background). A large folder this process listed less than
        ``RELIST_AFTER`` seconds ago is not listed again (its changes are most likely this process's own: facts.db's
        journal) unless ``force`` (the write path: it decides against what is on disk)."""
        left = budget
        for scope in Scope:
            read = self._check(scope, left, force=force, part=part)
            left = None if left is None else max(0, left - read)

    def settle_listing(self, *, wait: bool = False) -> None:
        """List both folders and, when they hold what the catalogues say, record it: the next process then trusts
        the folders as they are without listing them. For a process's end, after it closed what it keeps in the
        folders itself (facts.db's journal files change the project folder each time). ``wait``: first let a tick
        pass after a folder's last change (a process nobody waits for: what it records is then trusted)."""
        for scope in Scope:
            key, started = dir_key(self.dirs[scope]), self._clock()
            if wait and key is not None and not listing_settled(started, key):
                changed = max(key[1], key[3])
                time.sleep(max(0, changed + tick(changed) - started) / 1e9)
                key, started = dir_key(self.dirs[scope]), self._clock()
            listing = self.catalogs.meta(scope, "listing")
            if listing is not None and key is not None and listing[0] == key and listing_settled(listing[1], key):
                continue  # recorded already, a tick after the folder's last change: nothing to list
            if not self.unread[scope] and _digest_of(self.dirs[scope]) == self.catalogs.meta(scope, "names"):
                self.catalogs.set_meta(scope, "listing", [key, started])

    def _recently_listed(self, scope: Scope) -> bool:
        """Whether this process listed ``scope``'s folder, a large one, less than ``RELIST_AFTER`` seconds ago."""
        when, size = self._listed.get(scope, (0.0, 0))
        return size > VERIFY_BUDGET and time.monotonic() - when < RELIST_AFTER

    def complete(self, lock: AbstractContextManager[Any] | None = None) -> None:
        """Read every file not read yet, ``CHUNK`` files at a time, each chunk under ``lock``."""
        lock = lock or nullcontext()
        while True:
            with lock:
                self.refresh(budget=CHUNK)
                if not any(self.unread.values()):
                    return

    def verify(self, lock: AbstractContextManager[Any] | None = None) -> int:
        """Stat every file of both folders and read again those that changed since they were read (edits in place,
        files replaced under their name, files read within a tick of a change), a chunk at a time under ``lock``;
        how many catalogue rows changed."""
        lock = lock or nullcontext()
        changed = 0
        for scope in Scope:
            with lock:
                self._check(scope, budget=0)
            changed += self._sweep(scope, lock)
        return changed

    def _sweep(self, scope: Scope, lock: AbstractContextManager[Any]) -> int:
        """``verify`` of one folder."""
        with lock:
            known = self.catalogs.keys(scope)
        folder, found, changed = self.dirs[scope], dict[str, FileState | None](), 0
        started = self._clock()
        for fname, path, inode, is_link in iter_memory_files(folder):
            row = known.pop(fname, None)
            key = stat_key(path, link=is_link)
            if (
                row is not None
                and row[:2] == (inode, signature(key))
                and (row[2] or (scope, fname) in self._unsettled_here)
            ):
                continue
            found[fname] = self._load(Path(path), key, inode, started)
            if len(found) >= CHUNK:
                with lock:
                    changed += self.catalogs.put_checked(scope, found, self._key_now(scope))
                found.clear()
        found.update(dict.fromkeys(known))  # rows of files no longer there
        with lock:
            changed += self.catalogs.put_checked(scope, found, self._key_now(scope))
            self.unread[scope] = [f for f in self.unread[scope] if f not in found]
            self._swept.add(scope)
        return changed

    def fresh(self, scope: Scope, fname: str) -> FileState | None:
        """What the file ``fname`` of ``scope`` holds now: its row, read again first when the file changed (None:
        no such file, or not a memory file)."""
        if not is_entry_name(fname) or "/" in fname:
            return None
        row = self.catalogs.row(scope, fname)
        path = self.dirs[scope] / fname
        key = _key_now(path)
        if row is not None and key == row.key and (row.settled or (scope, fname) in self._unsettled_here):
            return row
        if row is None and key == GONE:
            return None
        found = None if key == GONE else self._load(path, _key_of(path), _inode(path), self._clock())
        self.catalogs.put_checked(scope, {fname: found}, self._key_now(scope))
        return self.catalogs.row(scope, fname)

    def recheck(self, names: list[str]) -> list[Path]:
        """The files of the memories ``names`` (in either folder) that changed on disk since they were read, read
        again now (a hand edit the background check has not seen yet)."""
        changed = []
        for name in names:
            for scope in Scope:
                fname = f"{name}.md"
                before = self.catalogs.row(scope, fname)
                after = self.fresh(scope, fname)
                if (before is None) != (after is None) or (before and after and differs(before, after)):
                    changed.append(self.dirs[scope] / fname)
        return changed

    def settle(self) -> None:
        """After our own writes (under the lock): each folder's listing is what its catalogue says."""
        for scope in Scope:
            key = dir_key(self.dirs[scope])
            self.catalogs.set_meta(scope, "listing", [key, self._clock()])
            self._trusted.pop(scope, None)

    def fresh_path(self, path: Path) -> FileState | None:
        """``fresh`` for a path: a file of either folder (another path is not a memory file of this view)."""
        for scope, folder in self.dirs.items():
            if path.parent == folder:
                return self.fresh(scope, path.name)
        return None

    def invalidate(self, paths: Iterable[Path] = ()) -> None:
        """After a write failed half-way: list both folders again at the next refresh, and read ``paths`` (what
        the write was writing) again now."""
        for scope in Scope:
            self.catalogs.set_meta(scope, "listing", None)
            self._trusted.pop(scope, None)
        for path in paths:
            self.fresh_path(path)

    # -- what the folders hold --------------------------------------------------------------------------------

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever either catalogue changes, in this process or another."""
        return self.catalogs.fingerprint()

    def lookup(self, name: str) -> Located | None:
        """The memory ``name`` as its file holds it now, this project's scope first (None: no such memory, or not
        a memory name)."""
        if name_problem(name):
            return None
        for scope in (Scope.PROJECT, Scope.USER):
            row = self.fresh(scope, f"{name}.md")
            if row is not None and row.entry is not None:
                return Located(row.entry, self.dirs[scope], scope)
        return None

    def visible(self) -> Iterator[Located]:
        """Every valid memory of the view by name, this project's copy where both scopes have one (streamed)."""
        project, user = self.catalogs.valid(Scope.PROJECT), self.catalogs.valid(Scope.USER)
        mine, theirs = next(project, None), next(user, None)
        while mine is not None or theirs is not None:
            if theirs is None or (mine is not None and mine.name <= theirs.name):
                assert mine is not None
                yield Located(mine, self.dirs[Scope.PROJECT], Scope.PROJECT)
                if theirs is not None and theirs.name == mine.name:
                    theirs = next(user, None)
                mine = next(project, None)
            else:
                yield Located(theirs, self.dirs[Scope.USER], Scope.USER)
                theirs = next(user, None)

    def newest(self, scope: Scope, limit: int) -> list[MemoryEntry]:
        """The ``limit`` most recently updated memories of ``scope``, newest first, copies hidden by a clash aside."""
        found: list[MemoryEntry] = []
        if limit <= 0:
            return found
        for entry in self.catalogs.valid(scope, newest=-1):
            if scope is Scope.USER and self._shadowed(entry.name):
                continue
            found.append(entry)
            if len(found) >= limit:
                break
        return found

    def page(self, first: int, count: int | None) -> list[tuple[MemoryEntry, Scope]]:
        """Memories in the order of every list (this user's first, then this project's, each by name): ``count``
        (None: all) from the ``first``."""
        users = self.counts()[Scope.USER]
        found = [(e, Scope.USER) for e in self.catalogs.page(Scope.USER, first, count)] if first < users else []
        rest = None if count is None else count - len(found)
        if rest is None or rest > 0:
            found += [(e, Scope.PROJECT) for e in self.catalogs.page(Scope.PROJECT, max(0, first - users), rest)]
        return found

    def large(self) -> bool:
        """Whether either folder holds more than ``VERIFY_BUDGET`` files."""
        return any((self.catalogs.meta(scope, "names") or [0])[0] > VERIFY_BUDGET for scope in Scope)

    def counts(self) -> dict[Scope, int]:
        """How many memories of each scope are visible (a user copy hidden by a clash aside)."""
        hidden = len(self.catalogs.shadowed())
        return {Scope.USER: self.catalogs.count(Scope.USER) - hidden, Scope.PROJECT: self.catalogs.count(Scope.PROJECT)}

    def copies(self, name: str) -> list[Located]:
        """Every valid file holding the memory ``name``: the one in ``entries`` plus a duplicate in the other scope
        (a move to the other scope killed between writing the new file and removing the old one leaves two)."""
        found = [(scope, self.catalogs.row(scope, f"{name}.md")) for scope in Scope]
        return [Located(f.entry, self.dirs[scope], scope) for scope, f in found if f is not None and f.entry]

    def located_at(self, path: Path) -> Located | None:
        """The valid memory whose file is ``path`` (in either folder), or None."""
        for scope, folder in self.dirs.items():
            if path.parent == folder:
                row = self.catalogs.row(scope, path.name)
                return Located(row.entry, folder, scope) if row is not None and row.entry else None
        return None

    def problem_at(self, path: Path) -> str | None:
        """Why the file at ``path`` was skipped, if it was (such a file must never be overwritten)."""
        for scope, folder in self.dirs.items():
            if path.parent == folder:
                row = self.catalogs.row(scope, path.name)
                return row.problem if row is not None else None
        return None

    @property
    def problems(self) -> list[MemoryProblem]:
        """The files skipped because they could not be read, and the copies hidden by a name clash."""
        found = [
            MemoryProblem(self.dirs[scope] / fname, reason)
            for scope in Scope
            for fname, reason in self.catalogs.problems(scope)
        ]
        shown = self.dirs[Scope.PROJECT]
        found += [
            MemoryProblem(self.dirs[Scope.USER] / fname, f"{DUPLICATE}{shown / fname}")
            for fname in self.catalogs.shadowed()
        ]
        return sorted(found, key=lambda p: str(p.path))

    def scope_entries(self, scope: Scope) -> Iterator[MemoryEntry]:
        """Valid memories whose file is in ``scope``'s folder, by name (a copy hidden by a clash included)."""
        return self.catalogs.valid(scope)

    def index_text(self, scope: Scope) -> str:
        """What ``scope``'s ``MEMORY.md`` should hold now."""
        return entry_file.index_text(self.catalogs.index_items(scope))

    def index_lines(self, scope: Scope) -> Iterator[str]:
        """``index_text``, a line at a time."""
        return entry_file.index_lines(self.catalogs.index_items(scope))

    # -- the write path's records -----------------------------------------------------------------------------

    def remember(self, scope: Scope, written: list[tuple[Path, MemoryEntry]]) -> None:
        """Record files we just wrote (regular files: atomic writes replace any link), without reading them."""
        states = {}
        for path, entry in written:
            key = stat_key(path)
            states[path.name] = FileState(key, key[0] if key else 0, entry)  # just written: not settled
            self._unsettled_here.add((scope, path.name))
        self.catalogs.put(scope, states)

    def forget(self, scope: Scope, paths: list[Path]) -> None:
        """Record files we just deleted."""
        self.catalogs.drop(scope, [path.name for path in paths])

    def index_written(self, scope: Scope) -> None:
        """The index of ``scope`` matches its entries now (or cannot be fixed): stop checking it."""
        self.catalogs.set_meta(scope, "index", self._index_signature(scope))

    def stale_indexes(self) -> set[Scope]:
        """The scopes whose ``MEMORY.md`` does not match their memories (missing, edited, or the memories changed
        since it was written). Cheap while nothing changed since the index was last written or checked."""
        stale = set()
        for scope in Scope:
            signature = self._index_signature(scope)
            if self.catalogs.meta(scope, "index") == signature:
                continue
            index = self.dirs[scope] / INDEX_NAME
            try:
                with open(index, encoding="utf-8") as held:  # line by line: never both whole
                    is_stale = any(a != b for a, b in zip_longest(held, self.index_lines(scope)))
            except FileNotFoundError:
                is_stale = self.counts()[scope] > 0
            except (OSError, UnicodeDecodeError):
                is_stale = True
            if is_stale:
                stale.add(scope)
            else:
                self.catalogs.set_meta(scope, "index", signature)
        return stale

    # -- internals --------------------------------------------------------------------------------------------

    def _check(self, scope: Scope, budget: int | None, *, force: bool = False, part: bool = True) -> int:
        """Bring ``scope``'s catalogue in step with its folder's listing; how many new files it read."""
        folder = self.dirs[scope]
        key = dir_key(folder)
        budget = budget if part or budget is None or len(self.unread[scope]) <= budget else 0
        if self.unread[scope] and not force and self._recently_listed(scope):
            return self._read_unread(scope, budget)  # goes on with what the last listing found
        if not self.unread[scope] and key is not None and self._trusted.get(scope) == key:
            return 0
        if not force and not self.unread[scope] and self._recently_listed(scope):
            return 0  # a large folder listed less than RELIST_AFTER ago by this process: its own files changed it
        started = self._clock()
        listing = self.catalogs.meta(scope, "listing")
        changed = listing is None or listing[0] != key or not listing_settled(listing[1], key)
        read = 0
        if self.unread[scope] or changed:
            read = self._check_listing(scope, started, budget, part)
            if self.unread[scope]:
                return read  # not recorded as matching: the rest is read later
        count = (self.catalogs.meta(scope, "names") or [0])[0]
        if count <= VERIFY_BUDGET and (changed or scope not in self._swept):
            # A small folder is stat'ed whole at a process's first look and whenever it changed, as it always was:
            # an edit in place is seen at once, and so is a file git replaced under its name with the same inode.
            self._sweep(scope, nullcontext())
        self.catalogs.set_meta(scope, "listing", [key, started])
        if key is not None and listing_settled(started, key):
            self._trusted[scope] = key
        return read

    def _check_listing(self, scope: Scope, started: int, budget: int | None, part: bool = True) -> int:
        """Compare the folder's files (names and inodes) with the catalogue's; drop the gone, read the new and the
        replaced (at most ``budget``, see ``refresh``); how many were read."""
        listed = memory_inodes(self.dirs[scope])
        self._listed[scope] = (time.monotonic(), len(listed))
        digest = names_digest(listed.items())
        if not self.unread[scope] and digest == self.catalogs.meta(scope, "names"):
            return 0
        have = self.catalogs.inodes(scope)
        self.catalogs.put_checked(scope, dict.fromkeys(have.keys() - listed.keys()), self._key_now(scope))
        self.unread[scope] = sorted(f for f, inode in listed.items() if have.get(f) != inode)
        del listed, have
        if not part and budget is not None and len(self.unread[scope]) > budget:
            budget = 0
        return self._read_unread(scope, budget, started)

    def _read_unread(self, scope: Scope, budget: int | None, started: int | None = None) -> int:
        """Read ``budget`` (None: all) of the files listed but not read yet; how many."""
        taken = self.unread[scope] if budget is None else self.unread[scope][:budget]
        self.unread[scope] = self.unread[scope][len(taken) :]
        self._read(scope, taken, self._clock() if started is None else started)
        return len(taken)

    def _read(self, scope: Scope, fnames: list[str], started: int) -> None:
        folder = self.dirs[scope]
        self.new_files_read += len(fnames)
        for first in range(0, len(fnames), CHUNK):
            found: dict[str, FileState | None] = {}
            for fname in fnames[first : first + CHUNK]:
                path = folder / fname
                found[fname] = self._load(path, _key_of(path), _inode(path), started)
            self.catalogs.put_checked(scope, found, self._key_now(scope))

    def _load(self, path: Path, key: StatKey | None, inode: int, reading_ns: int) -> FileState:
        if key is not None and key[4] & 0o077 and not key[5]:  # a file added by hand with 0644: made private
            try:
                os.chmod(path, key[4] & 0o700)
                key = stat_key(path)  # its ctime changed
                self.narrowed += 1
                log.info("memory_file_made_private", path=str(path))
            except OSError:
                pass
        changed = max(key[1], key[6]) if key else reading_ns
        settled = reading_ns - changed >= tick(changed)
        if not settled:
            self._unsettled_here.add((self._scope_at(path), path.name))
        return read_file(path, key, inode, root=self._root, redact=self._redact, settled=settled)

    def _key_now(self, scope: Scope) -> Callable[[str], object]:
        folder = self.dirs[scope]
        return lambda fname: _key_now(folder / fname)

    def _shadowed(self, name: str) -> bool:
        row = self.catalogs.row(Scope.PROJECT, f"{name}.md")
        return row is not None and row.entry is not None

    def _scope_at(self, path: Path) -> Scope:
        return Scope.USER if path.parent == self.dirs[Scope.USER] else Scope.PROJECT

    def _index_signature(self, scope: Scope) -> list[object]:
        key = stat_key(self.dirs[scope] / INDEX_NAME)
        return [list(key) if key else None, *self.fingerprint()]  # a project memory can hide a user one


class _Visible(Mapping[str, Located]):
    """Every valid memory of the view by name, this project's scope first, read from the catalogues."""

    def __init__(self, cache: DiskCache) -> None:
        self._cache = cache

    def __getitem__(self, name: str) -> Located:
        for scope in (Scope.PROJECT, Scope.USER):
            row = self._cache.catalogs.row(scope, f"{name}.md")
            if row is not None and row.entry is not None:
                return Located(row.entry, self._cache.dirs[scope], scope)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._cache.catalogs.names())

    def __len__(self) -> int:
        return len(self._cache.catalogs.names())


def _digest_of(folder: Path) -> list[int]:
    """``names_digest`` of a folder's listing, computed as it is listed (nothing held)."""
    try:
        with os.scandir(folder) as listing:
            return names_digest((d.name, d.inode()) for d in listing if is_memory_file(d.name))
    except (FileNotFoundError, NotADirectoryError):
        return names_digest([])


def _key_of(path: Path) -> StatKey | None:
    return stat_key(path, link=os.path.islink(path))


def _key_now(path: Path) -> object:
    """The stat key of ``path`` now, for ``put_checked``: ``GONE`` when there is no such file."""
    return _key_of(path) if os.path.lexists(path) else GONE


def _inode(path: Path) -> int:
    try:
        return os.lstat(path).st_ino
    except OSError:
        return 0
