"""Searching the fact index: the ranking tiers — word matches (AND, then OR) before substring matches, a plain
scan for queries under 3 characters — over one open ``facts.db`` connection, each tier BM25- or
occurrence-ranked within a bounded window so a query stays fast at 100,000 facts."""

from __future__ import annotations

import sqlite3

from catcode.memory.recall.facts_schema import Hit
from catcode.memory.recall.fts_query import ParsedQuery, like_pattern, make_snippet

__all__ = ["LIKE_SCAN_ROWS", "RANK_WINDOW", "search_facts"]

RANK_WINDOW = 100
"""BM25 ranks at most the newest 100 matches of each pass: ranking costs microseconds a row, and a word found in
half of 100,000 facts would cost 100+ ms. A query matching fewer rows (nearly every real one) is ranked in full."""
LIKE_SCAN_ROWS = 2_000
"""The LIKE fallback (queries under 3 characters) looks at the newest rows only, so it stays fast."""

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


def search_facts(conn: sqlite3.Connection, parsed: ParsedQuery, limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``parsed``, in rank order (the caller guards against corruption)."""
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
