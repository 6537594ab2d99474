"""Recall at scale: a SQLite FTS5 index of atomic facts (``facts.db`` per project).

The index is derived from the memory files, daily/weekly/long-term summaries and compacted history; it is
never the source of truth. A missing, corrupt or outdated ``facts.db`` is recreated empty and refilled by the
caller's next ``sync()``. Two FTS5 tables index the same rows: ``facts_word`` (unicode61, diacritics removed,
``_`` kept inside words so ``user_service`` is one token; CJK characters spaced, see ``fts_query``) and
``facts_tri`` (trigram: substrings such as ``c++``, ``Service`` inside ``UserService``, CJK words).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from catcode.errors import CatcodeError
from catcode.log import get_logger
from catcode.memory.fts_query import ParsedQuery, like_pattern, make_snippet, parse_query, spaced_cjk, split_facts

__all__ = ["FactSource", "FactsIndex", "FactsIndexError", "Hit", "SyncResult", "split_facts"]

log = get_logger(__name__)
T = TypeVar("T")

SCHEMA_VERSION = "1"
KINDS = frozenset({"memory", "daily", "weekly", "longterm", "compacted"})
RANK_WINDOW = 100
"""BM25 ranks at most the newest 100 matches of each pass: ranking costs microseconds a row, and a word found in
half of 100,000 facts would cost 100+ ms. A query matching fewer rows (nearly every real one) is ranked in full."""
LIKE_SCAN_ROWS = 2_000
"""The LIKE fallback (queries under 3 characters) looks at the newest rows only, so it stays fast."""
OPTIMIZE_AFTER = 5_000
"""After inserting this many facts in one sync, merge the FTS segments: later queries read one b-tree."""

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sources(source_id TEXT PRIMARY KEY, kind TEXT NOT NULL, date TEXT NOT NULL, scope TEXT NOT NULL,
                     hash TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE facts(id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, text TEXT NOT NULL, words TEXT);
CREATE INDEX facts_by_source ON facts(source_id);
CREATE VIRTUAL TABLE facts_word USING fts5(words, content='',
    tokenize="unicode61 remove_diacritics 2 tokenchars '_'");
CREATE VIRTUAL TABLE facts_tri USING fts5(text, content='facts', content_rowid='id', tokenize='trigram');
"""
# Fact ids count down, so FTS5's natural ascending rowid order is newest first (reading a doclist backwards is
# ~1.7x slower). A pass reads at most RANK_WINDOW matches; bm25 is computed only for those rows.
_WORD_SQL = "SELECT rowid, -bm25(facts_word) FROM facts_word WHERE facts_word MATCH ? ORDER BY rowid LIMIT ?"
_WORD_TEXT_SQL = """
SELECT w.rowid, -bm25(facts_word), f.text FROM facts_word w JOIN facts f ON f.id = w.rowid
WHERE facts_word MATCH ? ORDER BY w.rowid LIMIT ?
"""
_TRIGRAM_SQL = """
SELECT t.rowid, f.text FROM facts_tri t JOIN facts f ON f.id = t.rowid WHERE facts_tri MATCH ? ORDER BY t.rowid LIMIT ?
"""
_LIKE_SQL = """
SELECT id, 0.0 FROM facts WHERE id < (SELECT coalesce(min(id), 0) FROM facts) + ? AND text LIKE ? ESCAPE '\\'
ORDER BY id LIMIT ?
"""
_ROWS_SQL = """
SELECT f.id, f.source_id, s.kind, s.date, s.scope, f.text FROM facts f JOIN sources s ON s.source_id = f.source_id
WHERE f.id IN ({marks})
"""


class FactsIndexError(CatcodeError):
    """facts.db could not be used for a reason other than corruption (e.g. locked for longer than 5 s)."""


@dataclass(frozen=True, slots=True)
class FactSource:
    """One indexed document: a memory, a daily/weekly/long-term summary or a compacted history summary."""

    source_id: str
    """``memory`` → the memory name; ``daily`` → ``daily/2026-11-30``; unique across the index."""
    kind: str
    """One of ``memory``, ``daily``, ``weekly``, ``longterm``, ``compacted``."""
    date: str
    """ISO date (YYYY-MM-DD), for display."""
    text: str
    """The text to cut into facts."""
    scope: str = "project"
    """``user`` or ``project``."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fact source kind {self.kind!r}; expected one of {sorted(KINDS)}")

    def digest(self) -> str:
        """A hash of everything stored for this source: a changed digest means its rows must be replaced."""
        raw = "\x1f".join((self.kind, self.date, self.scope, self.text))
        return hashlib.blake2b(raw.encode("utf-8", "replace"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, best first in the list ``search`` returns."""

    source_id: str
    kind: str
    date: str
    snippet: str
    """The fact, or a window of at most ~200 characters around the match."""
    score: float
    """Relevance within its tier, higher is better: BM25 for word matches, occurrences per length for substring
    matches, 0.0 for the plain scan of queries under 3 characters. The list is already in rank order."""
    scope: str = "project"

    @property
    def label(self) -> str:
        """Where the fact comes from, e.g. ``memory user-prefers-vim (2026-08-06)``."""
        return f"{self.kind} {self.source_id} ({self.date})"


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What one ``sync`` changed, counted in sources."""

    added: int = 0
    changed: int = 0
    removed: int = 0


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """SQLITE_CORRUPT / SQLITE_NOTADB (any extended code), as opposed to a lock or a programming error."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (11, 26):
        return True
    return bool(re.search(r"malformed|not a database|corrupt", str(exc), re.IGNORECASE))


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
                    if not _is_corruption(exc):
                        raise FactsIndexError(f"cannot open the fact index {self.db_path}: {exc}") from exc
                    problem = f"corrupt: {exc}"
                if problem == "empty":
                    conn.executescript(_SCHEMA)
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

    def __enter__(self) -> FactsIndex:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

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
                if not _is_corruption(exc):
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
            with _write(conn):
                have = dict(conn.execute("SELECT source_id, hash FROM sources"))
                gone = [sid for sid in have if sid not in wanted]
                fresh = [(s, digest) for sid, (s, digest) in wanted.items() if have.get(sid) != digest]
                self._delete_rows(conn, [*gone, *(s.source_id for s, _ in fresh if s.source_id in have)])
                inserted = self._insert_rows(conn, fresh)
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

    def upsert(self, source: FactSource) -> None:
        """Index ``source``, replacing its previous rows (no-op when its text and metadata are unchanged)."""
        digest = source.digest()

        def op(conn: sqlite3.Connection) -> None:
            with _write(conn):
                row = conn.execute("SELECT hash FROM sources WHERE source_id = ?", (source.source_id,)).fetchone()
                if row is None or row[0] != digest:
                    self._delete_rows(conn, [source.source_id])
                    self._insert_rows(conn, [(source, digest)])

        self._guarded(op, op)

    def delete(self, source_id: str) -> None:
        """Remove every fact of ``source_id`` (no-op when it is not indexed)."""

        def op(conn: sqlite3.Connection) -> None:
            with _write(conn):
                self._delete_rows(conn, [source_id])

        self._guarded(op, lambda conn: None)

    @staticmethod
    def _delete_rows(conn: sqlite3.Connection, source_ids: list[str]) -> None:
        # The FTS tables are kept in step here, not by triggers: a trigger runs each FTS write as a statement
        # of its own, which made a bulk insert four times slower. 'delete' needs the indexed values back.
        params = [(sid,) for sid in source_ids]
        for sql in (
            "INSERT INTO facts_word(facts_word, rowid, words) "
            "SELECT 'delete', id, coalesce(words, text) FROM facts WHERE source_id = ?",
            "INSERT INTO facts_tri(facts_tri, rowid, text) SELECT 'delete', id, text FROM facts WHERE source_id = ?",
            "DELETE FROM facts WHERE source_id = ?",
            "DELETE FROM sources WHERE source_id = ?",
        ):
            conn.executemany(sql, params)

    @staticmethod
    def _insert_rows(conn: sqlite3.Connection, sources: list[tuple[FactSource, str]]) -> int:
        conn.executemany(
            "INSERT INTO sources VALUES (?, ?, ?, ?, ?)",
            [(s.source_id, s.kind, s.date, s.scope, digest) for s, digest in sources],
        )
        facts = [(s.source_id, fact) for s, _ in sources for fact in split_facts(s.text)]
        # Below every existing id (newest first, see _WORD_SQL) but ascending within the batch: FTS5 flushes its
        # pending terms whenever a rowid goes down, which made a bulk insert five times slower.
        first = conn.execute("SELECT coalesce(min(id), 0) FROM facts").fetchone()[0] - len(facts)
        rows = [(first + n, sid, fact, spaced_cjk(fact)) for n, (sid, fact) in enumerate(facts)]
        conn.executemany("INSERT INTO facts(id, source_id, text, words) VALUES (?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO facts_word(rowid, words) VALUES (?, ?)", [(r[0], r[3] or r[2]) for r in rows])
        conn.executemany("INSERT INTO facts_tri(rowid, text) VALUES (?, ?)", [(r[0], r[2]) for r in rows])
        return len(rows)

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
        return self._guarded(lambda conn: self._search(conn, parsed, limit), lambda conn: [])

    def _search(self, conn: sqlite3.Connection, parsed: ParsedQuery, limit: int) -> list[Hit]:
        found: dict[int, float] = {}  # fact id → score, in rank order

        def add(rows: list[tuple[int, float]]) -> None:
            for fact_id, score in rows:
                if len(found) < limit:
                    found.setdefault(fact_id, score)

        def words(op: str) -> None:
            expr = parsed.word_expr(op)
            if expr and len(found) < limit:
                if not parsed.has_symbols:
                    add(sorted(conn.execute(_WORD_SQL, (expr, RANK_WINDOW)), key=lambda row: -row[1]))
                    return
                # The tokenizer drops symbols ("c++" → "c"): facts holding the chunks as typed go first.
                rows = conn.execute(_WORD_TEXT_SQL, (expr, RANK_WINDOW)).fetchall()
                rows.sort(key=lambda row: (not parsed.contains_all(row[2]), -row[1]))
                add([(fact_id, score) for fact_id, score, _ in rows])

        def substrings(op: str) -> None:
            expr = parsed.trigram_expr(op)
            if expr and len(found) < limit:
                rows = conn.execute(_TRIGRAM_SQL, (expr, RANK_WINDOW)).fetchall()
                scored = ((fact_id, parsed.substring_score(text, op)) for fact_id, text in rows)
                add(sorted(((i, score) for i, score in scored if score is not None), key=lambda row: -row[1]))

        words("AND")
        substrings("AND")
        if not found and parsed.word_expr("OR") != parsed.word_expr("AND"):
            words("OR")
        if not found and len(parsed.substrings) > 1:
            substrings("OR")
        for chunk in parsed.short_chunks if not found else []:
            add(conn.execute(_LIKE_SQL, (LIKE_SCAN_ROWS, like_pattern(chunk), limit - len(found))).fetchall())
        if not found:
            return []
        rows = {r[0]: r[1:] for r in conn.execute(_ROWS_SQL.format(marks=",".join("?" * len(found))), [*found])}
        needles = parsed.needles()
        return [
            Hit(source_id, kind, date, make_snippet(text, needles), score, scope)
            for fact_id, score in found.items()
            for source_id, kind, date, scope, text in [rows[fact_id]]
        ]


@contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error): the write lock is taken up front, so two
    processes never deadlock upgrading a read transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
