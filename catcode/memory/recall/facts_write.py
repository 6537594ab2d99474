"""Writing the rows of ``facts.db``: a source into ``sources`` and ``docs_word`` (the ranked document), its facts
into the ``facts`` table and both fact indexes, and out again, inside one ``BEGIN IMMEDIATE`` transaction.
``facts.py`` decides what to write; ``facts_schema.py`` has the tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.fts_query import clean_text, spaced_cjk, split_facts


def delete_rows(conn: sqlite3.Connection, source_ids: list[str]) -> None:
    """Remove the facts of ``source_ids`` from the ``facts`` table and both fact indexes, their documents and their
    sources."""
    # The FTS tables are kept in step here, not by triggers: a trigger runs each FTS write as a statement
    # of its own, which made a bulk insert four times slower. 'delete' needs the indexed values back.
    params = [(sid,) for sid in source_ids]
    for sql in (
        "INSERT INTO facts_word(facts_word, rowid, words) "
        "SELECT 'delete', id, coalesce(words, text) FROM facts WHERE source_id = ?",
        "INSERT INTO facts_tri(facts_tri, rowid, text) SELECT 'delete', id, text FROM facts WHERE source_id = ?",
        "DELETE FROM facts WHERE source_id = ?",
        "DELETE FROM docs_word WHERE rowid = (SELECT id FROM sources WHERE source_id = ?)",
        "DELETE FROM sources WHERE source_id = ?",
    ):
        conn.executemany(sql, params)


def insert_rows(conn: sqlite3.Connection, sources: list[tuple[FactSource, str]]) -> int:
    """Add each ``(source, digest)`` and its facts (``split_facts``) to every table; how many facts were added.

    Sources get ascending ids in the order given, oldest first from the callers: among equally relevant
    documents the search puts the higher id, the newer one, first."""
    for s, digest in sources:
        cursor = conn.execute(
            "INSERT INTO sources(source_id, kind, date, scope, label, session, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (s.source_id, s.kind, s.date, s.scope, s.shown_as, s.session, digest),
        )
        columns = [clean_text(text) for text in (s.title, s.text, s.context)]
        conn.execute(
            "INSERT INTO docs_word(rowid, title, body, context) VALUES (?, ?, ?, ?)",
            (cursor.lastrowid, *(spaced_cjk(text) or text for text in columns)),
        )
    facts = [(s.source_id, fact) for s, _ in sources for fact in split_facts(s.text)]
    # Below every existing id (newest first, see facts_search) but ascending within the batch: FTS5 flushes its
    # pending terms whenever a rowid goes down, which made a bulk insert five times slower.
    first = conn.execute("SELECT coalesce(min(id), 0) FROM facts").fetchone()[0] - len(facts)
    rows = [(first + n, sid, fact, spaced_cjk(fact)) for n, (sid, fact) in enumerate(facts)]
    conn.executemany("INSERT INTO facts(id, source_id, text, words) VALUES (?, ?, ?, ?)", rows)
    conn.executemany("INSERT INTO facts_word(rowid, words) VALUES (?, ?)", [(r[0], r[3] or r[2]) for r in rows])
    conn.executemany("INSERT INTO facts_tri(rowid, text) VALUES (?, ?)", [(r[0], r[2]) for r in rows])
    return len(rows)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
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
