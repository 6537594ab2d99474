"""Recall at scale: ``FactsIndex``, the SQLite FTS5 index of atomic facts (``facts.db`` per project).

The index is derived from the memory files, daily/weekly/long-term summaries and compacted history; it is
never the source of truth. A missing, corrupt or outdated ``facts.db`` is recreated empty and refilled by the
caller's next ``sync()``. This module owns opening (and recreating) the database and keeping its rows in step
with the sources; its tables and row types are ``facts_schema.py``, writing its rows ``facts_write.py``, its
ranking ``facts_search.py``, its text handling (facts, queries, snippets) ``fts_query.py``.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from catcode.log import get_logger
from catcode.memory.recall.facts_schema import (
    SCHEMA,
    SCHEMA_VERSION,
    FactsIndexError,
    FactSource,
    Hit,
    SyncResult,
    is_corruption,
)
from catcode.memory.recall.facts_search import search_facts
from catcode.memory.recall.facts_write import delete_rows, insert_rows, write_transaction
from catcode.memory.recall.fts_query import parse_query

__all__ = ["FactsIndex"]

log = get_logger(__name__)
T = TypeVar("T")

OPTIMIZE_AFTER = 5_000
"""After inserting this many facts in one sync, merge the FTS segments: later queries read one b-tree."""


class FactsIndex:
    """The fact index in ``db_path``; thread-safe (one connection behind a lock), WAL for other processes."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self.open()

    # -- lifecycle -------------------------------------------------------------------------------------------

    def open(self) -> None:
        """Open facts.db, recreating it empty when it is unreadable, corrupt or of another schema version."""
        with self._lock:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            while self._conn is None:  # at most twice: a recreated file is empty
                conn = sqlite3.connect(self.db_path, timeout=5.0, isolation_level=None, check_same_thread=False)
                try:
                    problem = self._check(conn)
                except sqlite3.DatabaseError as exc:
                    conn.close()
                    if not is_corruption(exc):
                        raise FactsIndexError(f"cannot open the fact index {self.db_path}: {exc}") from exc
                    problem = f"corrupt: {exc}"
                if problem == "empty":
                    conn.executescript(SCHEMA)
                    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                if problem in (None, "empty"):
                    self._conn = conn
                else:
                    conn.close()
                    self._discard(problem)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @staticmethod
    def _check(conn: sqlite3.Connection) -> str | None:
        """Configure ``conn``; None when usable, "empty" for a new file, otherwise why it must be recreated."""
        # Autocommit (isolation_level=None): transactions are explicit BEGIN IMMEDIATE, never an upgraded read.
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA cache_size = -16384")  # 16 MiB for bulk writes
        # Reads through a memory map skip a pread() per page: the p95 of a search at 100k facts halves.
        conn.execute("PRAGMA mmap_size = 268435456")
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
        # Touch both FTS structures: a damaged shadow table shows up here rather than in the first search.
        conn.execute("SELECT rowid FROM facts_word WHERE facts_word MATCH 'x' LIMIT 1").fetchall()
        conn.execute("SELECT rowid FROM facts_tri WHERE facts_tri MATCH 'xyz' LIMIT 1").fetchall()
        return None

    def _discard(self, problem: str) -> None:
        """Move a corrupt facts.db aside (keeping only the newest such copy) or delete an outdated one."""
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

    def sync(self, sources: Iterable[FactSource]) -> SyncResult:
        """Make the index hold exactly ``sources``: one transaction; only a hash comparison when unchanged."""
        wanted = {s.source_id: (s, s.digest()) for s in sources}

        def op(conn: sqlite3.Connection) -> SyncResult:
            if dict(conn.execute("SELECT source_id, hash FROM sources")) == {k: v[1] for k, v in wanted.items()}:
                return SyncResult()
            with write_transaction(conn):
                have = dict(conn.execute("SELECT source_id, hash FROM sources"))
                gone = [sid for sid in have if sid not in wanted]
                fresh = [(s, digest) for sid, (s, digest) in wanted.items() if have.get(sid) != digest]
                delete_rows(conn, [*gone, *(s.source_id for s, _ in fresh if s.source_id in have)])
                inserted = insert_rows(conn, fresh)
                if inserted >= OPTIMIZE_AFTER:
                    conn.execute("INSERT INTO facts_word(facts_word) VALUES ('optimize')")
                    conn.execute("INSERT INTO facts_tri(facts_tri) VALUES ('optimize')")
            if inserted >= OPTIMIZE_AFTER:  # after COMMIT: reads then come from the memory map, not the WAL
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            changed = sum(1 for s, _ in fresh if s.source_id in have)
            result = SyncResult(added=len(fresh) - changed, changed=changed, removed=len(gone))
            log.info("facts_synced", added=result.added, changed=result.changed, removed=result.removed)
            return result

        return self._guarded(op, op)

    # -- freshness -------------------------------------------------------------------------------------------

    def is_fresh_for(self, fingerprint: str) -> bool:
        """True when the last ``mark_synced`` recorded ``fingerprint``: the caller may skip a full sync."""

        def op(conn: sqlite3.Connection) -> bool:
            row = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
            return row is not None and row[0] == fingerprint

        return self._guarded(op, lambda conn: False)

    def mark_synced(self, fingerprint: str) -> None:
        """Record that the index matches the on-disk state described by ``fingerprint``."""

        def op(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))

        self._guarded(op, op)

    def count(self) -> int:
        """How many facts are indexed."""
        return self._guarded(lambda conn: conn.execute("SELECT count(*) FROM facts").fetchone()[0], lambda c: 0)

    # -- reading ---------------------------------------------------------------------------------------------

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """The best ``limit`` facts for any text: word matches (AND, then OR) before substring matches."""
        parsed = parse_query(query)
        if parsed.empty or limit <= 0:
            return []
        return self._guarded(lambda conn: search_facts(conn, parsed, limit), lambda conn: [])
