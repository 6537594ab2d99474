"""Recall at scale: ``FactsIndex``, the SQLite FTS5 index of atomic facts (``facts.db`` per project).

The index is derived from the memory files, daily/weekly/long-term summaries, the compacted-history summary and
the conversation turns (history.jsonl and its archive); it is never the source of truth. A missing, corrupt or
outdated ``facts.db`` (another schema version: an older catcode's) is recreated empty and refilled by the
caller's next ``sync()`` and ``add_turns()``. This module owns opening (and recreating) the database and keeping
its rows in step with the sources; its tables and row types are ``facts_schema.py``, writing its rows
``facts_write.py``, the turns ``turns.py``, its ranking ``facts_search.py``, queries ``query.py``, its text
handling (facts, snippets) ``fts_query.py``. It stays one module past 250 lines: every operation goes through the
one connection, its lock and the corruption guard that recreates the file, and they read best together.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from catcode.file_modes import private_dir, private_file
from catcode.log import get_logger
from catcode.memory.recall.facts_schema import (
    KINDS,
    SCHEMA,
    SCHEMA_VERSION,
    FactsIndexError,
    FactSource,
    Hit,
    SyncResult,
    is_corruption,
)
from catcode.memory.recall.facts_search import search_facts
from catcode.memory.recall.facts_write import delete_rows, insert_newest_first, insert_rows, write_transaction
from catcode.memory.recall.query import parse_query
from catcode.memory.recall.turns import drop_turns_before, index_turns, indexed_turn_seq

if TYPE_CHECKING:
    from catcode.memory.pipeline.archive import Turn
    from catcode.memory.recall.coverage import Coverage

__all__ = ["FactsIndex"]

log = get_logger(__name__)
T = TypeVar("T")

OPEN_LOCKED_S = 30.0
"""Opening tries again for this long while another connection holds the file locked: switching a new file to WAL
needs it alone, and SQLite answers "database is locked" at once, without its busy wait, where waiting could
deadlock (many processes or threads opening one new file together, on a loaded machine)."""
NOT_TURNS = KINDS - {"turn"}
"""Every kind of source but the turns (``sync``'s default)."""
PRAGMAS = {"cache_size": -16384, "mmap_size": 268435456}
"""16 MiB of page cache for writes; reads through a memory map skip a pread() per page: the p95 of a search at 100k
facts halves."""
LEAN_PRAGMAS = {"cache_size": -2000, "mmap_size": 0}
"""While every memory of a large store is indexed (``sync_newest_first``), and always in a process that only writes
(``lean``: the background's upkeep): both counted in the process's RSS, for no gain there (measured at 20,000
memories: the same time, 24 MB less; at 100,000 a scan of the sources after the bulk insert mapped 70 MB of the
file, pages around each one read)."""
OPTIMIZE_AFTER = 5_000
"""After inserting this many facts in one sync, merge the FTS segments: later queries read one b-tree."""


class FactsIndex:
    """The fact index in ``db_path``; thread-safe (one connection behind a lock), WAL for other processes."""

    def __init__(self, db_path: Path, *, in_memory: bool = False, copy: bool = True, lean: bool = False) -> None:
        """``in_memory``: hold a copy of ``db_path``'s index in memory (what it holds when it can be read, else
        nothing; ``copy`` False: nothing) and never write the file — for when it cannot be written (a full disk):
        searches still work, the caller's sync fills in what the copy lacks, and nothing is saved. ``lean``: no
        memory map and a small cache (``LEAN_PRAGMAS``), for a process that writes rather than searches."""
        self.db_path = Path(db_path)
        self._pragmas = LEAN_PRAGMAS if lean else PRAGMAS
        self.in_memory = in_memory
        self._seed = in_memory and copy  # copy the file into memory on the first open (not after a reset)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self.open()

    # -- lifecycle -------------------------------------------------------------------------------------------

    def open(self) -> None:
        """Open facts.db, recreating it empty when it is unreadable, corrupt or of another schema version."""
        with self._lock:
            deadline = time.monotonic() + OPEN_LOCKED_S
            while self._conn is None:  # twice when a recreated file is empty; more while another holds it locked
                conn = self._connect()
                try:
                    problem = self._check(conn)
                except sqlite3.DatabaseError as exc:
                    conn.close()
                    if "locked" in str(exc) and time.monotonic() < deadline:
                        time.sleep(0.05)  # SQLite gives up at once where waiting could deadlock: try again
                        continue
                    if not is_corruption(exc):
                        raise FactsIndexError(f"cannot open the fact index {self.db_path}: {exc}") from exc
                    problem = f"corrupt: {exc}"
                if problem == "empty":
                    try:  # one transaction (see ``SCHEMA``): another process may be creating the tables too
                        conn.executescript(f"BEGIN IMMEDIATE;{SCHEMA}COMMIT;")
                    except sqlite3.DatabaseError as exc:
                        if conn.in_transaction:
                            conn.execute("ROLLBACK")
                        conn.close()
                        raise FactsIndexError(f"cannot create the fact index {self.db_path}: {exc}") from exc
                if problem in (None, "empty"):
                    self._conn = conn
                else:
                    conn.close()
                    self._discard(problem)

    def _connect(self) -> sqlite3.Connection:
        if not self.in_memory:
            private_dir(self.db_path.parent)
            private_file(self.db_path)  # SQLite keeps its mode, and gives it to -wal and -shm
            return sqlite3.connect(self.db_path, timeout=5.0, isolation_level=None, check_same_thread=False)
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        if self._seed and self.db_path.exists():
            self._seed = False
            try:  # immutable: no lock, no -shm file to create (the disk is full)
                source = sqlite3.connect(f"{self.db_path.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
                try:
                    source.backup(conn)
                finally:
                    source.close()
            except sqlite3.Error as exc:
                log.warning("facts_index_not_copied", path=str(self.db_path), error=str(exc))
                conn.close()
                conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        return conn

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _check(self, conn: sqlite3.Connection) -> str | None:
        """Configure ``conn``; None when usable, "empty" for a new file, otherwise why it must be recreated."""
        # Autocommit (isolation_level=None): transactions are explicit BEGIN IMMEDIATE, never an upgraded read.
        conn.execute("PRAGMA busy_timeout = 5000")
        for pragma, value in self._pragmas.items():
            conn.execute(f"PRAGMA {pragma} = {value}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # derived data: losing the last commit on power loss is fine
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if not names:
            return "empty"
        if "meta" not in names:
            return "unknown schema"
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            return f"schema version {row[0] if row else None} != {SCHEMA_VERSION}"
        # Touch the FTS structures: a damaged shadow table shows up here rather than in the first search.
        conn.execute("SELECT rowid FROM facts_word WHERE facts_word MATCH 'x' LIMIT 1").fetchall()
        conn.execute("SELECT rowid FROM facts_tri WHERE facts_tri MATCH 'xyz' LIMIT 1").fetchall()
        conn.execute("SELECT rowid FROM docs_word WHERE docs_word MATCH 'x' LIMIT 1").fetchall()
        return None

    def _discard(self, problem: str) -> None:
        """Move a corrupt facts.db aside (keeping only the newest such copy) or delete an outdated one (in memory:
        start again from an empty one)."""
        if self.in_memory:
            self._seed = False
            log.warning("facts_index_copy_recreated", path=str(self.db_path), reason=problem)
            return
        if problem.startswith("corrupt") and self.db_path.exists():
            for old in self.db_path.parent.glob(f"{self.db_path.name}.corrupt-*"):
                old.unlink(missing_ok=True)
            self.db_path.replace(self.db_path.with_name(f"{self.db_path.name}.corrupt-{int(time.time())}"))
        else:
            self.db_path.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm", "-journal"):
            self.db_path.with_name(self.db_path.name + suffix).unlink(missing_ok=True)
        log.warning("facts_index_recreated", path=str(self.db_path), reason=problem)

    def _guarded(self, op: Callable[[sqlite3.Connection], T], on_reset: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``op``; on corruption recreate the database and return ``on_reset`` run on the fresh one."""
        with self._lock:
            if self._conn is None:
                self.open()
            assert self._conn is not None
            try:
                return op(self._conn)
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc):
                    raise FactsIndexError(f"fact index {self.db_path}: {exc}") from exc
                self._conn.close()
                self._conn = None
                self._discard(f"corrupt: {exc}")
                self.open()
                assert self._conn is not None
                return on_reset(self._conn)

    # -- writing ---------------------------------------------------------------------------------------------

    def sync(self, sources: Iterable[FactSource], *, kinds: Collection[str] = NOT_TURNS) -> SyncResult:
        """Make the index hold exactly ``sources`` among its sources of ``kinds`` (default: all but the turns, which
        ``add_turns`` keeps): one transaction; only a hash comparison when unchanged."""
        wanted = {s.source_id: (s, s.digest()) for s in sources if s.kind in kinds}
        held = f"SELECT source_id, hash FROM sources WHERE kind IN ({','.join('?' * len(kinds))})"

        def op(conn: sqlite3.Connection) -> SyncResult:
            if dict(conn.execute(held, list(kinds))) == {k: v[1] for k, v in wanted.items()}:
                return SyncResult()
            with write_transaction(conn):
                have = dict(conn.execute(held, list(kinds)))
                result, inserted = _replace(conn, have, wanted, [sid for sid in have if sid not in wanted])
            return _synced(conn, result, inserted)

        return self._guarded(op, op)

    def sync_newest_first(self, sources: Callable[[], Iterable[FactSource]], *, kinds: Collection[str]) -> SyncResult:
        """``sync`` of more sources than are worth holding (every memory of a large store): ``sources()`` gives them
        newest first, read as they go, and is called twice — to compare digests, then to insert what changed — so
        only their ids and digests are held. The rows are the ones ``sync`` writes, with the same ids
        (``insert_newest_first``)."""
        held = f"SELECT source_id, hash FROM sources WHERE kind IN ({','.join('?' * len(kinds))})"

        def op(conn: sqlite3.Connection) -> SyncResult:
            for pragma, value in LEAN_PRAGMAS.items():  # not a search's: a memory map and a cache sized for reads
                conn.execute(f"PRAGMA {pragma} = {value}")
            try:
                return streamed(conn)
            finally:
                for pragma, value in self._pragmas.items():
                    conn.execute(f"PRAGMA {pragma} = {value}")

        def streamed(conn: sqlite3.Connection) -> SyncResult:
            with write_transaction(conn):  # what is held is compared and replaced in one go
                have = dict(conn.execute(held, list(kinds)))
                fresh: set[str] = set()
                kept: set[str] = set()
                for s in sources():
                    if s.kind in kinds:
                        (kept if have.get(s.source_id) == s.digest() else fresh).add(s.source_id)
                gone = [sid for sid in have if sid not in kept and sid not in fresh]
                if not fresh and not gone:
                    return SyncResult()
                delete_rows(conn, [*gone, *(sid for sid in fresh if sid in have)])
                todo = ((s, s.digest()) for s in sources() if s.source_id in fresh and s.kind in kinds)
                # another process may change a memory in between: only the sources found fresh above go in, so the
                # ids counted for them stay free (the next sync compares digests again)
                inserted = insert_newest_first(conn, _once(todo), len(fresh))
                if inserted >= OPTIMIZE_AFTER:
                    _optimize(conn)
                changed = sum(1 for sid in fresh if sid in have)
                result = SyncResult(added=len(fresh) - changed, changed=changed, removed=len(gone))
            return _synced(conn, result, inserted)

        return self._guarded(op, op)

    def update(self, sources: Iterable[FactSource], removed: Iterable[str]) -> SyncResult:
        """Replace each of ``sources`` whose digest changed, add the new ones and remove the ``removed`` source ids
        (what changed since the last sync, when the caller knows it: no other source is looked at)."""
        wanted = {s.source_id: (s, s.digest()) for s in sources}
        gone = [sid for sid in removed if sid not in wanted]

        def op(conn: sqlite3.Connection) -> SyncResult:
            with write_transaction(conn):
                have: dict[str, str] = {}
                ids = [*wanted, *gone]
                for first in range(0, len(ids), 500):
                    chunk = ids[first : first + 500]
                    query = f"SELECT source_id, hash FROM sources WHERE source_id IN ({','.join('?' * len(chunk))})"
                    have.update(conn.execute(query, chunk))
                result, inserted = _replace(conn, have, wanted, [sid for sid in gone if sid in have])
            return _synced(conn, result, inserted)

        return self._guarded(op, op)

    def add_turns(self, turns: Iterable[Turn], since: str = "") -> int:
        """Index the conversation turns after the last one indexed (see ``turns.py``), skipping those dated
        before ``since``; how many were added."""
        turns = list(turns)

        def op(conn: sqlite3.Connection) -> int:
            with write_transaction(conn):
                added = index_turns(conn, turns, since)
                if added >= OPTIMIZE_AFTER:
                    _optimize(conn)
            if added:
                log.info("facts_turns_indexed", added=added)
            return added

        return self._guarded(op, op)

    def drop_turns_before(self, day: str) -> int:
        """Remove the turns dated before ``day`` (YYYY-MM-DD) from the index; how many."""

        def op(conn: sqlite3.Connection) -> int:
            if conn.execute("SELECT 1 FROM turns WHERE date < ? LIMIT 1", (day,)).fetchone() is None:
                return 0
            with write_transaction(conn):
                return drop_turns_before(conn, day)

        return self._guarded(op, lambda conn: 0)

    def turn_seq(self) -> int:
        """The history seq of the last turn indexed (0 for none)."""
        return self._guarded(indexed_turn_seq, lambda conn: 0)

    # -- freshness -------------------------------------------------------------------------------------------

    def mark(self, key: str) -> str | None:
        """A value ``set_mark`` recorded (what the index was last synced to), or None."""

        def op(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (f"mark:{key}",)).fetchone()
            return row[0] if row is not None else None

        return self._guarded(op, lambda conn: None)

    def set_mark(self, key: str, value: str) -> None:
        """Record what the index was synced to (a recreated index has none: everything is synced again)."""

        def op(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"mark:{key}", value))

        self._guarded(op, op)

    def count(self) -> int:
        """How many facts are indexed."""
        return self._guarded(lambda conn: conn.execute("SELECT count(*) FROM facts").fetchone()[0], lambda c: 0)

    # -- reading ---------------------------------------------------------------------------------------------

    def turn_texts(self, source_ids: list[str]) -> dict[str, str]:
        """The whole text of the indexed turns among ``source_ids`` (``turn/<seq>``), by source id."""
        seqs = {int(sid.removeprefix("turn/")): sid for sid in source_ids if sid.startswith("turn/")}
        sql = f"SELECT seq, text FROM turns WHERE seq IN ({','.join('?' * len(seqs))})"
        if not seqs:
            return {}
        return self._guarded(lambda conn: {seqs[q]: t for q, t in conn.execute(sql, list(seqs))}, lambda c: {})

    def coverage(self, query: str, source_ids: list[str]) -> list[Coverage]:
        """How much of ``query`` each source of ``source_ids`` holds (``coverage.py``); a share of 0.0 for one that
        is not indexed."""
        return self._covering(query, source_ids, lambda covered: False)

    def first_covering(self, query: str, source_ids: list[str], min_share: float) -> Coverage | None:
        """The first source of ``source_ids`` whose words are about ``query`` (``Coverage.specific``) and hold at
        least ``min_share`` of it, or None; the sources after it are not looked at (per-turn recall's gate)."""

        def enough(covered: Coverage) -> bool:
            return covered.specific and covered.share >= min_share

        found = self._covering(query, source_ids, enough)
        return found[-1] if found and enough(found[-1]) else None

    def _covering(self, query: str, source_ids: list[str], enough: Callable[[Coverage], bool]) -> list[Coverage]:
        """The coverage of each source in turn, up to the first that is ``enough``."""
        from catcode.memory.recall.coverage import Coverage, coverage

        parsed = parse_query(query)
        blank = Coverage(0.0, (), len(parsed.terms))

        def op(conn: sqlite3.Connection) -> list[Coverage]:
            marks = ",".join("?" * len(source_ids))
            ids = dict(conn.execute(f"SELECT source_id, id FROM sources WHERE source_id IN ({marks})", source_ids))
            if parsed.empty or not ids:
                return [blank for _ in source_ids]
            computed = coverage(conn, parsed, [ids[sid] for sid in source_ids if sid in ids])
            found = []
            for sid in source_ids:
                found.append(next(computed) if sid in ids else blank)
                if enough(found[-1]):
                    break
            return found

        return self._guarded(op, lambda conn: [blank for _ in source_ids])

    def search(self, query: str, limit: int = 10, *, session: str = "") -> list[Hit]:
        """The best ``limit`` sources for any text, one hit each with its best fact (see ``facts_search``); the
        turns of ``session`` are left out."""
        parsed = parse_query(query)
        if parsed.empty or limit <= 0:
            return []
        return self._guarded(lambda conn: search_facts(conn, parsed, limit, session), lambda conn: [])


def _replace(
    conn: sqlite3.Connection, have: dict[str, str], wanted: dict[str, tuple[FactSource, str]], gone: list[str]
) -> tuple[SyncResult, int]:
    """Inside a write transaction: remove ``gone`` and the sources of ``wanted`` whose digest changed, insert those
    (newest last: ids follow dates, the newer wins a tie in the ranking); what changed and how many facts went in."""
    fresh = [(s, digest) for sid, (s, digest) in wanted.items() if have.get(sid) != digest]
    fresh.sort(key=lambda pair: pair[0].date)
    delete_rows(conn, [*gone, *(s.source_id for s, _ in fresh if s.source_id in have)])
    inserted = insert_rows(conn, fresh)
    if inserted >= OPTIMIZE_AFTER:
        _optimize(conn)
    changed = sum(1 for s, _ in fresh if s.source_id in have)
    return SyncResult(added=len(fresh) - changed, changed=changed, removed=len(gone)), inserted


def _once(pairs: Iterable[tuple[FactSource, str]]) -> Iterator[tuple[FactSource, str]]:
    """``pairs`` with each source id once (a memory renamed between two pages of a read could come twice)."""
    seen: set[str] = set()
    for source, digest in pairs:
        if source.source_id not in seen:
            seen.add(source.source_id)
            yield source, digest


def _synced(conn: sqlite3.Connection, result: SyncResult, inserted: int) -> SyncResult:
    """After COMMIT: a large insert is checkpointed (reads then come from the memory map, not the WAL); logged."""
    if inserted >= OPTIMIZE_AFTER:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if result.added or result.changed or result.removed:
        log.info("facts_synced", added=result.added, changed=result.changed, removed=result.removed)
    return result


def _optimize(conn: sqlite3.Connection) -> None:
    """Merge the FTS segments after a bulk insert: later queries read one b-tree per index."""
    for table in ("facts_word", "facts_tri", "docs_word"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
