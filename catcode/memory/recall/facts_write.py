"""Writing the rows of ``facts.db``: a source into ``sources`` and ``docs_word`` (the ranked document), its facts
into the ``facts`` table and both fact indexes, and out again, inside one ``BEGIN IMMEDIATE`` transaction.
``facts.py`` decides what to write; ``facts_schema.py`` has the tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
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


def insert_rows(conn: sqlite3.Connection, sources: list[tuple[FactSource, str]], *, top: int | None = None) -> int:
    """Add each ``(source, digest)`` and its facts (``split_facts``) to every table; how many facts were added.

    Sources get ascending ids in the order given, oldest first from the callers: among equally relevant
    documents the search puts the higher id, the newer one, first. ``top``: the id of the last one (a batch of a
    larger insert made newest batch first, ``insert_newest_first``); None: after every id held."""
    first_id = None if top is None else top - len(sources) + 1
    for n, (s, digest) in enumerate(sources):
        row_id = None if first_id is None else first_id + n
        cursor = conn.execute(
            "INSERT INTO sources(id, source_id, kind, date, scope, label, session, hash) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (row_id, s.source_id, s.kind, s.date, s.scope, s.shown_as, s.session, digest),
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


INSERT_BATCH = 2_000
"""Sources a batch of ``insert_newest_first`` holds (their facts and rows with them)."""


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


def insert_newest_first(conn: sqlite3.Connection, newest_first: Iterable[tuple[FactSource, str]], count: int) -> int:
    """``insert_rows`` of ``count`` sources given newest first (the reverse of ``insert_rows``' order), a batch of
    ``INSERT_BATCH`` at a time, never all held: every row gets the id ``insert_rows`` of them all at once gives it
    (sources after every id held, ascending oldest first; their facts below every fact id, ascending), as each
    batch goes below the one before it. How many facts were added."""
    top = (conn.execute("SELECT coalesce(max(id), 0) FROM sources").fetchone()[0]) + count
    inserted, batch = 0, []
    for pair in newest_first:
        batch.append(pair)
        if len(batch) == INSERT_BATCH:
            inserted += insert_rows(conn, batch[::-1], top=top)
            top, batch = top - len(batch), []
    if batch:
        inserted += insert_rows(conn, batch[::-1], top=top)
    return inserted
