"""``Catalogs``: what each memory folder holds — every file's stat key and what reading it gave — in SQLite, so
that a process knows the memories without reading their files, and looks up one memory, the newest ones or a count
without holding them all.

One database per scope folder (``<catalog_dir>/<sha256(folder)[:16]>.db``; the user scope's is shared by every
project that sees it), both attached to one connection (schemas ``scope_user`` and ``scope_project``). Each holds:

- ``files``: per file of the folder (memory files only: ``*.md`` but ``MEMORY.md`` and temp files), the inode the
  folder listed, its stat key when read, whether it was settled (read a tick after its last change, so its key tells
  a later change apart), and the entry it gave (redacted) or why it was skipped, with the change number ``seq``;
- ``gone``: the files removed, with the change number of their removal (what the search index still holds of them);
- ``meta``: the code that read the files (a catalogue written by other code is emptied), the change number, the
  count and checksum of the file names (``names``), the folder's stat key when its listing was last found to match
  (``listing``), and the index's stat key when it last matched (``index``).

Every change — a catcode write (``put``/``drop`` by the one write path, under the memory lock) or a file found
changed by a scan — bumps the change number, so ``fingerprint`` (four integers) tells any change apart, made by
this process or another. Scans never hold the memory lock: a row they found is written only if the file still has
the key it was read with (``put_checked``), so a write of another process in between always wins.

It is derived data, per machine, under ``$CATCODE_HOME/cache/memory`` (never versioned, never synced), 0600 in a
0700 folder; a missing, damaged or foreign one costs reading the files again, never a wrong answer. Without a
folder (``catalog_dir=None``: the doctor's fresh look, tests) the databases are in memory."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sqlite3
import sys
import uuid
import zlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from catcode import __version__
from catcode.file_modes import private_dir, private_file
from catcode.log import get_logger
from catcode.memory.store.file_keys import StatKey, catalog_fingerprint, signature
from catcode.memory.store.file_state import FileState
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope

__all__ = ["GONE", "READERS", "Catalogs", "code_stamp", "differs", "names_digest", "signature"]

log = get_logger(__name__)

FORMAT = 4
READERS = (
    "catcode.front_matter",
    "catcode.memory.store.cache",
    "catcode.memory.store.catalog",
    "catcode.memory.store.entry_file",
    "catcode.memory.store.file_keys",
    "catcode.memory.store.file_state",
    "catcode.memory.store.models",
    "catcode.memory.store.names",
    "catcode.names",
)
"""The modules whose code decides what reading a memory file gives (the redactor's package comes with it)."""
_MASK = (1 << 63) - 1
GONE = ()
"""What ``put_checked``'s ``key_now`` says of a file that is not there (not even a dangling link)."""
_COLUMNS = "fname, ino, stat, settled, name, description, type, created, updated, content, problem, sig"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS {s}.meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {s}.files(
    fname TEXT PRIMARY KEY, ino INTEGER NOT NULL, stat TEXT, settled INTEGER NOT NULL,
    name TEXT, description TEXT, type TEXT, created TEXT, updated TEXT, content TEXT, problem TEXT,
    sig INTEGER, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS {s}.files_newest ON files(updated, name) WHERE problem IS NULL;
CREATE INDEX IF NOT EXISTS {s}.files_seq ON files(seq);
CREATE INDEX IF NOT EXISTS {s}.files_problems ON files(fname) WHERE problem IS NOT NULL;
CREATE INDEX IF NOT EXISTS {s}.files_by_name ON files(name, description, type) WHERE problem IS NULL;
CREATE TABLE IF NOT EXISTS {s}.gone(fname TEXT PRIMARY KEY, seq INTEGER NOT NULL);
"""


def code_stamp(redactor: object) -> list[Any]:
    """What identifies the code that reads memory files: the versions of catcode, pyyaml and pydantic,
    ``redactor``'s name, and the size and mtime of each of ``READERS`` and of every module of the redactor's package
    (its rule table is one of them): a new install or an edited module changes them, and a catalogue written by
    other code is read again — a catcode with new redaction rules never shows what older ones let through."""
    name = getattr(redactor, "__qualname__", type(redactor).__qualname__) if redactor is not None else None
    files = [getattr(importlib.import_module(module), "__file__", None) for module in READERS]  # all loaded already
    home = getattr(sys.modules.get(getattr(redactor, "__module__", None) or ""), "__file__", None)
    if home:
        files += sorted(str(path) for path in Path(home).parent.glob("*.py"))
    libraries = [getattr(sys.modules.get(lib), "__version__", None) for lib in ("yaml", "pydantic")]
    stamp: list[Any] = [__version__, FORMAT, name, libraries, sys.hexversion]
    for file in files:
        try:
            st = os.stat(file) if file else None
        except OSError:
            st = None
        stamp.append([os.path.basename(file or ""), st.st_size, st.st_mtime_ns] if st else None)
    return stamp


def names_digest(listing: Iterable[tuple[str, int]]) -> list[int]:
    """The count and checksum (a sum of CRC-32s: any order) of a folder listing's ``(file name, inode)`` pairs; a
    listing whose digest is the catalogue's holds the same files under the same names — a file replaced under its
    name (git checking out a revert or a merge, an editor saving to a new file) has a new inode. A collision is
    one chance in four billion per change."""
    count = total = 0
    for fname, inode in listing:  # one pass, nothing held: a listing of 100,000 is not copied
        count += 1
        total += zlib.crc32(f"{fname}\0{inode}".encode("utf-8", "surrogateescape"))
    return [count, total & _MASK]


def database_for(catalog_dir: Path, folder: Path) -> Path:
    """The catalogue file of ``folder``."""
    return catalog_dir / f"{hashlib.sha256(str(folder).encode()).hexdigest()[:16]}.db"


class Catalogs:
    """The catalogues of a view's two scope folders, over one connection. Not thread-safe: ``DiskCache`` (under
    ``MemoryStore``'s guard) is its one user."""

    def __init__(self, dirs: dict[Scope, Path], catalog_dir: Path | None, stamp: list[Any]) -> None:
        self.dirs = dirs
        self._stamp = json.dumps(stamp)
        self.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False, timeout=10.0)
        self.conn.execute("PRAGMA busy_timeout = 10000")
        self.files: dict[Scope, Path | None] = {}
        """Each scope's database file, None where it is in memory (it could not be had)."""
        for scope in Scope:
            self._attach(scope, database_for(catalog_dir, dirs[scope]) if catalog_dir else None)

    # -- opening ---------------------------------------------------------------------------------------------

    def _attach(self, scope: Scope, path: Path | None) -> None:
        """Attach ``scope``'s database: the file, made anew when it is damaged; in memory when it cannot be had (or
        another process keeps it locked: then this process reads the files itself)."""
        schema = _schema(scope)
        for attempt in range(3):
            file = path if attempt < 2 else None
            try:
                if file is not None:
                    private_dir(file.parent)
                    private_file(file)  # SQLite keeps its mode, and gives it to -wal and -shm
                self.conn.execute("ATTACH DATABASE ? AS " + schema, (str(file) if file else ":memory:",))
                if file is not None:
                    self.conn.execute(f"PRAGMA {schema}.journal_mode = WAL")
                    self.conn.execute(f"PRAGMA {schema}.synchronous = NORMAL")  # derived: a lost commit is reread
                self.conn.executescript(_SCHEMA.format(s=schema))
                self._check_code(scope)
                self.files[scope] = file
                return
            except (sqlite3.DatabaseError, OSError) as exc:
                log.warning("memory_catalog_unusable", path=str(file), error=repr(exc))
                try:
                    self.conn.execute(f"DETACH DATABASE {schema}")
                except sqlite3.DatabaseError:
                    pass
                if file is None:
                    raise
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    path = None  # busy, not damaged: never deleted
                else:
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        try:
                            file.with_name(file.name + suffix).unlink(missing_ok=True)
                        except OSError:  # its folder cannot be had (a file in its place): in memory next
                            path = None

    def _check_code(self, scope: Scope) -> None:
        """Empty the catalogue when other code (or another folder) wrote it: what it read may differ."""
        schema = _schema(scope)
        header = json.dumps([self._stamp, str(self.dirs[scope])])
        with self.batch():
            found = self.meta(scope, "code")
            if found == header:
                return
            if found is not None:
                log.info("memory_catalog_reset", folder=str(self.dirs[scope]), reason="written by other code")
            for table in ("files", "gone", "meta"):  # made anew: other code may have had other columns
                self.conn.execute(f"DROP TABLE IF EXISTS {schema}.{table}")
            for statement in _SCHEMA.format(s=schema).split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self._set(scope, "code", header)
            self._set(scope, "id", uuid.uuid4().hex)
            self._set(scope, "seq", 0)
            self._set(scope, "names", names_digest([]))

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.conn.close()

    # -- transactions and meta -------------------------------------------------------------------------------

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One write transaction (nested calls join the outer one): readers of other processes see all of it or
        none of it."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def meta(self, scope: Scope, key: str) -> Any:
        """A value of ``scope``'s meta table (JSON), or None."""
        row = self.conn.execute(f"SELECT value FROM {_schema(scope)}.meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row is not None else None

    def set_meta(self, scope: Scope, key: str, value: Any) -> None:
        """Set a value of ``scope``'s meta table (JSON)."""
        with self.batch():
            self._set(scope, key, value)

    def _set(self, scope: Scope, key: str, value: Any) -> None:
        self.conn.execute(f"INSERT OR REPLACE INTO {_schema(scope)}.meta VALUES (?, ?)", (key, json.dumps(value)))

    def fingerprint(self) -> tuple[object, ...]:
        """Changes whenever either catalogue changes (its id: recreated; its change number: anything else)."""
        return catalog_fingerprint(self.conn, [_schema(scope) for scope in Scope])

    def marks(self) -> dict[str, int]:
        """Each catalogue's id and change number: where a reader of ``changes_since`` stands."""
        return {self.meta(scope, "id"): self.meta(scope, "seq") for scope in Scope}

    # -- changing rows ---------------------------------------------------------------------------------------

    def put(self, scope: Scope, states: dict[str, FileState]) -> None:
        """Record what each file gave (writes of ours, or files read by a scan): one change number for all. A file
        read again with the same result is no change (only its being settled is kept)."""
        if not states:
            return
        with self.batch():
            schema = _schema(scope)
            old = self._rows(scope, list(states))
            changed = {f: s for f, s in states.items() if f not in old or differs(old[f], s)}
            settled = [(f,) for f, s in states.items() if f not in changed and s.settled and not old[f].settled]
            self.conn.executemany(f"UPDATE {schema}.files SET settled = 1 WHERE fname = ?", settled)
            if not changed:
                return
            seq = self._bump(scope)
            self.conn.executemany(
                f"INSERT OR REPLACE INTO {schema}.files ({_COLUMNS}, seq) VALUES ({', '.join('?' * 13)})",
                [(*_row(fname, state), seq) for fname, state in changed.items()],
            )
            self.conn.executemany(f"DELETE FROM {schema}.gone WHERE fname = ?", [(f,) for f in changed])
            replaced = [(f, old[f].listed_inode) for f in changed if f in old]
            self._count_names(scope, [(f, state.listed_inode) for f, state in changed.items()], replaced)

    def drop(self, scope: Scope, fnames: Iterable[str]) -> None:
        """Record that the files ``fnames`` are gone."""
        with self.batch():
            schema = _schema(scope)
            known = self._rows(scope, list(dict.fromkeys(fnames)))
            if not known:
                return
            seq = self._bump(scope)
            self.conn.executemany(f"DELETE FROM {schema}.files WHERE fname = ?", [(f,) for f in known])
            self.conn.executemany(f"INSERT OR REPLACE INTO {schema}.gone VALUES (?, ?)", [(f, seq) for f in known])
            self._count_names(scope, [], [(f, row.listed_inode) for f, row in known.items()])

    def put_checked(self, scope: Scope, found: Mapping[str, FileState | None], key_now: Any) -> int:
        """Record what a scan found (``None``: the file is gone), each only if the file still has the key it was
        read with (``key_now(fname)``: its stat key, None when it cannot be stat'ed, ``GONE`` when there is no such
        file): a write made meanwhile wins. How many rows it was about."""
        with self.batch():
            now = {fname: key_now(fname) for fname in found}
            put = {f: s for f, s in found.items() if s is not None and now[f] != GONE and now[f] == s.key}
            gone = [f for f, s in found.items() if s is None and now[f] == GONE]
            self.put(scope, put)
            self.drop(scope, gone)
        return len(put) + len(gone)

    def _rows(self, scope: Scope, fnames: list[str]) -> dict[str, FileState]:
        """The rows the catalogue holds for ``fnames``."""
        found: dict[str, FileState] = {}
        for first in range(0, len(fnames), 500):
            chunk = fnames[first : first + 500]
            query = f"SELECT {_COLUMNS} FROM {_schema(scope)}.files WHERE fname IN ({','.join('?' * len(chunk))})"
            found.update((row[0], _state(row)) for row in self.conn.execute(query, chunk))
        return found

    def _bump(self, scope: Scope) -> int:
        seq = int(self.meta(scope, "seq") or 0) + 1
        self._set(scope, "seq", seq)
        return seq

    def _count_names(self, scope: Scope, added: list[tuple[str, int]], removed: list[tuple[str, int]]) -> None:
        """Keep the listing digest (``names_digest``) of what the catalogue holds."""
        if not added and not removed:
            return
        count, total = self.meta(scope, "names") or names_digest([])
        plus, minus = names_digest(added), names_digest(removed)
        self._set(scope, "names", [count + plus[0] - minus[0], (total + plus[1] - minus[1]) & _MASK])

    # -- reading rows ----------------------------------------------------------------------------------------

    def row(self, scope: Scope, fname: str) -> FileState | None:
        """What the file ``fname`` gave when last read, or None when the catalogue has no such file."""
        found = self.conn.execute(f"SELECT {_COLUMNS} FROM {_schema(scope)}.files WHERE fname = ?", (fname,)).fetchone()
        return _state(found) if found is not None else None

    def keys(self, scope: Scope) -> dict[str, tuple[int, int | None, int]]:
        """Every file's listed inode, stat key signature (``signature``) and whether it was settled: what a scan
        compares with, read as plain integers (100,000 rows in tens of milliseconds)."""
        rows = self.conn.execute(f"SELECT fname, ino, sig, settled FROM {_schema(scope)}.files").fetchall()
        return {fname: (ino, sig, settled) for fname, ino, sig, settled in rows}

    def inodes(self, scope: Scope) -> dict[str, int]:
        """Every file's listed inode: what a listing is compared with."""
        return dict(self.conn.execute(f"SELECT fname, ino FROM {_schema(scope)}.files"))

    def names(self) -> list[str]:
        """The names of every valid memory of both folders, sorted, each once."""
        user, project = _schema(Scope.USER), _schema(Scope.PROJECT)
        query = (
            f"SELECT name FROM {project}.files WHERE problem IS NULL UNION "
            f"SELECT name FROM {user}.files WHERE problem IS NULL ORDER BY name"
        )
        return [row[0] for row in self.conn.execute(query)]

    def fnames(self, scope: Scope) -> set[str]:
        """The file names ``scope``'s catalogue holds."""
        return {row[0] for row in self.conn.execute(f"SELECT fname FROM {_schema(scope)}.files")}

    def valid(self, scope: Scope, *, newest: int | None = None) -> Iterator[MemoryEntry]:
        """The valid memories of ``scope``'s folder: by name, or the ``newest`` most recently updated (then
        newest first)."""
        order = "name" if newest is None else "updated DESC, name DESC LIMIT ?"  # -1: no limit
        query = f"SELECT {_COLUMNS} FROM {_schema(scope)}.files WHERE problem IS NULL ORDER BY {order}"
        for found in self.conn.execute(query, () if newest is None else (newest,)):
            entry = _state(found).entry
            assert entry is not None
            yield entry

    def page(self, scope: Scope, offset: int, limit: int | None, *, after: str = "") -> list[MemoryEntry]:
        """The memories of ``scope`` the view shows (as ``index_items``), by name: ``limit`` (None: all) from
        ``offset``, among those named after ``after`` (a list read a page at a time goes on from its last name)."""
        query = f"SELECT {_COLUMNS} FROM {_schema(scope)}.files WHERE problem IS NULL AND name > ?"
        if scope is Scope.USER:
            query += f" AND fname NOT IN (SELECT fname FROM {_schema(Scope.PROJECT)}.files WHERE problem IS NULL)"
        query += " ORDER BY name LIMIT ? OFFSET ?"
        found = self.conn.execute(query, (after, -1 if limit is None else limit, offset))
        return [_state(row).entry for row in found]  # type: ignore[misc]

    def dated(self, scope: Scope, before: tuple[str, str] | None, limit: int) -> list[MemoryEntry]:
        """The memories of ``scope`` the view shows (as ``page``), newest first — by update day, then name, both
        descending — ``limit`` of those that come after ``before`` (the ``(updated, name)`` of the last one read)."""
        query = f"SELECT {_COLUMNS} FROM {_schema(scope)}.files WHERE problem IS NULL"
        if before is not None:
            query += " AND (updated, name) < (?, ?)"
        if scope is Scope.USER:
            query += f" AND fname NOT IN (SELECT fname FROM {_schema(Scope.PROJECT)}.files WHERE problem IS NULL)"
        found = self.conn.execute(query + " ORDER BY updated DESC, name DESC LIMIT ?", (*(before or ()), limit))
        return [_state(row).entry for row in found]  # type: ignore[misc]

    def summaries(self, scope: Scope, after: str, limit: int) -> list[tuple[str, str, str]]:
        """``(name, description, type)`` of the memories of ``scope`` the view shows (as ``page``), by name: ``limit``
        of those named after ``after`` (what a list prints, without making a memory of each row)."""
        query = f"SELECT name, description, type FROM {_schema(scope)}.files WHERE problem IS NULL AND name > ?"
        if scope is Scope.USER:
            query += f" AND fname NOT IN (SELECT fname FROM {_schema(Scope.PROJECT)}.files WHERE problem IS NULL)"
        return self.conn.execute(query + " ORDER BY name LIMIT ?", (after, limit)).fetchall()

    def index_items(self, scope: Scope) -> Iterator[tuple[str, str]]:
        """``(name, description)`` of the memories of ``scope`` the view shows (a user memory hidden by this
        project's memory of the same name aside), by name: what ``MEMORY.md`` lists."""
        query = f"SELECT name, description FROM {_schema(scope)}.files WHERE problem IS NULL"
        if scope is Scope.USER:
            query += f" AND fname NOT IN (SELECT fname FROM {_schema(Scope.PROJECT)}.files WHERE problem IS NULL)"
        return iter(self.conn.execute(query + " ORDER BY name"))

    def count(self, scope: Scope) -> int:
        """How many valid memories ``scope``'s folder holds: its files (counted as they change) less the problems."""
        files = (self.meta(scope, "names") or [0])[0]
        return (
            files
            - self.conn.execute(f"SELECT count(*) FROM {_schema(scope)}.files WHERE problem IS NOT NULL").fetchone()[0]
        )

    def problems(self, scope: Scope) -> list[tuple[str, str]]:
        """The files of ``scope``'s folder that were skipped, and why."""
        return list(self.conn.execute(f"SELECT fname, problem FROM {_schema(scope)}.files WHERE problem IS NOT NULL"))

    def shadowed(self) -> list[str]:
        """The file names of valid user memories hidden by a valid project memory of the same name."""
        user, project = _schema(Scope.USER), _schema(Scope.PROJECT)
        query = (
            f"SELECT u.fname FROM {user}.files u JOIN {project}.files p ON p.fname = u.fname "
            "WHERE u.problem IS NULL AND p.problem IS NULL ORDER BY u.fname"
        )
        return [row[0] for row in self.conn.execute(query)]

    def changes_since(self, scope: Scope, seq: int) -> tuple[list[str], list[str]]:
        """The file names put and removed after change number ``seq``."""
        schema = _schema(scope)
        put = [r[0] for r in self.conn.execute(f"SELECT fname FROM {schema}.files WHERE seq > ?", (seq,))]
        gone = [r[0] for r in self.conn.execute(f"SELECT fname FROM {schema}.gone WHERE seq > ?", (seq,))]
        return put, gone


def differs(old: FileState, new: FileState) -> bool:
    """Whether reading a file again gave something else (being settled aside)."""
    return (old.key, old.listed_inode, old.entry, old.problem) != (new.key, new.listed_inode, new.entry, new.problem)


def _schema(scope: Scope) -> str:
    return f"scope_{scope.value}"


def _row(fname: str, state: FileState) -> tuple[Any, ...]:
    entry = state.entry
    stat = json.dumps(list(state.key)) if state.key is not None else None
    sig = signature(state.key)
    if entry is None:
        return (
            fname, state.listed_inode, stat, int(state.settled), None, None, None, None, None, None, state.problem, sig,
        )  # fmt: skip
    return (
        fname, state.listed_inode, stat, int(state.settled), entry.name, entry.description, entry.type.value,
        entry.created_at.isoformat(), entry.updated_at.isoformat(), entry.content, None, sig,
    )  # fmt: skip


def _key(stat: str | None) -> StatKey | None:
    return tuple(json.loads(stat)) if stat is not None else None


def _state(found: tuple[Any, ...]) -> FileState:
    _, ino, stat, settled, name, description, kind, created, updated, content, problem, _ = found
    if problem is not None:
        return FileState(_key(stat), ino, problem=problem, settled=bool(settled))
    entry = MemoryEntry.model_construct(
        name=name,
        description=description,
        type=MemoryType(kind),
        content=content,
        created_at=date.fromisoformat(created),
        updated_at=date.fromisoformat(updated),
    )  # fmt: skip  (model_construct: these values were validated when the file was read)
    return FileState(_key(stat), ino, entry, settled=bool(settled))
